package model

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Non-speech training examples (music, noise) have an empty transcript:
// CTC must then be the all-blank path and the attention decoder must emit
// <eos> at its first step. These tests pin that down.

// TestCTCEmptyLabel checks that the CTC loss of an empty label sequence is
// -Σ_t log p_t(blank) and that its gradient puts -scale on the blank of
// every frame and nothing elsewhere.
func TestCTCEmptyLabel(t *testing.T) {
	const V, scale = 5, 0.7
	for _, T := range []int{1, 2, 7, 40} {
		rng := rand.New(rand.NewPCG(90, uint64(T)))
		logp := randVec(rng, T*V, 3)
		for i := 0; i < T; i++ {
			logSoftmax(logp[i*V:(i+1)*V], logp[i*V:(i+1)*V])
		}
		want := 0.0
		for i := 0; i < T; i++ {
			want -= logp[i*V]
		}
		for _, labels := range [][]int{nil, {}} {
			var sc ctcScratch
			d := make([]float64, T*V)
			got := ctcLoss(&sc, d, logp, T, V, labels, scale)
			if math.IsInf(got, 0) || math.IsNaN(got) || math.Abs(got-want) > 1e-12*math.Max(1, want) {
				t.Fatalf("T=%d: loss %.15g, want -Σ log blank = %.15g", T, got, want)
			}
			for i, v := range d {
				w := 0.0
				if i%V == 0 {
					w = -scale
				}
				if math.Abs(v-w) > 1e-12 {
					t.Fatalf("T=%d: gradient[%d, %d] = %g, want %g", T, i/V, i%V, v, w)
				}
			}
		}
	}
	var sc ctcScratch
	if l := ctcLoss(&sc, nil, []float64{}, 0, V, nil, 1); !math.IsInf(l, 1) {
		t.Errorf("zero frames: loss %g, want +Inf", l)
	}
}

// checkGradOrZero is checkGrad that also accepts a tensor whose analytic
// gradient is identically zero, provided the loss does not move when its
// entries are perturbed (an empty transcript leaves some decoder paths
// unused).
func checkGradOrZero(t *testing.T, name string, x, analytic []float64, f func() float64) {
	t.Helper()
	if slices.ContainsFunc(analytic, func(v float64) bool { return v != 0 }) {
		checkGrad(t, name, x, analytic, f)
		return
	}
	base := f()
	for i := range x {
		old := x[i]
		x[i] = old + 1e-3
		d := f() - base
		x[i] = old
		if math.Abs(d) > 1e-12 {
			t.Errorf("%s: analytic gradient zero but entry %d moves the loss by %g", name, i, d)
			return
		}
	}
}

// TestForwardBackwardNonSpeech runs one utterance with an empty transcript
// through the whole model: the loss must be finite, count one attention step
// (<eos>), split into CTC = -Σ log blank and the label-smoothed
// cross-entropy of <eos> at the first step, and its gradient must match
// finite differences for every parameter tensor.
func TestForwardBackwardNonSpeech(t *testing.T) {
	for _, train := range []bool{false, true} {
		t.Run(map[bool]string{false: "eval", true: "train-dropout"}[train], func(t *testing.T) {
			cfg := smallConfig()
			cfg.Dropout = 0.2
			p := randParams(cfg, 91)
			// Larger attention weights, as in TestBatchGrad, lift their
			// gradients (one decoder step) well above round-off.
			for _, v := range [][]float64{p.AttVec, p.AttW, p.AttV} {
				for i := range v {
					v[i] *= 4
				}
			}
			rng := rand.New(rand.NewPCG(92, 0))
			const frames = 9
			feats := randVec(rng, frames*cfg.NumMel, 1)
			ws := NewWorkspace[float64]()
			ws.Parallel = false
			newRNG := func() *rand.Rand { return rand.New(rand.NewPCG(93, 1)) }
			f := func() float64 {
				l, err := ws.ForwardBackward(p, feats, frames, nil, nil, newRNG(), train)
				if err != nil {
					t.Fatal(err)
				}
				return l.Total
			}
			l, err := ws.ForwardBackward(p, feats, frames, []int{}, nil, newRNG(), train)
			if err != nil {
				t.Fatal(err)
			}
			if l.Chars != 1 || math.IsNaN(l.Total) || math.IsInf(l.Total, 0) || !(l.CTC > 0) || !(l.Att > 0) {
				t.Fatalf("loss %+v: want finite, positive, one step", l)
			}
			V, T := cfg.V(), cfg.EncFrames(frames)
			wantCTC := 0.0
			for i := 0; i < T; i++ {
				wantCTC -= ws.clp[i*V+EOS]
			}
			row := ws.out.LogP[:V]
			eps := cfg.LabelSmoothing
			wantAtt := -(1 - eps) * row[EOS]
			for _, v := range row {
				wantAtt -= eps / float64(V) * v
			}
			lam := cfg.CTCWeight
			if math.Abs(l.CTC-wantCTC) > 1e-12*wantCTC || math.Abs(l.Att-wantAtt) > 1e-12*wantAtt ||
				math.Abs(l.Total-((1-lam)*wantAtt+lam*wantCTC)) > 1e-12*l.Total {
				t.Fatalf("loss %+v, want CTC %g (all blank), attention %g (<eos> first)", l, wantCTC, wantAtt)
			}
			g := NewParams[float64](cfg)
			if _, err := ws.ForwardBackward(p, feats, frames, nil, g, newRNG(), train); err != nil {
				t.Fatal(err)
			}
			gt := g.Tensors()
			for i, tn := range p.Tensors() {
				checkGradOrZero(t, tn.Name, tn.Data, gt[i].Data, f)
			}
		})
	}
}

// TestBatchNonSpeech mixes empty transcripts into a batch: the batched
// gradient must match finite differences and equal the per-utterance sum,
// and a batch of nothing but non-speech must work too.
func TestBatchNonSpeech(t *testing.T) {
	cfg := smallConfig()
	cfg.EncLayers = 2
	cfg.Dropout = 0.2
	p := randParams(cfg, 94)
	items := batchCase[float64](cfg, 95)
	items[1].ids = nil
	items[3].ids = []int{}
	var w batchWorkspace[float64]
	f := func() float64 {
		l, err := w.forwardBackward(p, withRNGs(items), nil, true)
		if err != nil {
			t.Fatal(err)
		}
		return l.Total
	}
	g := NewParams[float64](cfg)
	got, err := w.forwardBackward(p, withRNGs(items), g, true)
	if err != nil {
		t.Fatal(err)
	}
	gt := g.Tensors()
	for i, tn := range p.Tensors() {
		checkGrad(t, tn.Name, tn.Data, gt[i].Data, f)
	}
	want, wg := perUttGrad(t, p, withRNGs(items), true)
	if got.Chars != want.Chars || math.Abs(got.Total-want.Total) > 1e-12*want.Total {
		t.Fatalf("batched loss %+v, per-utterance %+v", got, want)
	}
	compareGrads(t, g.Data, wg.Data, 1e-12)

	for i := range items {
		items[i].ids = nil
	}
	g = NewParams[float64](cfg)
	got, err = w.forwardBackward(p, withRNGs(items), g, true)
	if err != nil {
		t.Fatal(err)
	}
	want, wg = perUttGrad(t, p, withRNGs(items), true)
	if got.Chars != len(items) || math.IsInf(got.Total, 0) || math.IsNaN(got.Total) ||
		math.Abs(got.Total-want.Total) > 1e-12*want.Total {
		t.Fatalf("all non-speech: batched loss %+v, per-utterance %+v", got, want)
	}
	compareGrads(t, g.Data, wg.Data, 1e-12)
}

// TestTrainStepNonSpeech trains on speech and non-speech together and on a
// batch of only non-speech: the steps must be finite, use every utterance,
// and lower the loss of the non-speech examples.
func TestTrainStepNonSpeech(t *testing.T) {
	cfg := overfitConfig()
	data := overfitSet(cfg, []string{"cab", "", "dog", ""}, 96)
	if len(data[1].IDs) != 0 || data[1].Frames == 0 {
		t.Fatalf("non-speech example %+v", data[1])
	}
	for _, perUtt := range []bool{false, true} {
		tr, err := NewTrainer(NewNet(InitParams[float32](cfg, 97)), TrainConfig{Workers: 2, Seed: 98, Adam: DefaultAdam(),
			Schedule: Schedule{Peak: 3e-3, Decay: "constant"}, ClipNorm: 5, PerUtterance: perUtt})
		if err != nil {
			t.Fatal(err)
		}
		silent := []Utterance{data[1], data[3]}
		before, _, err := tr.Eval(silent)
		if err != nil {
			t.Fatal(err)
		}
		for step := range 30 {
			batch := data
			if step%2 == 1 {
				batch = silent
			}
			st, err := tr.TrainStep(batch)
			if err != nil {
				t.Fatal(err)
			}
			if st.Utts != len(batch) || st.Skipped != 0 || math.IsNaN(st.GradNorm) || math.IsInf(st.Loss.Total, 0) {
				t.Fatalf("per-utterance %v, step %d: stats %+v", perUtt, step, st)
			}
		}
		after, _, err := tr.Eval(silent)
		if err != nil {
			t.Fatal(err)
		}
		if after.Chars != 2 || !(after.Total < 0.5*before.Total) {
			t.Errorf("per-utterance %v: non-speech loss %+v before, %+v after 30 steps", perUtt, before, after)
		}
	}
}
