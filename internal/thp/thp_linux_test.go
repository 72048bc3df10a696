package thp

import (
	"bytes"
	"os"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

func minorFaults() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Minflt
}

// thpMode returns the kernel's THP mode and whether it offers huge pages
// on request ("madvise" or "always").
func thpMode() (string, bool) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	return strings.TrimSpace(string(mode)), err == nil && !strings.Contains(string(mode), "[never]")
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
	mode, offered := thpMode()
	if err := Heap(DefaultBytes); err != nil && offered {
		t.Fatalf("Heap: %v (THP mode %q)", err, mode)
	}
	faults := touch(32 << 20)
	t.Logf("THP mode %q: 32 MiB of heap took %d faults", mode, faults)
	if offered && faults > 8192/4 {
		t.Errorf("32 MiB of heap after Heap took %d page faults, want at most %d", faults, 8192/4)
	}
}

// TestPopulate maps 8 MiB of anonymous memory on 4 KiB pages and checks
// that, after Populate, reading one byte of every page costs almost no
// faults, where reading a second such mapping without Populate costs one
// fault per page (2,048). A file mapped and populated keeps its contents.
func TestPopulate(t *testing.T) {
	const n = 8 << 20
	read := func(populate bool) int64 {
		m, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_ANON)
		if err != nil {
			t.Fatal(err)
		}
		defer syscall.Munmap(m)
		if err := syscall.Madvise(m, 15); err != nil { // MADV_NOHUGEPAGE: one fault per 4 KiB page
			t.Fatal(err)
		}
		if populate {
			if err := Populate(m[1:]); err == syscall.EINVAL {
				t.Skip("MADV_POPULATE_READ needs Linux 5.14")
			} else if err != nil {
				t.Fatal(err)
			}
		}
		before := minorFaults()
		sum := 0
		for i := 0; i < n; i += 4096 {
			sum += int(m[i])
		}
		if sum != 0 {
			t.Fatalf("fresh anonymous memory reads %d, want zeros", sum)
		}
		return minorFaults() - before
	}
	without, with := read(false), read(true)
	t.Logf("reading 8 MiB: %d faults, %d after Populate", without, with)
	if without < 1024 {
		t.Fatalf("reading 8 MiB of 4 KiB pages took %d faults, want about 2,048: the test measures nothing", without)
	}
	if with > 16 {
		t.Errorf("after Populate, reading 8 MiB took %d faults, want at most 16", with)
	}

	path := t.TempDir() + "/f"
	data := make([]byte, 1<<20)
	for i := range data {
		data[i] = byte(i * 7)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := syscall.Mmap(int(f.Fd()), 0, len(data), syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(m)
	if err := Populate(m[100:]); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(m, data) {
		t.Error("a populated file mapping does not read the file's bytes")
	}
	if err := Populate(nil); err != nil {
		t.Errorf("Populate(nil) = %v, want nil", err)
	}
}

// TestHold checks that hold gives distinct runtime pages (8 KiB aligned)
// that the allocator did not touch: reading the last megabyte of a held
// 256 MiB (beyond anything the heap used before) faults its 4 KiB pages
// in one by one.
func TestHold(t *testing.T) {
	const n, m = 256 << 20, 1 << 20
	a, b := hold(m), hold(n)
	if a == nil || b == nil || a == b || uintptr(a)%8192 != 0 || uintptr(b)%8192 != 0 {
		t.Fatalf("hold gave %p and %p, want distinct 8 KiB-aligned addresses", a, b)
	}
	buf := unsafe.Slice((*byte)(unsafe.Add(b, n-m)), m)
	if err := syscall.Madvise(buf, 15); err != nil { // MADV_NOHUGEPAGE: count 4 KiB pages
		t.Skip(err)
	}
	before := minorFaults()
	sum := 0
	for i := 0; i < m; i += 4096 {
		sum += int(buf[i])
	}
	if faults := minorFaults() - before; faults < m/4096/2 {
		t.Errorf("reading a held megabyte took %d faults, want about %d: the allocator touched it", faults, m/4096)
	}
	if sum != 0 {
		t.Logf("held memory is not cleared (sum %d)", sum) // allowed; reading it keeps the loop
	}
}

// TestFloats checks that Floats gives n zeros, that they can be written and
// appended to, and that writing 32 MiB of them costs at most a quarter of
// the faults of 4 KiB pages (8,192) where the kernel offers huge pages.
func TestFloats(t *testing.T) {
	mode, offered := thpMode()
	const n = 8 << 20 // 32 MiB
	before := minorFaults()
	f := Floats(n)
	if len(f) != n || cap(f) != n {
		t.Fatalf("len %d cap %d, want %d", len(f), cap(f), n)
	}
	for i := 0; i < n; i += 1024 {
		if f[i] != 0 {
			t.Fatalf("f[%d] = %g, want 0", i, f[i])
		}
		f[i] = float32(i)
	}
	faults := minorFaults() - before
	t.Logf("THP mode %q: 32 MiB from Floats took %d faults", mode, faults)
	if offered && faults > 8192/4 {
		t.Errorf("32 MiB from Floats took %d page faults, want at most %d", faults, 8192/4)
	}
	if f[n-1024] != float32(n-1024) {
		t.Fatal("a written value was lost")
	}
	if g := append(f, 1); len(g) != n+1 || g[n] != 1 || g[1024] != 1024 {
		t.Fatal("append past the capacity lost values")
	}
	if Floats(0) != nil {
		t.Fatal("Floats(0) is not nil")
	}
}
