//go:build !unix

package model

import "time"

// processCPU is unknown here; benchmarks then report wall time only.
func processCPU() time.Duration { return 0 }
