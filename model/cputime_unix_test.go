//go:build unix

package model

import (
	"syscall"
	"time"
)

// processCPU returns the user+system CPU time of this process, all threads
// included: on a shared machine wall time includes time spent descheduled.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
