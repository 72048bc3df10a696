package thp

import (
	"runtime"
	"runtime/debug"
	"syscall"
	"unsafe"
)

const (
	hugePage     = 2 << 20
	madvHugePage = 14 // MADV_HUGEPAGE
)

// Heap asks the kernel to back n bytes of the Go heap, the part that the
// next allocations take, with transparent huge pages. It allocates n bytes
// without touching them, marks the 2 MiB pages inside them MADV_HUGEPAGE,
// drops them and collects them, so that the runtime's page allocator, which
// hands out the lowest free addresses first, places what follows there.
// The pages are not touched, so nothing is resident until used. It returns
// the error of madvise: EINVAL where the kernel has no THP, in which case
// nothing changed. Call it once, first thing in main.
func Heap(n int) error {
	// No collection while the n bytes are taken: only the one below.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	b := make([]byte, n)
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := (p + hugePage - 1) &^ (hugePage - 1)
	end := (p + uintptr(n)) &^ (hugePage - 1)
	var err error
	if end > start {
		if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, start, end-start, madvHugePage); e != 0 {
			err = e
		}
	}
	runtime.KeepAlive(b)
	runtime.GC()
	return err
}
