// Package kern holds the numeric kernels that the network spends its time in:
// matrix products and element-wise activations, generic over float32 (the
// production type) and float64 (used by the finite-difference gradient
// checks).
//
// Matrices are dense, row-major, with explicit shapes. Weights are stored
// [out × in], so a layer's forward pass is MatMulNT.
//
// Every function panics with a "kern: " message when a slice is shorter than
// its stated shape requires; that is a caller bug, never a data error.
package kern

// Float is the element type of every kernel.
type Float interface{ ~float32 | ~float64 }

func checkLen(name string, have, need int) {
	if have < need {
		panic("kern: " + name + " shorter than its shape")
	}
}

// MatMulNT computes C (m×n) = A (m×k) · Bᵀ where B is (n×k).
// When acc is true the product is added to C instead of overwriting it.
func MatMulNT[F Float](c, a, b []F, m, k, n int, acc bool) {
	checkLen("MatMulNT a", len(a), m*k)
	checkLen("MatMulNT b", len(b), n*k)
	checkLen("MatMulNT c", len(c), m*n)
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

// MatMulNN computes C (m×n) = A (m×k) · B (k×n).
// When acc is true the product is added to C instead of overwriting it.
func MatMulNN[F Float](c, a, b []F, m, k, n int, acc bool) {
	checkLen("MatMulNN a", len(a), m*k)
	checkLen("MatMulNN b", len(b), k*n)
	checkLen("MatMulNN c", len(c), m*n)
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

// MatMulTN computes C (m×n) = Aᵀ · B where A is (k×m) and B is (k×n).
// This is the weight-gradient product dW (out×in) += dYᵀ · X.
// When acc is true the product is added to C instead of overwriting it.
func MatMulTN[F Float](c, a, b []F, m, k, n int, acc bool) {
	checkLen("MatMulTN a", len(a), k*m)
	checkLen("MatMulTN b", len(b), k*n)
	checkLen("MatMulTN c", len(c), m*n)
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
