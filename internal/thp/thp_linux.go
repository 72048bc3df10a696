package thp

import (
	"runtime"
	"runtime/debug"
	"strings"
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
//
// What follows the collection fills the freed bytes from their start, and
// the part below their first huge page (half a megabyte on average) is on
// 4 KiB pages that fault one by one: Heap holds that part for good without
// touching it, so that the next allocations start on a huge page (a 3-s
// alignment's page faults varied from 620 to 1,040 with where the heap
// began).
func Heap(n int) error {
	// No collection while the n bytes are taken: only the one below.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	b := make([]byte, n)
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start, end, err := adviseHuge(p, uintptr(n))
	runtime.KeepAlive(b)
	runtime.GC()
	if gap := start - p; err == nil && gap > 0 && end > start {
		if gap <= maxSmall {
			gap += hugePage // a small object would come from a span elsewhere
		}
		// A large object takes the lowest free run of pages that fits: a
		// hold may land in a free run below p first, which it then fills.
		for range 8 {
			if q := hold(int(gap)); q == nil || uintptr(q) == p {
				break
			}
		}
	}
	return err
}

// maxSmall is the largest object the runtime allocates from a span shared
// with others.
const maxSmall = 32 << 10

// held keeps the memory of hold.
var held []*strings.Builder

// hold allocates n bytes of heap that the runtime neither clears nor
// touches (a strings.Builder's buffer) and keeps them for the life of the
// process. It returns their address, or nil when it cannot tell.
func hold(n int) unsafe.Pointer {
	sb := new(strings.Builder)
	sb.Grow(n)
	held = append(held, sb)
	return unsafe.Pointer(unsafe.StringData(sb.String()))
}

func alignUp(p uintptr) uintptr { return (p + hugePage - 1) &^ (hugePage - 1) }

// adviseHuge marks the whole 2 MiB pages inside the n bytes at p
// MADV_HUGEPAGE and returns their bounds [start, end) (end <= start: none)
// and the error of madvise, if any.
func adviseHuge(p, n uintptr) (start, end uintptr, err error) {
	start, end = alignUp(p), (p+n)&^(hugePage-1)
	if end > start {
		if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, start, end-start, madvHugePage); e != 0 {
			err = e
		}
	}
	return start, end, err
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

// Floats returns a zeroed slice of n float32 with capacity n, for a large
// buffer that lives as long as the process (a one-shot command's audio).
// On Linux it is mapped apart from the Go heap, on huge pages where the
// kernel gives them: the heap's pages for a fresh 230 MB slice (an hour
// of audio) cost about 56,000 faults of 4 KiB and a clearing pass, a
// mapping on huge pages about 110 faults. The memory is never returned:
// do not call it in a loop. Where the mapping fails it falls back to make.
func Floats(n int) []float32 {
	if n <= 0 {
		return nil
	}
	b, err := syscall.Mmap(-1, 0, n*4, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return make([]float32, n)
	}
	adviseHuge(uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b))) // without huge pages, small ones
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(b))), n)
}
