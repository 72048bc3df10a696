package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/heed-asr/heed/internal/kern"
)

// batchCase is a batch whose utterances differ in frames and transcript
// length, ordered so that neither the encoder (by frames) nor the decoder
// (by characters) order is the batch order, with two utterances of equal
// encoder length.
func batchCase[F kern.Float](cfg Config, seed uint64) []batchItem[F] {
	rng := rand.New(rand.NewPCG(seed, 43))
	shapes := []struct {
		frames int
		ids    []int
	}{
		{7, []int{5, 3}},
		{11, []int{4, 4, 9}},
		{5, []int{6, 2, 8}},
		{12, []int{7}},
		{6, []int{3, 9}},
	}
	var items []batchItem[F]
	for _, s := range shapes {
		feats := make([]F, s.frames*cfg.NumMel)
		for i := range feats {
			feats[i] = F(2*rng.Float64() - 1)
		}
		items = append(items, batchItem[F]{feats: feats, frames: s.frames, ids: s.ids})
	}
	return items
}

// withRNGs sets item i's dropout rng to a fresh rng keyed by i, so that
// every call draws the same masks.
func withRNGs[F kern.Float](items []batchItem[F]) []batchItem[F] {
	for i := range items {
		items[i].rng = rand.New(rand.NewPCG(77, uint64(i)))
	}
	return items
}

// TestBatchGrad checks the batched forward-backward pass (encoder, CTC
// head, attention decoder, output layer, both losses, dropout) against
// finite differences for every parameter tensor.
func TestBatchGrad(t *testing.T) {
	tests := []struct {
		name        string
		train       bool
		trainWindow bool
	}{
		{"eval-full", false, false},
		{"train-dropout-full", true, false},
		{"train-dropout-window", true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := smallConfig()
			cfg.EncLayers = 2
			cfg.Dropout = 0.2
			cfg.TrainWindow = tc.trainWindow
			p := randParams(cfg, 44)
			for _, v := range [][]float64{p.AttVec, p.AttW, p.AttV} {
				for i := range v {
					v[i] *= 4
				}
			}
			items := batchCase[float64](cfg, 45)
			var w batchWorkspace[float64]
			f := func() float64 {
				l, err := w.forwardBackward(p, withRNGs(items), nil, tc.train)
				if err != nil {
					t.Fatal(err)
				}
				return l.Total
			}
			g := NewParams[float64](cfg)
			if _, err := w.forwardBackward(p, withRNGs(items), g, tc.train); err != nil {
				t.Fatal(err)
			}
			gt := g.Tensors()
			for i, tn := range p.Tensors() {
				checkGrad(t, tn.Name, tn.Data, gt[i].Data, f)
			}
		})
	}
}

// perUttGrad returns the summed loss and gradient of items run one at a
// time through Workspace.ForwardBackward.
func perUttGrad[F kern.Float](t *testing.T, p *Params[F], items []batchItem[F], train bool) (Loss, *Params[F]) {
	t.Helper()
	ws := NewWorkspace[F]()
	ws.Parallel = false
	g := NewParams[F](p.Cfg)
	var sum Loss
	for _, it := range items {
		l, err := ws.ForwardBackward(p, it.feats, it.frames, it.ids, g, it.rng, train)
		if err != nil {
			t.Fatal(err)
		}
		sum.Add(l)
	}
	return sum, g
}

// TestBatchEqualsPerUtterance requires the batched gradient to equal the sum
// of per-utterance gradients drawn with the same dropout rngs: to round-off
// in float64, and to float32 tolerance in float32, where the batched
// recurrent products run on the packed matrix kernels.
func TestBatchEqualsPerUtterance(t *testing.T) {
	for _, window := range []bool{false, true} {
		t.Run(map[bool]string{false: "full", true: "window"}[window], func(t *testing.T) {
			cfg := smallConfig()
			cfg.EncLayers = 3
			cfg.Dropout = 0.3
			cfg.TrainWindow = window
			p := randParams(cfg, 46)
			items := batchCase[float64](cfg, 47)
			want, wg := perUttGrad(t, p, withRNGs(items), true)
			var w batchWorkspace[float64]
			g := NewParams[float64](cfg)
			got, err := w.forwardBackward(p, withRNGs(items), g, true)
			if err != nil {
				t.Fatal(err)
			}
			if got.Chars != want.Chars || math.Abs(got.Total-want.Total) > 1e-12*want.Total ||
				math.Abs(got.Att-want.Att) > 1e-12*want.Att || math.Abs(got.CTC-want.CTC) > 1e-12*want.CTC {
				t.Fatalf("loss %+v, want %+v", got, want)
			}
			compareGrads(t, g.Data, wg.Data, 1e-12)
		})
	}
	t.Run("float32", func(t *testing.T) {
		cfg := overfitConfig()
		cfg.EncLayers, cfg.EncHidden, cfg.DecHidden = 2, 40, 48
		cfg.Dropout = 0.2
		p := InitParams[float32](cfg, 48)
		data := overfitSet(cfg, []string{"cab", "hello", "to ad", "dog", "a bee", "sea"}, 49)
		var items []batchItem[float32]
		for _, u := range data {
			items = append(items, batchItem[float32]{feats: u.Feats, frames: u.Frames, ids: u.IDs})
		}
		want, wg := perUttGrad(t, p, withRNGs(items), true)
		var w batchWorkspace[float32]
		g := NewParams[float32](cfg)
		got, err := w.forwardBackward(p, withRNGs(items), g, true)
		if err != nil {
			t.Fatal(err)
		}
		if got.Chars != want.Chars || math.Abs(got.Total-want.Total) > 1e-5*want.Total {
			t.Fatalf("loss %+v, want %+v", got, want)
		}
		compareGrads(t, g.Data, wg.Data, 1e-4)
	})
}

// compareGrads fails unless |a-b| <= tol·max|b| element by element, and
// unless b has a non-zero element.
func compareGrads[F kern.Float](t *testing.T, a, b []F, tol float64) {
	t.Helper()
	var scale float64
	for _, v := range b {
		scale = math.Max(scale, math.Abs(float64(v)))
	}
	if scale == 0 {
		t.Fatal("reference gradient identically zero")
	}
	for i := range a {
		if d := math.Abs(float64(a[i] - b[i])); !(d <= tol*scale) {
			t.Fatalf("gradient element %d: %g, want %g (scale %g)", i, a[i], b[i], scale)
		}
	}
}

// TestTrainStepBatchedMatchesPerUtterance runs one training step on each
// path from the same parameters, with SpecAugment and dropout: the losses
// and the applied (clipped, scaled) gradients must agree to float32
// tolerance, and infeasible utterances are skipped the same way.
func TestTrainStepBatchedMatchesPerUtterance(t *testing.T) {
	cfg := overfitConfig()
	cfg.EncLayers = 2
	cfg.Dropout = 0.2
	data := overfitSet(cfg, []string{"cab", "hello", "to ad", "dog", "a bee", "sea", "ok"}, 50)
	data[6].Frames = 2 // infeasible: one encoder frame for two labels
	run := func(perUtt bool) (*Trainer, StepStats) {
		tr, err := NewTrainer(NewNet(InitParams[float32](cfg, 51)), TrainConfig{
			Workers: 2, Seed: 52, Adam: DefaultAdam(), Schedule: Schedule{Peak: 1e-3, Decay: "constant"},
			ClipNorm: 100, SpecAug: SpecAugment{FreqMasks: 1, FreqWidth: 3, TimeMasks: 1, TimeWidth: 5},
			PerUtterance: perUtt,
		})
		if err != nil {
			t.Fatal(err)
		}
		st, err := tr.TrainStep(data)
		if err != nil {
			t.Fatal(err)
		}
		return tr, st
	}
	old, sOld := run(true)
	bat, sBat := run(false)
	if sBat.Utts != 6 || sBat.Skipped != 1 || sOld.Utts != 6 || sOld.Skipped != 1 {
		t.Fatalf("stats %+v and %+v, want 6 used, 1 skipped", sBat, sOld)
	}
	if sBat.Loss.Chars != sOld.Loss.Chars || math.Abs(sBat.Loss.Total-sOld.Loss.Total) > 1e-5*sOld.Loss.Total {
		t.Fatalf("batched loss %+v, per-utterance %+v", sBat.Loss, sOld.Loss)
	}
	compareGrads(t, bat.Grads.Data, old.Grads.Data, 1e-4)
}
