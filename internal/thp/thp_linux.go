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
	madvPopulate = 22 // MADV_POPULATE_READ (Linux 5.14)
)

// Heap asks the kernel to back n bytes of the Go heap, the part that the
// next allocations take, with transparent huge pages. It allocates n bytes
// without touching them, marks the 2 MiB pages inside them MADV_HUGEPAGE,
// drops them and collects them, so that the runtime's page allocator, which
// hands out the lowest free addresses first, places what follows there.
// The pages are not touched here, so nothing is resident until used. The
// cost is memory: a huge page is zeroed and kept whole at its first touch,
// and the runtime clears memory it has handed out once before reusing it,
// so a large allocation made there is written whole (a 3-s alignment's
// resident memory went from 27 to 54 MB). It returns the error of
// madvise, if any, in which case nothing changed. Call it once, first
// thing in main.
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

// Populate asks the kernel to map every page of b now, in one call, for
// memory that will be read soon: file-backed memory such as the
// executable's data is otherwise mapped by one page fault per 64 KiB
// read, each costing microseconds on a virtual machine. The pages' contents
// do not change. It returns the error of madvise (EINVAL before Linux 5.14),
// in which case the pages are mapped as they are read, as before.
func Populate(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := p &^ uintptr(syscall.Getpagesize()-1) // madvise wants a page-aligned start
	if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, start, p+uintptr(len(b))-start, madvPopulate); e != 0 {
		return e
	}
	return nil
}
