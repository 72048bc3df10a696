package kern

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestMatMulPacked checks products with a pre-packed right operand against
// the float64 reference for every implementation, both packable layouts,
// both acc modes and the test shapes (including several depth and column
// blocks), and that one packing serves several left operands.
func TestMatMulPacked(t *testing.T) {
	saved := active
	defer func() { active = saved }()
	for _, im := range impls {
		active = im
		for _, ly := range layouts[:2] {
			t.Run(im.name+"/"+ly.name, func(t *testing.T) {
				r := rand.New(rand.NewPCG(8, uint64(ly.l)))
				for _, sh := range testShapes() {
					if sh.m*sh.n*sh.k > 1<<20 {
						continue
					}
					for _, acc := range []bool{false, true} {
						var p Packed[float32]
						checkProduct(t, r, ly.l, sh.m, sh.k, sh.n, acc, func(c, a, b []float32) {
							if ly.l == layoutNT {
								p.PackNT(b, sh.n, sh.k)
							} else {
								p.PackNN(b, sh.k, sh.n)
							}
							// A second product on the same packing, rows
							// swapped, must give the rows swapped.
							if sh.m >= 2 && sh.k > 0 && sh.n > 0 {
								a2 := append([]float32(nil), a[sh.k:2*sh.k]...)
								a2 = append(a2, a[:sh.k]...)
								c2 := make([]float32, 2*sh.n)
								MatMulPacked(c2, a2, &p, 2, false)
								c1 := make([]float32, 2*sh.n)
								MatMulPacked(c1, a[:2*sh.k], &p, 2, false)
								for j := 0; j < sh.n; j++ {
									if c2[j] != c1[sh.n+j] || c2[sh.n+j] != c1[j] {
										t.Fatalf("%v: swapped rows differ at column %d", sh, j)
									}
								}
							}
							MatMulPacked(c, a, &p, sh.m, acc)
						})
					}
				}
			})
		}
	}
}

// TestMatMulPackedFloat64 checks the reference route of Packed.
func TestMatMulPackedFloat64(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	const m, k, n = 5, 7, 3
	a, w := make([]float64, m*k), make([]float64, n*k)
	for i := range a {
		a[i] = r.NormFloat64()
	}
	for i := range w {
		w[i] = r.NormFloat64()
	}
	want, got := make([]float64, m*n), make([]float64, m*n)
	MatMulNT(want, a, w, m, k, n, false)
	var p Packed[float64]
	p.PackNT(w, n, k)
	MatMulPacked(got, a, &p, m, false)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("NT element %d: %g, want %g", i, got[i], want[i])
		}
	}
	// NN: B (k×n) is w read as k×n.
	MatMulNN(want, a, w, m, k, n, false)
	p.PackNN(w, k, n)
	MatMulPacked(got, a, &p, m, false)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("NN element %d: %g, want %g", i, got[i], want[i])
		}
	}
}

// BenchmarkMatMulPacked compares a batched recurrent step, C (m×768) =
// A (m×256) · Wᵀ with W (768×256), on a pre-packed W against the same
// product packing W every time and against m matrix-vector products.
func BenchmarkMatMulPacked(b *testing.B) {
	const k, n = 256, 768
	r := rand.New(rand.NewPCG(3, 4))
	w := randSlice(r, n*k)
	for _, m := range []int{2, 6, 10, 20} {
		a, c := randSlice(r, m*k), make([]float32, m*n)
		flops := 2 * float64(m) * k * n
		var p Packed[float32]
		p.PackNT(w, n, k)
		b.Run(fmt.Sprintf("m%d/packed", m), func(b *testing.B) {
			cpu0 := processCPU()
			for b.Loop() {
				MatMulPacked(c, a, &p, m, false)
			}
			reportFlops(b, flops, processCPU()-cpu0)
		})
		b.Run(fmt.Sprintf("m%d/matmul", m), func(b *testing.B) {
			cpu0 := processCPU()
			for b.Loop() {
				MatMulNT(c, a, w, m, k, n, false)
			}
			reportFlops(b, flops, processCPU()-cpu0)
		})
		b.Run(fmt.Sprintf("m%d/rows", m), func(b *testing.B) {
			cpu0 := processCPU()
			for b.Loop() {
				for i := range m {
					MatMulNT(c[i*n:(i+1)*n], a[i*k:(i+1)*k], w, 1, k, n, false)
				}
			}
			reportFlops(b, flops, processCPU()-cpu0)
		})
	}
}
