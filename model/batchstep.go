package model

import (
	"fmt"
	"math"

	"github.com/heed-asr/heed/internal/kern"
)

// Batched decoding for beam search: one decoder step for n hypotheses at
// once. Step reads every weight matrix once per hypothesis, as a
// matrix-vector product; StepBatch reads it once for all n, as one matrix
// product, which is where a beam's time goes (the GRU's two matrices, the
// attention query and the output layer).
//
// The attention is the same as Step's, computed sparsely. The location
// features f_j = Conv(a_{i-1})_j are linear in a_{i-1}: only frames where
// a_{i-1} is not negligible contribute, each adding a_{i-1}[t] times the
// reversed filters to the K rows around it, and U f_j is then one small
// product over the rows those reach. Likewise only frames with a
// non-negligible a_i contribute to the context. Negligible means: the
// smallest weights, grouped by binary exponent, whose sum is at most
// SparseMass. Each sum then changes by at most SparseMass times its largest
// row (|L_w| or |h_j|), while a spread-out alignment keeps its tail.
// The energies themselves are computed for every frame of the window.
//
// The context c_i enters the next step's GRU input and this step's output
// layer only through products with weights: W_ih's context columns and
// W_o's. Those are applied to every encoder frame once per utterance (hp
// below), and a state carries the products of its context, the same
// weighted sum over frames taken of the projected frames, instead of a
// product per hypothesis and step. (Equal to the product of the context up
// to float32 rounding, which is summed in another order.)

// DefaultSparseMass is the attention mass BatchStepper may leave out.
const DefaultSparseMass = 1e-3

// BatchStepper steps decoder states of one encoded utterance in batches.
// It holds scratch: use one per goroutine.
type BatchStepper[F kern.Float] struct {
	net *Net[F]
	enc *EncOutput[F]
	// SparseMass is the largest total attention weight left out of the
	// location features and of the context; 0 keeps every frame with a
	// non-zero weight.
	SparseMass float64
	// SkipContext leaves DecoderState.C as it was: the states then carry
	// only the products of their contexts, which is all that Step reads.
	// Set it only when the states are stepped by this stepper alone.
	SkipContext bool

	w  *stepWeights[F] // the decoder weights, packed
	hp []F             // (T, 4D) every frame's products with the context weights; made on first use

	// Scratch, grown to the batch: n = hypotheses, rows = window frames.
	c, pc, sPrev, gx, gh, s []F // (n, 2H), (n, 4D), (n, D), (n, 3D), (n, 3D), (n, D)
	rzn, ghn, pre           []F // (3D), (D), (3D) one GRU cell
	ws, o                   []F // (n, A), (n, D)
	th, e, f                []F // (rows, A), (rows), (rows, nf)
}

// stepWeights are the decoder weights as BatchStepper reads them.
type stepWeights[F kern.Float] struct {
	filtR []F // (K, nf) the location filters reversed: filtR[r][k] = filters[k][K-1-r]
	// Weights packed once (kern.Packed, as x·wᵀ) for the products: the
	// context weights (4D, 2H), W_ih's context columns above W_o's; the
	// GRU's W_hh, attention W and U, W_o's state columns and W_out.
	ctx, whh, attW, attU, outWs, outW kern.Packed[F]
	// gxTok (V, 3D): the embedding's part of the GRU input, per token:
	// W_ih[:, :E]·Emb(y) + b_ih.
	gxTok []F
}

// newStepWeights packs m's decoder weights for BatchStepper.
func (m *Net[F]) newStepWeights() *stepWeights[F] {
	cfg := &m.Cfg
	A, nf, K := cfg.AttDim, cfg.ConvFilters, cfg.ConvWidth
	w := &stepWeights[F]{filtR: make([]F, K*nf)}
	for k := 0; k < nf; k++ {
		for j := 0; j < K; j++ {
			w.filtR[(K-1-j)*nf+k] = m.P.AttConv[k*K+j]
		}
	}
	w.attU.PackNT(m.P.AttU, A, nf)
	E, D, H2, V := cfg.EmbedDim, cfg.DecHidden, cfg.EncDim(), cfg.V()
	g := &m.P.DecGRU
	// The matrices as float32 (a loaded network's are widened from their
	// binary16 copies when they wait for Materialize).
	wih, whh, attW, outWo, outW := g.WIh, g.WHh, m.P.AttW, m.P.OutWo, m.P.OutW
	if dw := m.decWeights(); dw != nil {
		wih, whh, attW = m.weight(wih, dw.wih), m.weight(whh, dw.whh), m.weight(attW, dw.attW)
		outWo, outW = m.weight(outWo, dw.outWo), m.weight(outW, dw.outW)
	}
	wc := make([]F, 4*D*H2)
	for r := 0; r < 3*D; r++ {
		copy(wc[r*H2:(r+1)*H2], wih[r*(E+H2)+E:(r+1)*(E+H2)])
	}
	for r := 0; r < D; r++ {
		copy(wc[(3*D+r)*H2:(3*D+r+1)*H2], outWo[r*(D+H2)+D:(r+1)*(D+H2)])
	}
	w.ctx.PackNT(wc, 4*D, H2)
	ws := make([]F, D*D)
	for r := 0; r < D; r++ {
		copy(ws[r*D:(r+1)*D], outWo[r*(D+H2):r*(D+H2)+D])
	}
	w.outWs.PackNT(ws, D, D)
	w.gxTok = make([]F, V*3*D)
	for y := 0; y < V; y++ {
		row := w.gxTok[y*3*D : (y+1)*3*D]
		for r := range row {
			row[r] = F(dot(wih[r*(E+H2):r*(E+H2)+E], m.P.Embed[y*E:(y+1)*E])) + g.BIh[r]
		}
	}
	w.whh.PackNT(whh, 3*D, D)
	w.attW.PackNT(attW, A, D)
	w.outW.PackNT(outW, V, D)
	return w
}

// NewBatchStepper returns a stepper for enc. Its packed weights are made
// for it, or, once the network is frozen (Freeze), made once and shared:
// packing them cost a twentieth of decoding a short file with the default
// beam.
func (m *Net[F]) NewBatchStepper(enc *EncOutput[F]) *BatchStepper[F] {
	b := &BatchStepper[F]{net: m, enc: enc, SparseMass: DefaultSparseMass}
	if m.frozen {
		m.stepOnce.Do(func() { m.stepW = m.newStepWeights() })
		b.w = m.stepW
	} else {
		b.w = m.newStepWeights()
	}
	return b
}

// affine sets y (n, out) = x (n, in)·wᵀ + b for w (out, in) packed with
// PackNT and b (out).
func affine[F kern.Float](y, x []F, w *kern.Packed[F], b []F, n, in, out int) {
	kern.MatMulPacked(y, x, w, n, false)
	if b != nil {
		addRows(y, b, n, out)
	}
}

// Step advances every sts[i] by one output step on token prev[i], as Net.Step
// does, and writes its next-token log-probabilities into logp[i*V:(i+1)*V].
// It panics if the encoding is empty, a token is out of range, or logp is
// shorter than len(sts)·V.
func (b *BatchStepper[F]) Step(sts []*DecoderState[F], prev []int, logp []F) {
	m, enc := b.net, b.enc
	cfg := &m.Cfg
	n := len(sts)
	T, D, H2, V, A := enc.T, cfg.DecHidden, cfg.EncDim(), cfg.V(), cfg.AttDim
	switch {
	case T == 0:
		panic("model: StepBatch on an empty encoding")
	case len(prev) != n || len(logp) < n*V:
		panic("model: StepBatch needs one token and V log-probabilities per state")
	}
	b.c, b.pc, b.sPrev, b.gx, b.gh = grow(b.c, n*H2), grow(b.pc, n*4*D), grow(b.sPrev, n*D), grow(b.gx, n*3*D), grow(b.gh, n*3*D)
	b.s, b.rzn, b.ghn, b.pre = grow(b.s, n*D), grow(b.rzn, 3*D), grow(b.ghn, D), grow(b.pre, 3*D)
	b.ws, b.o = grow(b.ws, n*A), grow(b.o, n*D)
	if b.hp == nil {
		b.hp = make([]F, T*4*D)
		kern.MatMulPacked(b.hp, enc.H[:T*H2], &b.w.ctx, T, false)
	}

	// States without their context's products (a start state, or one
	// stepped by Net.Step) get them, in one product.
	k := 0
	for i, st := range sts {
		if prev[i] < 0 || prev[i] >= V {
			panic(fmt.Sprintf("model: StepBatch token %d out of range", prev[i]))
		}
		if len(st.pc) != 4*D {
			copy(b.c[k*H2:(k+1)*H2], st.C)
			k++
		}
		copy(b.sPrev[i*D:(i+1)*D], st.S)
	}
	if k > 0 {
		kern.MatMulPacked(b.pc[:k*4*D], b.c[:k*H2], &b.w.ctx, k, false)
		k = 0
		for _, st := range sts {
			if len(st.pc) != 4*D {
				st.pc = append(st.pc[:0], b.pc[k*4*D:(k+1)*4*D]...)
				k++
			}
		}
	}
	// GRU on x_i = [Emb(y_{i-1}); c_{i-1}]: the embedding's part from the
	// token table, the context's from the state, the state's in one product.
	g := &m.P.DecGRU
	for i, y := range prev {
		kern.Add(b.gx[i*3*D:(i+1)*3*D], b.w.gxTok[y*3*D:(y+1)*3*D], sts[i].pc[:3*D])
	}
	affine(b.gh, b.sPrev, &b.w.whh, g.BHh, n, D, 3*D)
	for i := range sts {
		gruCellForward(b.s[i*D:(i+1)*D], b.rzn, b.ghn, b.pre, b.gx[i*3*D:(i+1)*3*D], b.gh[i*3*D:(i+1)*3*D], b.sPrev[i*D:(i+1)*D], D)
	}
	// Attention: queries W s_i in one product, then each hypothesis' weights
	// and context.
	affine(b.ws, b.s, &b.w.attW, nil, n, D, A)
	for i, st := range sts {
		lo, hi := windowOf(cfg, T, st.Pos, cfg.TrainWindow) // as Step
		copy(st.S, b.s[i*D:(i+1)*D])
		b.attend(st, b.ws[i*A:(i+1)*A], lo, hi)
		st.Pos = lo + median(st.Att[lo:hi+1])
		st.Steps++
	}
	// Output layer: o = tanh(W_o [s; c] + b_o), logp = log-softmax(W_out o + b_out).
	affine(b.o, b.s, &b.w.outWs, m.P.OutBo, n, D, D)
	for i, st := range sts {
		kern.Add(b.o[i*D:(i+1)*D], b.o[i*D:(i+1)*D], st.pc[3*D:])
	}
	kern.Tanh(b.o, b.o)
	affine(logp[:n*V], b.o, &b.w.outW, m.P.OutB, n, D, V)
	for i := 0; i < n; i++ {
		logSoftmax(logp[i*V:(i+1)*V], logp[i*V:(i+1)*V])
	}
}

// attend replaces st's previous weights st.Att (T) by the new ones, zero
// outside [lo, hi], and writes the products of the context st.pc (4D) and,
// unless SkipContext, the context st.C (2H), for the query ws = W s (A).
func (b *BatchStepper[F]) attend(st *DecoderState[F], ws []F, lo, hi int) {
	cfg := &b.net.Cfg
	enc := b.enc
	T, A, K, nf, H2, D4 := enc.T, cfg.AttDim, cfg.ConvWidth, cfg.ConvFilters, cfg.EncDim(), 4*cfg.DecHidden
	a, ctx, pc := st.Att, st.C, st.pc[:D4]
	half, rows := K/2, hi-lo+1

	b.th, b.e, b.f = grow(b.th, rows*A), grow(b.e, rows), grow(b.f, rows*nf)
	th, e, f := b.th, b.e, b.f
	// pre_j = U f_j + (V h_j + b) + W s, e_j = w · tanh(pre_j): the
	// location term U f_j on the rows it reaches (th), then the sums, the
	// tanh and the energies in one pass over all rows (kern.TanhDot).
	vhb := enc.Vhb[lo*A : (hi+1)*A]
	// f_j = Σ_t a[t] filters[:, t-j+K/2] over the frames t that matter:
	// frame t adds a[t]·filtR to rows t-K/2..t+K/2, which lie next to each
	// other in f. r0..r1 are the rows reached.
	eps := b.threshold(a[:T])
	r0, r1 := rows, -1
	for t, v := range a[:T] {
		if v == 0 || v < eps || t+half < lo || t-half > hi {
			continue
		}
		j0, j1 := max(lo, t-half), min(hi, t+half) // rows reached, in frames
		if r0 > r1 {
			r0, r1 = j0-lo, j1-lo
			clear(f[r0*nf : (r1+1)*nf])
		}
		// Rows not yet in r0..r1 start from zero.
		if j0-lo < r0 {
			clear(f[(j0-lo)*nf : r0*nf])
			r0 = j0 - lo
		}
		if j1-lo > r1 {
			clear(f[(r1+1)*nf : (j1-lo+1)*nf])
			r1 = j1 - lo
		}
		g := b.w.filtR[(j0-(t-half))*nf : (j1-(t-half)+1)*nf]
		kern.Axpy(f[(j0-lo)*nf:(j1-lo+1)*nf], v, g)
	}
	// The energies sum A tanh values each, so the fast tanh's absolute
	// error (5e-7 against 3e-8) stays far below what moves a weight.
	av := b.net.P.AttVec
	if r0 <= r1 {
		kern.MatMulPacked(th[r0*A:(r1+1)*A], f[r0*nf:(r1+1)*nf], &b.w.attU, r1-r0+1, false)
		kern.TanhDot(e[:r0], vhb[:r0*A], nil, ws, av, r0)
		kern.TanhDot(e[r0:r1+1], th[r0*A:(r1+1)*A], vhb[r0*A:(r1+1)*A], ws, av, r1-r0+1)
		kern.TanhDot(e[r1+1:], vhb[(r1+1)*A:], nil, ws, av, rows-r1-1)
	} else {
		kern.TanhDot(e, vhb, nil, ws, av, rows)
	}
	// a = softmax(e) on the window.
	clear(a[:T])
	softmaxVec(a[lo:hi+1], e)
	// ctx = Σ_j a_j h_j over the frames that matter, and its products
	// Σ_j a_j (W h_j).
	clear(pc)
	if !b.SkipContext {
		clear(ctx[:H2])
	}
	eps = b.threshold(a[lo : hi+1])
	for j := lo; j <= hi; j++ {
		if a[j] >= eps && a[j] > 0 {
			kern.Axpy(pc, a[j], b.hp[j*D4:(j+1)*D4])
			if !b.SkipContext {
				kern.Axpy(ctx[:H2], a[j], enc.H[j*H2:(j+1)*H2])
			}
		}
	}
}

// softmaxVec is softmax with the exponentials from kern.Exp: dst =
// softmax(x), x (n) overwritten.
func softmaxVec[F kern.Float](dst, x []F) {
	m := x[0]
	for _, v := range x {
		m = max(m, v)
	}
	for i := range x {
		x[i] -= m
	}
	kern.Exp(x, x)
	var s float64
	for _, v := range x {
		s += float64(v)
	}
	inv := 1 / s
	for i, v := range x {
		dst[i] = F(float64(v) * inv)
	}
}

// threshold returns the weight below which the entries of a (in [0, 1])
// sum to at most SparseMass, to a power of two: the weights are binned by
// binary exponent, [2^-k, 2^-k+1) in bin k (all below 2^-62 in bin 63), and
// whole bins are dropped from the smallest up.
func (b *BatchStepper[F]) threshold(a []F) F {
	if b.SparseMass <= 0 {
		return 0
	}
	var mass [64]float64
	for _, v := range a {
		if v > 0 {
			e := int(math.Float64bits(float64(v))>>52) - 1023 // v in [2^e, 2^(e+1))
			mass[min(63, max(0, -e))] += float64(v)
		}
	}
	sum := 0.0
	for k := 63; k > 0; k-- {
		sum += mass[k]
		if sum > b.SparseMass {
			return F(math.Ldexp(1, -k)) // keep bin k and above
		}
	}
	return 1
}
