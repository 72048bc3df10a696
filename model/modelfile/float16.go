package modelfile

import (
	"encoding/binary"
	"unsafe"
)

// Float16 returns the stored binary16 values of the tensor called name, nil
// when it is stored as f32 or there is none. They are the bits that Tensor
// widens to float32, exactly. The slice shares the file's memory when the
// machine is little-endian and the data is aligned (a model embedded in
// the executable or read whole), else it is a copy; it must not be
// modified.
func (l *Lazy) Float16(name string) []uint16 {
	i, ok := l.index[name]
	if !ok || l.sizes[i] != 2 {
		return nil
	}
	e := l.entries[i]
	src := l.payload[e.Offset : e.Offset+2*e.Count]
	if e.Count == 0 {
		return []uint16{}
	}
	if h := le16(src); h != nil {
		return h
	}
	h := make([]uint16, e.Count)
	for j := range h {
		h[j] = binary.LittleEndian.Uint16(src[2*j:])
	}
	return h
}

// le16 returns the little-endian binary16 values in src as a []uint16
// sharing its memory, or nil when that cannot be done (a big-endian
// machine, odd alignment, or no values).
func le16(src []byte) []uint16 {
	var one uint16 = 1
	little := *(*byte)(unsafe.Pointer(&one)) == 1
	if len(src) < 2 || !little || uintptr(unsafe.Pointer(&src[0]))%2 != 0 {
		return nil
	}
	return unsafe.Slice((*uint16)(unsafe.Pointer(&src[0])), len(src)/2)
}
