package kern

// Packed holds the right operand B (k×n) of a product packed once into the
// float32 micro-kernel's panel layout, for repeated products C = A·B with
// different left operands A: a recurrent weight matrix applied at every time
// step of a batch of sequences, where packing B at each step would cost as
// much as the product itself. Products with fewer than packedMinRows rows
// still run on the matrix-vector kernels over the original B. For float64
// (and named float types) Packed keeps a reference to B and the products run
// the reference loops.
//
// Packed borrows B: B must not change between Pack and the products. The
// zero value is ready for PackNT or PackNN; packing again reuses the space.
// A Packed is safe for concurrent products once packed.
type Packed[F Float] struct {
	k, n int
	l    layout
	b    []F
	im   *impl32   // implementation the panels were packed for; nil: reference loops
	kc   int       // depth step of the blocks
	p    []float32 // the blocks, ordered by column block, then depth block
}

// packedMinRows is the smallest A that runs on the packed panels: one or
// two rows read B once each on the matrix-vector kernels, while the
// micro-kernel would compute a whole mr-row tile for them (measured with
// BenchmarkMatMulPacked, AVX-512, k 256, n 768: 2 rows 30 vs 39 GFLOP/s,
// 6 rows 98 vs 42, 10 rows 81 vs 40).
const packedMinRows = 3

// PackNT packs B = wᵀ for w stored (n×k): the weight (out×in) of a forward
// product x·wᵀ, as in MatMulNT.
func (p *Packed[F]) PackNT(w []F, n, k int) { p.pack(layoutNT, w, k, n) }

// PackNN packs B stored row-major (k×n), as in MatMulNN.
func (p *Packed[F]) PackNN(b []F, k, n int) { p.pack(layoutNN, b, k, n) }

func (p *Packed[F]) pack(l layout, b []F, k, n int) {
	checkDims("Pack", 0, k, n)
	checkLen("Pack b", len(b), k*n)
	p.k, p.n, p.l, p.b, p.im = k, n, l, b[:k*n], nil
	b32, ok := any(b).([]float32)
	if !ok || k == 0 || n == 0 {
		return
	}
	im := active
	p.im = im
	p.kc = ceilDiv(k, ceilDiv(k, kcBlock))
	size := 0
	for jc := 0; jc < n; jc += ncBlock {
		size += roundUp(min(ncBlock, n-jc), im.nr) * k
	}
	p.p = grow(p.p, size)
	off := 0
	for jc := 0; jc < n; jc += ncBlock {
		nc := min(ncBlock, n-jc)
		for pc := 0; pc < k; pc += p.kc {
			kc := min(p.kc, k-pc)
			sz := roundUp(nc, im.nr) * kc
			packB(l, p.p[off:off+sz], b32, k, n, pc, jc, kc, nc, im.nr, im.tr8, im.cp)
			off += sz
		}
	}
}

// MatMulPacked computes C (m×n) = A (m×k) · B with B packed in p. When acc
// is true the product is added to C instead of overwriting it. It panics if
// a slice is shorter than its shape or p was never packed.
func MatMulPacked[F Float](c, a []F, p *Packed[F], m int, acc bool) {
	k, n := p.k, p.n
	checkDims("MatMulPacked", m, k, n)
	if p.b == nil && k*n > 0 {
		panic("kern: MatMulPacked with an unpacked operand")
	}
	checkLen("MatMulPacked a", len(a), m*k)
	checkLen("MatMulPacked c", len(c), m*n)
	if p.im == nil {
		if p.l == layoutNT {
			matMulNTRef(c, a, p.b, m, k, n, acc)
		} else {
			matMulNNRef(c, a, p.b, m, k, n, acc)
		}
		return
	}
	c32, a32 := any(c).([]float32), any(a).([]float32)
	if m < packedMinRows || n == 1 {
		matMul32(p.im, p.l, c32, a32, any(p.b).([]float32), m, k, n, acc)
		return
	}
	im := p.im
	mr, nr := im.mr, im.nr
	mcStep := roundUp(ceilDiv(m, ceilDiv(m, mcBlock)), mr)
	buf := packPool.Get().(*packBuf)
	buf.a = grow(buf.a, min(mcStep, roundUp(m, mr))*p.kc)
	buf.tile = grow(buf.tile, mr*nr)
	off := 0
	for jc := 0; jc < n; jc += ncBlock {
		nc := min(ncBlock, n-jc)
		for pc := 0; pc < k; pc += p.kc {
			kc := min(p.kc, k-pc)
			sz := roundUp(nc, nr) * kc
			bp := p.p[off : off+sz]
			off += sz
			for ic := 0; ic < m; ic += mcStep {
				mc := min(mcStep, m-ic)
				ap := buf.a[:roundUp(mc, mr)*kc]
				packA(layoutNN, ap, a32, m, k, ic, pc, mc, kc, mr, im.tr8, im.tr6, im.cp)
				macroKernel(im, c32, ap, bp, buf.tile, n, ic, jc, mc, nc, kc, acc || pc > 0)
			}
		}
	}
	packPool.Put(buf)
}
