package thp

import (
	"os"
	"strings"
	"syscall"
	"testing"
)

func minorFaults() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Minflt
}

// touch allocates n bytes and writes one byte of every 4 KiB page, and
// returns the minor page faults that cost.
func touch(n int) int64 {
	before := minorFaults()
	b := make([]byte, n)
	for i := 0; i < n; i += 4096 {
		b[i] = 1
	}
	return minorFaults() - before
}

// TestHeap checks that, after Heap, 32 MiB of fresh heap costs at most a
// quarter of the faults of 4 KiB pages (8,192), where the kernel offers
// huge pages on request (THP mode "madvise" or "always"); about 20 is usual,
// the margin is for a kernel short of free 2 MiB blocks, which then falls
// back to 4 KiB pages for some. Where THP is off, Heap must still leave the
// heap working.
func TestHeap(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	offered := err == nil && !strings.Contains(string(mode), "[never]")
	if err := Heap(DefaultBytes); err != nil && offered {
		t.Fatalf("Heap: %v (THP mode %q)", err, strings.TrimSpace(string(mode)))
	}
	faults := touch(32 << 20)
	t.Logf("THP mode %q: 32 MiB of heap took %d faults", strings.TrimSpace(string(mode)), faults)
	if offered && faults > 8192/4 {
		t.Errorf("32 MiB of heap after Heap took %d page faults, want at most %d", faults, 8192/4)
	}
}
