package model

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestStepMatchesTraining checks that the step decoder (Step, ForceAlign)
// reproduces the teacher-forced training decoder's log-probabilities and
// attention, with and without the window; ForceAlign attends as in training
// even when decoding uses the window.
func TestStepMatchesTraining(t *testing.T) {
	const tol = 1e-12
	const frames = 40
	ids := []int{5, 3, 3, 7, 1, 9}
	for _, tc := range []struct {
		name          string
		train, decode bool
	}{{"full", false, false}, {"window", true, true}, {"force-align-full", false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := smallConfig()
			cfg.TrainWindow, cfg.DecodeWindow = tc.train, tc.train
			p := randParams(cfg, 70)
			rng := rand.New(rand.NewPCG(71, 72))
			feats := randVec(rng, frames*cfg.NumMel, 1)
			ws := NewWorkspace[float64]()
			if _, err := ws.ForwardBackward(p, feats, frames, ids, nil, nil, false); err != nil {
				t.Fatal(err)
			}
			m := NewNet(p)
			enc := m.Encode(feats, frames)
			T, V := enc.T, cfg.V()
			for i, v := range enc.H {
				if v != ws.enc.Out()[i] {
					t.Fatalf("encoder output %d differs", i)
				}
			}
			for i, v := range enc.CTCLogProbs {
				if math.Abs(v-ws.clp[i]) > tol {
					t.Fatalf("CTC log-prob %d: %g vs %g", i, v, ws.clp[i])
				}
			}
			st := m.StartDecoder(enc)
			logp := make([]float64, V)
			for i, prev := range ws.ys {
				m.Step(enc, st, prev, logp)
				for k := range logp {
					if d := math.Abs(logp[k] - ws.out.LogP[i*V+k]); d > tol {
						t.Fatalf("step %d token %d: log-prob %g, training %g", i, k, logp[k], ws.out.LogP[i*V+k])
					}
				}
				for j, a := range st.Att {
					if math.Abs(a-ws.dec.A[(i+1)*T+j]) > tol {
						t.Fatalf("step %d frame %d: attention %g, training %g", i, j, a, ws.dec.A[(i+1)*T+j])
					}
				}
			}
			m.Cfg.DecodeWindow = tc.decode
			att := m.ForceAlign(enc, ids)
			if len(att) != len(ids)+1 {
				t.Fatalf("ForceAlign rows %d, want %d", len(att), len(ids)+1)
			}
			for i, row := range att {
				var s float64
				for j, a := range row {
					s += a
					if math.Abs(a-ws.dec.A[(i+1)*T+j]) > tol {
						t.Fatalf("ForceAlign row %d frame %d: %g, training %g", i, j, a, ws.dec.A[(i+1)*T+j])
					}
				}
				if math.Abs(s-1) > tol {
					t.Fatalf("ForceAlign row %d sums to %g", i, s)
				}
			}
		})
	}
}

// TestDecoderStateClone checks that a cloned state evolves independently and
// identically.
func TestDecoderStateClone(t *testing.T) {
	cfg := smallConfig()
	m := NewNet(randParams(cfg, 73))
	rng := rand.New(rand.NewPCG(74, 75))
	enc := m.Encode(randVec(rng, 30*cfg.NumMel, 1), 30)
	st := m.StartDecoder(enc)
	lp1, lp2 := make([]float64, cfg.V()), make([]float64, cfg.V())
	m.Step(enc, st, EOS, lp1)
	c := st.Clone()
	m.Step(enc, st, 4, lp1)
	m.Step(enc, c, 4, lp2)
	for k := range lp1 {
		if lp1[k] != lp2[k] {
			t.Fatalf("clone diverged at token %d", k)
		}
	}
	c.S[0] += 1
	if st.S[0] == c.S[0] || st.Steps != 2 {
		t.Fatal("clone shares memory or steps not counted")
	}
}

func TestGreedy(t *testing.T) {
	cfg := smallConfig()
	m := NewNet(randParams(cfg, 76))
	rng := rand.New(rand.NewPCG(77, 78))
	enc := m.Encode(randVec(rng, 30*cfg.NumMel, 1), 30)
	for _, maxLen := range []int{0, 1, 5} {
		ids, att := m.Greedy(enc, maxLen)
		if len(ids) > maxLen || len(att) < len(ids) || len(att) > len(ids)+1 {
			t.Errorf("maxLen %d: %d ids, %d attention rows", maxLen, len(ids), len(att))
		}
		for _, id := range ids {
			if id == EOS {
				t.Errorf("maxLen %d: <eos> in output", maxLen)
			}
		}
	}
	if ids, att := m.Greedy(m.Encode(nil, 0), 10); ids != nil || att != nil {
		t.Error("empty encoding decoded to something")
	}
}

// TestFloat32MatchesFloat64 compares the production float32 forward pass
// with float64 on the same (rounded) weights and input.
func TestFloat32MatchesFloat64(t *testing.T) {
	const tol = 1e-4 // absolute, on log-probabilities and losses per character
	cfg := DefaultConfig()
	cfg.EncLayers, cfg.EncHidden, cfg.DecHidden = 2, 32, 64
	p32 := InitParams[float32](cfg, 80)
	p64 := ConvertParams[float64](p32)
	u := benchUtterance(cfg, 150, 81)
	f64 := make([]float64, len(u.Feats))
	for i, v := range u.Feats {
		f64[i] = float64(v)
	}
	m32, m64 := NewNet(p32), NewNet(p64)
	e32, e64 := m32.Encode(u.Feats, u.Frames), m64.Encode(f64, u.Frames)
	var maxd float64
	for i := range e32.CTCLogProbs {
		maxd = math.Max(maxd, math.Abs(float64(e32.CTCLogProbs[i])-e64.CTCLogProbs[i]))
	}
	if maxd > tol {
		t.Errorf("CTC log-probs differ by %g", maxd)
	}
	att32, att64 := m32.ForceAlign(e32, u.IDs), m64.ForceAlign(e64, u.IDs)
	maxd = 0
	for i := range att32 {
		for j := range att32[i] {
			maxd = math.Max(maxd, math.Abs(float64(att32[i][j])-att64[i][j]))
		}
	}
	if maxd > tol {
		t.Errorf("attention differs by %g", maxd)
	}
	l32, err := NewWorkspace[float32]().ForwardBackward(p32, u.Feats, u.Frames, u.IDs, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	l64, err := NewWorkspace[float64]().ForwardBackward(p64, f64, u.Frames, u.IDs, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	n := float64(l32.Chars)
	if d := math.Abs(l32.Total-l64.Total) / n; d > tol {
		t.Errorf("loss per char %g (float32) vs %g (float64)", l32.Total/n, l64.Total/n)
	}
}
