package kern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestHalfOf: every binary16 value but NaN is held exactly and comes back
// as itself; float32 values between binary16 values, beyond its range or
// NaN are refused.
func TestHalfOf(t *testing.T) {
	for i := range 1 << 16 {
		h := uint16(i)
		v := HalfFloat(h)
		b, ok := halfOf(v)
		if isNaN := h&0x7c00 == 0x7c00 && h&0x3ff != 0; isNaN {
			if ok {
				t.Errorf("halfOf(NaN %#04x) accepted", h)
			}
			continue
		}
		if !ok || b != h {
			t.Errorf("halfOf(%g) = %#04x, %v; want %#04x", v, b, ok, h)
		}
	}
	for _, v := range []float32{1 + 0x1p-11, 0x1p-25, 3 * 0x1p-25, 65520, 0x1p16, float32(math.NaN()), math.SmallestNonzeroFloat32, 0.1} {
		if b, ok := halfOf(v); ok {
			t.Errorf("halfOf(%g) = %#04x; want refused", v, b)
		}
	}
}

// halfMatrix returns n×k random binary16 values as float32, with some
// subnormals, zeros and large values among them.
func halfMatrix(r *rand.Rand, n, k int) []float32 {
	w := make([]float32, n*k)
	for i := range w {
		for {
			v := HalfFloat(uint16(r.IntN(1 << 16)))
			if !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) && math.Abs(float64(v)) < 4 {
				w[i] = v
				break
			}
		}
	}
	return w
}

// TestHalfMulVec: MulVec equals MatMulNT with the float32 matrix to the
// last bit, under every implementation, with and without acc.
func TestHalfMulVec(t *testing.T) {
	saved := active
	defer func() { active = saved }()
	r := rand.New(rand.NewPCG(3, 4))
	for _, im := range impls {
		active = im
		for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 13, 768} {
			for _, k := range []int{8, 16, 24, 40, 256, 576, 5} {
				for _, acc := range []bool{false, true} {
					t.Run(fmt.Sprintf("%s/n%d_k%d_acc%v", im.name, n, k, acc), func(t *testing.T) {
						w := halfMatrix(r, n, k)
						h := NewHalf(w, n, k)
						if h == nil {
							t.Fatal("NewHalf refused a binary16 matrix")
						}
						a := randSlice(r, k)
						c0 := randSlice(r, n)
						want := append([]float32(nil), c0...)
						MatMulNT(want, a, w, 1, k, n, acc)
						got := append([]float32(nil), c0...)
						h.MulVec(got, a, acc)
						for j := range want {
							if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
								t.Fatalf("c[%d] = %g, MatMulNT %g", j, got[j], want[j])
							}
						}
					})
				}
			}
		}
	}
	w := halfMatrix(r, 4, 8)
	w[5] = 0.1
	if NewHalf(w, 4, 8) != nil {
		t.Error("NewHalf held a matrix with an element that is not a binary16 value")
	}
}

// TestMatMulNTHalf: a product with a binary16 B, and MulVec on a Half made
// from the bits alone, equal MatMulNT with the float32 matrix to the last
// bit, under every implementation, for row counts on every path (one row,
// a few rows on the matrix-vector kernel, packed blocks with ragged panels).
func TestMatMulNTHalf(t *testing.T) {
	saved := active
	defer func() { active = saved }()
	r := rand.New(rand.NewPCG(7, 8))
	for _, im := range impls {
		active = im
		for _, m := range []int{1, 3, 7, 8, 13, 150} {
			for _, s := range []struct{ n, k int }{{1, 8}, {5, 16}, {29, 640}, {37, 300}, {960, 240}, {2100, 24}} {
				for _, acc := range []bool{false, true} {
					w := halfMatrix(r, s.n, s.k)
					bits := make([]uint16, len(w))
					for i, v := range w {
						bits[i], _ = halfOf(v)
					}
					h := NewHalfBits(nil, bits, s.n, s.k)
					a := randSlice(r, m*s.k)
					c0 := randSlice(r, m*s.n)
					want := append([]float32(nil), c0...)
					MatMulNT(want, a, w, m, s.k, s.n, acc)
					got := append([]float32(nil), c0...)
					MatMulNTHalf(got, a, h, m, acc)
					for j := range want {
						if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
							t.Fatalf("%s m%d n%d k%d acc %v: c[%d] = %g, MatMulNT %g", im.name, m, s.n, s.k, acc, j, got[j], want[j])
						}
					}
					got1 := append([]float32(nil), c0[:s.n]...)
					h.MulVec(got1, a[:s.k], acc)
					want1 := append([]float32(nil), c0[:s.n]...)
					MatMulNT(want1, a[:s.k], w, 1, s.k, s.n, acc)
					for j := range want1 {
						if math.Float32bits(got1[j]) != math.Float32bits(want1[j]) {
							t.Fatalf("%s MulVec n%d k%d: c[%d] = %g, MatMulNT %g", im.name, s.n, s.k, j, got1[j], want1[j])
						}
					}
				}
			}
		}
	}
}

// TestHalfToFloat: the fast conversion equals HalfFloat for every binary16
// value at every offset of a slice (NaNs only need to stay NaN).
func TestHalfToFloat(t *testing.T) {
	src := make([]uint16, 1<<16+13)
	for i := range src {
		src[i] = uint16(i * 40503)
	}
	for _, off := range []int{0, 1, 5} {
		dst := make([]float32, len(src)-off)
		HalfToFloat(dst, src[off:])
		for i, v := range dst {
			want := HalfFloat(src[off+i])
			if math.Float32bits(v) != math.Float32bits(want) && !(math.IsNaN(float64(v)) && math.IsNaN(float64(want))) {
				t.Fatalf("offset %d: %#04x -> %g, want %g", off, src[off+i], v, want)
			}
		}
	}
}

// BenchmarkHalfMulVec: one-row products with the shapes of a recurrent
// step (the encoder's W_hh, 768×256 and 960×320; the decoder's GRU input,
// 768×576) on binary16 matrices, under each implementation that has a
// binary16 kernel, and on float32 ones.
func BenchmarkHalfMulVec(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, s := range []struct{ n, k int }{{768, 256}, {960, 320}, {768, 576}} {
		w := halfMatrix(r, s.n, s.k)
		h := NewHalf(w, s.n, s.k)
		a, c := randSlice(r, s.k), make([]float32, s.n)
		for _, im := range impls {
			if im.gemvNF16 == nil {
				continue
			}
			b.Run(fmt.Sprintf("half-%s/n%d_k%d", im.name, s.n, s.k), func(b *testing.B) {
				saved := active
				defer func() { active = saved }()
				active = im
				cpu0 := processCPU()
				for b.Loop() {
					h.MulVec(c, a, false)
				}
				reportFlops(b, float64(2*s.n*s.k), processCPU()-cpu0)
			})
		}
		b.Run(fmt.Sprintf("float32/n%d_k%d", s.n, s.k), func(b *testing.B) {
			cpu0 := processCPU()
			for b.Loop() {
				MatMulNT(c, a, w, 1, s.k, s.n, false)
			}
			reportFlops(b, float64(2*s.n*s.k), processCPU()-cpu0)
		})
	}
}
