package model

import (
	"context"
	"fmt"
	"math"

	"github.com/heed-asr/heed/features"
	"github.com/heed-asr/heed/model/beam"
)

// DecodeOptions chooses how Recognize searches for the transcript.
type DecodeOptions struct {
	// Beam is the beam width, at most MaxBeam; 1 (or 0) is greedy decoding.
	Beam int
	// CTCWeight is the weight of the CTC prefix score in the beam
	// (joint CTC/attention decoding); 0 turns it off.
	CTCWeight float64
	// LengthBonus is added to a hypothesis' score per output character.
	LengthBonus float64
	// LM, when not nil, is fused into the beam with weight LMWeight.
	// When it is nil the model file's own language model is used, if it
	// has one; a negative LMWeight then means the weight stored with it.
	LM       beam.LM
	LMWeight float64
	// ScoreBeam drops a live hypothesis once its score is more than this
	// (natural-log units) below the best of its step (beam.Options); 0
	// keeps the Beam best however far below they are (the exact search).
	ScoreBeam float64
	// BF16 runs the encoder's products in bfloat16 (Net.EncodeBF16) where
	// the CPU has them: twice their speed, results within rounding, and
	// about 10 MB for the weights packed once. heed sets it for long
	// recordings, where the packing is paid for.
	BF16 bool
}

// DefaultDecodeOptions is a beam of 16 with joint CTC scoring (weight 0.3),
// a score beam of 6 and the model's language model at its own weight. On the first 200 dev
// utterances with the shipped model it errs in 4.39% of characters clean
// and 10.97% at 10 dB; a beam of 8 in 4.44% and 11.56% at half the time,
// CTC weight 0.3 in 4.61% and 11.21%.
func DefaultDecodeOptions() DecodeOptions {
	return DecodeOptions{Beam: 16, CTCWeight: 0.3, LengthBonus: 0.5, LMWeight: -1, ScoreBeam: 6}
}

// MaxBeam is the widest beam DecodeOptions.Validate accepts. Time and
// memory grow with the beam; past a few dozen the transcripts no longer
// improve.
const MaxBeam = 256

// Validate reports the first option out of range: Beam outside [0,
// MaxBeam] (0 counts as 1), CTCWeight outside [0, 1], LengthBonus outside [0, 100], a
// LMWeight above 100, ScoreBeam outside [0, 1000], or any weight that is NaN
// or infinite. (A negative
// LMWeight is valid: it means the model's own weight.)
func (o DecodeOptions) Validate() error {
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case o.Beam < 0 || o.Beam > MaxBeam:
		return fmt.Errorf("beam %d out of range [1, %d]", o.Beam, MaxBeam)
	case !(o.CTCWeight >= 0 && o.CTCWeight <= 1):
		return fmt.Errorf("CTC weight %g out of range [0, 1]", o.CTCWeight)
	case !(o.LengthBonus >= 0 && o.LengthBonus <= 100):
		return fmt.Errorf("length bonus %g out of range [0, 100]", o.LengthBonus)
	case !finite(o.LMWeight) || o.LMWeight > 100:
		return fmt.Errorf("LM weight %g out of range (at most 100; negative: the model's own)", o.LMWeight)
	case !(o.ScoreBeam >= 0 && o.ScoreBeam <= 1000):
		return fmt.Errorf("score beam %g out of range [0, 1000]", o.ScoreBeam)
	}
	return nil
}

// Recognition is the result of Recognize: the transcript and what the
// aligner needs to time it.
type Recognition struct {
	Text   string
	IDs    []int     // Text as tokens
	Feats  []float32 // (Frames, NumMel) CMVN-normalised features
	Frames int       // 10 ms frames
	Enc    *Encoded
}

// Features computes the CMVN-normalised filterbank of 16 kHz mono samples
// as the model was trained on it: (frames, NumMel) row-major.
func (b *Bundle) Features(samples []float32) ([]float32, int) {
	// Building a filterbank's mel tables took 4% of greedy decoding of
	// short files: they are built once per bundle, the filterbank reused.
	f, _ := b.fbanks.Get().(*features.Fbank)
	if f == nil || f.Config() != b.Meta.Features {
		f = features.NewFbank(b.Meta.Features)
	}
	feats, frames := f.Compute(nil, samples)
	b.fbanks.Put(f)
	b.Meta.CMVN.Apply(feats)
	return feats, frames
}

// Recognize transcribes 16 kHz mono samples. It is safe for concurrent use.
// It panics on options that fail Validate; RecognizeContext returns an
// error instead.
func (b *Bundle) Recognize(samples []float32, opt DecodeOptions) *Recognition {
	r, err := b.RecognizeContext(context.Background(), samples, opt)
	if err != nil {
		panic("model: Recognize: " + err.Error())
	}
	return r
}

// RecognizeContext is Recognize that returns an error for invalid options
// and stops the beam search soon (within one decoder step) after ctx is
// done, returning ctx.Err().
func (b *Bundle) RecognizeContext(ctx context.Context, samples []float32, opt DecodeOptions) (*Recognition, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	feats, frames := b.Features(samples)
	r := &Recognition{Feats: feats, Frames: frames}
	if frames == 0 {
		return r, nil
	}
	var enc *Encoded
	if opt.BF16 {
		enc = b.Net.EncodeBF16(feats, frames)
	} else {
		enc = b.Net.Encode(feats, frames)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r.Enc = enc
	maxLen := MaxDecodeLen(enc)
	if opt.LM == nil && opt.LMWeight != 0 {
		// A language model that does not load is left out; callers that
		// must know call LanguageModel first. With weight 0 it would be
		// left out below anyway: it is not read (loading the shipped
		// model's took a sixth of greedy decoding of 50 short files).
		if lm, err := b.LanguageModel(); err == nil && lm != nil {
			opt.LM = lm
			if opt.LMWeight < 0 {
				opt.LMWeight = b.Meta.LMWeight
			}
		}
	}
	if opt.LM == nil || opt.LMWeight <= 0 {
		opt.LM, opt.LMWeight = nil, 0
	}
	if opt.Beam <= 1 && opt.CTCWeight == 0 && opt.LM == nil {
		r.IDs, _ = b.Net.Greedy(enc, maxLen)
	} else {
		bs := b.Net.NewBatchStepper(enc)
		bs.SkipContext = true // the search steps its states with bs alone
		start := newBeamDecoder(bs, b.Net.StartDecoder(enc))
		hyps := beam.Search(start, enc.CTCLogProbs, enc.T, b.Net.Cfg.V(), opt.LM, beam.Options{
			Beam: max(1, opt.Beam), MaxLen: maxLen, EOS: EOS,
			CTCWeight: opt.CTCWeight, LMWeight: opt.LMWeight, LengthBonus: opt.LengthBonus,
			ScoreBeam: opt.ScoreBeam,
			Done:      ctx.Done(),
		})
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(hyps) > 0 {
			r.IDs = hyps[0].Tokens
		}
	}
	r.Text = Decode(r.IDs)
	return r, nil
}

// beamDecoder adapts the network's batched step decoder to beam.Decoder,
// beam.BatchDecoder and beam.Recycler. A step copies each parent state
// into a state the search has handed back, when there is one, instead of
// cloning it: after the first steps a search allocates no decoder states.
type beamDecoder struct {
	bs   *BatchStepper[float32]
	st   *DecState
	pool *decPool // shared by all states of one search
}

// decPool holds the states handed back, and StepBatch's scratch.
type decPool struct {
	free []*beamDecoder
	sts  []*DecState
}

// newBeamDecoder returns the start state of a search with bs.
func newBeamDecoder(bs *BatchStepper[float32], st *DecState) *beamDecoder {
	return &beamDecoder{bs: bs, st: st, pool: &decPool{}}
}

// child returns a state equal to d's, from the pool when it has one.
func (d *beamDecoder) child() *beamDecoder {
	p := d.pool
	var c *beamDecoder
	if n := len(p.free); n > 0 {
		c = p.free[n-1]
		p.free[n-1] = nil
		p.free = p.free[:n-1]
	} else {
		c = &beamDecoder{bs: d.bs, st: &DecState{}, pool: p}
	}
	c.st.copyFrom(d.st)
	return c
}

func (d *beamDecoder) Step(prev int, logp []float32) beam.Decoder {
	return d.stepBatch([]beam.Decoder{d}, []int{prev}, logp, make([]beam.Decoder, 1))[0]
}

func (d *beamDecoder) StepBatch(ds []beam.Decoder, prev []int, logp []float32, next []beam.Decoder) {
	d.stepBatch(ds, prev, logp, next)
}

func (d *beamDecoder) stepBatch(ds []beam.Decoder, prev []int, logp []float32, next []beam.Decoder) []beam.Decoder {
	p := d.pool
	p.sts = p.sts[:0]
	for i, x := range ds {
		c := x.(*beamDecoder).child()
		next[i] = c
		p.sts = append(p.sts, c.st)
	}
	d.bs.Step(p.sts, prev, logp)
	clear(p.sts)
	return next
}

// Recycle takes back a state the search no longer reads.
func (d *beamDecoder) Recycle(x beam.Decoder) {
	d.pool.free = append(d.pool.free, x.(*beamDecoder))
}

// MaxDecodeLen caps the attention decoder's output length from the
// encoder's CTC posteriors: 1.5 times the frames whose best CTC token is not
// blank plus 10, at least a third of the encoder frames, and never more than
// twice the encoder frames. Without a cap an undertrained decoder that has
// not learned to stop repeats itself until it runs out of room.
func MaxDecodeLen(enc *Encoded) int {
	nonBlank := 0
	for _, id := range CTCBest(enc) {
		if id != EOS {
			nonBlank++
		}
	}
	return min(2*enc.T+5, max(int(1.5*float64(nonBlank))+10, enc.T/3))
}

// CTCBest returns the CTC head's most likely token for each of enc's T
// frames (EOS is the blank).
func CTCBest(enc *Encoded) []int {
	V := len(enc.CTCLogProbs) / max(1, enc.T)
	best := make([]int, enc.T)
	for t := range best {
		row := enc.CTCLogProbs[t*V : (t+1)*V]
		for v := range row {
			if row[v] > row[best[t]] {
				best[t] = v
			}
		}
	}
	return best
}
