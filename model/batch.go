package model

import (
	"math/rand/v2"
	"slices"

	"github.com/heed-asr/heed/internal/kern"
)

// batchItem is one utterance of a batched forward-backward pass.
type batchItem[F kern.Float] struct {
	feats  []F        // (frames, NumMel) CMVN-normalised log-mel frames
	frames int        // 10 ms frames
	ids    []int      // transcript tokens, no <eos>
	rng    *rand.Rand // dropout draws; may be nil when not training
}

// batchWorkspace is one worker's reusable scratch for batched
// forward-backward passes. It is not safe for concurrent use.
type batchWorkspace[F kern.Float] struct {
	enc encBatch[F]
	dec decBatch[F]
	out outCache[F]
	ctc ctcScratch

	order  []int // items by non-increasing frames: the encoder's sequences
	dorder []int // encoder sequences by non-increasing output steps
	feats  [][]F
	frames []int
	rngs   []*rand.Rand
	ts     []int   // (B) encoder frames of sequence b
	hoff   []int   // (B) first row of sequence b in hs
	ys     [][]int // (B) decoder inputs [<eos>, ids...]
	tgts   [][]int // (B) decoder targets [ids..., <eos>]

	hs   []F // (ΣT, 2H) encoder outputs, sequence after sequence
	vhb  []F // (ΣT, A) attention keys
	clp  []F // (ΣT, V) CTC log-probs
	dclp []F // (ΣT, V)
	dlp  []F // (rows, V)
	dZ   []F // (rows, D+2H)
	dhs  []F // (ΣT, 2H)
	dvhb []F // (ΣT, A)
	dY   []F // (encoder rows, 2H)
}

// forwardBackward is ForwardBackward over several utterances at once: it
// returns their summed loss and, when g is not nil, adds the gradient of the
// summed Loss.Total into g. With train, utterance i draws its dropout masks
// from items[i].rng exactly as ForwardBackward would, so the result equals
// the sum of per-utterance passes up to rounding. Every item must pass
// checkUtterance (the error of the first that does not is returned and g is
// untouched).
func (w *batchWorkspace[F]) forwardBackward(p *Params[F], items []batchItem[F], g *Params[F], train bool) (Loss, error) {
	cfg := &p.Cfg
	for _, it := range items {
		if err := checkUtterance(cfg, it.feats, it.frames, it.ids); err != nil {
			return Loss{}, err
		}
		if train && it.rng == nil && cfg.Dropout > 0 {
			panic("model: batched forward-backward with train needs an rng per utterance")
		}
	}
	if len(items) == 0 {
		return Loss{}, nil
	}
	V, H2, A := cfg.V(), cfg.EncDim(), cfg.AttDim
	lam := cfg.CTCWeight
	B := len(items)

	// Encoder, over the utterances by non-increasing length.
	w.order = w.order[:0]
	for i := range items {
		w.order = append(w.order, i)
	}
	slices.SortStableFunc(w.order, func(a, b int) int { return items[b].frames - items[a].frames })
	w.feats, w.frames, w.rngs = w.feats[:0], w.frames[:0], w.rngs[:0]
	for _, i := range w.order {
		w.feats = append(w.feats, items[i].feats)
		w.frames = append(w.frames, items[i].frames)
		w.rngs = append(w.rngs, items[i].rng)
	}
	encoderBatchForward(&w.enc, p, w.feats, w.frames, w.rngs, train)
	sb := &w.enc.sb
	w.ts, w.hoff = grow(w.ts, B), grow(w.hoff, B)
	total := 0
	for b := range B {
		w.ts[b], w.hoff[b] = sb.Lens[b], total
		total += sb.Lens[b]
	}
	w.hs = grow(w.hs, total*H2)
	for b := range B {
		gatherSeq(sb, w.hs[w.hoff[b]*H2:], w.enc.Out(), b, H2)
	}

	// CTC head on all frames at once, the loss per utterance.
	w.clp = grow(w.clp, total*V)
	ctcHeadForward(w.clp, w.hs, p, total)
	if g != nil {
		w.dclp = growZero(w.dclp, total*V)
	}
	var ctcSum float64
	for b, i := range w.order {
		lo, hi := w.hoff[b]*V, (w.hoff[b]+w.ts[b])*V
		var d []F
		if g != nil {
			d = w.dclp[lo:hi]
		}
		ctcSum += ctcLoss(&w.ctc, d, w.clp[lo:hi], w.ts[b], V, items[i].ids, lam)
	}

	// Attention decoder, teacher-forced, and the output layer on all steps.
	w.ys, w.tgts = w.ys[:0], w.tgts[:0]
	w.dorder = w.dorder[:0]
	for b, i := range w.order {
		ids := items[i].ids
		w.ys = append(w.ys, append([]int{EOS}, ids...))
		w.tgts = append(w.tgts, append(slices.Clone(ids), EOS))
		w.dorder = append(w.dorder, b)
	}
	slices.SortStableFunc(w.dorder, func(a, b int) int { return len(w.ys[b]) - len(w.ys[a]) })
	w.vhb = grow(w.vhb, total*A)
	linearForward(w.vhb, w.hs, p.AttV, p.AttB, total, H2, A)
	decoderBatchForward(&w.dec, p, w.hs, w.vhb, w.ts, w.hoff, w.dorder, w.ys, w.tgts, cfg.TrainWindow)
	R := w.dec.sb.rows()
	// With g, this also back-propagates through the output layer into dZ.
	att := outputLoss(&w.out, p, g, w.dec.Z, w.dec.Tgt[:R], &w.dlp, &w.dZ)
	loss := Loss{Att: att, CTC: ctcSum, Total: (1-lam)*att + lam*ctcSum, Chars: R}
	if g == nil {
		return loss, nil
	}

	// Backward: decoder and keys, CTC head, encoder.
	w.dhs = growZero(w.dhs, total*H2)
	w.dvhb = growZero(w.dvhb, total*A)
	decoderBatchBackward(&w.dec, p, g, w.hs, w.ts, w.hoff, w.dZ, w.dhs, w.dvhb)
	linearBackward(w.dhs, g.AttV, g.AttB, w.dvhb, w.hs, p.AttV, total, H2, A)
	ctcHeadBackward(w.dhs, w.dclp, w.clp, w.hs, p, g, total)
	w.dY = grow(w.dY, sb.rows()*H2)
	for b := range B {
		scatterSeq(sb, w.dY, w.dhs[w.hoff[b]*H2:], b, H2)
	}
	encoderBatchBackward(&w.enc, p, g, w.dY)
	return loss, nil
}
