//go:build amd64

package kern

import "golang.org/x/sys/cpu"

// hasAsm reports whether this build has assembly kernels (used when
// AVX2+FMA are present at run time).
const hasAsm = true

// Assembly kernels in gemm_amd64.s (ABI0). Lengths and strides are in
// elements; flags are ints (0 or 1) so the frame layout stays simple.

//go:noescape
func sgemmKernelAVX2(kc int, a, b, c *float32, ldc int, acc int)

//go:noescape
func sgemmKernelAVX512(kc int, a, b, c *float32, ldc int, acc int)

//go:noescape
func sgemvNAVX2(n, k int, a, b *float32, ldb int, c *float32, acc int)

//go:noescape
func sgemvTAVX2(n, k int, a *float32, inca int, b *float32, ldb int, c *float32, acc int)

//go:noescape
func sdotAVX2(n int, a, b *float32) float32

//go:noescape
func saxpyAVX2(n int, alpha float32, x, dst *float32)

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func microAVX2(kc int, a, b, c []float32, ldc int, acc bool) {
	sgemmKernelAVX2(kc, &a[0], &b[0], &c[0], ldc, b2i(acc))
}

func microAVX512(kc int, a, b, c []float32, ldc int, acc bool) {
	sgemmKernelAVX512(kc, &a[0], &b[0], &c[0], ldc, b2i(acc))
}

func gemvNAVX2(c, a, b []float32, k, n, ldb int, acc bool) {
	if n == 0 {
		return
	}
	var ap *float32
	if k > 0 {
		ap = &a[0]
	} else {
		ap = &c[0] // never read when k == 0
	}
	bp := ap
	if len(b) > 0 {
		bp = &b[0]
	}
	sgemvNAVX2(n, k, ap, bp, ldb, &c[0], b2i(acc))
}

func gemvTAVX2(c, a []float32, inca int, b []float32, ldb, k, n int, acc bool) {
	if n == 0 {
		return
	}
	if k == 0 {
		if !acc {
			clear(c[:n])
		}
		return
	}
	sgemvTAVX2(n, k, &a[0], inca, &b[0], ldb, &c[0], b2i(acc))
}

func dotAVX2(a, b []float32) float32 {
	if len(a) == 0 {
		return 0
	}
	return sdotAVX2(len(a), &a[0], &b[0])
}

func axpyAVX2(dst []float32, alpha float32, x []float32) {
	if len(dst) == 0 {
		return
	}
	saxpyAVX2(len(dst), alpha, &x[0], &dst[0])
}

var implAVX2 = &impl32{
	name:  "avx2",
	mr:    6,
	nr:    16,
	micro: microAVX2,
	gemvN: gemvNAVX2,
	gemvT: gemvTAVX2,
	dot:   dotAVX2,
	axpy:  axpyAVX2,

	exp:     expAVX2,
	sigmoid: sigmoidAVX2,
	tanh:    tanhAVX2,
}

var implAVX512 = &impl32{
	name:  "avx512",
	mr:    6,
	nr:    32,
	micro: microAVX512,
	gemvN: gemvNAVX2,
	gemvT: gemvTAVX2,
	dot:   dotAVX2,
	axpy:  axpyAVX2,

	exp:     expAVX2,
	sigmoid: sigmoidAVX2,
	tanh:    tanhAVX2,
}

func init() {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		impls = append(impls, implAVX2)
		if cpu.X86.HasAVX512F {
			impls = append(impls, implAVX512)
		}
		active = impls[len(impls)-1]
	}
}

//go:noescape
func expAsm(n int, x, dst *float32)

//go:noescape
func sigmoidAsm(n int, x, dst *float32)

//go:noescape
func tanhAsm(n int, x, dst *float32)

// vecAct runs the assembly activation on the multiple-of-4 prefix of x and
// the scalar Go version (same formulas) on the rest.
func vecAct(dst, x []float32, body func(n int, x, dst *float32), tail func(float32) float32) {
	dst = dst[:len(x)]
	n := len(x) &^ 3
	if n > 0 {
		body(n, &x[0], &dst[0])
	}
	for i := n; i < len(x); i++ {
		dst[i] = tail(x[i])
	}
}

func expAVX2(dst, x []float32)     { vecAct(dst, x, expAsm, exp32) }
func sigmoidAVX2(dst, x []float32) { vecAct(dst, x, sigmoidAsm, sigmoid32) }
func tanhAVX2(dst, x []float32)    { vecAct(dst, x, tanhAsm, tanh32) }
