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
func sgemmKernel4AVX2(kc int, a, b, c *float32, ldc int, acc int)

//go:noescape
func sgemmKernelAVX512(kc int, a, b, c *float32, ldc int, acc int)

//go:noescape
func sgemmKernel4AVX512(kc int, a, b, c *float32, ldc int, acc int)

//go:noescape
func sgemvNAVX2(n, k int, a, b *float32, ldb int, c *float32, acc int)

//go:noescape
func sgemvNF16AVX2(n, k int, a *float32, b *uint16, ldb int, c *float32, acc int)

//go:noescape
func sgemvNF16AVX512(n, k int, a *float32, b *uint16, ldb int, c *float32, acc int)

//go:noescape
func sgemvTAVX2(n, k int, a *float32, inca int, b *float32, ldb int, c *float32, acc int)

//go:noescape
func transpose8AVX2(nb int, src *float32, lds int, dst *float32, ldd int)

//go:noescape
func copyPanelsAVX2(kc, full int, src *float32, ld int, dst *float32, w int)

//go:noescape
func transpose6AVX2(nb int, src *float32, lds int, dst *float32)

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

// The wrappers below index the last element each kernel touches, so a
// driver bug panics with a bounds error instead of corrupting memory.

func microAVX2(kc int, a, b, c []float32, ldc int, acc bool) {
	_, _, _ = a[kc*6-1], b[kc*16-1], c[5*ldc+15]
	sgemmKernelAVX2(kc, &a[0], &b[0], &c[0], ldc, b2i(acc))
}

func micro4AVX2(kc int, a, b, c []float32, ldc int, acc bool) {
	_, _, _ = a[kc*6-1], b[kc*16-1], c[3*ldc+15]
	sgemmKernel4AVX2(kc, &a[0], &b[0], &c[0], ldc, b2i(acc))
}

func microAVX512(kc int, a, b, c []float32, ldc int, acc bool) {
	_, _, _ = a[kc*6-1], b[kc*32-1], c[5*ldc+31]
	sgemmKernelAVX512(kc, &a[0], &b[0], &c[0], ldc, b2i(acc))
}

func micro4AVX512(kc int, a, b, c []float32, ldc int, acc bool) {
	_, _, _ = a[kc*6-1], b[kc*32-1], c[3*ldc+31]
	sgemmKernel4AVX512(kc, &a[0], &b[0], &c[0], ldc, b2i(acc))
}

func gemvNAVX2(c, a, b []float32, k, n, ldb int, acc bool) {
	if n == 0 {
		return
	}
	if k == 0 {
		if !acc {
			clear(c[:n])
		}
		return
	}
	_, _, _ = a[k-1], b[(n-1)*ldb+k-1], c[n-1]
	sgemvNAVX2(n, k, &a[0], &b[0], ldb, &c[0], b2i(acc))
}

func gemvNF16AVX2(c, a []float32, b []uint16, k, n, ldb int, acc bool) {
	if n == 0 {
		return
	}
	_, _, _ = a[k-1], b[(n-1)*ldb+k-1], c[n-1]
	sgemvNF16AVX2(n, k, &a[0], &b[0], ldb, &c[0], b2i(acc))
}

// gemvNF16AVX512 is gemvNF16AVX2 (the same result to the last bit) with
// its rows in groups of eight on the AVX-512 kernel and the rest on the
// AVX2 one.
func gemvNF16AVX512(c, a []float32, b []uint16, k, n, ldb int, acc bool) {
	if n == 0 {
		return
	}
	_, _, _ = a[k-1], b[(n-1)*ldb+k-1], c[n-1]
	n8 := n &^ 7
	if n8 > 0 {
		sgemvNF16AVX512(n8, k, &a[0], &b[0], ldb, &c[0], b2i(acc))
	}
	if n8 < n {
		sgemvNF16AVX2(n-n8, k, &a[0], &b[n8*ldb], ldb, &c[n8], b2i(acc))
	}
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
	_, _, _ = a[(k-1)*inca], b[(k-1)*ldb+n-1], c[n-1]
	sgemvTAVX2(n, k, &a[0], inca, &b[0], ldb, &c[0], b2i(acc))
}

func transpose8(dst []float32, ldd int, src []float32, lds, kc int) {
	nb := kc / 8
	if nb == 0 {
		return
	}
	_, _ = src[7*lds+8*nb-1], dst[(8*nb-1)*ldd+7]
	transpose8AVX2(nb, &src[0], lds, &dst[0], ldd)
}

func transpose6(dst []float32, src []float32, lds, kc int) {
	nb := kc / 8
	if nb == 0 {
		return
	}
	_, _ = src[5*lds+8*nb-1], dst[8*nb*6-1]
	transpose6AVX2(nb, &src[0], lds, &dst[0])
}

func copyPanelsFast(dst, src []float32, ld, kc, full, w int) bool {
	if w != 6 && w != 16 && w != 32 {
		return false
	}
	if kc == 0 || full == 0 {
		return true
	}
	_, _ = src[(kc-1)*ld+full*w-1], dst[(full-1)*w*kc+kc*w-1]
	copyPanelsAVX2(kc, full, &src[0], ld, &dst[0], w)
	return true
}

func dotAVX2(a, b []float32) float32 {
	if len(a) == 0 {
		return 0
	}
	_ = b[len(a)-1]
	return sdotAVX2(len(a), &a[0], &b[0])
}

func axpyAVX2(dst []float32, alpha float32, x []float32) {
	if len(dst) == 0 {
		return
	}
	_ = x[len(dst)-1]
	saxpyAVX2(len(dst), alpha, &x[0], &dst[0])
}

// implAVX2 needs AVX2 and FMA: 6×16 micro-kernel, matrix-vector, dot, axpy
// and float64-internal activation kernels in assembly.
var implAVX2 = &impl32{
	name:   "avx2",
	mr:     6,
	nr:     16,
	micro:  microAVX2,
	micro4: micro4AVX2,
	tr8:    transpose8,
	tr6:    transpose6,
	cp:     copyPanelsFast,
	gemvN:  gemvNAVX2,
	gemvT:  gemvTAVX2,
	dot:    dotAVX2,
	axpy:   axpyAVX2,

	exp:      expAVX2,
	sigmoid:  sigmoidAVX2,
	tanh:     tanhAVX2,
	tanhFast: tanhFastAVX2,
	tanhDot:  tanhDotAVX2,

	add:      addAVX2,
	mul:      mulAVX2,
	tanhGrad: tanhGradAVX2w,
	gruGate:  gruGateAVX2w,
	gruOut:   gruOutAVX2w,
	gruBack:  gruBackAVX2w,
	adam:     adamAVX2w,
}

// implAVX512 is implAVX2 with AVX-512F's 6×32 ZMM micro-kernels for the
// packed GEMM and its activations on eight float64 lanes; the memory-bound
// matrix-vector and vector kernels, the fast tanh and the fused training
// kernels stay on AVX2.
var implAVX512 = func() *impl32 {
	p := *implAVX2
	p.name, p.nr = "avx512", 32
	p.micro, p.micro4 = microAVX512, micro4AVX512
	p.exp, p.sigmoid, p.tanh = expAVX512, sigmoidAVX512, tanhAVX512
	return &p
}()

// init registers the assembly implementations the CPU (and OS) support and
// makes the fastest one active.
func init() {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		impls = append(impls, implAVX2)
		if cpu.X86.HasAVX512F {
			impls = append(impls, implAVX512)
		}
		if cpu.X86.HasF16C {
			implAVX2.gemvNF16 = gemvNF16AVX2
			implAVX512.gemvNF16 = gemvNF16AVX512
		}
		active = impls[len(impls)-1]
	}
}

// Activation kernels in act_amd64.s: dst[i] = f(x[i]) for i < n, n a
// multiple of 4.

//go:noescape
func expAsm(n int, x, dst *float32)

//go:noescape
func sigmoidAsm(n int, x, dst *float32)

//go:noescape
func tanhAsm(n int, x, dst *float32)

//go:noescape
func tanhFastAsm(n int, x, dst *float32)

//go:noescape
func tanhDotAsm(m, n int, x, y, q, w, e *float32)

// tanhDotAVX2 runs tanhDotAsm when the row length is a multiple of 8, the
// Go version otherwise.
func tanhDotAVX2(e, x, y, q, w []float32, m int) {
	n := len(q)
	if m == 0 {
		return
	}
	if n == 0 || n&7 != 0 {
		tanhDotGo(e, x, y, q, w, m)
		return
	}
	_, _, _ = x[m*n-1], w[n-1], e[m-1]
	var py *float32 // nil: no y term
	if y != nil {
		_ = y[m*n-1]
		py = &y[0]
	}
	tanhDotAsm(m, n, &x[0], py, &q[0], &w[0], &e[0])
}

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

//go:noescape
func expAsm512(n int, x, dst *float32)

//go:noescape
func sigmoidAsm512(n int, x, dst *float32)

//go:noescape
func tanhAsm512(n int, x, dst *float32)

// vecAct512 runs the AVX-512 activation on the multiple-of-8 prefix of x
// and vecAct on the rest.
func vecAct512(dst, x []float32, body512, body func(n int, x, dst *float32), tail func(float32) float32) {
	dst = dst[:len(x)]
	n := len(x) &^ 7
	if n > 0 {
		body512(n, &x[0], &dst[0])
	}
	vecAct(dst[n:], x[n:], body, tail)
}

func expAVX512(dst, x []float32)     { vecAct512(dst, x, expAsm512, expAsm, exp32) }
func sigmoidAVX512(dst, x []float32) { vecAct512(dst, x, sigmoidAsm512, sigmoidAsm, sigmoid32) }
func tanhAVX512(dst, x []float32)    { vecAct512(dst, x, tanhAsm512, tanhAsm, tanh32) }

func expAVX2(dst, x []float32)     { vecAct(dst, x, expAsm, exp32) }
func sigmoidAVX2(dst, x []float32) { vecAct(dst, x, sigmoidAsm, sigmoid32) }
func tanhAVX2(dst, x []float32)    { vecAct(dst, x, tanhAsm, tanh32) }

// tanhFastAVX2 runs tanhFastAsm on the multiple-of-8 prefix of x.
func tanhFastAVX2(dst, x []float32) {
	dst = dst[:len(x)]
	n := len(x) &^ 7
	if n > 0 {
		tanhFastAsm(n, &x[0], &dst[0])
	}
	for i := n; i < len(x); i++ {
		dst[i] = tanhFast32(x[i])
	}
}

// Element-wise kernels in cell_amd64.s on the multiple-of-8 (Adam: 4)
// prefix; the Go versions do the rest.

//go:noescape
func vaddAVX2(n int, a, b, dst *float32)

//go:noescape
func vmulAVX2(n int, a, b, dst *float32)

//go:noescape
func tanhGradAVX2(n int, s float32, w, t, dst *float32)

//go:noescape
func gruGateAVX2(n int, gx, r, gh, dst *float32)

//go:noescape
func gruOutAVX2(n int, z, nn, hprev, h *float32)

//go:noescape
func gruBackAVX2(n, hh int, dgx, dgh, dhprev, dh, rzn, ghn, hprev *float32)

//go:noescape
func adamAVX2(n int, p, gr, m, v *float32, c *AdamCoef)

func addAVX2(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := len(dst) &^ 7
	if n > 0 {
		vaddAVX2(n, &a[0], &b[0], &dst[0])
	}
	addGo(dst[n:], a[n:], b[n:])
}

func mulAVX2(dst, a, b []float32) {
	a, b = a[:len(dst)], b[:len(dst)]
	n := len(dst) &^ 7
	if n > 0 {
		vmulAVX2(n, &a[0], &b[0], &dst[0])
	}
	mulGo(dst[n:], a[n:], b[n:])
}

func tanhGradAVX2w(dst, t, w []float32, sc float32) {
	t, w = t[:len(dst)], w[:len(dst)]
	n := len(dst) &^ 7
	if n > 0 {
		tanhGradAVX2(n, sc, &w[0], &t[0], &dst[0])
	}
	tanhGradGo(dst[n:], t[n:], w[n:], sc)
}

func gruGateAVX2w(dst, gx, r, gh []float32) {
	gx, r, gh = gx[:len(dst)], r[:len(dst)], gh[:len(dst)]
	n := len(dst) &^ 7
	if n > 0 {
		gruGateAVX2(n, &gx[0], &r[0], &gh[0], &dst[0])
	}
	gruGateGo(dst[n:], gx[n:], r[n:], gh[n:])
}

func gruOutAVX2w(h, z, nn, hprev []float32) {
	z, nn, hprev = z[:len(h)], nn[:len(h)], hprev[:len(h)]
	n := len(h) &^ 7
	if n > 0 {
		gruOutAVX2(n, &z[0], &nn[0], &hprev[0], &h[0])
	}
	gruOutGo(h[n:], z[n:], nn[n:], hprev[n:])
}

func gruBackAVX2w(dgx, dgh, dhprev, dh, rzn, ghn, hprev []float32, H int) {
	_, _ = dgx[3*H-1], dgh[3*H-1]
	_, _, _, _, _ = dhprev[H-1], dh[H-1], rzn[3*H-1], ghn[H-1], hprev[H-1]
	n := H &^ 7
	if n > 0 {
		gruBackAVX2(n, H, &dgx[0], &dgh[0], &dhprev[0], &dh[0], &rzn[0], &ghn[0], &hprev[0])
	}
	gruBackRef(dgx, dgh, dhprev, dh, rzn, ghn, hprev, n, H)
}

func adamAVX2w(params, grads, ms, vs []float32, c *AdamCoef) {
	grads, ms, vs = grads[:len(params)], ms[:len(params)], vs[:len(params)]
	n := len(params) &^ 3
	if n > 0 {
		adamAVX2(n, &params[0], &grads[0], &ms[0], &vs[0], c)
	}
	adamRef(params[n:], grads[n:], ms[n:], vs[n:], c)
}

// halfToFloat8 converts n/8·8 binary16 values at src into float32s at dst
// with the F16C instruction VCVTPH2PS, 8 at a time.
//
//go:noescape
func halfToFloat8(dst *float32, src *uint16, n int)

// floatToHalf8 converts n/8·8 float32s at src into binary16 values at dst
// with the F16C instruction VCVTPS2PH, 8 at a time, rounding to nearest,
// ties to even.
//
//go:noescape
func floatToHalf8(dst *uint16, src *float32, n int)

// FloatToHalfFast converts the first multiple of 8 values of src into the
// nearest binary16 values (ties to even; NaN stays NaN, quiet) in dst, and
// returns how many it converted: 0 without F16C, where the caller converts
// them all.
func FloatToHalfFast(dst []uint16, src []float32) int {
	n := min(len(dst), len(src)) &^ 7
	if !haveF16C || n == 0 {
		return 0
	}
	floatToHalf8(&dst[0], &src[0], n)
	return n
}

// haveF16C: F16C needs the OS to save the YMM registers, which HasAVX
// implies.
var haveF16C = cpu.X86.HasF16C && cpu.X86.HasAVX

// halfToFloatFast converts the first multiple of 8 values of src into dst
// with F16C and returns how many it converted (0 without F16C).
func halfToFloatFast(dst []float32, src []uint16) int {
	n := len(dst) &^ 7
	if !haveF16C || n == 0 {
		return 0
	}
	_ = src[n-1]
	halfToFloat8(&dst[0], &src[0], n)
	return n
}

// bf16Kernel6x32 is MatMulBF16's micro-kernel (bf16_amd64.s): C (6×32,
// row stride ldc) = A·B, or += with acc, over kp pairs of k.
//
//go:noescape
func bf16Kernel6x32(kp int, a *uint32, b *uint32, c *float32, ldc int, acc bool)

// bf16Kernel1x32 is MatMulBF16's micro-kernel for a product of one row
// (bf16_amd64.s): C (1×32) = A·B, or += with acc, over kp pairs of k.
//
//go:noescape
func bf16Kernel1x32(kp int, a *uint32, b *uint32, c *float32, acc bool)

// bf16Pairs16 sets dst[q] = BF16(src[2q]) | BF16(src[2q+1])<<16 for q <
// n/16·8 (bf16_amd64.s; AVX-512F).
//
//go:noescape
func bf16Pairs16(dst *uint32, src *float32, n int)

// bf16PairsFast does the part of bf16Pairs that bf16Pairs16 can: it
// returns how many elements of src (a multiple of 16) it converted.
func bf16PairsFast(dst []uint32, src []float32) int {
	n := len(src) &^ 15
	if n == 0 || !cpu.X86.HasAVX512F {
		return 0
	}
	_ = dst[n/2-1]
	bf16Pairs16(&dst[0], &src[0], n)
	return n
}

// bf16Kernel is bf16Kernel6x32 where the CPU has AVX512_BF16, else nil.
var bf16Kernel = func() func(kp int, a, b *uint32, c *float32, ldc int, acc bool) {
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512BF16 {
		return bf16Kernel6x32
	}
	return nil
}()

// bf16Row is bf16Kernel1x32 where the CPU has AVX512_BF16, else nil.
var bf16Row = func() func(kp int, a, b *uint32, c *float32, acc bool) {
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512BF16 {
		return bf16Kernel1x32
	}
	return nil
}()
