//go:build !linux

package thp

// Heap does nothing where the kernel is not Linux.
func Heap(n int) error { return nil }

// Populate does nothing where the kernel is not Linux.
func Populate(b []byte) error { return nil }

// Floats returns make([]float32, n) where the kernel is not Linux.
func Floats(n int) []float32 { return make([]float32, n) }
