package kern

import "sync"

// impl32 is one implementation of the float32 kernels. The packed GEMM
// driver (sgemm) is shared; only the register-blocked micro-kernel and the
// vector kernels differ between implementations.
type impl32 struct {
	name string
	// mr×nr is the register tile of micro.
	mr, nr int
	// micro computes the full mr×nr tile T = Ap·Bp from a packed A
	// micro-panel ap (kc×mr, element (i,p) at ap[p*mr+i]) and a packed B
	// micro-panel bp (kc×nr, element (p,j) at bp[p*nr+j]), and stores
	// c[i*ldc+j] = T[i][j] (acc false) or c[i*ldc+j] += T[i][j] (acc true).
	// kc >= 1.
	micro func(kc int, ap, bp, c []float32, ldc int, acc bool)
	// micro4, when not nil, is micro for the first 4 rows of the tile only
	// (c needs 4 rows): ragged panels of at most 4 rows use it.
	micro4 func(kc int, ap, bp, c []float32, ldc int, acc bool)
	// tr8, when not nil, sets dst[p*ldd+i] = src[i*lds+p] for i < 8 and
	// p < kc rounded down to a multiple of 8 (a fast transposing copy for
	// packing).
	tr8 trFunc
	// tr6, when not nil, sets dst[p*6+i] = src[i*lds+p] for i < 6 and
	// p < kc rounded down to a multiple of 8 (a full 6-row A panel).
	tr6 func(dst, src []float32, lds, kc int)
	// cp, when not nil, does the full panels of copyPanels (see there) and
	// reports whether it handled this panel width.
	cp cpFunc
	// gemvN sets c[j] (+)= dot(a[:k], b[j*ldb:j*ldb+k]) for j < n.
	gemvN func(c, a, b []float32, k, n, ldb int, acc bool)
	// gemvNF16, when not nil, is gemvN for b stored as binary16 (k a
	// positive multiple of 8), with gemvN's result (see Half).
	gemvNF16 func(c, a []float32, b []uint16, k, n, ldb int, acc bool)
	// gemvT sets c[j] (+)= Σ_{p<k} a[p*inca]·b[p*ldb+j] for j < n.
	gemvT func(c, a []float32, inca int, b []float32, ldb, k, n int, acc bool)
	// dot returns Σ a[i]·b[i] over len(a) (len(b) >= len(a)).
	dot func(a, b []float32) float32
	// axpy sets dst[i] += alpha·x[i] over len(dst) (len(x) >= len(dst)).
	axpy func(dst []float32, alpha float32, x []float32)
	// exp, sigmoid and tanh are the element-wise activations over len(x)
	// (len(dst) == len(x)).
	exp, sigmoid, tanh func(dst, x []float32)
	// tanhFast is TanhFast's float32 kernel over len(x).
	tanhFast func(dst, x []float32)
	// tanhDot is TanhDot's float32 kernel: e[j] = Σ_i w[i]·tanhFast(x[j*n+i]
	// (+ y[j*n+i]) + q[i]) for j < m, n = len(q) (len(w) >= n, len(x) and,
	// when not nil, len(y) >= m*n, len(e) >= m).
	tanhDot func(e, x, y, q, w []float32, m int)
	// add and mul set dst = a + b and a·b over len(dst); gruGate, gruOut, gruBack and adam
	// are the element-wise kernels of cell.go (same results in every
	// implementation).
	add func(dst, a, b []float32)
	mul func(dst, a, b []float32)
	// tanhGrad is TanhGrad's float32 kernel.
	tanhGrad func(dst, t, w []float32, s float32)
	gruGate  func(dst, gx, r, gh []float32)
	gruOut   func(h, z, n, hprev []float32)
	gruBack  func(dgx, dgh, dhprev, dh, rzn, ghn, hprev []float32, H int)
	adam     func(params, grads, ms, vs []float32, c *AdamCoef)
}

// implGo is the portable float32 implementation; it exists on every
// architecture and is the fallback when the CPU lacks AVX2+FMA.
var implGo = &impl32{
	name:  "go",
	mr:    4,
	nr:    8,
	micro: microGo4x8,
	gemvN: gemvNGo,
	gemvT: gemvTGo,
	dot:   dotGo,
	axpy:  axpyGo,

	exp:      expGo,
	sigmoid:  sigmoidGo,
	tanh:     tanhGo,
	tanhFast: tanhFastGo,
	tanhDot:  tanhDotGo,

	add:      addGo,
	mul:      mulGo,
	tanhGrad: tanhGradGo,
	gruGate:  gruGateGo,
	gruOut:   gruOutGo,
	gruBack:  gruBackGo,
	adam:     adamGo,
}

// impls lists the implementations this CPU can run, slowest first; active
// is the one the exported functions use (the last of impls unless a test
// overrides it).
var (
	impls  = []*impl32{implGo}
	active = implGo
)

// Cache blocking of the packed GEMM: upper limits of the depth (kc), row
// (mc) and column (nc) blocks; k and m are split into near-equal blocks
// under these limits. An A block (mc×kc, at most 147 KiB) stays in L2, one
// packed B micro-panel (kc×nr, 16-32 KiB) in L1. mcBlock is a multiple of
// every mr in use (4 and 6), ncBlock of every nr.
const (
	kcBlock = 256
	mcBlock = 144
	ncBlock = 2048
)

// Below smallM rows a product skips packing and runs row by row on the
// matrix-vector kernels: the B operand is then read once per row instead of
// being copied into panels. Measured (AVX2, k and n in 256..768): rows win
// at m = 4, packing wins from m = 8 on (m = 8: 28-31 vs 23-29 GFLOP/s;
// m = 32: 52-64 vs 20-27 GFLOP/s).
const smallM = 8

// layout says how A and B are stored; the logical product is always
// C (m×n) = A (m×k) · B (k×n).
type layout int

const (
	layoutNT layout = iota // A row-major m×k, B stored n×k (B is Bᵀ)
	layoutNN               // A row-major m×k, B row-major k×n
	layoutTN               // A stored k×m (A is Aᵀ), B row-major k×n
)

// packBuf is per-call scratch: packed A block, packed B block, one
// micro-tile for ragged edges and, for a binary16 B, one panel's rows
// widened. Buffers come from packPool so concurrent callers never share one.
type packBuf struct {
	a, b, tile, wide []float32
}

var packPool = sync.Pool{New: func() any { return new(packBuf) }}

func grow(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}

// matMul32 computes the float32 product for layout l with implementation im.
// Lengths have been checked by the caller.
func matMul32(im *impl32, l layout, c, a, b []float32, m, k, n int, acc bool) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		if !acc {
			clear(c[:m*n])
		}
		return
	}
	if n == 1 {
		// A single output column is a matrix-vector product over the rows
		// of A: c[i] = Σ_p A[i,p]·b[p].
		if l == layoutTN {
			im.gemvT(c, b, 1, a, m, k, m, acc)
		} else {
			im.gemvN(c, b, a, k, m, k, acc)
		}
		return
	}
	if m < smallM {
		matMulRows32(im, l, c, a, b, m, k, n, acc)
		return
	}
	sgemm(im, l, c, a, b, nil, m, k, n, acc)
}

// sgemm is the packed, cache-blocked product (Goto/BLIS loop order:
// jc over ncBlock columns, pc over kcBlock depth, ic over mcBlock rows, then
// nr-wide and mr-tall micro-tiles). When bh is not nil (layout NT only), B's
// stored matrix is bh in binary16 and b is not read.
func sgemm(im *impl32, l layout, c, a, b []float32, bh []uint16, m, k, n int, acc bool) {
	mr, nr := im.mr, im.nr
	// Split k and m into near-equal blocks no larger than the limits, so a
	// depth of 320 runs as 2×160 rather than 256+64.
	kcStep := ceilDiv(k, ceilDiv(k, kcBlock))
	mcStep := roundUp(ceilDiv(m, ceilDiv(m, mcBlock)), mr)
	kcMax := kcStep
	ncMax := roundUp(min(n, ncBlock), nr)
	mcMax := min(mcStep, roundUp(m, mr))

	buf := packPool.Get().(*packBuf)
	buf.a = grow(buf.a, mcMax*kcMax)
	buf.b = grow(buf.b, ncMax*kcMax)
	buf.tile = grow(buf.tile, mr*nr)
	tile := buf.tile
	if bh != nil {
		buf.wide = grow(buf.wide, nr*kcMax)
	}

	for jc := 0; jc < n; jc += ncBlock {
		nc := min(ncBlock, n-jc)
		for pc := 0; pc < k; pc += kcStep {
			kc := min(kcStep, k-pc)
			accBlock := acc || pc > 0
			bp := buf.b[:roundUp(nc, nr)*kc]
			if bh != nil {
				packBHalf(bp, bh, buf.wide, k, pc, jc, kc, nc, nr, im.tr8)
			} else {
				packB(l, bp, b, k, n, pc, jc, kc, nc, nr, im.tr8, im.cp)
			}
			for ic := 0; ic < m; ic += mcStep {
				mc := min(mcStep, m-ic)
				ap := buf.a[:roundUp(mc, mr)*kc]
				packA(l, ap, a, m, k, ic, pc, mc, kc, mr, im.tr8, im.tr6, im.cp)
				macroKernel(im, c, ap, bp, tile, n, ic, jc, mc, nc, kc, accBlock)
			}
		}
	}
	packPool.Put(buf)
}

// macroKernel multiplies the packed A block ap (mc×kc) by the packed B block
// bp (kc×nc) into C[ic:ic+mc, jc:jc+nc] (row stride n), tile by tile;
// ragged edge tiles go through tile. With acc the product is added to C.
func macroKernel(im *impl32, c, ap, bp, tile []float32, n, ic, jc, mc, nc, kc int, acc bool) {
	mr, nr := im.mr, im.nr
	for jr := 0; jr < nc; jr += nr {
		cols := min(nr, nc-jr)
		bpanel := bp[jr*kc : (jr+nr)*kc]
		for ir := 0; ir < mc; ir += mr {
			rows := min(mr, mc-ir)
			apanel := ap[ir*kc : (ir+mr)*kc]
			off := (ic+ir)*n + jc + jr
			if rows == mr && cols == nr {
				im.micro(kc, apanel, bpanel, c[off:], n, acc)
				continue
			}
			if rows <= 4 && im.micro4 != nil {
				if rows == 4 && cols == nr {
					im.micro4(kc, apanel, bpanel, c[off:], n, acc)
					continue
				}
				im.micro4(kc, apanel, bpanel, tile, nr, false)
			} else {
				im.micro(kc, apanel, bpanel, tile, nr, false)
			}
			for i := 0; i < rows; i++ {
				ci := c[off+i*n : off+i*n+cols]
				ti := tile[i*nr : i*nr+cols]
				if acc {
					for j, v := range ti {
						ci[j] += v
					}
				} else {
					copy(ci, ti)
				}
			}
		}
	}
}

// matMulRows32 computes the product one row of C at a time with the
// matrix-vector kernels, without packing. k >= 1.
func matMulRows32(im *impl32, l layout, c, a, b []float32, m, k, n int, acc bool) {
	for i := 0; i < m; i++ {
		ci := c[i*n : i*n+n]
		switch l {
		case layoutNT:
			im.gemvN(ci, a[i*k:i*k+k], b, k, n, k, acc)
		case layoutNN:
			im.gemvT(ci, a[i*k:i*k+k], 1, b, n, k, n, acc)
		case layoutTN:
			im.gemvT(ci, a[i:], m, b, n, k, n, acc)
		}
	}
}

func roundUp(x, r int) int { return (x + r - 1) / r * r }

func ceilDiv(x, d int) int { return (x + d - 1) / d }

// trFunc and cpFunc are the types of the optional packing kernels
// impl32.tr8 and impl32.cp.
type (
	trFunc = func(dst []float32, ldd int, src []float32, lds, kc int)
	cpFunc = func(dst, src []float32, ld, kc, full, w int) bool
)

// packA copies the block A[ic:ic+mc, pc:pc+kc] into dst as mr-row
// micro-panels (panel q holds rows ic+q*mr.., element (i,p) at
// dst[q*mr*kc + p*mr + i]), zero-padding the last panel to mr rows.
func packA(l layout, dst, a []float32, m, k, ic, pc, mc, kc, mr int, tr8 trFunc, tr6 func(dst, src []float32, lds, kc int), cp cpFunc) {
	if l == layoutTN {
		// A[i,p] = a[p*m+i]: row p of the stored matrix holds the
		// elements for every panel.
		copyPanels(dst, a[pc*m+ic:], m, mc, kc, mr, cp)
		return
	}
	for ir := 0; ir < mc; ir += mr {
		// A[i,p] = a[i*k+p]: transpose rows into the panel.
		panel := dst[ir*kc : (ir+mr)*kc]
		rows := min(mr, mc-ir)
		if tr6 != nil && mr == 6 && rows == 6 && kc >= 8 {
			base := (ic+ir)*k + pc
			tr6(panel, a[base:], k, kc)
			for p := kc &^ 7; p < kc; p++ {
				for i := 0; i < 6; i++ {
					panel[p*6+i] = a[base+i*k+p]
				}
			}
			continue
		}
		transposeInto(panel, a, (ic+ir)*k+pc, k, rows, kc, mr, tr8)
	}
}

// packB copies the block B[pc:pc+kc, jc:jc+nc] into dst as nr-column
// micro-panels (panel q holds columns jc+q*nr.., element (p,j) at
// dst[q*nr*kc + p*nr + j]), zero-padding the last panel to nr columns.
func packB(l layout, dst, b []float32, k, n, pc, jc, kc, nc, nr int, tr8 trFunc, cp cpFunc) {
	if l != layoutNT {
		// B[p,j] = b[p*n+j].
		copyPanels(dst, b[pc*n+jc:], n, nc, kc, nr, cp)
		return
	}
	for jr := 0; jr < nc; jr += nr {
		// B[p,j] = b[j*k+p]: transpose rows of the stored matrix.
		transposeInto(dst[jr*kc:(jr+nr)*kc], b, (jc+jr)*k+pc, k, min(nr, nc-jr), kc, nr, tr8)
	}
}

// packBHalf is packB for layout NT with the stored matrix (n×k) given as
// binary16 values bh: each panel's nr rows are widened into wide (nr×kc)
// and transposed from there, so the panels hold exactly what packB would
// pack from the float32 matrix.
func packBHalf(dst []float32, bh []uint16, wide []float32, k, pc, jc, kc, nc, nr int, tr8 trFunc) {
	for jr := 0; jr < nc; jr += nr {
		rows := min(nr, nc-jr)
		for i := range rows {
			off := (jc+jr+i)*k + pc
			HalfToFloat(wide[i*kc:i*kc+kc], bh[off:off+kc])
		}
		transposeInto(dst[jr*kc:(jr+nr)*kc], wide, 0, kc, rows, kc, nr, tr8)
	}
}

// copyPanels splits rows p < kc of src (row stride ld, count elements used
// per row) into w-wide panels: element (p, j) goes to
// dst[(j/w)*w*kc + p*w + j%w], and the last panel is zero-padded to w. Rows
// are read in order, which keeps the source access sequential. cp, when not
// nil, may do the full panels.
func copyPanels(dst, src []float32, ld, count, kc, w int, cp cpFunc) {
	full := count / w
	rem := count - full*w
	stride := w * kc // distance between panels in dst
	if cp == nil || !cp(dst, src, ld, kc, full, w) {
		for p := 0; p < kc; p++ {
			row := src[p*ld : p*ld+full*w]
			for q := 0; q < full; q++ {
				copy(dst[q*stride+p*w:q*stride+p*w+w], row[q*w:q*w+w])
			}
		}
	}
	if rem > 0 {
		last := dst[full*stride : full*stride+stride]
		for p := 0; p < kc; p++ {
			t := last[p*w : p*w+w]
			copy(t, src[p*ld+full*w:p*ld+count])
			clear(t[rem:])
		}
	}
}

// transposeInto writes panel[p*w+i] = src[base+i*ld+p] for i < rows, p < kc,
// and zeroes panel[p*w+i] for rows <= i < w. Groups of 8 rows go through
// tr8 when it is not nil.
func transposeInto(panel, src []float32, base, ld, rows, kc, w int, tr8 trFunc) {
	i := 0
	if tr8 != nil && w%8 == 0 {
		kc8 := kc &^ 7
		for ; i+8 <= rows; i += 8 {
			tr8(panel[i:], w, src[base+i*ld:], ld, kc)
			for r := i; r < i+8; r++ {
				s := src[base+r*ld : base+r*ld+kc]
				for p := kc8; p < kc; p++ {
					panel[p*w+r] = s[p]
				}
			}
		}
	}
	for ; i+4 <= rows; i += 4 {
		s0 := src[base+i*ld : base+i*ld+kc]
		s1 := src[base+(i+1)*ld : base+(i+1)*ld+kc]
		s2 := src[base+(i+2)*ld : base+(i+2)*ld+kc]
		s3 := src[base+(i+3)*ld : base+(i+3)*ld+kc]
		for p := range s0 {
			d := panel[p*w+i : p*w+i+4 : p*w+i+4]
			d[0] = s0[p]
			d[1] = s1[p]
			d[2] = s2[p]
			d[3] = s3[p]
		}
	}
	for ; i < rows; i++ {
		s := src[base+i*ld : base+i*ld+kc]
		for p, v := range s {
			panel[p*w+i] = v
		}
	}
	if rows < w {
		for p := 0; p < kc; p++ {
			clear(panel[p*w+rows : p*w+w])
		}
	}
}

// microGo4x8 is the portable 4×8 micro-kernel, computed as 2×4 register
// blocks so the accumulators fit in scalar registers.
func microGo4x8(kc int, ap, bp, c []float32, ldc int, acc bool) {
	const mr, nr = 4, 8
	ap = ap[:kc*mr]
	bp = bp[:kc*nr]
	for i := 0; i < mr; i += 2 {
		for j := 0; j < nr; j += 4 {
			var c00, c01, c02, c03, c10, c11, c12, c13 float32
			for p := 0; p < kc; p++ {
				a := ap[p*mr+i : p*mr+i+2 : p*mr+i+2]
				b := bp[p*nr+j : p*nr+j+4 : p*nr+j+4]
				a0, a1 := a[0], a[1]
				b0, b1, b2, b3 := b[0], b[1], b[2], b[3]
				c00 += a0 * b0
				c01 += a0 * b1
				c02 += a0 * b2
				c03 += a0 * b3
				c10 += a1 * b0
				c11 += a1 * b1
				c12 += a1 * b2
				c13 += a1 * b3
			}
			r0 := c[i*ldc+j : i*ldc+j+4 : i*ldc+j+4]
			r1 := c[(i+1)*ldc+j : (i+1)*ldc+j+4 : (i+1)*ldc+j+4]
			if acc {
				c00 += r0[0]
				c01 += r0[1]
				c02 += r0[2]
				c03 += r0[3]
				c10 += r1[0]
				c11 += r1[1]
				c12 += r1[2]
				c13 += r1[3]
			}
			r0[0], r0[1], r0[2], r0[3] = c00, c01, c02, c03
			r1[0], r1[1], r1[2], r1[3] = c10, c11, c12, c13
		}
	}
}

func gemvNGo(c, a, b []float32, k, n, ldb int, acc bool) {
	a = a[:k]
	for j := 0; j < n; j++ {
		s := dotGo(a, b[j*ldb:j*ldb+k])
		if acc {
			c[j] += s
		} else {
			c[j] = s
		}
	}
}

func gemvTGo(c, a []float32, inca int, b []float32, ldb, k, n int, acc bool) {
	c = c[:n]
	if !acc {
		clear(c)
	}
	for p := 0; p < k; p++ {
		axpyGo(c, a[p*inca], b[p*ldb:p*ldb+n])
	}
}

// dotGo is a 4-way unrolled dot product (four partial sums).
func dotGo(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		x := a[i : i+4 : i+4]
		y := b[i : i+4 : i+4]
		s0 += x[0] * y[0]
		s1 += x[1] * y[1]
		s2 += x[2] * y[2]
		s3 += x[3] * y[3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// axpyGo is a 4-way unrolled dst += alpha·x.
func axpyGo(dst []float32, alpha float32, x []float32) {
	x = x[:len(dst)]
	i := 0
	for ; i+4 <= len(dst); i += 4 {
		d := dst[i : i+4 : i+4]
		s := x[i : i+4 : i+4]
		d[0] += alpha * s[0]
		d[1] += alpha * s[1]
		d[2] += alpha * s[2]
		d[3] += alpha * s[3]
	}
	for ; i < len(dst); i++ {
		dst[i] += alpha * x[i]
	}
}
