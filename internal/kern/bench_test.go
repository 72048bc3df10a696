package kern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// benchProduct times one layout/shape for every registered implementation
// and for gonum's blas32.Gemm on the same operands, reporting GFLOP/s.
func benchProduct(b *testing.B, l layout, m, k, n int) {
	r := rand.New(rand.NewPCG(3, 4))
	a, bm := randSlice(r, m*k), randSlice(r, k*n)
	c := make([]float32, m*n)
	flops := 2 * float64(m) * float64(k) * float64(n)
	for _, im := range impls {
		b.Run(im.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				matMul32(im, l, c, a, bm, m, k, n, false)
			}
			reportFlops(b, flops, processCPU()-cpu0)
		})
	}
	b.Run("gonum", func(b *testing.B) {
		ta, tb := blas.NoTrans, blas.NoTrans
		ga := blas32.General{Rows: m, Cols: k, Stride: k, Data: a}
		gb := blas32.General{Rows: k, Cols: n, Stride: n, Data: bm}
		switch l {
		case layoutNT:
			tb = blas.Trans
			gb = blas32.General{Rows: n, Cols: k, Stride: k, Data: bm}
		case layoutTN:
			ta = blas.Trans
			ga = blas32.General{Rows: k, Cols: m, Stride: m, Data: a}
		}
		gc := blas32.General{Rows: m, Cols: n, Stride: n, Data: c}
		b.ReportAllocs()
		cpu0 := processCPU()
		for b.Loop() {
			blas32.Gemm(ta, tb, 1, ga, gb, 0, gc)
		}
		reportFlops(b, flops, processCPU()-cpu0)
	})
}

// reportFlops reports GFLOP/s over wall time and, where the process CPU
// time is known, cpuGFLOP/s over CPU time (all threads, so gonum's parallel
// Sgemm is charged for every core it uses).
func reportFlops(b *testing.B, flopsPerOp float64, cpu time.Duration) {
	total := flopsPerOp * float64(b.N)
	b.ReportMetric(total/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	if cpu > 0 {
		b.ReportMetric(total/cpu.Seconds()/1e9, "cpuGFLOP/s")
	}
}

// BenchmarkMatMul is the reference shape C[256×384] = A[256×320]·B[320×384]
// in the three layouts.
func BenchmarkMatMul(b *testing.B) {
	for _, ly := range layouts {
		b.Run(ly.name, func(b *testing.B) { benchProduct(b, ly.l, 256, 320, 384) })
	}
}

// BenchmarkMatMulShapes covers the project's other shapes: input
// projections (m = time steps), the per-step recurrence (m = 1) and small
// batches.
func BenchmarkMatMulShapes(b *testing.B) {
	shapes := []struct {
		l       layout
		m, k, n int
	}{
		{layoutNT, 1000, 80, 768},
		{layoutNT, 500, 576, 384},
		{layoutNN, 500, 384, 576},
		{layoutTN, 384, 500, 576},
		{layoutNT, 1, 256, 768},
		{layoutNT, 1, 128, 384},
		{layoutNN, 1, 768, 256},
		{layoutNN, 1, 384, 128},
		{layoutTN, 1, 256, 768},
		{layoutNT, 4, 256, 768},
		{layoutNT, 8, 256, 768},
		{layoutNN, 4, 768, 256},
		{layoutTN, 4, 256, 768},
		{layoutTN, 768, 1, 256},
	}
	for _, s := range shapes {
		name := fmt.Sprintf("%s/m%d_k%d_n%d", layouts[s.l].name, s.m, s.k, s.n)
		b.Run(name, func(b *testing.B) { benchProduct(b, s.l, s.m, s.k, s.n) })
	}
}

// BenchmarkActivation compares the float32 activations of every
// implementation with the float64 math functions they replace (ns/element).
func BenchmarkActivation(b *testing.B) {
	const n = 4096
	r := rand.New(rand.NewPCG(9, 10))
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(8*r.Float64() - 4)
	}
	dst := make([]float32, n)
	var cpu0 time.Duration
	perElem := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/elem")
		if cpu := processCPU() - cpu0; cpu > 0 {
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/n, "cpu-ns/elem")
		}
	}
	fns := []struct {
		name string
		get  func(im *impl32) func(dst, x []float32)
		ref  func(float64) float64
	}{
		{"Exp", func(im *impl32) func(dst, x []float32) { return im.exp }, math.Exp},
		{"Sigmoid", func(im *impl32) func(dst, x []float32) { return im.sigmoid }, func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }},
		{"Tanh", func(im *impl32) func(dst, x []float32) { return im.tanh }, math.Tanh},
	}
	for _, f := range fns {
		for _, im := range impls {
			b.Run(f.name+"/"+im.name, func(b *testing.B) {
				cpu0 = processCPU()
				for b.Loop() {
					f.get(im)(dst, x)
				}
				perElem(b)
			})
		}
		b.Run(f.name+"/math", func(b *testing.B) {
			cpu0 = processCPU()
			for b.Loop() {
				for i, v := range x {
					dst[i] = float32(f.ref(float64(v)))
				}
			}
			perElem(b)
		})
	}
	b.Run("Log/go", func(b *testing.B) {
		cpu0 = processCPU()
		for b.Loop() {
			for i, v := range x {
				dst[i] = log32(v*v + 1e-3)
			}
		}
		perElem(b)
	})
	b.Run("Log/math", func(b *testing.B) {
		cpu0 = processCPU()
		for b.Loop() {
			for i, v := range x {
				dst[i] = float32(math.Log(float64(v*v + 1e-3)))
			}
		}
		perElem(b)
	})
}

// BenchmarkVec times Dot and Axpy on a GRU-sized vector (n = 768).
func BenchmarkVec(b *testing.B) {
	const n = 768
	r := rand.New(rand.NewPCG(1, 1))
	x, y := randSlice(r, n), randSlice(r, n)
	for _, im := range impls {
		b.Run("Dot/"+im.name, func(b *testing.B) {
			var s float32
			cpu0 := processCPU()
			for b.Loop() {
				s += im.dot(x, y)
			}
			reportFlops(b, 2*n, processCPU()-cpu0)
			if s != s {
				b.Fatal("NaN dot product")
			}
		})
		b.Run("Axpy/"+im.name, func(b *testing.B) {
			cpu0 := processCPU()
			for b.Loop() {
				im.axpy(y, 1e-3, x)
			}
			reportFlops(b, 2*n, processCPU()-cpu0)
		})
	}
}
