package model

import (
	"fmt"
	"math"
	"sync"

	"github.com/heed-asr/heed/internal/kern"
)

// AdamConfig holds Adam's hyperparameters.
type AdamConfig struct {
	Beta1       float64 `json:"beta1"`        // first-moment decay
	Beta2       float64 `json:"beta2"`        // second-moment decay
	Eps         float64 `json:"eps"`          // added to the bias-corrected RMS
	WeightDecay float64 `json:"weight_decay"` // decoupled (AdamW) decay per unit learning rate; 0 = off
}

// DefaultAdam returns β1 = 0.9, β2 = 0.999, ε = 1e-8, no weight decay.
func DefaultAdam() AdamConfig { return AdamConfig{Beta1: 0.9, Beta2: 0.999, Eps: 1e-8} }

// Adam is the optimizer state: first and second moments with the parameter
// layout, and the number of updates taken. All fields are exported so a
// trainer can save and resume it exactly.
type Adam[F kern.Float] struct {
	Cfg  AdamConfig
	Step int // updates taken so far
	M    []F // first moment, same layout as Params.Data
	V    []F // second moment
}

// NewAdam returns zeroed state for n parameters.
func NewAdam[F kern.Float](n int, cfg AdamConfig) *Adam[F] {
	return &Adam[F]{Cfg: cfg, M: make([]F, n), V: make([]F, n)}
}

// Update applies one Adam step with bias correction to params using grads
// and learning rate lr, and increments Step. With WeightDecay w, params are
// also shrunk by lr·w·param (decoupled, AdamW). It panics on a length
// mismatch.
func (a *Adam[F]) Update(params, grads []F, lr float64) { a.UpdateParallel(params, grads, lr, 1) }

// UpdateParallel is Update with the elements split over workers goroutines.
// The result does not depend on workers (every element is updated alone).
func (a *Adam[F]) UpdateParallel(params, grads []F, lr float64, workers int) {
	n := len(a.M)
	if len(params) != n || len(grads) != n {
		panic(fmt.Sprintf("model: Adam.Update lengths %d, %d, state %d", len(params), len(grads), n))
	}
	a.Step++
	workers = max(1, min(workers, n/4096))
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lo, hi := n*w/workers, n*(w+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.apply(params[lo:hi], grads[lo:hi], a.M[lo:hi], a.V[lo:hi], lr)
		}()
	}
	wg.Wait()
}

// apply updates one range of elements for step a.Step.
func (a *Adam[F]) apply(params, grads, ms, vs []F, lr float64) {
	b1, b2 := a.Cfg.Beta1, a.Cfg.Beta2
	c1 := 1 - math.Pow(b1, float64(a.Step))
	c2 := 1 - math.Pow(b2, float64(a.Step))
	step := lr / c1
	decay := 1 - lr*a.Cfg.WeightDecay
	kern.AdamUpdate(params, grads, ms, vs, kern.AdamCoef{B1: b1, B2: b2, C2: c2, Step: step, Decay: decay, Eps: a.Cfg.Eps})
}

// GradNorm returns the Euclidean norm of g, accumulated in float64.
func GradNorm[F kern.Float](g []F) float64 {
	var s float64
	for _, v := range g {
		s += float64(v) * float64(v)
	}
	return math.Sqrt(s)
}

// ClipGradNorm scales g so that its norm is at most maxNorm and returns the
// norm before clipping. maxNorm <= 0 disables clipping.
func ClipGradNorm[F kern.Float](g []F, maxNorm float64) float64 {
	n := GradNorm(g)
	if maxNorm > 0 && n > maxNorm {
		s := F(maxNorm / n)
		for i := range g {
			g[i] *= s
		}
	}
	return n
}

// Schedule is a learning-rate schedule: linear warm-up from 0 to Peak over
// Warmup steps, then Decay.
type Schedule struct {
	Peak   float64 `json:"peak"`
	Warmup int     `json:"warmup"` // steps of linear warm-up (0: none)
	// Decay after warm-up: "inv_sqrt" (Peak·sqrt(Warmup/step)), "cosine"
	// (from Peak to Final over steps Warmup..Total), or "constant".
	Decay string  `json:"decay"`
	Total int     `json:"total"` // last step of the cosine decay
	Final float64 `json:"final"` // learning rate reached by cosine at Total
}

// Validate reports an unusable schedule.
func (s Schedule) Validate() error {
	switch s.Decay {
	case "inv_sqrt", "constant":
	case "cosine":
		if s.Total <= s.Warmup {
			return fmt.Errorf("model: cosine schedule total %d must exceed warmup %d", s.Total, s.Warmup)
		}
	default:
		return fmt.Errorf("model: unknown schedule decay %q (want inv_sqrt, cosine or constant)", s.Decay)
	}
	if s.Peak <= 0 || s.Warmup < 0 {
		return fmt.Errorf("model: schedule peak %g, warmup %d", s.Peak, s.Warmup)
	}
	return nil
}

// LR returns the learning rate of 1-based update step.
func (s Schedule) LR(step int) float64 {
	if step < 1 {
		step = 1
	}
	if step <= s.Warmup {
		return s.Peak * float64(step) / float64(s.Warmup)
	}
	switch s.Decay {
	case "inv_sqrt":
		w := max(s.Warmup, 1)
		return s.Peak * math.Sqrt(float64(w)/float64(step))
	case "cosine":
		f := math.Min(1, float64(step-s.Warmup)/float64(s.Total-s.Warmup))
		return s.Final + (s.Peak-s.Final)*0.5*(1+math.Cos(math.Pi*f))
	}
	return s.Peak
}
