package model

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestForwardBackwardGrad checks the whole model (encoder, CTC head,
// attention decoder, output layer, both losses) against finite differences
// for every parameter tensor and the input features.
func TestForwardBackwardGrad(t *testing.T) {
	const frames = 9
	ids := []int{5, 3, 3, 7}
	tests := []struct {
		name        string
		train       bool
		trainWindow bool
		ctcWeight   float64
	}{
		{"eval-full", false, false, 0.3},
		{"train-dropout-full", true, false, 0.3},
		{"train-dropout-window", true, true, 0.5},
		{"ctc-only", false, false, 1},
		{"att-only", false, true, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := smallConfig()
			cfg.Dropout = 0.2
			cfg.TrainWindow = tc.trainWindow
			cfg.CTCWeight = tc.ctcWeight
			p := randParams(cfg, 40)
			// Sharpen the attention so that its parameters' gradients stand
			// well above the finite-difference round-off (~1e-9 here).
			for _, v := range [][]float64{p.AttVec, p.AttW, p.AttV} {
				for i := range v {
					v[i] *= 4
				}
			}
			g := NewParams[float64](cfg)
			rng := rand.New(rand.NewPCG(41, 42))
			feats := randVec(rng, frames*cfg.NumMel, 1)
			ws := NewWorkspace[float64]()
			ws.Parallel = false
			f := func() float64 {
				l, err := ws.ForwardBackward(p, feats, frames, ids, nil, rand.New(rand.NewPCG(7, 7)), tc.train)
				if err != nil {
					t.Fatal(err)
				}
				return l.Total
			}
			ws.inputGrad = true
			loss, err := ws.ForwardBackward(p, feats, frames, ids, g, rand.New(rand.NewPCG(7, 7)), tc.train)
			if err != nil {
				t.Fatal(err)
			}
			if want := (1-tc.ctcWeight)*loss.Att + tc.ctcWeight*loss.CTC; math.Abs(loss.Total-want) > 1e-12 {
				t.Fatalf("total %g, want %g", loss.Total, want)
			}
			if loss.Chars != len(ids)+1 {
				t.Fatalf("chars %d, want %d", loss.Chars, len(ids)+1)
			}
			dfeats := append([]float64(nil), ws.dFeats...)
			ws.inputGrad = false
			checkGrad(t, "feats", feats, dfeats, f)
			gt := g.Tensors()
			for i, tn := range p.Tensors() {
				n := tn.Name
				if tc.ctcWeight == 0 && n[:4] == "ctc." || tc.ctcWeight == 1 && n[:4] != "ctc." && n[:4] != "enc." {
					// Unused by this loss: the gradient must be exactly zero.
					for _, v := range gt[i].Data {
						if v != 0 {
							t.Fatalf("%s: unused tensor has gradient %g", n, v)
						}
					}
					continue
				}
				checkGrad(t, n, tn.Data, gt[i].Data, f)
			}
		})
	}
}

func TestForwardBackwardErrors(t *testing.T) {
	cfg := smallConfig()
	p := randParams(cfg, 1)
	ws := NewWorkspace[float64]()
	feats := make([]float64, 6*cfg.NumMel)
	tests := []struct {
		name       string
		frames     int
		ids        []int
		infeasible bool
	}{
		{"no-frames", 0, []int{3}, false},
		{"short-feats", 7, []int{3}, false},
		{"eos-in-target", 6, []int{3, EOS}, false},
		{"id-range", 6, []int{VocabSize}, false},
		{"too-long", 6, []int{3, 4, 5, 6}, true}, // 3 encoder frames
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ws.ForwardBackward(p, feats, tc.frames, tc.ids, nil, nil, false)
			if err == nil {
				t.Fatal("no error")
			}
			if errors.Is(err, ErrInfeasible) != tc.infeasible {
				t.Fatalf("error %v: infeasible %v", err, !tc.infeasible)
			}
		})
	}
}

// overfitSet returns n synthetic utterances: each character is a fixed
// random pattern held for a few frames, with noise.
func overfitSet(cfg Config, texts []string, seed uint64) []Utterance {
	rng := rand.New(rand.NewPCG(seed, 3))
	pattern := make([][]float32, VocabSize)
	for k := range pattern {
		pattern[k] = make([]float32, cfg.NumMel)
		for j := range pattern[k] {
			pattern[k][j] = float32(rng.NormFloat64())
		}
	}
	var out []Utterance
	for _, text := range texts {
		ids, err := Encode(text)
		if err != nil {
			panic(err)
		}
		var feats []float32
		frames := 0
		emit := func(k, n int) {
			for range n {
				for j := 0; j < cfg.NumMel; j++ {
					feats = append(feats, pattern[k][j]+0.1*float32(rng.NormFloat64()))
				}
				frames++
			}
		}
		emit(0, 3)
		for _, id := range ids {
			emit(id, 6)
		}
		emit(0, 3)
		out = append(out, Utterance{Feats: feats, Frames: frames, IDs: ids})
	}
	return out
}

func overfitConfig() Config {
	cfg := DefaultConfig()
	cfg.NumMel, cfg.Stack, cfg.EncLayers, cfg.EncHidden = 8, 2, 1, 16
	cfg.EmbedDim, cfg.DecHidden, cfg.AttDim = 8, 32, 16
	cfg.ConvFilters, cfg.ConvWidth = 4, 5
	cfg.WindowLeft, cfg.WindowRight = 2, 6
	cfg.Dropout = 0
	return cfg
}

// TestOverfit trains a small model on three utterances until greedy decoding
// transcribes all of them exactly.
func TestOverfit(t *testing.T) {
	const maxSteps = 400
	cfg := overfitConfig()
	texts := []string{"cab", "hello", "to ad"}
	data := overfitSet(cfg, texts, 50)
	m := NewNet(InitParams[float32](cfg, 51))
	tr, err := NewTrainer(m, TrainConfig{
		Workers:  2,
		Seed:     52,
		Adam:     DefaultAdam(),
		Schedule: Schedule{Peak: 1e-2, Warmup: 10, Decay: "constant"},
		ClipNorm: 5,
	})
	if err != nil {
		t.Fatal(err)
	}
	decodeAll := func() []string {
		var got []string
		for _, u := range data {
			enc := m.Encode(u.Feats, u.Frames)
			ids, _ := m.Greedy(enc, 2*enc.T)
			got = append(got, Decode(ids))
		}
		return got
	}
	for step := 1; step <= maxSteps; step++ {
		st, err := tr.TrainStep(data)
		if err != nil {
			t.Fatal(err)
		}
		if step%10 == 0 && slices.Equal(decodeAll(), texts) {
			t.Logf("transcribed exactly after %d steps (loss/char %.3f)", step, st.Loss.Total/float64(st.Loss.Chars))
			return
		}
	}
	t.Fatalf("after %d steps greedy gives %q, want %q", maxSteps, decodeAll(), texts)
}

// TestBlend: each weight is f·a + (1−f)·b; f outside [0, 1] panics.
func TestBlend(t *testing.T) {
	cfg := smallConfig()
	a, b := NewNet(InitParams[float32](cfg, 1)), NewNet(InitParams[float32](cfg, 2))
	n := Blend(a, b, 0.25)
	for i, v := range n.P.Data {
		if want := float32(0.25*float64(a.P.Data[i]) + 0.75*float64(b.P.Data[i])); v != want {
			t.Fatalf("weight %d: %g, want %g", i, v, want)
		}
	}
	for _, f := range []float64{-0.1, 1.5, math.NaN()} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Blend(%g) did not panic", f)
				}
			}()
			Blend(a, b, f)
		}()
	}
}
