// Package kern holds the numeric kernels that the network spends its time in:
// matrix products, element-wise activations and small vector helpers,
// generic over float32 (the production type) and float64 (used by the
// finite-difference gradient checks).
//
// Matrices are dense, row-major, with explicit shapes. Weights are stored
// [out × in], so a layer's forward pass is MatMulNT.
//
// float32 calls go to fast paths: on amd64 with AVX2+FMA, assembly
// micro-kernels (6×16 tiles, or 6×32 with AVX-512F) behind a packed,
// cache-blocked GEMM, plus matrix-vector kernels for products with fewer
// than four rows; elsewhere a portable Go version of the same algorithm.
// The implementation is chosen once at start-up from the CPU features.
// float64 calls run the plain reference loops and math.Tanh/math.Exp, so
// gradient checks stay exact. Any other element type whose underlying type
// is float32 (a named type) also takes the reference path.
//
// Every function is safe for concurrent use (scratch space comes from a
// sync.Pool) and runs on the calling goroutine only. The output of a matrix
// product must not overlap its inputs.
//
// Every function panics with a "kern: " message when a slice is shorter than
// its stated shape requires or a dimension is negative; that is a caller
// bug, never a data error.
package kern

// Float is the element type of every kernel.
type Float interface{ ~float32 | ~float64 }

func checkLen(name string, have, need int) {
	if have < need {
		panic("kern: " + name + " shorter than its shape")
	}
}

func checkDims(name string, m, k, n int) {
	if m < 0 || k < 0 || n < 0 {
		panic("kern: " + name + " negative dimension")
	}
}

// MatMulNT computes C (m×n) = A (m×k) · Bᵀ where B is (n×k).
// When acc is true the product is added to C instead of overwriting it.
// Only the first m*k, n*k and m*n elements of a, b and c are used; it
// panics if a slice is shorter or a dimension is negative.
func MatMulNT[F Float](c, a, b []F, m, k, n int, acc bool) {
	checkDims("MatMulNT", m, k, n)
	checkLen("MatMulNT a", len(a), m*k)
	checkLen("MatMulNT b", len(b), n*k)
	checkLen("MatMulNT c", len(c), m*n)
	if c32, ok := any(c).([]float32); ok {
		matMul32(active, layoutNT, c32, any(a).([]float32), any(b).([]float32), m, k, n, acc)
		return
	}
	matMulNTRef(c, a, b, m, k, n, acc)
}

// MatMulNN computes C (m×n) = A (m×k) · B (k×n).
// When acc is true the product is added to C instead of overwriting it.
// Only the first m*k, k*n and m*n elements of a, b and c are used; it
// panics if a slice is shorter or a dimension is negative.
func MatMulNN[F Float](c, a, b []F, m, k, n int, acc bool) {
	checkDims("MatMulNN", m, k, n)
	checkLen("MatMulNN a", len(a), m*k)
	checkLen("MatMulNN b", len(b), k*n)
	checkLen("MatMulNN c", len(c), m*n)
	if c32, ok := any(c).([]float32); ok {
		matMul32(active, layoutNN, c32, any(a).([]float32), any(b).([]float32), m, k, n, acc)
		return
	}
	matMulNNRef(c, a, b, m, k, n, acc)
}

// MatMulTN computes C (m×n) = Aᵀ · B where A is (k×m) and B is (k×n).
// This is the weight-gradient product dW (out×in) += dYᵀ · X.
// When acc is true the product is added to C instead of overwriting it.
// Only the first k*m, k*n and m*n elements of a, b and c are used; it
// panics if a slice is shorter or a dimension is negative.
func MatMulTN[F Float](c, a, b []F, m, k, n int, acc bool) {
	checkDims("MatMulTN", m, k, n)
	checkLen("MatMulTN a", len(a), k*m)
	checkLen("MatMulTN b", len(b), k*n)
	checkLen("MatMulTN c", len(c), m*n)
	if c32, ok := any(c).([]float32); ok {
		matMul32(active, layoutTN, c32, any(a).([]float32), any(b).([]float32), m, k, n, acc)
		return
	}
	matMulTNRef(c, a, b, m, k, n, acc)
}

// matMulNTRef is the plain triple loop behind MatMulNT for non-float32
// types.
func matMulNTRef[F Float](c, a, b []F, m, k, n int, acc bool) {
	for i := 0; i < m; i++ {
		ai := a[i*k : i*k+k]
		ci := c[i*n : i*n+n]
		for j := 0; j < n; j++ {
			bj := b[j*k : j*k+k]
			var s F
			for p, v := range ai {
				s += v * bj[p]
			}
			if acc {
				ci[j] += s
			} else {
				ci[j] = s
			}
		}
	}
}

// matMulNNRef is the plain loop nest behind MatMulNN for non-float32 types.
func matMulNNRef[F Float](c, a, b []F, m, k, n int, acc bool) {
	for i := 0; i < m; i++ {
		ci := c[i*n : i*n+n]
		if !acc {
			clear(ci)
		}
		for p := 0; p < k; p++ {
			v := a[i*k+p]
			if v == 0 {
				continue
			}
			bp := b[p*n : p*n+n]
			for j, w := range bp {
				ci[j] += v * w
			}
		}
	}
}

// matMulTNRef is the plain loop nest behind MatMulTN for non-float32 types.
func matMulTNRef[F Float](c, a, b []F, m, k, n int, acc bool) {
	if !acc {
		clear(c[:m*n])
	}
	for p := 0; p < k; p++ {
		ap := a[p*m : p*m+m]
		bp := b[p*n : p*n+n]
		for i, v := range ap {
			if v == 0 {
				continue
			}
			ci := c[i*n : i*n+n]
			for j, w := range bp {
				ci[j] += v * w
			}
		}
	}
}

// Impl names the float32 implementation in use: "avx512" (AVX-512F
// micro-kernel with AVX2 vector kernels), "avx2" (AVX2+FMA assembly) or "go"
// (portable). It is fixed at start-up from the CPU features.
func Impl() string { return active.name }
