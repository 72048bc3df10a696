package model

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/heed-asr/heed/features"
	"github.com/heed-asr/heed/internal/kern"
)

// Utterance is one training example.
type Utterance struct {
	Feats  []float32 // (Frames, NumMel) CMVN-normalised log-mel frames
	Frames int       // 10 ms frames
	IDs    []int     // transcript tokens, no <eos>
}

// TrainConfig holds the trainer's settings.
type TrainConfig struct {
	Workers  int         `json:"workers"`   // data-parallel goroutines (<= 0: GOMAXPROCS)
	Seed     uint64      `json:"seed"`      // seeds dropout and SpecAugment
	Adam     AdamConfig  `json:"adam"`      // optimizer hyperparameters
	Schedule Schedule    `json:"schedule"`  // learning rate per update step
	ClipNorm float64     `json:"clip_norm"` // global gradient-norm clip (<= 0: off), applied to the per-character gradient
	SpecAug  SpecAugment `json:"spec_aug"`  // zero value: off
	// Warp, when > 0, warps the mel axis of every utterance at every update
	// by a factor drawn from [1-Warp, 1+Warp] (warpSpeaker, before
	// SpecAugment): vocal-tract-length perturbation, a new speaker each
	// time the utterance is seen. It needs Trainer.CMVN and Trainer.Features.
	Warp float64 `json:"warp,omitempty"`

	// PerUtterance runs each worker's utterances through the network one
	// at a time, every recurrent step a matrix-vector product: the way heed
	// trained before batching, kept to measure against. By default a worker
	// runs all its utterances of a step as one batch, each recurrent step
	// one matrix product over the utterances still running; both give the
	// same gradient up to rounding and draw the same random numbers.
	PerUtterance bool `json:"per_utterance,omitempty"`
}

// StepStats reports one TrainStep.
type StepStats struct {
	Loss     Loss    // summed over the utterances used
	Utts     int     // utterances used
	Skipped  int     // utterances skipped because their transcript did not fit CTC
	GradNorm float64 // norm of the per-character gradient before clipping
	LR       float64 // learning rate applied
}

// Trainer runs data-parallel training steps on Model.P. Its results depend
// only on the seed, the batches, the number of workers and
// Cfg.PerUtterance: each utterance draws dropout and SpecAugment from its
// own rng keyed by (Seed, step, index in batch), utterance i goes to worker
// i mod Workers, which runs its utterances as one batch (batch.go) or one
// at a time, and per-worker gradients are summed in worker order.
type Trainer struct {
	Model *Model           // trained in place (Model.P)
	Cfg   TrainConfig      // settings; Workers resolved
	Opt   *Adam[float32]   // optimizer state; save Opt.Step, Opt.M, Opt.V to resume
	Grads *Params[float32] // the last step's per-character gradient, after clipping
	// CMVN and Features describe the training features, for Cfg.Warp: the
	// normalisation applied to Utterance.Feats and the filterbank.
	CMVN     features.CMVN
	Features features.Config

	workers []*trainWorker
	sq      []float64 // sumGrads' sums of squares per block
}

type trainWorker struct {
	ws    *Workspace[float32]
	bws   *batchWorkspace[float32]
	grads *Params[float32]
	feats []float32
	items []batchItem[float32]
	bufs  [][]float32 // SpecAugment copies of the batched utterances
	loss  Loss
	used  int
	skip  int
	err   error
}

// NewTrainer prepares training of m with cfg: Adam state, per-worker
// workspaces and gradient buffers.
func NewTrainer(m *Model, cfg TrainConfig) (*Trainer, error) {
	if err := m.Cfg.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.Schedule.Validate(); err != nil {
		return nil, err
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	t := &Trainer{
		Model: m,
		Cfg:   cfg,
		Opt:   NewAdam[float32](len(m.P.Data), cfg.Adam),
	}
	for i := 0; i < cfg.Workers; i++ {
		w := &trainWorker{ws: NewWorkspace[float32](), bws: new(batchWorkspace[float32]), grads: NewParams[float32](m.Cfg)}
		w.ws.Parallel = cfg.Workers == 1
		t.workers = append(t.workers, w)
	}
	t.Grads = t.workers[0].grads
	return t, nil
}

// uttRNG returns the rng of utterance i of update step.
func uttRNG(seed uint64, step, i int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(step)*0x9e3779b97f4a7c15+uint64(i)))
}

// ErrNotFinite is TrainStep's error for a batch whose loss or gradient is
// not finite. The parameters, the optimizer's state and its step count are
// then as they were before the call: the batch can be left out.
var ErrNotFinite = errors.New("not finite")

// TrainStep computes the gradient of the batch's summed loss on the workers,
// divides it by the batch's total Loss.Chars, clips it to Cfg.ClipNorm, and
// applies one Adam update at the scheduled learning rate. Utterances whose
// transcript does not fit CTC are skipped and counted. Any other invalid
// utterance fails the step without updating anything, and so does a loss or
// gradient that is not finite (ErrNotFinite). A batch with no usable
// utterance leaves the parameters unchanged.
func (t *Trainer) TrainStep(batch []Utterance) (StepStats, error) {
	step := t.Opt.Step + 1
	p := t.Model.P
	if n := t.Model.Cfg.NumMel; t.Cfg.Warp > 0 && (t.CMVN.Dim() != n || t.Features.NumMel != n) {
		return StepStats{}, fmt.Errorf("model: Warp needs the training features' CMVN and filterbank (%d mel bins)", n)
	}
	var wg sync.WaitGroup
	for wi, w := range t.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.grads.Zero()
			w.loss, w.used, w.skip, w.err = Loss{}, 0, 0, nil
			if t.Cfg.PerUtterance {
				t.stepPerUtterance(w, wi, step, batch)
			} else {
				t.stepBatched(w, wi, step, batch)
			}
		}()
	}
	wg.Wait()
	var st StepStats
	for _, w := range t.workers {
		if w.err != nil {
			return StepStats{}, w.err
		}
		st.Loss.Add(w.loss)
		st.Utts += w.used
		st.Skipped += w.skip
	}
	if st.Utts == 0 {
		return st, nil
	}
	if math.IsNaN(st.Loss.Total) || math.IsInf(st.Loss.Total, 0) {
		return st, fmt.Errorf("model: step %d loss is %g: %w", step, st.Loss.Total, ErrNotFinite)
	}
	st.GradNorm = t.sumGrads(1/float64(st.Loss.Chars), t.Cfg.ClipNorm)
	if math.IsNaN(st.GradNorm) || math.IsInf(st.GradNorm, 0) {
		return st, fmt.Errorf("model: step %d gradient norm is %g: %w", step, st.GradNorm, ErrNotFinite)
	}
	st.LR = t.Cfg.Schedule.LR(step)
	t.Opt.UpdateParallel(p.Data, t.Grads.Data, st.LR, len(t.workers))
	return st, nil
}

// stepPerUtterance runs worker w's utterances of batch (wi, wi+W, ...)
// one at a time, adding their gradients into w.grads.
func (t *Trainer) stepPerUtterance(w *trainWorker, wi, step int, batch []Utterance) {
	for i := wi; i < len(batch); i += len(t.workers) {
		u := &batch[i]
		rng := uttRNG(t.Cfg.Seed, step, i)
		feats := t.augment(&w.feats, u, rng)
		l, err := w.ws.ForwardBackward(t.Model.P, feats, u.Frames, u.IDs, w.grads, rng, true)
		if errors.Is(err, ErrInfeasible) {
			w.skip++
			continue
		}
		if err != nil {
			w.err = fmt.Errorf("model: batch utterance %d: %w", i, err)
			return
		}
		w.loss.Add(l)
		w.used++
	}
}

// stepBatched runs worker w's utterances of batch (wi, wi+W, ...) as one
// batch, adding their gradient into w.grads. Each utterance draws
// SpecAugment and dropout from the same rng as in stepPerUtterance.
func (t *Trainer) stepBatched(w *trainWorker, wi, step int, batch []Utterance) {
	cfg := &t.Model.Cfg
	w.items = w.items[:0]
	for i := wi; i < len(batch); i += len(t.workers) {
		u := &batch[i]
		if err := checkUtterance(cfg, u.Feats, u.Frames, u.IDs); errors.Is(err, ErrInfeasible) {
			w.skip++
			continue
		} else if err != nil {
			w.err = fmt.Errorf("model: batch utterance %d: %w", i, err)
			return
		}
		rng := uttRNG(t.Cfg.Seed, step, i)
		k := len(w.items)
		if k == len(w.bufs) {
			w.bufs = append(w.bufs, nil)
		}
		feats := t.augment(&w.bufs[k], u, rng)
		w.items = append(w.items, batchItem[float32]{feats: feats, frames: u.Frames, ids: u.IDs, rng: rng})
	}
	l, err := w.bws.forwardBackward(t.Model.P, w.items, w.grads, true)
	if err != nil {
		w.err = fmt.Errorf("model: batch: %w", err)
		return
	}
	w.loss, w.used = l, len(w.items)
}

// augment returns the features the network trains on for u at this update:
// u.Feats itself when nothing is augmented, else a copy in *buf warped
// (Cfg.Warp) and then masked (Cfg.SpecAug), drawing from rng.
func (t *Trainer) augment(buf *[]float32, u *Utterance, rng *rand.Rand) []float32 {
	n := t.Model.Cfg.NumMel
	if (t.Cfg.SpecAug == SpecAugment{} && t.Cfg.Warp == 0) || u.Frames <= 0 || len(u.Feats) < u.Frames*n {
		return u.Feats
	}
	*buf = grow(*buf, u.Frames*n)
	copy(*buf, u.Feats)
	if t.Cfg.Warp > 0 {
		warpSpeaker(*buf, u.Frames, t.Features, t.CMVN, t.Cfg.Warp, rng)
	}
	t.Cfg.SpecAug.Apply(*buf, u.Frames, n, rng)
	return *buf
}

// gradBlock is the block of gradient elements whose squares sumGrads sums
// on its own: the norm is the same whatever the number of workers.
const gradBlock = 1 << 16

// sumGrads adds the workers' gradients into worker 0's buffer (t.Grads) in
// worker order, scales them, and returns their norm before clipping,
// having clipped them as ClipGradNorm does when maxNorm > 0. The element
// range is split over the workers, which keeps every element's summation
// order fixed; the squares are summed in float64 per gradBlock elements,
// and the blocks in order.
func (t *Trainer) sumGrads(scale, maxNorm float64) float64 {
	dst := t.Grads.Data
	n, W := len(dst), len(t.workers)
	nb := (n + gradBlock - 1) / gradBlock
	t.sq = grow(t.sq, nb)
	s := float32(scale)
	t.par(W, nb, func(b0, b1 int) {
		for b := b0; b < b1; b++ {
			lo, hi := b*gradBlock, min(n, (b+1)*gradBlock)
			d := dst[lo:hi]
			for _, w := range t.workers[1:] {
				addTo(d, w.grads.Data[lo:hi])
			}
			var sq float64
			for i, v := range d {
				v *= s
				d[i] = v
				sq += float64(v) * float64(v)
			}
			t.sq[b] = sq
		}
	})
	var sq float64
	for _, v := range t.sq {
		sq += v
	}
	norm := math.Sqrt(sq)
	if maxNorm > 0 && norm > maxNorm {
		c := float32(maxNorm / norm)
		t.par(W, nb, func(b0, b1 int) {
			d := dst[b0*gradBlock : min(n, b1*gradBlock)]
			kern.Scale(d, c, d)
		})
	}
	return norm
}

// par runs f over nb blocks split into W near-equal ranges, one goroutine
// each.
func (t *Trainer) par(W, nb int, f func(b0, b1 int)) {
	var wg sync.WaitGroup
	for c := 0; c < W; c++ {
		b0, b1 := nb*c/W, nb*(c+1)/W
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(b0, b1)
		}()
	}
	wg.Wait()
}

// Eval returns the summed loss of batch without dropout or SpecAugment
// (validation), on the trainer's workers, and the number of utterances
// skipped because their transcript did not fit CTC. The parameters and
// gradients are untouched.
func (t *Trainer) Eval(batch []Utterance) (loss Loss, skipped int, err error) {
	p := t.Model.P
	W := len(t.workers)
	var wg sync.WaitGroup
	for wi, w := range t.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.loss, w.skip, w.err = Loss{}, 0, nil
			for i := wi; i < len(batch); i += W {
				u := &batch[i]
				l, err := w.ws.ForwardBackward(p, u.Feats, u.Frames, u.IDs, nil, nil, false)
				if errors.Is(err, ErrInfeasible) {
					w.skip++
					continue
				}
				if err != nil {
					w.err = fmt.Errorf("model: eval utterance %d: %w", i, err)
					return
				}
				w.loss.Add(l)
			}
		}()
	}
	wg.Wait()
	for _, w := range t.workers {
		if w.err != nil {
			return Loss{}, 0, w.err
		}
		loss.Add(w.loss)
		skipped += w.skip
	}
	return loss, skipped, nil
}
