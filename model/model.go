package model

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/heed-asr/heed/internal/kern"
)

// Net is the network for inference: configuration plus parameters. Model
// (float32) is the production instance; Net[float64] exists for tests.
// Methods are safe for concurrent use as long as P is not modified.
type Net[F kern.Float] struct {
	Cfg Config
	P   *Params[F]
	// SerialEncoder runs the two encoder directions on one goroutine
	// (by default they run on two).
	SerialEncoder bool

	pool       sync.Pool // *stepScratch[F]
	encOnePool sync.Pool // *encCache[F], EncodeCTC's workspace

	// After Freeze, weights packed for inference are made once, on first
	// use, and kept.
	frozen bool
	// float16, when not nil, returns the binary16 values a model file
	// stored for one of P's matrices (nil when it stored float32).
	float16 func(w []float32) []uint16
	// widen, when not nil, writes the float32 values of the matrices a
	// model file was loaded without (see LoadFile): products read them as
	// binary16, and only what still needs float32 calls Materialize.
	widen     func()
	widenOnce sync.Once
	widened   atomic.Bool
	// unwidened holds the first element of each matrix left to widen.
	unwidened map[*float32]bool
	stepOnce  sync.Once
	stepW     *stepWeights[F] // BatchStepper's
	encOnce   sync.Once
	encW      *encWeights
	// bf16Once packs bf16Rec, the encoder's weights rounded to bfloat16
	// for its products (encoderBF16), once for every BatchEncoder and
	// EncodeBF16 call of the network; bf16Pool holds EncodeBF16's
	// encoders.
	bf16Once sync.Once
	bf16Rec  [][2]gruPacked[F]
	bf16Pool sync.Pool
	decOnce  sync.Once
	decW     *decWeights
}

// Model is the production (float32) network.
type Model = Net[float32]

// NewNet wraps parameters p (whose Cfg is used) as a network.
func NewNet[F kern.Float](p *Params[F]) *Net[F] {
	return &Net[F]{Cfg: p.Cfg, P: p}
}

// Freeze declares that m.P will not change any more, so that inference may
// keep weights it has packed (copied into the layout of the matrix
// kernels) instead of packing them for every utterance. Call it before
// the network is shared between goroutines; a network in training must not
// be frozen. Model files load frozen.
func (m *Net[F]) Freeze() { m.frozen = true }

// Materialize makes every parameter in m.P hold its float32 value. A model
// loaded from a float16 file leaves the matrices that its products read as
// binary16 unconverted, so that a short command never pays for them
// (LoadFile); whatever reads m.P's matrices directly (training from the
// model, saving it) calls Materialize first. The batched decoder and
// encoder widen only the matrices they pack (weight). It is safe for concurrent use and does nothing after the first
// call or for a network that was not loaded that way.
func (m *Net[F]) Materialize() {
	if m.widen == nil {
		return
	}
	m.widenOnce.Do(func() {
		m.widen()
		m.widened.Store(true)
	})
}

// float32Of returns w, one of m.P's matrices, when it holds its float32
// values, and nil when it is still waiting for Materialize.
func (m *Net[F]) float32Of(w []float32) []float32 {
	if len(w) > 0 && m.unwidened[&w[0]] && !m.widened.Load() {
		return nil
	}
	return w
}

// EncOutput is one encoded utterance.
type EncOutput[F kern.Float] struct {
	T           int // encoder frames (Stack input frames each; 30 ms by default)
	H           []F // (T, 2H) encoder outputs
	CTCLogProbs []F // (T, V) CTC log-probabilities (token 0 is the blank)
	Vhb         []F // (T, A) attention keys V h_j + b, precomputed for the decoder
}

// Encoded is the production (float32) encoder output.
type Encoded = EncOutput[float32]

// Encode runs the encoder and the CTC head over feats (frames, NumMel),
// CMVN-normalised log-mel frames. frames may be 0 (T = 0). It panics if feats
// is shorter than frames*NumMel.
func (m *Net[F]) Encode(feats []F, frames int) *EncOutput[F] {
	e := m.EncodeCTC(feats, frames)
	if e.T > 0 {
		m.AddKeys(e)
	}
	return e
}

// EncodeCTC is Encode without the attention keys (Vhb nil; AddKeys adds
// them), for callers that read only the CTC head (the endpointer).
func (m *Net[F]) EncodeCTC(feats []F, frames int) *EncOutput[F] {
	cfg := &m.Cfg
	if frames < 0 || len(feats) < frames*cfg.NumMel {
		panic(fmt.Sprintf("model: Encode feats has %d values, need %d frames of %d", len(feats), frames, cfg.NumMel))
	}
	if frames == 0 {
		return &EncOutput[F]{}
	}
	// The encoder's caches are scratch here: they are pooled, and only the
	// output leaves with the encoding.
	c, _ := m.encOnePool.Get().(*encCache[F])
	if c == nil {
		c = &encCache[F]{infer: true}
	}
	encoderForward(c, m.P, m.encWeights(), feats, frames, nil, !m.SerialEncoder)
	last := &c.Layers[c.L-1]
	h, T := last.Y, c.T
	last.Y = nil
	m.encOnePool.Put(c)
	return m.ctcHead(h, T)
}

// ctcHead returns the encoding of h (T, 2H) with its CTC log-probabilities
// and without attention keys.
func (m *Net[F]) ctcHead(h []F, T int) *EncOutput[F] {
	H2, V := m.Cfg.EncDim(), m.Cfg.V()
	e := &EncOutput[F]{T: T, H: h, CTCLogProbs: make([]F, T*V)}
	var hw *kern.Half
	if iw := m.encWeights(); iw != nil {
		hw = iw.ctcW
	}
	linear(e.CTCLogProbs, e.H, m.P.CTCW, m.P.CTCB, hw, T, H2, V)
	for t := 0; t < T; t++ {
		logSoftmax(e.CTCLogProbs[t*V:(t+1)*V], e.CTCLogProbs[t*V:(t+1)*V])
	}
	return e
}

// AddKeys computes the attention keys e.Vhb from e.H, for an encoding made
// without them (EncodeCTC, BatchEncoder), before it is decoded.
func (m *Net[F]) AddKeys(e *EncOutput[F]) {
	H2, A := m.Cfg.EncDim(), m.Cfg.AttDim
	e.Vhb = make([]F, e.T*A)
	var hw *kern.Half
	if iw := m.encWeights(); iw != nil {
		hw = iw.attV
	}
	linear(e.Vhb, e.H, m.P.AttV, m.P.AttB, hw, e.T, H2, A)
}

// BatchEncoder runs several utterances through the encoder together: each
// recurrent step is one matrix product over the utterances still running
// instead of one matrix-vector product per utterance. It keeps its
// workspace between batches; use one per goroutine, and drop it to free
// that workspace.
type BatchEncoder[F kern.Float] struct {
	net *Net[F]
	c   encBatch[F]
}

// NewBatchEncoder returns a BatchEncoder for m.
func (m *Net[F]) NewBatchEncoder() *BatchEncoder[F] { return &BatchEncoder[F]{net: m} }

// Encode is Encode for the utterances feats[i] (frames[i], NumMel). The
// encodings equal Encode's up to float rounding, but have no attention keys
// (Vhb nil: Net.AddKeys adds them), so that a caller holding many encodings
// (long alignment) does not keep them. An utterance of 0 frames gives an
// empty encoding.
func (be *BatchEncoder[F]) Encode(feats [][]F, frames []int) []*EncOutput[F] {
	m := be.net
	cfg := &m.Cfg
	out := make([]*EncOutput[F], len(feats))
	var order []int // utterances with frames, by non-increasing length
	for i, f := range frames {
		if f < 0 || len(feats[i]) < f*cfg.NumMel {
			panic(fmt.Sprintf("model: BatchEncoder.Encode feats[%d] has %d values, need %d frames of %d", i, len(feats[i]), f, cfg.NumMel))
		}
		if f == 0 {
			out[i] = &EncOutput[F]{}
		} else {
			order = append(order, i)
		}
	}
	if len(order) == 0 {
		return out
	}
	sort.SliceStable(order, func(a, b int) bool { return frames[order[a]] > frames[order[b]] })
	fs, fr := make([][]F, len(order)), make([]int, len(order))
	for k, i := range order {
		fs[k], fr[k] = feats[i], frames[i]
	}
	c := &be.c
	c.infer = true
	if packs := m.bf16Packs(); packs != nil {
		// The bfloat16 products, packed once for the network from the
		// binary16 weights: none is widened to float32 (m.P's stay
		// unread).
		c.packs = packs
		encoderBatchForward(c, m.P, fs, fr, nil, false)
	} else {
		c.packs = nil
		encoderBatchForward(c, m.encoderParams(), fs, fr, nil, false)
	}
	H2 := cfg.EncDim()
	for k, i := range order {
		T := c.sb.Lens[k]
		h := make([]F, T*H2)
		gatherSeq(&c.sb, h, c.Out(), k, H2)
		out[i] = m.ctcHead(h, T)
	}
	return out
}

// bf16Packs returns the encoder's weights packed for bfloat16 products,
// packed on the first call, or nil where the encoder does not run in
// bfloat16 (no AVX512_BF16, HEED_BF16=0, or a network without binary16
// weights).
func (m *Net[F]) bf16Packs() [][2]gruPacked[F] {
	iw := m.encWeights()
	if !encoderBF16 || iw == nil || !iw.complete() {
		return nil
	}
	m.bf16Once.Do(func() {
		rec := make([][2]gruPacked[F], len(iw.dir))
		for l := range rec {
			for d := range 2 {
				rec[l][d].packBF16(&m.P.Enc[l][d], &iw.dir[l][d])
			}
		}
		m.bf16Rec = rec
	})
	return m.bf16Rec
}

// EncodeBF16 is Encode with the encoder's products in bfloat16, as
// BatchEncoder runs them: about twice the speed on long audio, and results
// that differ from Encode's by rounding (the recognition of the dev sets
// by at most 0.04 CER points). The weights are packed for it once, on the
// first call (about 10 MB). Where the CPU has no AVX512_BF16, or
// HEED_BF16=0, it is Encode.
func (m *Net[F]) EncodeBF16(feats []F, frames int) *EncOutput[F] {
	e := m.EncodeCTCBF16(feats, frames)
	if e.T > 0 {
		m.AddKeys(e)
	}
	return e
}

// EncodeCTCBF16 is EncodeCTC with the encoder's products in bfloat16 (see
// EncodeBF16).
func (m *Net[F]) EncodeCTCBF16(feats []F, frames int) *EncOutput[F] {
	if frames <= 0 || m.bf16Packs() == nil {
		return m.EncodeCTC(feats, frames)
	}
	be, _ := m.bf16Pool.Get().(*BatchEncoder[F])
	if be == nil {
		be = m.NewBatchEncoder()
	}
	e := be.Encode([][]F{feats}, []int{frames})[0]
	m.bf16Pool.Put(be)
	return e
}

// DecoderState is the attention decoder's state between output steps. Step
// advances it in place; Clone it to branch (beam search).
type DecoderState[F kern.Float] struct {
	S   []F // (D) decoder GRU state s_i
	C   []F // (2H) attention context c_i
	Att []F // (T) attention weights a_i of the last step (a_0: one-hot on frame 0)
	// Pos is the median frame of Att: the centre of the next step's local
	// window [Pos-WindowLeft, Pos+WindowRight]. A streaming decoder needs
	// encoder frames up to Pos+WindowRight before the next Step.
	Pos   int
	Steps int // output steps taken

	// pc holds the context's products with BatchStepper's context weights,
	// W_ih's context columns then W_o's (4D), when it has any: made by
	// BatchStepper.Step, cleared by Net.Step, copied by Clone.
	pc []F
}

// DecState is the production (float32) decoder state.
type DecState = DecoderState[float32]

// Clone returns a deep copy of st.
func (st *DecoderState[F]) Clone() *DecoderState[F] {
	return new(DecoderState[F]).copyFrom(st)
}

// copyFrom makes st a deep copy of from, reusing st's memory, and returns
// st.
func (st *DecoderState[F]) copyFrom(from *DecoderState[F]) *DecoderState[F] {
	st.S = append(st.S[:0], from.S...)
	st.C = append(st.C[:0], from.C...)
	st.Att = append(st.Att[:0], from.Att...)
	st.pc = append(st.pc[:0], from.pc...)
	st.Pos, st.Steps = from.Pos, from.Steps
	return st
}

// StartDecoder returns the initial state for enc: s_0 = 0, c_0 = 0, a_0
// one-hot on frame 0.
func (m *Net[F]) StartDecoder(enc *EncOutput[F]) *DecoderState[F] {
	st := &DecoderState[F]{
		S:   make([]F, m.Cfg.DecHidden),
		C:   make([]F, m.Cfg.EncDim()),
		Att: make([]F, enc.T),
	}
	if enc.T > 0 {
		st.Att[0] = 1
	}
	return st
}

// stepScratch is Step's per-call scratch, pooled in Net.
type stepScratch[F kern.Float] struct {
	x, gx, gh, pre, rzn, ghn []F
	s, ctx, aPrev, z, o      []F
	ac                       attStep[F]
	sc                       attScratch[F]
}

// Step advances st by one output step given the previous token prev (EOS
// for the first step) and writes the log-probabilities of the next token
// into logp (V). The step's attention weights are left in st.Att. The local
// window is used when Cfg.DecodeWindow is set. It panics if enc is empty or
// len(logp) < V.
func (m *Net[F]) Step(enc *EncOutput[F], st *DecoderState[F], prev int, logp []F) {
	if len(logp) < m.Cfg.V() {
		panic("model: Step logp shorter than the vocabulary")
	}
	m.step(enc, st, prev, logp, m.Cfg.TrainWindow)
}

// step is Step with the local window used or not; with logp nil it leaves
// out the output layer (ForceAlign needs only the attention).
func (m *Net[F]) step(enc *EncOutput[F], st *DecoderState[F], prev int, logp []F, window bool) {
	cfg := &m.Cfg
	T, E, D, H2, V := enc.T, cfg.EmbedDim, cfg.DecHidden, cfg.EncDim(), cfg.V()
	if T == 0 {
		panic("model: Step on an empty encoding")
	}
	if logp != nil && len(logp) < V {
		panic("model: Step logp shorter than the vocabulary")
	}
	if prev < 0 || prev >= V {
		panic(fmt.Sprintf("model: Step token %d out of range", prev))
	}
	sc, _ := m.pool.Get().(*stepScratch[F])
	if sc == nil {
		sc = &stepScratch[F]{}
	}
	sc.x, sc.gx, sc.gh, sc.pre = grow(sc.x, E+H2), grow(sc.gx, 3*D), grow(sc.gh, 3*D), grow(sc.pre, 3*D)
	sc.rzn, sc.ghn, sc.s, sc.ctx = grow(sc.rzn, 3*D), grow(sc.ghn, D), grow(sc.s, D), grow(sc.ctx, H2)
	sc.aPrev, sc.z, sc.o = grow(sc.aPrev, T), grow(sc.z, D+H2), grow(sc.o, D)
	copy(sc.aPrev, st.Att)

	lo, hi := windowOf(cfg, T, st.Pos, window)
	dw := m.decWeights()
	decStepForward(m.P, dw, &sc.ac, &sc.sc, enc.Vhb, enc.H, T, prev, st.S, st.C, sc.aPrev, lo, hi,
		sc.x, sc.gx, sc.gh, sc.pre, sc.rzn, sc.ghn, sc.s, sc.ctx, st.Att)
	copy(st.S, sc.s)
	copy(st.C, sc.ctx)
	st.pc = st.pc[:0]
	st.Pos = lo + median(st.Att[lo:hi+1])
	st.Steps++
	if logp == nil {
		m.pool.Put(sc)
		return
	}

	// Output layer: o = tanh(W_o [s; c] + b_o), logp = log-softmax(W_out o + b_out).
	copy(sc.z[:D], st.S)
	copy(sc.z[D:], st.C)
	var hWo, hW *kern.Half
	if dw != nil {
		hWo, hW = dw.outWo, dw.outW
	}
	linear(sc.o, sc.z, m.P.OutWo, m.P.OutBo, hWo, 1, D+H2, D)
	kern.Tanh(sc.o, sc.o)
	linear(logp[:V], sc.o, m.P.OutW, m.P.OutB, hW, 1, D, V)
	logSoftmax(logp[:V], logp[:V])
	m.pool.Put(sc)
}

// Greedy decodes enc by taking the most likely token at each step until
// <eos> or maxLen tokens. It returns the tokens (without <eos>) and the
// attention weights of every step taken (T each; the last row is the <eos>
// step when decoding stopped there). An empty encoding gives no tokens.
func (m *Net[F]) Greedy(enc *EncOutput[F], maxLen int) (ids []int, att [][]F) {
	if enc.T == 0 {
		return nil, nil
	}
	st := m.StartDecoder(enc)
	logp := make([]F, m.Cfg.V())
	prev := EOS
	for len(ids) < maxLen {
		m.Step(enc, st, prev, logp)
		att = append(att, append([]F(nil), st.Att...))
		id := argmax(logp)
		if id == EOS {
			break
		}
		ids = append(ids, id)
		prev = id
	}
	return ids, att
}

// ForceAlign runs the decoder teacher-forced on ids followed by <eos> and
// returns the attention matrix: len(ids)+1 rows of T weights, row i being
// the attention while emitting ids[i] (the last row: <eos>). Teacher-forced,
// the decoder sees what it saw in training, so it attends as in training:
// the local window only when Cfg.TrainWindow is set. (A window that has lost
// its place cannot find it again; full attention can. On long dev
// utterances this halves the aligner's worst errors.) It panics on an empty
// encoding or an id out of range.
func (m *Net[F]) ForceAlign(enc *EncOutput[F], ids []int) [][]F {
	st := m.StartDecoder(enc)
	att := make([][]F, 0, len(ids)+1)
	prev := EOS
	for i := 0; i <= len(ids); i++ {
		m.step(enc, st, prev, nil, m.Cfg.TrainWindow)
		att = append(att, append([]F(nil), st.Att...))
		if i < len(ids) {
			prev = ids[i]
		}
	}
	return att
}

// Blend returns a frozen network whose every weight is f·a + (1−f)·b, for
// networks a and b of one configuration: with a fine-tuned from b, an f
// below 1 keeps part of what b knew (weight-space interpolation, as in
// Wortsman et al. 2022, "Robust fine-tuning of zero-shot models"). It
// panics if the configurations differ or f is outside [0, 1].
func Blend(a, b *Model, f float64) *Model {
	if !(f >= 0 && f <= 1) {
		panic("model: Blend weight outside [0, 1]")
	}
	if len(a.P.Data) != len(b.P.Data) || a.Cfg.EncHidden != b.Cfg.EncHidden || a.Cfg.EncLayers != b.Cfg.EncLayers {
		panic("model: Blend of networks of different configurations")
	}
	a.Materialize()
	b.Materialize()
	p := NewParams[float32](a.Cfg)
	for i, v := range a.P.Data {
		p.Data[i] = float32(f*float64(v) + (1-f)*float64(b.P.Data[i]))
	}
	net := NewNet(p)
	net.Freeze()
	return net
}
