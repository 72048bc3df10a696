package kern

import "math"

// Half holds a matrix w (n×k) in IEEE 754 binary16 for matrix-vector
// products. A product with one row reads the whole matrix for two flops
// per element, so its time is the time to read the matrix, and binary16
// halves the bytes. Only a matrix whose every element is exactly a
// binary16 value is held (weights read from a float16 model file are), and
// the kernel widens each element back to float32 and sums in the order of
// the float32 matrix-vector kernel, so MulVec equals MatMulNT with w to the
// last bit. Where that kernel does not run (no F16C, another
// implementation active, k not a multiple of 8) MulVec is MatMulNT on w.
//
// Half borrows w: w must not change while the Half is in use. A Half is
// safe for concurrent products.
type Half struct {
	n, k int
	w    []float32 // the matrix as given
	h    []uint16  // (n, k) binary16
}

// NewHalf returns w (n×k) held as binary16, or nil when an element of w is
// not exactly a binary16 value (or is NaN).
func NewHalf(w []float32, n, k int) *Half {
	checkDims("NewHalf", n, k, 1)
	checkLen("NewHalf w", len(w), n*k)
	h := &Half{n: n, k: k, w: w[:n*k], h: make([]uint16, n*k)}
	for i, v := range h.w {
		b, ok := halfOf(v)
		if !ok {
			return nil
		}
		h.h[i] = b
	}
	return h
}

// NewHalfBits returns w (n×k) held as the binary16 values h, which must be
// w's elements in binary16, element for element (a float16 model file's
// tensor and its float32 widening): nothing is converted or checked, and
// h is borrowed.
func NewHalfBits(w []float32, h []uint16, n, k int) *Half {
	checkDims("NewHalfBits", n, k, 1)
	checkLen("NewHalfBits w", len(w), n*k)
	checkLen("NewHalfBits h", len(h), n*k)
	return &Half{n: n, k: k, w: w[:n*k], h: h[:n*k]}
}

// MulVec sets c (n) = w·a for a (k), or adds w·a to c when acc is true: the
// product MatMulNT(c, a, w, 1, k, n, acc), with the same result. It panics
// if a or c is too short.
func (h *Half) MulVec(c, a []float32, acc bool) {
	checkLen("MulVec a", len(a), h.k)
	checkLen("MulVec c", len(c), h.n)
	if f := active.gemvNF16; f != nil && h.k%8 == 0 && h.k > 0 {
		f(c, a, h.h, h.k, h.n, h.k, acc)
		return
	}
	MatMulNT(c, a, h.w, 1, h.k, h.n, acc)
}

// halfOf returns the binary16 bits of f when f is exactly a binary16 value
// (±0, ±Inf and finite values of at most 11 significant bits within its
// exponent range); NaN is refused.
func halfOf(f float32) (uint16, bool) {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	man := b & 0x7fffff
	switch {
	case exp == 0 && man == 0:
		return sign, true
	case exp == 0xff && man == 0:
		return sign | 0x7c00, true
	case exp == 0xff, exp == 0:
		return 0, false // NaN, or a float32 subnormal: far below binary16's range
	}
	e := exp - 127 // f = 1.man · 2^e
	switch {
	case e > 15 || e < -24:
		return 0, false
	case e >= -14: // a normal binary16: 10 fraction bits
		if man&0x1fff != 0 {
			return 0, false
		}
		return sign | uint16(e+15)<<10 | uint16(man>>13), true
	}
	// A binary16 subnormal k·2⁻²⁴: k = (1.man)·2^(e+24) must be a whole
	// number.
	m := man | 1<<23
	s := uint(-(e + 1))
	if m&(1<<s-1) != 0 {
		return 0, false
	}
	return sign | uint16(m>>s), true
}
