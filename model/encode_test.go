package model

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestBatchEncoder checks BatchEncoder.Encode against Encode utterance by
// utterance (float32: the step products run on other kernels, so up to
// rounding), with an empty utterance among them and the workspace reused for
// a second batch; AddKeys must then give Encode's keys. EncodeCTC must give
// Encode's outputs bit for bit, also when its pooled scratch is reused for
// an utterance of another length.
func TestBatchEncoder(t *testing.T) {
	cfg := DefaultConfig()
	m := NewNet(InitParams[float32](cfg, 3))
	r := rand.New(rand.NewPCG(5, 6))
	utt := func(frames int) []float32 {
		f := make([]float32, frames*cfg.NumMel)
		for i := range f {
			f[i] = float32(r.NormFloat64())
		}
		return f
	}
	near := func(name string, got, want []float32, tol float64) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d values, want %d", name, len(got), len(want))
		}
		for i := range want {
			if math.Abs(float64(got[i]-want[i])) > tol {
				t.Fatalf("%s[%d] = %v, want %v", name, i, got[i], want[i])
			}
		}
	}
	be := m.NewBatchEncoder()
	for _, frames := range [][]int{{50, 0, 173, 9, 120, 121, 2}, {31, 200}} {
		feats := make([][]float32, len(frames))
		for i, f := range frames {
			feats[i] = utt(f)
		}
		got := be.Encode(feats, frames)
		for i, f := range frames {
			want := m.Encode(feats[i], f)
			g := got[i]
			if g.T != want.T || g.Vhb != nil {
				t.Fatalf("utterance %d: T %d (want %d), keys %v", i, g.T, want.T, g.Vhb != nil)
			}
			near("H", g.H, want.H, 1e-5)
			near("CTCLogProbs", g.CTCLogProbs, want.CTCLogProbs, 1e-4)
			if g.T > 0 {
				m.AddKeys(g)
				near("Vhb", g.Vhb, want.Vhb, 1e-4)
			}
			c := m.EncodeCTC(feats[i], f)
			near("EncodeCTC H", c.H, want.H, 0)
			near("EncodeCTC CTCLogProbs", c.CTCLogProbs, want.CTCLogProbs, 0)
		}
	}
}
