package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBatchStepperMatchesStep runs n decoder states through Net.Step one at
// a time and through BatchStepper.Step together, on different token
// histories, with and without the window, and compares log-probabilities,
// attention weights, states and window centres: exactly up to rounding in
// float64 with SparseMass 0, and within the sparse threshold's bound in
// float32 with the default mass.
func TestBatchStepperMatchesStep(t *testing.T) {
	const n, steps, frames = 9, 7, 60 // n ≥ 8 takes the packed product
	for _, window := range []bool{false, true} {
		cfg := smallConfig()
		cfg.TrainWindow = window
		p := randParams(cfg, 90)
		rng := rand.New(rand.NewPCG(91, 92))
		feats := randVec(rng, frames*cfg.NumMel, 1)
		hist := make([][]int, n)
		for i := range hist {
			for range steps {
				hist[i] = append(hist[i], rng.IntN(cfg.V()))
			}
		}
		t.Run(fmt.Sprintf("float64 window %v", window), func(t *testing.T) {
			m := NewNet(p)
			compareBatch(t, m, m.Encode(feats, frames), hist, 0, 1e-12)
		})
		t.Run(fmt.Sprintf("float32 window %v", window), func(t *testing.T) {
			m := NewNet(ConvertParams[float32](p))
			f32 := make([]float32, len(feats))
			for i, v := range feats {
				f32[i] = float32(v)
			}
			compareBatch(t, m, m.Encode(f32, frames), hist, DefaultSparseMass, 1e-3)
		})
	}
}

func compareBatch[F interface{ ~float32 | ~float64 }](t *testing.T, m *Net[F], enc *EncOutput[F], hist [][]int, eps float64, tol float64) {
	t.Helper()
	V := m.Cfg.V()
	n := len(hist)
	bs := m.NewBatchStepper(enc)
	bs.SparseMass = eps
	one, all := make([]*DecoderState[F], n), make([]*DecoderState[F], n)
	for i := range one {
		one[i], all[i] = m.StartDecoder(enc), m.StartDecoder(enc)
	}
	logp1, logpN := make([]F, V), make([]F, n*V)
	prev := make([]int, n)
	for i := range prev {
		prev[i] = EOS
	}
	for s := range hist[0] {
		bs.Step(all, prev, logpN)
		for i := range one {
			m.Step(enc, one[i], prev[i], logp1)
			for k, v := range logp1 {
				if d := math.Abs(float64(v - logpN[i*V+k])); d > tol {
					t.Fatalf("step %d state %d token %d: log-prob %g batched, %g alone", s, i, k, logpN[i*V+k], v)
				}
			}
			for j, a := range one[i].Att {
				if d := math.Abs(float64(a - all[i].Att[j])); d > tol {
					t.Fatalf("step %d state %d frame %d: attention %g batched, %g alone", s, i, j, all[i].Att[j], a)
				}
			}
			for j, v := range one[i].C {
				if d := math.Abs(float64(v - all[i].C[j])); d > tol {
					t.Fatalf("step %d state %d: context %d %g batched, %g alone", s, i, j, all[i].C[j], v)
				}
			}
			if one[i].Pos != all[i].Pos || one[i].Steps != all[i].Steps {
				t.Fatalf("step %d state %d: position %d/%d steps batched, %d/%d alone", s, i, all[i].Pos, all[i].Steps, one[i].Pos, one[i].Steps)
			}
			prev[i] = hist[i][s]
		}
	}
}

// TestSparseThreshold checks that the weights below the threshold sum to at
// most SparseMass and that the next power of two up would drop more.
func TestSparseThreshold(t *testing.T) {
	rng := rand.New(rand.NewPCG(93, 94))
	b := &BatchStepper[float32]{SparseMass: DefaultSparseMass}
	for trial := range 200 {
		a := make([]float32, 1+rng.IntN(300))
		for i := range a {
			a[i] = float32(math.Exp(-rng.Float64() * float64(trial%40)))
		}
		if trial%3 == 0 {
			a[rng.IntN(len(a))] = 0
		}
		var sum float64
		for _, v := range a {
			sum += float64(v)
		}
		for i := range a {
			a[i] = float32(float64(a[i]) / sum)
		}
		eps := b.threshold(a)
		var below, below2 float64
		for _, v := range a {
			if v < eps {
				below += float64(v)
			}
			if v < 2*eps {
				below2 += float64(v)
			}
		}
		if below > b.SparseMass {
			t.Fatalf("trial %d: threshold %g drops %g > %g", trial, eps, below, b.SparseMass)
		}
		if eps < 1 && below2 <= b.SparseMass {
			t.Fatalf("trial %d: threshold %g could be %g (drops %g)", trial, eps, 2*eps, below2)
		}
	}
	if eps := (&BatchStepper[float32]{}).threshold([]float32{0.5, 0.5}); eps != 0 {
		t.Errorf("SparseMass 0: threshold %g, want 0", eps)
	}
}

// TestBatchStepperContextProducts: the states carry their contexts'
// products with the context weights. A state that Net.Step advanced (and
// so has none) is picked up from its context; and with SkipContext, which
// leaves the contexts themselves out, the log-probabilities, weights and
// states are the same to the bit.
func TestBatchStepperContextProducts(t *testing.T) {
	cfg := smallConfig()
	cfg.DecHidden, cfg.AttDim, cfg.EncHidden = 8, 6, 5
	m := NewNet(ConvertParams[float32](randParams(cfg, 95)))
	rng := rand.New(rand.NewPCG(96, 97))
	const frames, n = 50, 9
	feats := make([]float32, frames*cfg.NumMel)
	for i := range feats {
		feats[i] = float32(2*rng.Float64() - 1)
	}
	enc := m.Encode(feats, frames)
	V := m.Cfg.V()
	alone, mixed, full, skip := make([]*DecState, n), make([]*DecState, n), make([]*DecState, n), make([]*DecState, n)
	for i := range alone {
		alone[i], mixed[i], full[i], skip[i] = m.StartDecoder(enc), m.StartDecoder(enc), m.StartDecoder(enc), m.StartDecoder(enc)
	}
	bsMixed, bsFull, bsSkip := m.NewBatchStepper(enc), m.NewBatchStepper(enc), m.NewBatchStepper(enc)
	bsSkip.SkipContext = true
	prev := make([]int, n)
	logpA, logpM, logpF, logpS := make([]float32, n*V), make([]float32, n*V), make([]float32, n*V), make([]float32, n*V)
	for step := range 8 {
		for i := range alone {
			m.Step(enc, alone[i], prev[i], logpA[i*V:(i+1)*V])
			if step%3 == 1 { // Net.Step, then the stepper again
				m.Step(enc, mixed[i], prev[i], logpM[i*V:(i+1)*V])
			}
		}
		if step%3 != 1 {
			bsMixed.Step(mixed, prev, logpM)
		}
		bsFull.Step(full, prev, logpF)
		bsSkip.Step(skip, prev, logpS)
		for i := range alone {
			for k, v := range logpA[i*V : (i+1)*V] {
				if d := math.Abs(float64(v - logpM[i*V+k])); d > 1e-4 {
					t.Fatalf("step %d state %d token %d: %g after Net.Step and the stepper, %g by Net.Step", step, i, k, logpM[i*V+k], v)
				}
			}
			if !slices.Equal(logpF, logpS) || !slices.Equal(full[i].Att, skip[i].Att) || !slices.Equal(full[i].S, skip[i].S) || !slices.Equal(full[i].pc, skip[i].pc) {
				t.Fatalf("step %d state %d: SkipContext changes the step", step, i)
			}
			if slices.ContainsFunc(skip[i].C, func(v float32) bool { return v != 0 }) {
				t.Fatalf("step %d state %d: SkipContext wrote the context", step, i)
			}
			prev[i] = rng.IntN(V)
		}
	}
}
