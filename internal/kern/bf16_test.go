package kern

import (
	"math"
	"math/rand"
	"slices"
	"testing"
)

// TestBF16 checks the rounding: ties to even, exact values kept, NaN NaN.
func TestBF16(t *testing.T) {
	for _, c := range []struct {
		f    float32
		want uint16
	}{
		{1, 0x3f80}, {-2, 0xc000}, {0, 0},
		{math.Float32frombits(0x3f808000), 0x3f80}, // tie, even below
		{math.Float32frombits(0x3f818000), 0x3f82}, // tie, even above
		{math.Float32frombits(0x3f808001), 0x3f81}, // above the tie
		{float32(math.Inf(1)), 0x7f80},
	} {
		if got := BF16(c.f); got != c.want {
			t.Errorf("BF16(%#08x) = %#04x, want %#04x", math.Float32bits(c.f), got, c.want)
		}
	}
	if got := BF16(float32(math.NaN())); got&0x7f80 != 0x7f80 || got&0x7f == 0 {
		t.Errorf("BF16(NaN) = %#04x, want a NaN", got)
	}
}

// TestMatMulBF16 compares MatMulBF16 with a float64 product of the same
// operands rounded to bfloat16, over shapes with ragged tiles, odd k and
// more rows than a block, with and without acc.
func TestMatMulBF16(t *testing.T) {
	if !HaveBF16() {
		t.Skip("no AVX512_BF16 on this CPU")
	}
	rng := rand.New(rand.NewSource(1))
	round := func(f float32) float64 { return float64(math.Float32frombits(uint32(BF16(f)) << 16)) }
	for _, s := range []struct{ m, k, n int }{{1, 1, 1}, {6, 2, 32}, {7, 5, 33}, {3, 640, 960}, {200, 241, 70}, {6, 0, 40}, {1, 320, 960}, {1, 9, 70}, {1, 7, 33}, {1, 0, 40}} {
		a, w := make([]float32, s.m*s.k), make([]float32, s.n*s.k)
		for i := range a {
			a[i] = float32(rng.NormFloat64())
		}
		for i := range w {
			w[i] = float32(rng.NormFloat64())
		}
		var p PackedBF16
		p.PackNT(w, s.n, s.k)
		for _, acc := range []bool{false, true} {
			c := make([]float32, s.m*s.n)
			for i := range c {
				c[i] = float32(i % 7)
			}
			MatMulBF16(c, a, &p, s.m, acc)
			for i := range s.m {
				for j := range s.n {
					var want, mag float64
					for q := range s.k {
						v := round(a[i*s.k+q]) * round(w[j*s.k+q])
						want += v
						mag += math.Abs(v)
					}
					if acc {
						want += float64((i*s.n + j) % 7)
					}
					if got := float64(c[i*s.n+j]); math.Abs(got-want) > 1e-5*(mag+1) {
						t.Fatalf("%v acc %v: C[%d,%d] = %v, want %v", s, acc, i, j, got, want)
					}
				}
			}
		}
	}
}

// TestBF16Pairs compares bf16Pairs (the AVX-512 lanes where present) with
// BF16 element by element: random values, ties, NaN, infinities, float32
// subnormals, and lengths around the 16-float step, odd ones included.
func TestBF16Pairs(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), math.Float32frombits(0x7f800001), math.Float32frombits(0xffc00001),
		math.Float32frombits(0x3f808000), math.Float32frombits(0x3f818000), math.Float32frombits(0x0000ffff),
		math.Float32frombits(0x7f7fffff)}
	for _, n := range []int{0, 1, 2, 15, 16, 17, 31, 32, 33, 100, 641} {
		src := make([]float32, n)
		for i := range src {
			if i%5 == 0 {
				src[i] = special[rng.Intn(len(special))]
			} else {
				src[i] = math.Float32frombits(rng.Uint32())
			}
		}
		dst := make([]uint32, (n+1)/2+1)
		dst[len(dst)-1] = 0xdeadbeef
		bf16Pairs(dst, src)
		for q := range (n + 1) / 2 {
			want := uint32(BF16(src[2*q]))
			if 2*q+1 < n {
				want |= uint32(BF16(src[2*q+1])) << 16
			}
			if dst[q] != want {
				t.Fatalf("n=%d: pair %d of %#08x %#08x = %#08x, want %#08x", n, q, math.Float32bits(src[2*q]), math.Float32bits(src[min(2*q+1, n-1)]), dst[q], want)
			}
		}
		if dst[len(dst)-1] != 0xdeadbeef {
			t.Fatalf("n=%d: wrote past the pairs", n)
		}
	}
}

// TestPackHalf checks that packing a Half from its binary16 values gives
// the packs of PackNT on the widened matrix, without widening it.
func TestPackHalf(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, s := range []struct{ n, k int }{{1, 1}, {33, 7}, {96, 640}, {5, 0}} {
		w := make([]float32, s.n*s.k)
		for i := range w {
			w[i] = HalfFloat(uint16(rng.Intn(0x7c00)) | uint16(rng.Intn(2))<<15) // finite binary16 values
		}
		h := NewHalf(w, s.n, s.k)
		var a, b PackedBF16
		a.PackNT(w, s.n, s.k)
		b.PackHalf(NewHalfBits(nil, h.h, s.n, s.k))
		if a.k != b.k || a.n != b.n || !slices.Equal(a.p, b.p) {
			t.Errorf("%dx%d: PackHalf differs from PackNT", s.n, s.k)
		}
	}
}
