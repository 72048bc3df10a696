package kern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// vecLens covers empty, sub-vector, vector-width and unrolled-loop edges.
var vecLens = []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 257, 1000}

// TestDotAxpyPaths checks dot and axpy of every float32 implementation
// against float64 sums, and that axpy never writes past len(dst).
func TestDotAxpyPaths(t *testing.T) {
	const tol = 1e-6 // relative to Σ|a·b|, scaled by √n
	for _, im := range impls {
		for _, n := range vecLens {
			t.Run(fmt.Sprintf("%s/n%d", im.name, n), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(n), 3))
				a, b := randSlice(r, n+3), randSlice(r, n+3)
				var want, mag float64
				for i := 0; i < n; i++ {
					want += float64(a[i]) * float64(b[i])
					mag += math.Abs(float64(a[i]) * float64(b[i]))
				}
				bound := tol * math.Sqrt(float64(max(n, 1))) * mag
				if got := im.dot(a[:n], b[:n]); math.Abs(float64(got)-want) > bound {
					t.Fatalf("n=%d: dot = %g, want %g", n, got, want)
				}
				const alpha = float32(-0.75)
				dst := append([]float32(nil), b...)
				im.axpy(dst[:n], alpha, a[:n])
				for i := 0; i < n; i++ {
					w := float64(b[i]) + float64(alpha)*float64(a[i])
					if math.Abs(float64(dst[i])-w) > 1.2e-7*(math.Abs(float64(b[i]))+math.Abs(float64(alpha*a[i]))) {
						t.Fatalf("n=%d: axpy[%d] = %g, want %g", n, i, dst[i], w)
					}
				}
				for i := n; i < len(dst); i++ {
					if dst[i] != b[i] {
						t.Fatalf("n=%d: axpy wrote past dst at %d", n, i)
					}
				}
			})
		}
	}
}

// TestVecHelpers checks the exported helpers on small exact examples in
// both precisions, including in-place use.
func TestVecHelpers(t *testing.T) {
	a := []float64{1, 2, 3, 4, 5}
	b := []float64{2, -1, 0.5, 3, -2}
	tests := []struct {
		name string
		run  func(dst []float64)
		want []float64
	}{
		{"Add", func(d []float64) { Add(d, a, b) }, []float64{3, 1, 3.5, 7, 3}},
		{"Mul", func(d []float64) { Mul(d, a, b) }, []float64{2, -2, 1.5, 12, -10}},
		{"Scale", func(d []float64) { Scale(d, 2, a) }, []float64{2, 4, 6, 8, 10}},
		{"Axpy", func(d []float64) { copy(d, b); Axpy(d, 2, a) }, []float64{4, 3, 6.5, 11, 8}},
		{"ScaleInPlace", func(d []float64) { copy(d, a); Scale(d, -1, d) }, []float64{-1, -2, -3, -4, -5}},
	}
	for _, tc := range tests {
		t.Run(tc.name+"/float64", func(t *testing.T) {
			d := make([]float64, 5)
			tc.run(d)
			for i := range d {
				if d[i] != tc.want[i] {
					t.Fatalf("got %v, want %v", d, tc.want)
				}
			}
		})
	}
	t.Run("Dot", func(t *testing.T) {
		if got := Dot(a, b); got != 2-2+1.5+12-10 {
			t.Fatalf("float64 Dot = %g", got)
		}
		a32 := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9}
		if got := Dot(a32, a32); got != 285 {
			t.Fatalf("float32 Dot = %g, want 285", got)
		}
	})
	t.Run("float32", func(t *testing.T) {
		x := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
		y := []float32{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
		d := make([]float32, len(x))
		Add(d, x, y)
		Mul(d, d, x)
		Axpy(d, -1, x)
		Scale(d, 0.5, d)
		for i := range d {
			want := float32((i+1)*(i+1)) / 2 // ((x+1)·x - x)/2 = x²/2
			if d[i] != want {
				t.Fatalf("d[%d] = %g, want %g", i, d[i], want)
			}
		}
	})
	t.Run("panics", func(t *testing.T) {
		defer func() {
			if r := recover(); r == nil {
				t.Fatal("Add with a short input did not panic")
			}
		}()
		Add(make([]float32, 4), make([]float32, 3), make([]float32, 4))
	})
}
