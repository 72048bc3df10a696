package model

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/heed-asr/heed/features"
)

// TestTrainStepDeterministic runs the same training twice (dropout,
// SpecAugment, the warp of the mel axis, several workers), batched and per
// utterance, and requires bitwise identical parameters and optimizer state.
func TestTrainStepDeterministic(t *testing.T) {
	for _, perUtt := range []bool{false, true} {
		t.Run(map[bool]string{false: "batched", true: "per-utterance"}[perUtt], func(t *testing.T) {
			testTrainStepDeterministic(t, perUtt)
		})
	}
}

func testTrainStepDeterministic(t *testing.T, perUtt bool) {
	const steps = 3
	cfg := overfitConfig()
	cfg.Dropout = 0.2
	cfg.EncLayers = 2
	data := overfitSet(cfg, []string{"cab", "hello", "to ad", "dog", "a"}, 60)
	tc := TrainConfig{
		Workers:  3,
		Seed:     61,
		Adam:     AdamConfig{Beta1: 0.9, Beta2: 0.98, Eps: 1e-9, WeightDecay: 0.01},
		Schedule: Schedule{Peak: 1e-3, Warmup: 2, Decay: "inv_sqrt"},
		ClipNorm: 1,
		SpecAug:  SpecAugment{FreqMasks: 1, FreqWidth: 3, TimeMasks: 1, TimeWidth: 5},
		Warp:     0.1,

		PerUtterance: perUtt,
	}
	run := func() *Trainer {
		tr, err := NewTrainer(NewNet(InitParams[float32](cfg, 62)), tc)
		if err != nil {
			t.Fatal(err)
		}
		tr.CMVN, tr.Features = testCMVN(cfg.NumMel), testFeatures(cfg.NumMel)
		for range steps {
			st, err := tr.TrainStep(data)
			if err != nil {
				t.Fatal(err)
			}
			if st.Utts != len(data) || st.Skipped != 0 || !(st.GradNorm > 0) {
				t.Fatalf("stats %+v", st)
			}
		}
		return tr
	}
	a, b := run(), run()
	if a.Opt.Step != steps {
		t.Fatalf("Adam step %d, want %d", a.Opt.Step, steps)
	}
	for _, c := range []struct {
		name string
		x, y []float32
	}{{"params", a.Model.P.Data, b.Model.P.Data}, {"adam.m", a.Opt.M, b.Opt.M}, {"adam.v", a.Opt.V, b.Opt.V}} {
		for i := range c.x {
			if math.Float32bits(c.x[i]) != math.Float32bits(c.y[i]) {
				t.Fatalf("%s[%d]: %g vs %g", c.name, i, c.x[i], c.y[i])
			}
		}
	}
	if slices.Equal(a.Model.P.Data, InitParams[float32](cfg, 62).Data) {
		t.Fatal("parameters did not change")
	}
}

func testCMVN(n int) features.CMVN {
	c := features.CMVN{Mean: make([]float32, n), Std: make([]float32, n)}
	for i := range n {
		c.Mean[i], c.Std[i] = -8+0.3*float32(i), 2+0.1*float32(i)
	}
	return c
}

func testFeatures(n int) features.Config {
	fc := features.DefaultConfig()
	fc.NumMel = n
	return fc
}

// TestWarpSpeaker checks that the warp works in log-mel units: warping
// normalised frames equals normalising frames warped by features.WarpMel with
// the factor drawn from the same rng, that the warp moves energy between mel
// bins, and that a step with Warp but no CMVN fails instead of training on
// wrongly scaled features.
func TestWarpSpeaker(t *testing.T) {
	const n, frames = 8, 5
	cmvn, fc := testCMVN(n), testFeatures(n)
	raw := make([]float32, frames*n)
	for i := range raw {
		raw[i] = float32(math.Sin(float64(i)*0.7)) * 3
	}
	got := slices.Clone(raw)
	cmvn.Apply(got)
	warpSpeaker(got, frames, fc, cmvn, 0.2, rand.New(rand.NewPCG(5, 6)))
	alpha := 1 + 0.2*(2*rand.New(rand.NewPCG(5, 6)).Float64()-1)
	want := slices.Clone(raw)
	features.WarpMel(want, frames, fc, alpha)
	cmvn.Apply(want)
	moved := 0.0
	for i := range got {
		if d := math.Abs(float64(got[i] - want[i])); d > 1e-5 {
			t.Fatalf("element %d: %g, want %g (factor %g)", i, got[i], want[i], alpha)
		}
		moved += math.Abs(float64(want[i] - (raw[i]-cmvn.Mean[i%n])/cmvn.Std[i%n]))
	}
	if moved < 0.1 {
		t.Fatalf("factor %g moved the features by %g in all", alpha, moved)
	}

	cfg := overfitConfig()
	tr, err := NewTrainer(NewNet(InitParams[float32](cfg, 62)), TrainConfig{Workers: 1, Schedule: Schedule{Peak: 1e-3, Warmup: 2, Decay: "inv_sqrt"}, Warp: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.TrainStep(overfitSet(cfg, []string{"cab"}, 60)); err == nil || !strings.Contains(err.Error(), "CMVN") {
		t.Fatalf("Warp without CMVN: err %v", err)
	}
}

// TestTrainStepSkipsInfeasible checks that an utterance whose transcript
// cannot fit CTC is skipped and counted, not fatal.
func TestTrainStepSkipsInfeasible(t *testing.T) {
	cfg := overfitConfig()
	data := overfitSet(cfg, []string{"cab", "dog"}, 63)
	data[1].Frames = 2 // one encoder frame for three labels
	tr, err := NewTrainer(NewNet(InitParams[float32](cfg, 64)), TrainConfig{Workers: 2, Adam: DefaultAdam(),
		Schedule: Schedule{Peak: 1e-3, Decay: "constant"}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := tr.TrainStep(data)
	if err != nil {
		t.Fatal(err)
	}
	if st.Utts != 1 || st.Skipped != 1 || st.Loss.Chars != 4 {
		t.Fatalf("stats %+v, want 1 used, 1 skipped, 4 chars", st)
	}
	data[0].IDs = []int{EOS}
	if _, err := tr.TrainStep(data); err == nil {
		t.Fatal("invalid target accepted")
	}
}

// TestEval checks the validation loss against per-utterance forward passes
// for several worker counts.
func TestEval(t *testing.T) {
	const tol = 1e-9
	cfg := overfitConfig()
	cfg.Dropout = 0.3 // must not be applied
	data := overfitSet(cfg, []string{"cab", "hello", "to ad", "dog"}, 65)
	p := InitParams[float32](cfg, 66)
	var want Loss
	ws := NewWorkspace[float32]()
	for _, u := range data {
		l, err := ws.ForwardBackward(p, u.Feats, u.Frames, u.IDs, nil, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		want.Add(l)
	}
	for _, workers := range []int{1, 3} {
		tr, err := NewTrainer(NewNet(p), TrainConfig{Workers: workers, Adam: DefaultAdam(), Schedule: Schedule{Peak: 1, Decay: "constant"}})
		if err != nil {
			t.Fatal(err)
		}
		got, skipped, err := tr.Eval(data)
		if err != nil || skipped != 0 {
			t.Fatal(err, skipped)
		}
		if math.Abs(got.Total-want.Total) > tol*want.Total || got.Chars != want.Chars {
			t.Errorf("workers %d: loss %+v, want %+v", workers, got, want)
		}
	}
}

// A batch whose features overflow fails with ErrNotFinite and leaves the
// parameters and the optimizer as they were, so that training can leave
// the batch out; the next batch then trains as the first would have.
func TestTrainStepNotFinite(t *testing.T) {
	cfg := overfitConfig()
	data := overfitSet(cfg, []string{"cab", "dog"}, 65)
	bad := slices.Clone(data)
	bad[1].Feats = slices.Clone(bad[1].Feats)
	bad[1].Feats[3] = float32(math.Inf(1))
	for _, perUtt := range []bool{false, true} {
		tr, err := NewTrainer(NewNet(InitParams[float32](cfg, 66)), TrainConfig{Workers: 2, Adam: DefaultAdam(),
			Schedule: Schedule{Peak: 1e-3, Decay: "constant"}, PerUtterance: perUtt})
		if err != nil {
			t.Fatal(err)
		}
		before := slices.Clone(tr.Model.P.Data)
		if _, err := tr.TrainStep(bad); !errors.Is(err, ErrNotFinite) {
			t.Fatalf("perUtterance %v: error %v, want ErrNotFinite", perUtt, err)
		}
		if tr.Opt.Step != 0 || !slices.Equal(tr.Model.P.Data, before) {
			t.Fatalf("perUtterance %v: step %d, parameters changed", perUtt, tr.Opt.Step)
		}
		if st, err := tr.TrainStep(data); err != nil || tr.Opt.Step != 1 || !(st.GradNorm > 0) {
			t.Fatalf("perUtterance %v: the next batch: %+v, %v", perUtt, st, err)
		}
	}
}
