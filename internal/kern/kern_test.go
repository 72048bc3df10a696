package kern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"golang.org/x/sys/cpu"
)

// matTol is the allowed error of a float32 product element, relative to
// Σ_p |a_ip·b_pj| (+|c_ij| when accumulating) and scaled by √k.
const matTol = 1e-6

var layouts = []struct {
	name string
	l    layout
}{
	{"NT", layoutNT},
	{"NN", layoutNN},
	{"TN", layoutTN},
}

// refProduct returns the float64 product for layout l together with the
// magnitude scale Σ|a·b| of every element.
func refProduct(l layout, a, b []float32, m, k, n int) (ref, mag []float64) {
	ref = make([]float64, m*n)
	mag = make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s, g float64
			for p := 0; p < k; p++ {
				var av, bv float64
				switch l {
				case layoutNT:
					av, bv = float64(a[i*k+p]), float64(b[j*k+p])
				case layoutNN:
					av, bv = float64(a[i*k+p]), float64(b[p*n+j])
				case layoutTN:
					av, bv = float64(a[p*m+i]), float64(b[p*n+j])
				}
				s += av * bv
				g += math.Abs(av * bv)
			}
			ref[i*n+j] = s
			mag[i*n+j] = g
		}
	}
	return ref, mag
}

func randSlice(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(2*r.Float64() - 1)
	}
	return s
}

// callPublic runs the exported function for layout l.
func callPublic(l layout, c, a, b []float32, m, k, n int, acc bool) {
	switch l {
	case layoutNT:
		MatMulNT(c, a, b, m, k, n, acc)
	case layoutNN:
		MatMulNN(c, a, b, m, k, n, acc)
	case layoutTN:
		MatMulTN(c, a, b, m, k, n, acc)
	}
}

// checkProduct runs one product through run and compares it with the
// float64 reference. The slices carry a guard tail that must stay intact.
func checkProduct(t *testing.T, r *rand.Rand, l layout, m, k, n int, acc bool,
	run func(c, a, b []float32)) {
	t.Helper()
	const guard = 9
	const sentinel = float32(-12345.5)
	a := randSlice(r, m*k+guard)
	b := randSlice(r, k*n+guard)
	c := randSlice(r, m*n+guard)
	for i := m * n; i < len(c); i++ {
		c[i] = sentinel
	}
	a0 := append([]float32(nil), a...)
	b0 := append([]float32(nil), b...)
	c0 := append([]float32(nil), c...)
	ref, mag := refProduct(l, a, b, m, k, n)
	run(c, a, b)
	bound := matTol * math.Sqrt(float64(max(k, 1)))
	for i := 0; i < m*n; i++ {
		want, scale := ref[i], mag[i]
		if acc {
			want += float64(c0[i])
			scale += math.Abs(float64(c0[i]))
		}
		got := float64(c[i])
		if d := math.Abs(got - want); !(d <= bound*scale+1e-30) {
			t.Fatalf("m=%d k=%d n=%d acc=%v: c[%d,%d] = %g, want %g (err %.3g, allowed %.3g)",
				m, k, n, acc, i/n, i%n, got, want, d, bound*scale)
		}
	}
	for i := m * n; i < len(c); i++ {
		if c[i] != sentinel {
			t.Fatalf("m=%d k=%d n=%d: wrote past C at %d", m, k, n, i)
		}
	}
	for i := range a {
		if a[i] != a0[i] {
			t.Fatalf("m=%d k=%d n=%d: A modified at %d", m, k, n, i)
		}
	}
	for i := range b {
		if b[i] != b0[i] {
			t.Fatalf("m=%d k=%d n=%d: B modified at %d", m, k, n, i)
		}
	}
}

type shape struct{ m, k, n int }

// testShapes returns every combination of the small odd sizes plus larger
// shapes that cross the vector width, the tile sizes and the cache blocks.
func testShapes() []shape {
	small := []int{1, 2, 3, 5, 7, 8, 15, 16, 17, 31, 33}
	var s []shape
	for _, m := range small {
		for _, k := range small {
			for _, n := range small {
				s = append(s, shape{m, k, n})
			}
		}
	}
	s = append(s,
		shape{64, 64, 64}, shape{100, 80, 384}, shape{257, 33, 17},
		shape{17, 257, 100}, shape{100, 257, 257}, shape{1, 256, 768},
		shape{1, 576, 384}, shape{1, 257, 65}, shape{2, 129, 200},
		shape{3, 300, 70}, shape{4, 128, 384}, shape{6, 80, 32},
		shape{145, 20, 40}, shape{300, 9, 50}, shape{13, 513, 47},
		shape{5, 3, 2049}, shape{7, 600, 33}, shape{64, 1, 64},
		shape{150, 260, 97}, shape{10, 256, 96},
	)
	return s
}

// TestMatMulPaths checks every float32 implementation available on this
// CPU, through the exported API, the packed driver and the row-wise
// matrix-vector route, for all layouts and both acc modes.
func TestMatMulPaths(t *testing.T) {
	saved := active
	defer func() { active = saved }()
	shapes := testShapes()
	for _, im := range impls {
		t.Run(im.name, func(t *testing.T) {
			routes := []struct {
				name string
				run  func(l layout, c, a, b []float32, m, k, n int, acc bool)
			}{
				{"public", func(l layout, c, a, b []float32, m, k, n int, acc bool) {
					active = im
					callPublic(l, c, a, b, m, k, n, acc)
				}},
				{"packed", func(l layout, c, a, b []float32, m, k, n int, acc bool) {
					sgemm(im, l, c, a, b, nil, m, k, n, acc)
				}},
				{"rows", func(l layout, c, a, b []float32, m, k, n int, acc bool) {
					matMulRows32(im, l, c, a, b, m, k, n, acc)
				}},
			}
			for _, rt := range routes {
				for _, ly := range layouts {
					t.Run(rt.name+"/"+ly.name, func(t *testing.T) {
						r := rand.New(rand.NewPCG(1, uint64(ly.l)))
						for _, sh := range shapes {
							if rt.name != "public" && sh.m*sh.n*sh.k > 1<<20 {
								continue // the large shapes run once, through the public route
							}
							for _, acc := range []bool{false, true} {
								checkProduct(t, r, ly.l, sh.m, sh.k, sh.n, acc, func(c, a, b []float32) {
									rt.run(ly.l, c, a, b, sh.m, sh.k, sh.n, acc)
								})
							}
						}
					})
				}
			}
		})
	}
}

// TestMatMulDegenerate covers empty dimensions: k = 0 clears C (or leaves
// it when accumulating), m = 0 or n = 0 touches nothing.
func TestMatMulDegenerate(t *testing.T) {
	saved := active
	defer func() { active = saved }()
	tests := []struct {
		name    string
		m, k, n int
		acc     bool
		want    float32 // value of every C element afterwards
	}{
		{"k0", 3, 0, 5, false, 0},
		{"k0acc", 3, 0, 5, true, 7},
		{"m0", 0, 4, 5, false, 7},
		{"n0", 3, 4, 0, false, 7},
	}
	for _, im := range impls {
		active = im
		for _, tc := range tests {
			for _, ly := range layouts {
				t.Run(im.name+"/"+tc.name+"/"+ly.name, func(t *testing.T) {
					c := make([]float32, 15)
					for i := range c {
						c[i] = 7
					}
					a := make([]float32, tc.m*tc.k)
					b := make([]float32, tc.k*tc.n)
					callPublic(ly.l, c, a, b, tc.m, tc.k, tc.n, tc.acc)
					for i := 0; i < tc.m*tc.n; i++ {
						if c[i] != tc.want {
							t.Fatalf("c[%d] = %g, want %g", i, c[i], tc.want)
						}
					}
					for i := tc.m * tc.n; i < len(c); i++ {
						if c[i] != 7 {
							t.Fatalf("c[%d] = %g beyond m*n changed", i, c[i])
						}
					}
				})
			}
		}
	}
}

// TestMatMulFloat64 checks the exact float64 path on a hand-computed
// example: A = [[1 2 3] [4 5 6]], B = [[7 8] [9 10] [11 12]].
func TestMatMulFloat64(t *testing.T) {
	a := []float64{1, 2, 3, 4, 5, 6}       // (2×3)
	at := []float64{1, 4, 2, 5, 3, 6}      // Aᵀ stored (3×2)
	b := []float64{7, 8, 9, 10, 11, 12}    // (3×2)
	bt := []float64{7, 9, 11, 8, 10, 12}   // Bᵀ stored (2×3)
	want := []float64{58, 64, 139, 154}    // A·B
	wantAcc := []float64{59, 65, 140, 155} // 1 + A·B
	tests := []struct {
		name string
		run  func(c []float64, acc bool)
	}{
		{"NT", func(c []float64, acc bool) { MatMulNT(c, a, bt, 2, 3, 2, acc) }},
		{"NN", func(c []float64, acc bool) { MatMulNN(c, a, b, 2, 3, 2, acc) }},
		{"TN", func(c []float64, acc bool) { MatMulTN(c, at, b, 2, 3, 2, acc) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := []float64{1, 1, 1, 1}
			tc.run(c, false)
			for i := range want {
				if c[i] != want[i] {
					t.Fatalf("c = %v, want %v", c, want)
				}
			}
			c = []float64{1, 1, 1, 1}
			tc.run(c, true)
			for i := range want {
				if c[i] != wantAcc[i] {
					t.Fatalf("acc: c = %v, want %v", c, wantAcc)
				}
			}
		})
	}
}

// TestMatMulNamedFloat32 checks that a named float32 type (which cannot use
// the []float32 fast path) still gets the right answer.
func TestMatMulNamedFloat32(t *testing.T) {
	type f32 float32
	a := []f32{1, 2, 3, 4, 5, 6}
	bt := []f32{7, 9, 11, 8, 10, 12}
	c := make([]f32, 4)
	MatMulNT(c, a, bt, 2, 3, 2, false)
	want := []f32{58, 64, 139, 154}
	for i := range want {
		if c[i] != want[i] {
			t.Fatalf("c = %v, want %v", c, want)
		}
	}
}

// TestMatMulPanics checks the documented panics for short slices and
// negative dimensions.
func TestMatMulPanics(t *testing.T) {
	tests := []struct {
		name string
		run  func()
	}{
		{"shortA", func() { MatMulNT(make([]float32, 4), make([]float32, 5), make([]float32, 6), 2, 3, 2, false) }},
		{"shortB", func() { MatMulNN(make([]float32, 4), make([]float32, 6), make([]float32, 5), 2, 3, 2, false) }},
		{"shortC", func() { MatMulTN(make([]float32, 3), make([]float32, 6), make([]float32, 6), 2, 3, 2, false) }},
		{"negative", func() { MatMulNT(make([]float32, 4), make([]float32, 6), make([]float32, 6), 2, -3, 2, false) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				s, ok := r.(string)
				if !ok || len(s) < 6 || s[:6] != "kern: " {
					t.Fatalf("recovered %v, want a kern: panic", r)
				}
			}()
			tc.run()
		})
	}
}

// TestMatMulConcurrent runs products of different shapes from several
// goroutines at once; pooled scratch must never be shared.
func TestMatMulConcurrent(t *testing.T) {
	const workers, rounds = 4, 8
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 7))
			m, k, n := 20+7*w, 30+5*w, 40+3*w
			for it := 0; it < rounds; it++ {
				a, b := randSlice(r, m*k), randSlice(r, n*k)
				c := make([]float32, m*n)
				MatMulNT(c, a, b, m, k, n, false)
				ref, mag := refProduct(layoutNT, a, b, m, k, n)
				for i := range c {
					if math.Abs(float64(c[i])-ref[i]) > matTol*math.Sqrt(float64(k))*mag[i] {
						errs <- fmt.Errorf("worker %d: c[%d] = %g, want %g", w, i, c[i], ref[i])
						return
					}
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestImplSelection checks that the fastest implementation the CPU
// supports is registered and active.
func TestImplSelection(t *testing.T) {
	want := "go"
	if hasAsm && cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		want = "avx2"
		if cpu.X86.HasAVX512F {
			want = "avx512"
		}
	}
	if active.name != want {
		t.Fatalf("active implementation %q, want %q (registered: %d)", active.name, want, len(impls))
	}
}

// FuzzMatMul compares the active float32 implementation with the float64
// reference on fuzzer-chosen shapes (each dimension 0..47), layouts and
// accumulate flags.
func FuzzMatMul(f *testing.F) {
	f.Add(uint8(1), uint8(17), uint8(33), uint8(0), false, uint64(1))
	f.Add(uint8(7), uint8(1), uint8(16), uint8(1), true, uint64(2))
	f.Add(uint8(40), uint8(9), uint8(1), uint8(2), false, uint64(3))
	f.Fuzz(func(t *testing.T, m8, k8, n8, l8 uint8, acc bool, seed uint64) {
		m, k, n := int(m8%48), int(k8%48), int(n8%48)
		l := layout(l8 % 3)
		r := rand.New(rand.NewPCG(seed, 99))
		checkProduct(t, r, l, m, k, n, acc, func(c, a, b []float32) {
			callPublic(l, c, a, b, m, k, n, acc)
		})
	})
}
