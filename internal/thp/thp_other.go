//go:build !linux

package thp

// Heap does nothing where the kernel is not Linux.
func Heap(n int) error { return nil }

// Populate does nothing where the kernel is not Linux.
func Populate(b []byte) error { return nil }
