package kern

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ulpDiff returns |got - want| in units of the float32 spacing at want
// (want is the float64 reference). For |want| below the smallest normal
// float32 it returns the absolute error divided by the smallest normal
// spacing, which the callers bound separately through absTol.
func ulpDiff(got float32, want float64) float64 {
	aw := math.Abs(want)
	const minNormal = 0x1p-126
	var ulp float64
	if aw < minNormal {
		ulp = 0x1p-149
	} else {
		_, e := math.Frexp(aw) // aw = fr·2^e, fr in [0.5, 1)
		ulp = math.Ldexp(1, e-24)
	}
	return math.Abs(float64(got)-want) / ulp
}

// actGrid returns a dense grid over [lo, hi] plus random points, with fixed
// seed.
func actGrid(lo, hi float64) []float32 {
	const n, rnd = 200001, 100000
	xs := make([]float32, 0, n+rnd)
	for i := 0; i < n; i++ {
		xs = append(xs, float32(lo+(hi-lo)*float64(i)/(n-1)))
	}
	r := rand.New(rand.NewPCG(11, 12))
	for i := 0; i < rnd; i++ {
		xs = append(xs, float32(lo+(hi-lo)*r.Float64()))
	}
	return xs
}

// TestActivationAccuracy bounds the float32 error of every implementation
// against float64 math, in ulps of the result and in absolute terms.
func TestActivationAccuracy(t *testing.T) {
	sigmoid := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	tests := []struct {
		name   string
		fn     func(im *impl32) func(dst, x []float32)
		ref    func(float64) float64
		lo, hi float64
		maxULP float64 // for |ref| >= 2^-126
		absTol float64 // for every point
		subTol float64 // absolute, for results below 2^-126
	}{
		{"exp", func(im *impl32) func(dst, x []float32) { return im.exp }, math.Exp, -87.3, 88.7, 1, math.Inf(1), 0},
		{"exp/small", func(im *impl32) func(dst, x []float32) { return im.exp }, math.Exp, -1e-3, 1e-3, 1, math.Inf(1), 0},
		{"exp/subnormal", func(im *impl32) func(dst, x []float32) { return im.exp }, math.Exp, -110, -87.3, 1, math.Inf(1), 0x1p-149},
		{"sigmoid", func(im *impl32) func(dst, x []float32) { return im.sigmoid }, sigmoid, -87, 30, 1, 1.2e-7, 0},
		{"sigmoid/far", func(im *impl32) func(dst, x []float32) { return im.sigmoid }, sigmoid, -200, 200, 1, 1.2e-7, 0x1p-149},
		{"tanh", func(im *impl32) func(dst, x []float32) { return im.tanh }, math.Tanh, -20, 20, 1, 1.2e-7, 0},
		{"tanh/small", func(im *impl32) func(dst, x []float32) { return im.tanh }, math.Tanh, -1e-3, 1e-3, 1, 1.2e-7, 1e-45},
		{"tanh/far", func(im *impl32) func(dst, x []float32) { return im.tanh }, math.Tanh, -1e4, 1e4, 1, 1.2e-7, 0},
		// TanhFast: an absolute bound (near ±1 that is several ulps), and
		// a few ulps near 0.
		{"tanhFast", func(im *impl32) func(dst, x []float32) { return im.tanhFast }, math.Tanh, -20, 20, math.Inf(1), 5e-7, 0},
		{"tanhFast/small", func(im *impl32) func(dst, x []float32) { return im.tanhFast }, math.Tanh, -0.5, 0.5, 5, 5e-7, 1e-45},
		{"tanhFast/far", func(im *impl32) func(dst, x []float32) { return im.tanhFast }, math.Tanh, -1e4, 1e4, math.Inf(1), 5e-7, 0},
	}
	for _, im := range impls {
		for _, tc := range tests {
			t.Run(im.name+"/"+tc.name, func(t *testing.T) {
				xs := actGrid(tc.lo, tc.hi)
				got := make([]float32, len(xs))
				tc.fn(im)(got, xs)
				var worstULP, worstAbs float64
				for i, x := range xs {
					want := tc.ref(float64(x))
					if math.Abs(want) >= 0x1p-126 && !math.IsInf(want, 0) && math.Abs(want) < math.MaxFloat32 {
						if u := ulpDiff(got[i], want); u > worstULP {
							worstULP = u
							if u > tc.maxULP {
								t.Fatalf("x=%g: got %g, want %g (%.2f ulp)", x, got[i], want, u)
							}
						}
					}
					d := math.Abs(float64(got[i]) - want)
					if math.Abs(want) < 0x1p-126 && !(d <= tc.subTol) {
						t.Fatalf("x=%g: got %g, want %g (abs err %.3g in the subnormal range)", x, got[i], want, d)
					}
					if d > worstAbs {
						worstAbs = d
						if !(d <= tc.absTol) {
							t.Fatalf("x=%g: got %g, want %g (abs err %.3g)", x, got[i], want, d)
						}
					}
				}
				t.Logf("max error %.3f ulp, %.3g abs", worstULP, worstAbs)
			})
		}
	}
}

// TestActivationSpecial checks saturation, infinities, signed zero and NaN.
func TestActivationSpecial(t *testing.T) {
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	negZero := float32(math.Copysign(0, -1))
	tests := []struct {
		name string
		fn   func(im *impl32) func(dst, x []float32)
		x    float32
		want float32 // NaN means "want NaN"
	}{
		{"exp(0)", func(im *impl32) func(dst, x []float32) { return im.exp }, 0, 1},
		{"exp(1)", func(im *impl32) func(dst, x []float32) { return im.exp }, 1, float32(math.E)},
		{"exp(88.72284)", func(im *impl32) func(dst, x []float32) { return im.exp }, 88.72284, inf},
		{"exp(1000)", func(im *impl32) func(dst, x []float32) { return im.exp }, 1000, inf},
		{"exp(+Inf)", func(im *impl32) func(dst, x []float32) { return im.exp }, inf, inf},
		{"exp(-Inf)", func(im *impl32) func(dst, x []float32) { return im.exp }, -inf, 0},
		{"exp(-1000)", func(im *impl32) func(dst, x []float32) { return im.exp }, -1000, 0},
		{"exp(NaN)", func(im *impl32) func(dst, x []float32) { return im.exp }, nan, nan},
		{"sigmoid(0)", func(im *impl32) func(dst, x []float32) { return im.sigmoid }, 0, 0.5},
		{"sigmoid(100)", func(im *impl32) func(dst, x []float32) { return im.sigmoid }, 100, 1},
		{"sigmoid(-1000)", func(im *impl32) func(dst, x []float32) { return im.sigmoid }, -1000, 0},
		{"sigmoid(+Inf)", func(im *impl32) func(dst, x []float32) { return im.sigmoid }, inf, 1},
		{"sigmoid(-Inf)", func(im *impl32) func(dst, x []float32) { return im.sigmoid }, -inf, 0},
		{"sigmoid(NaN)", func(im *impl32) func(dst, x []float32) { return im.sigmoid }, nan, nan},
		{"tanh(0)", func(im *impl32) func(dst, x []float32) { return im.tanh }, 0, 0},
		{"tanh(-0)", func(im *impl32) func(dst, x []float32) { return im.tanh }, negZero, negZero},
		{"tanh(1e-30)", func(im *impl32) func(dst, x []float32) { return im.tanh }, 1e-30, 1e-30},
		{"tanh(9.1)", func(im *impl32) func(dst, x []float32) { return im.tanh }, 9.1, 1},
		{"tanh(20)", func(im *impl32) func(dst, x []float32) { return im.tanh }, 20, 1},
		{"tanh(-1e30)", func(im *impl32) func(dst, x []float32) { return im.tanh }, -1e30, -1},
		{"tanh(+Inf)", func(im *impl32) func(dst, x []float32) { return im.tanh }, inf, 1},
		{"tanh(-Inf)", func(im *impl32) func(dst, x []float32) { return im.tanh }, -inf, -1},
		{"tanh(NaN)", func(im *impl32) func(dst, x []float32) { return im.tanh }, nan, nan},
		{"tanhFast(0)", func(im *impl32) func(dst, x []float32) { return im.tanhFast }, 0, 0},
		{"tanhFast(-0)", func(im *impl32) func(dst, x []float32) { return im.tanhFast }, negZero, negZero},
		{"tanhFast(NaN)", func(im *impl32) func(dst, x []float32) { return im.tanhFast }, nan, nan},
	}
	for _, im := range impls {
		for _, tc := range tests {
			t.Run(im.name+"/"+tc.name, func(t *testing.T) {
				// Place the value at every position of a 13-element
				// slice so vector bodies and scalar tails both see it.
				for pos := 0; pos < 13; pos++ {
					x := make([]float32, 13)
					x[pos] = tc.x
					got := make([]float32, 13)
					tc.fn(im)(got, x)
					g := got[pos]
					switch {
					case tc.want != tc.want:
						if g == g {
							t.Fatalf("pos %d: got %g, want NaN", pos, g)
						}
					case g != tc.want || math.Signbit(float64(g)) != math.Signbit(float64(tc.want)):
						t.Fatalf("pos %d: got %g, want %g", pos, g, tc.want)
					}
				}
			})
		}
	}
}

// TestActivationInPlace checks dst == x aliasing through the exported API
// and that the float64 path matches math exactly.
func TestActivationInPlace(t *testing.T) {
	tests := []struct {
		name string
		f32  func(dst, x []float32)
		f64  func(dst, x []float64)
		ref  func(float64) float64
	}{
		{"Tanh", Tanh[float32], Tanh[float64], math.Tanh},
		{"TanhFast", TanhFast[float32], TanhFast[float64], math.Tanh},
		{"Exp", Exp[float32], Exp[float64], math.Exp},
		{"Sigmoid", Sigmoid[float32], Sigmoid[float64], func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }},
		{"Log", Log[float32], Log[float64], math.Log},
	}
	const tol = 3e-7 // relative, float32
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(5, 6))
			x := make([]float32, 37)
			x64 := make([]float64, 37)
			for i := range x {
				x[i] = float32(0.01 + 4*r.Float64())
				x64[i] = float64(x[i])
			}
			want := make([]float64, len(x))
			for i := range x {
				want[i] = tc.ref(float64(x[i]))
			}
			tc.f32(x, x)
			tc.f64(x64, x64)
			for i := range x {
				if math.Abs(float64(x[i])-want[i]) > tol*math.Abs(want[i]) {
					t.Fatalf("float32 [%d] = %g, want %g", i, x[i], want[i])
				}
				if x64[i] != want[i] {
					t.Fatalf("float64 [%d] = %g, want exactly %g", i, x64[i], want[i])
				}
			}
		})
	}
}

// TestLog bounds log32 over the whole positive float32 range, including
// subnormals, and checks its special values.
func TestLog(t *testing.T) {
	t.Run("accuracy", func(t *testing.T) {
		const maxULP = 1
		r := rand.New(rand.NewPCG(7, 8))
		worst := 0.0
		for i := 0; i < 300000; i++ {
			// Random bit patterns of positive finite float32 values.
			x := math.Float32frombits(uint32(r.IntN(0x7f800000-1)) + 1)
			if i < 1000 {
				x = float32(1 + (float64(i)-500)*1e-6) // near 1, where ln x ≈ 0
			}
			want := math.Log(float64(x))
			if u := ulpDiff(log32(x), want); u > worst {
				worst = u
				if u > maxULP {
					t.Fatalf("log32(%g) = %g, want %g (%.2f ulp)", x, log32(x), want, u)
				}
			}
		}
		t.Logf("max error %.3f ulp", worst)
	})
	special := []struct {
		name string
		x    float32
		want float64
	}{
		{"one", 1, 0},
		{"zero", 0, math.Inf(-1)},
		{"inf", float32(math.Inf(1)), math.Inf(1)},
		{"negative", -1, math.NaN()},
		{"nan", float32(math.NaN()), math.NaN()},
	}
	for _, tc := range special {
		t.Run(tc.name, func(t *testing.T) {
			got := float64(log32(tc.x))
			if math.IsNaN(tc.want) != math.IsNaN(got) || (!math.IsNaN(got) && got != tc.want) {
				t.Fatalf("log32(%g) = %g, want %g", tc.x, got, tc.want)
			}
		})
	}
}

// TestActivationWideLanes checks that the eight-lane (AVX-512) activations
// give the four-lane (AVX2) results bit for bit: the same instructions on
// wider registers.
func TestActivationWideLanes(t *testing.T) {
	var narrow, wide *impl32
	for _, im := range impls {
		switch im.name {
		case "avx2":
			narrow = im
		case "avx512":
			wide = im
		}
	}
	if narrow == nil || wide == nil {
		t.Skip("needs AVX2 and AVX-512")
	}
	x := actGrid(-120, 120)
	x = append(x, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), float32(math.Copysign(0, -1)))
	for _, f := range []struct {
		name string
		fn   func(im *impl32) func(dst, x []float32)
	}{
		{"exp", func(im *impl32) func(dst, x []float32) { return im.exp }},
		{"sigmoid", func(im *impl32) func(dst, x []float32) { return im.sigmoid }},
		{"tanh", func(im *impl32) func(dst, x []float32) { return im.tanh }},
	} {
		a, b := make([]float32, len(x)), make([]float32, len(x))
		f.fn(narrow)(a, x)
		f.fn(wide)(b, x)
		for i := range a {
			if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
				t.Fatalf("%s(%g): avx512 %g, avx2 %g", f.name, x[i], b[i], a[i])
			}
		}
	}
}

// TestTanhDot checks TanhDot's kernel in every implementation against
// float64 sums of math.Tanh, with and without the y term: the absolute
// error is at most that of TanhFast (5e-7) per term plus float32
// summation, Σ|w|·6e-7; and that it writes exactly m energies. Row lengths cover the assembly path (multiples
// of 8) and the others; values reach past the clamp.
func TestTanhDot(t *testing.T) {
	for _, im := range impls {
		for _, n := range []int{1, 5, 8, 16, 24, 128, 130} {
			for _, m := range []int{1, 2, 7, 31} {
				r := rand.New(rand.NewPCG(uint64(n), uint64(m)))
				x, y, q, w := randSlice(r, m*n), randSlice(r, m*n), randSlice(r, n), randSlice(r, n)
				for i := range x {
					x[i] *= 6
				}
				if m%2 == 1 {
					y = nil
				}
				e := make([]float32, m+2)
				e[m], e[m+1] = 7, 7
				im.tanhDot(e, x, y, q, w, m)
				var sw float64
				for _, v := range w {
					sw += math.Abs(float64(v))
				}
				for j := range m {
					var want float64
					for i := range n {
						v := float64(x[j*n+i]) + float64(q[i])
						if y != nil {
							v += float64(y[j*n+i])
						}
						want += float64(w[i]) * math.Tanh(v)
					}
					if d := math.Abs(float64(e[j]) - want); d > 6e-7*sw+1e-6 {
						t.Fatalf("%s n=%d m=%d row %d: %g, want %g", im.name, n, m, j, e[j], want)
					}
				}
				if e[m] != 7 || e[m+1] != 7 {
					t.Fatalf("%s n=%d m=%d: wrote past e", im.name, n, m)
				}
			}
		}
	}
	// float64: exact math.Tanh terms.
	e := make([]float64, 2)
	TanhDot(e, []float64{0.5, -1, 2, 0}, nil, []float64{0.25, 1}, []float64{2, -3}, 2)
	if want := 2*math.Tanh(0.75) - 3*math.Tanh(0); e[0] != want {
		t.Errorf("float64 row 0: %g, want %g", e[0], want)
	}
	if want := 2*math.Tanh(2.25) - 3*math.Tanh(1); e[1] != want {
		t.Errorf("float64 row 1: %g, want %g", e[1], want)
	}
	TanhDot(e, []float64{0.5, -1, 2, 0}, []float64{1, 1, -1, 0.5}, []float64{0.25, 1}, []float64{2, -3}, 2)
	if want := 2*math.Tanh(1.5+0.25) - 3*math.Tanh(0+1); e[0] != want {
		t.Errorf("float64 with y row 0: %g, want %g", e[0], want)
	}
}
