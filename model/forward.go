package model

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/heed-asr/heed/internal/kern"
)

// ErrInfeasible is returned (wrapped) by ForwardBackward when a transcript
// has more CTC labels than the utterance has encoder frames.
var ErrInfeasible = errors.New("model: transcript too long for CTC")

// Loss is one utterance's training loss, summed over its output steps.
type Loss struct {
	Att   float64 // label-smoothed attention cross-entropy, summed over Chars steps
	CTC   float64 // CTC negative log-likelihood
	Total float64 // (1-CTCWeight)·Att + CTCWeight·CTC
	Chars int     // attention output steps: transcript characters + 1 for <eos>
}

// Add accumulates l2 into l.
func (l *Loss) Add(l2 Loss) {
	l.Att += l2.Att
	l.CTC += l2.CTC
	l.Total += l2.Total
	l.Chars += l2.Chars
}

// Workspace is one worker's reusable scratch for ForwardBackward: caches of
// every layer, grown as needed and reused across calls. A Workspace is not
// safe for concurrent use.
type Workspace[F kern.Float] struct {
	// Parallel runs the two encoder directions on separate goroutines. Turn
	// it off when several workers already keep every core busy.
	Parallel bool

	enc  encCache[F]
	dec  decCache[F]
	out  outCache[F]
	ctc  ctcScratch
	ys   []int // (N) decoder inputs [<eos>, ids...]
	tgt  []int // (N) decoder targets [ids..., <eos>]
	clp  []F   // (T, V) CTC log-probs
	dclp []F   // (T, V)
	dlp  []F   // (N, V)
	dZ   []F   // (N, D+2H)
	dH   []F   // (T, 2H)

	// inputGrad makes ForwardBackward store ∂Total/∂feats in dFeats
	// (frames, NumMel); used by the gradient checks.
	inputGrad bool
	dFeats    []F
}

// NewWorkspace returns an empty workspace with Parallel set.
func NewWorkspace[F kern.Float]() *Workspace[F] { return &Workspace[F]{Parallel: true} }

// checkUtterance validates one training example.
func checkUtterance[F kern.Float](cfg *Config, feats []F, frames int, ids []int) error {
	if frames <= 0 {
		return fmt.Errorf("model: utterance has %d frames", frames)
	}
	if len(feats) < frames*cfg.NumMel {
		return fmt.Errorf("model: %d feature values for %d frames of %d bins", len(feats), frames, cfg.NumMel)
	}
	for i, id := range ids {
		if id <= EOS || id >= cfg.V() {
			return fmt.Errorf("model: target id %d at position %d outside [1, %d)", id, i, cfg.V())
		}
	}
	if T := cfg.EncFrames(frames); !ctcFeasible(ids, T) {
		return fmt.Errorf("%w: %d labels, %d encoder frames", ErrInfeasible, len(ids), T)
	}
	return nil
}

// ForwardBackward computes the loss of one utterance, feats (frames, NumMel)
// CMVN-normalised log-mel frames with transcript ids (no <eos>), and, when g
// is not nil, adds the gradient of Loss.Total into g. With train, dropout
// (drawn from rng) is applied; rng may be nil when train is false. The
// decoder uses the local window when p.Cfg.TrainWindow is set. It returns an
// error wrapping ErrInfeasible when the transcript cannot fit CTC's frames,
// and an error for malformed input; g is untouched on error.
func (w *Workspace[F]) ForwardBackward(p *Params[F], feats []F, frames int, ids []int, g *Params[F], rng *rand.Rand, train bool) (Loss, error) {
	cfg := &p.Cfg
	if err := checkUtterance(cfg, feats, frames, ids); err != nil {
		return Loss{}, err
	}
	if train && rng == nil && cfg.Dropout > 0 {
		panic("model: ForwardBackward with train needs an rng")
	}
	V, H2 := cfg.V(), cfg.EncDim()
	lam := cfg.CTCWeight

	// Encoder.
	var drop *rand.Rand
	if train {
		drop = rng
	}
	encoderForward(&w.enc, p, nil, feats, frames, drop, w.Parallel)
	T, h := w.enc.T, w.enc.Out()

	// CTC head: log-softmax(h W_ctcᵀ + b) and the CTC loss (with its
	// gradient w.r.t. the log-probs when training).
	w.clp = grow(w.clp, T*V)
	ctcHeadForward(w.clp, h, p, T)
	var dclp []F
	if g != nil {
		w.dclp = growZero(w.dclp, T*V)
		dclp = w.dclp
	}
	ctcLossV := ctcLoss(&w.ctc, dclp, w.clp, T, V, ids, lam)

	// Attention decoder, teacher-forced: inputs [<eos>, ids...], targets
	// [ids..., <eos>].
	N := len(ids) + 1
	w.ys = append(append(w.ys[:0], EOS), ids...)
	w.tgt = append(append(w.tgt[:0], ids...), EOS)
	decoderForward(&w.dec, p, h, T, w.ys, cfg.TrainWindow)
	// With g, this also back-propagates through the output layer into dZ.
	attLoss := outputLoss(&w.out, p, g, w.dec.Z, w.tgt, &w.dlp, &w.dZ)

	loss := Loss{Att: attLoss, CTC: ctcLossV, Total: (1-lam)*attLoss + lam*ctcLossV, Chars: N}
	if g == nil {
		return loss, nil
	}

	// Backward: decoder, CTC head, encoder.
	w.dH = growZero(w.dH, T*H2)
	decoderBackward(&w.dec, p, g, w.dZ, w.dH)
	ctcHeadBackward(w.dH, w.dclp, w.clp, h, p, g, T)
	var dfeats []F
	if w.inputGrad {
		w.dFeats = growZero(w.dFeats, frames*cfg.NumMel)
		dfeats = w.dFeats
	}
	encoderBackward(&w.enc, p, g, w.dH, dfeats)
	return loss, nil
}
