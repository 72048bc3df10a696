package kern

import (
	"math"
	"sync"
)

// Half holds a matrix w (n×k) in IEEE 754 binary16 for the products of a
// frozen network. A product with one row reads the whole matrix for two
// flops per element, so its time is the time to read the matrix, and
// binary16 halves the bytes. Only a matrix whose every element is exactly a
// binary16 value is held (weights read from a float16 model file are), and
// the kernel widens each element back to float32 and sums in the order of
// the float32 matrix-vector kernel, so MulVec equals MatMulNT with w to the
// last bit. Where that kernel does not run (no F16C, another
// implementation active, k not a multiple of 8) MulVec is MatMulNT on w.
//
// A Half may be made from the binary16 values alone (NewHalfBits with w
// nil, as a model file's tensor is): then w is widened from them the first
// time a product needs it, and products that widen as they go (MulVec with
// F16C, MatMulNTHalf) never need it, so a network loaded that way never
// holds those weights as float32 at all.
//
// Half borrows w and h: neither may change while the Half is in use. A Half
// is safe for concurrent products.
type Half struct {
	n, k int
	h    []uint16 // (n, k) binary16
	once sync.Once
	w    []float32 // the matrix as float32, given or widened from h on first need
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

// NewHalfBits returns the matrix (n×k) whose binary16 values are h, with w
// its float32 widening element for element (a float16 model file's tensor
// and its float32 copy), or nil when there is no float32 copy yet: nothing
// is converted or checked, and w and h are borrowed.
func NewHalfBits(w []float32, h []uint16, n, k int) *Half {
	checkDims("NewHalfBits", n, k, 1)
	checkLen("NewHalfBits h", len(h), n*k)
	if w != nil {
		checkLen("NewHalfBits w", len(w), n*k)
		w = w[:n*k]
	}
	return &Half{n: n, k: k, w: w, h: h[:n*k]}
}

// Float32 returns the matrix as float32 (n×k, row-major), widening it from
// binary16 on the first call when the Half was made without it.
func (h *Half) Float32() []float32 {
	h.once.Do(func() {
		if h.w == nil {
			h.w = make([]float32, h.n*h.k)
			HalfToFloat(h.w, h.h)
		}
	})
	return h.w
}

// HalfDirect reports whether products with a Half of k columns read its
// binary16 values directly (F16C, k a positive multiple of 8), never
// widening the whole matrix to float32.
func HalfDirect(k int) bool { return active.gemvNF16 != nil && k%8 == 0 && k > 0 }

// MulVec sets c (n) = w·a for a (k), or adds w·a to c when acc is true: the
// product MatMulNT(c, a, w, 1, k, n, acc), with the same result. It panics
// if a or c is too short.
func (h *Half) MulVec(c, a []float32, acc bool) {
	checkLen("MulVec a", len(a), h.k)
	checkLen("MulVec c", len(c), h.n)
	if HalfDirect(h.k) {
		active.gemvNF16(c, a, h.h, h.k, h.n, h.k, acc)
		return
	}
	MatMulNT(c, a, h.Float32(), 1, h.k, h.n, acc)
}

// MatMulNTHalf sets C (m×n) = A (m×k) · wᵀ for the matrix w (n×k) held in
// h, or adds the product to C when acc is true: MatMulNT(c, a, w, m, k, n,
// acc) with the same result, to the last bit. With F16C the binary16
// values are widened as the product packs them (a few kilobytes at a
// time), so w is never held as float32. It panics if a or c is too short.
func MatMulNTHalf(c, a []float32, h *Half, m int, acc bool) {
	k, n := h.k, h.n
	checkDims("MatMulNTHalf", m, k, n)
	checkLen("MatMulNTHalf a", len(a), m*k)
	checkLen("MatMulNTHalf c", len(c), m*n)
	switch {
	case !HalfDirect(k) || m == 0 || n == 1:
		MatMulNT(c, a, h.Float32(), m, k, n, acc)
	case m < smallM:
		for i := range m {
			active.gemvNF16(c[i*n:i*n+n], a[i*k:i*k+k], h.h, k, n, k, acc)
		}
	default:
		sgemm(active, layoutNT, c, a, nil, h.h, m, k, n, acc)
	}
}

// HalfFloat returns the float32 value of the binary16 bit pattern h. The
// conversion is exact.
func HalfFloat(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	man := uint32(h & 0x3ff)
	switch exp {
	case 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case 0:
		if man == 0 {
			return math.Float32frombits(sign)
		}
		e := uint32(127 - 15 + 1)
		for man&0x400 == 0 {
			man <<= 1
			e--
		}
		return math.Float32frombits(sign | e<<23 | (man&0x3ff)<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | man<<13)
}

// HalfToFloat sets dst[i] to the float32 value of the binary16 bits src[i]
// for i < len(dst) (len(src) >= len(dst)): exactly HalfFloat, with the
// CPU's conversion instruction where there is one (F16C; a signalling NaN
// may come out quiet).
func HalfToFloat(dst []float32, src []uint16) {
	src = src[:len(dst)]
	for i := halfToFloatFast(dst, src); i < len(dst); i++ {
		dst[i] = HalfFloat(src[i])
	}
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
