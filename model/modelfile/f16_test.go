package modelfile

import (
	"encoding/binary"
	"math"
	"math/rand"
	"sort"
	"testing"
)

// TestF16RoundTripExhaustive checks every binary16 pattern survives
// f16 -> f32 -> f16 unchanged (NaNs only need to stay NaN).
func TestF16RoundTripExhaustive(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		f := F16ToF32(uint16(h))
		got := F32ToF16(f)
		isNaN := h&0x7c00 == 0x7c00 && h&0x3ff != 0
		if isNaN {
			if !math.IsNaN(float64(f)) || got&0x7c00 != 0x7c00 || got&0x3ff == 0 || got&0x8000 != uint16(h)&0x8000 {
				t.Fatalf("NaN %#04x -> %v -> %#04x", h, f, got)
			}
			continue
		}
		if got != uint16(h) {
			t.Fatalf("%#04x -> %v -> %#04x", h, f, got)
		}
	}
}

// f16Values holds the value of every finite non-negative binary16 pattern;
// patterns 0x0000..0x7bff are increasing in value.
var f16Values = func() []float64 {
	v := make([]float64, 0x7c00)
	for h := range v {
		v[h] = float64(F16ToF32(uint16(h)))
	}
	return v
}()

// refF32ToF16 rounds x to binary16 by searching the table of all values,
// independently of the bit manipulation in F32ToF16.
func refF32ToF16(x float32) uint16 {
	var sign uint16
	a := float64(x)
	if math.Signbit(a) {
		sign, a = 0x8000, -a
	}
	if math.IsInf(a, 1) || a >= 65520 { // 65520 is halfway to the next power
		return sign | 0x7c00
	}
	// lo = largest pattern with value <= a.
	lo := sort.Search(len(f16Values), func(i int) bool { return f16Values[i] > a }) - 1
	if lo == len(f16Values)-1 {
		return sign | uint16(lo)
	}
	dlo, dhi := a-f16Values[lo], f16Values[lo+1]-a
	switch {
	case dlo < dhi:
		return sign | uint16(lo)
	case dhi < dlo:
		return sign | uint16(lo+1)
	case lo%2 == 0:
		return sign | uint16(lo)
	}
	return sign | uint16(lo+1)
}

func TestF32ToF16Nearest(t *testing.T) {
	cases := []struct {
		name string
		in   float32
		want uint16
	}{
		{"zero", 0, 0x0000},
		{"negzero", float32(math.Copysign(0, -1)), 0x8000},
		{"one", 1, 0x3c00},
		{"minus two", -2, 0xc000},
		{"max", 65504, 0x7bff},
		{"just below overflow tie", 65519.996, 0x7bff},
		{"overflow tie", 65520, 0x7c00},
		{"inf", float32(math.Inf(1)), 0x7c00},
		{"-inf", float32(math.Inf(-1)), 0xfc00},
		{"smallest normal", 0x1p-14, 0x0400},
		{"largest subnormal", 0x3ffp-24, 0x03ff},
		{"smallest subnormal", 0x1p-24, 0x0001},
		{"half smallest subnormal ties to zero", 0x1p-25, 0x0000},
		{"above half smallest subnormal", 0x1.000002p-25, 0x0001},
		{"1.5 subnormal ties to even", 0x3p-25, 0x0002},
		{"subnormal rounds up to normal", 0x7ffp-25, 0x0400},
		{"tie to even down", 1 + 0x1p-11, 0x3c00},
		{"tie to even up", 1 + 0x3p-11, 0x3c02},
		{"tiny", 1e-30, 0x0000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := F32ToF16(c.in); got != c.want {
				t.Errorf("F32ToF16(%g) = %#04x, want %#04x", c.in, got, c.want)
			}
			if ref := refF32ToF16(c.in); ref != c.want {
				t.Errorf("reference(%g) = %#04x, want %#04x (test table wrong?)", c.in, ref, c.want)
			}
		})
	}
	if got := F32ToF16(float32(math.NaN())); got&0x7c00 != 0x7c00 || got&0x3ff == 0 {
		t.Errorf("NaN -> %#04x, not a NaN", got)
	}

	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 200000; i++ {
		// Random exponents around the binary16 range, random mantissas,
		// and every tenth value exactly on a rounding midpoint.
		e := rng.Intn(50) - 30
		x := float32(math.Ldexp(1+rng.Float64(), e))
		if i%10 == 0 {
			bits := math.Float32bits(x)&^0x1fff | 0x1000
			x = math.Float32frombits(bits)
		}
		if rng.Intn(2) == 0 {
			x = -x
		}
		if got, want := F32ToF16(x), refF32ToF16(x); got != want {
			t.Fatalf("F32ToF16(%g [%#08x]) = %#04x, want %#04x", x, math.Float32bits(x), got, want)
		}
	}
}

// TestF16Precision checks the error bounds stated in the package doc.
func TestF16Precision(t *testing.T) {
	const (
		relTol = 0x1p-11 // normal range
		absTol = 0x1p-25 // subnormal range
	)
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 100000; i++ {
		x := float32(math.Ldexp(rng.Float64(), rng.Intn(45)-29))
		y := F16ToF32(F32ToF16(x))
		err := math.Abs(float64(x) - float64(y))
		if math.Abs(float64(x)) >= 0x1p-14 {
			if err > relTol*math.Abs(float64(x)) {
				t.Fatalf("x=%g: relative error %g > %g", x, err/math.Abs(float64(x)), relTol)
			}
		} else if err > absTol {
			t.Fatalf("x=%g: absolute error %g > %g", x, err, absTol)
		}
	}
}

// TestF16DecodeExhaustive checks the bulk conversion (F16C where the CPU
// has it) against F16ToF32 on every binary16 value, at every alignment of
// the 8-wide fast path.
func TestF16DecodeExhaustive(t *testing.T) {
	src := make([]byte, 2<<16)
	for h := 0; h < 1<<16; h++ {
		binary.LittleEndian.PutUint16(src[2*h:], uint16(h))
	}
	for _, off := range []int{0, 3} {
		d := make([]float32, 1<<16-off)
		f16Decode(d, src[2*off:])
		for j, v := range d {
			h := uint16(j + off)
			want := F16ToF32(h)
			if math.IsNaN(float64(want)) && math.IsNaN(float64(v)) {
				continue
			}
			if math.Float32bits(v) != math.Float32bits(want) {
				t.Fatalf("%#04x: %g (%#08x), want %g (%#08x)", h, v, math.Float32bits(v), want, math.Float32bits(want))
			}
		}
	}
}

// TestF32sToF16 checks the slice conversion (F16C on amd64) against
// F32ToF16 on every upper 16 bits of a float32 with lower bits that make
// ties, near-ties and NaN payloads, at every offset of an 8-wide block (so
// that the scalar tail is tested too).
func TestF32sToF16(t *testing.T) {
	var src []float32
	for hi := range 1 << 16 {
		for _, lo := range []uint32{0, 0x0fff, 0x1000, 0x1001, 0x1fff, 0x2000, 0x3000, 0xffff} {
			src = append(src, math.Float32frombits(uint32(hi)<<16|lo))
		}
	}
	for _, n := range []int{len(src), len(src) - 3, 7, 1, 0} {
		dst := make([]uint16, n)
		F32sToF16(dst, src[:n])
		for i, h := range dst {
			if want := F32ToF16(src[i]); h != want {
				t.Fatalf("n %d: F32sToF16(%#08x) = %#04x, want %#04x", n, math.Float32bits(src[i]), h, want)
			}
		}
	}
}
