// Package thp lets a short command's Go heap live on transparent huge
// pages.
//
// A command that aligns a 3-second file touches about 10 MB of fresh heap
// (the model's small float32 tensors, the encoder's per-step buffers, the
// matrix kernels' packing buffers). On Linux each fresh 4 KiB page costs a
// page fault, and on a virtual machine a fault costs 10-40 µs: 2,500 faults
// were a third of the command's CPU time. Debian's kernels back memory with
// 2 MiB pages only where a program asks for them (THP mode "madvise"), and
// the Go runtime does not ask. Heap asks for the first part of the heap,
// which a short command never leaves.
//
// Populate does the like for memory that is already mapped but not yet
// touched, such as the model embedded in the executable: one call maps
// all its pages, where reading them would fault once per 64 KiB.
package thp

// DefaultBytes is how much heap Heap asks huge pages for: more than a
// single-file command of heed touches (align: about 10 MB; transcribe
// with the language model: about 55 MB).
const DefaultBytes = 64 << 20
