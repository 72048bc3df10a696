package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/heed-asr/heed/internal/kern"
)

// TestBatchEncoder checks BatchEncoder.Encode against Encode utterance by
// utterance (float32: the step products run on other kernels, so up to
// rounding), with an empty utterance among them and the workspace reused for
// a second batch; AddKeys must then give Encode's keys. EncodeCTC must give
// Encode's outputs bit for bit, also when its pooled scratch is reused for
// an utterance of another length. With bfloat16 products (encoderBF16, on
// a CPU that has them) the tolerances are those of 8-bit significands.
func TestBatchEncoder(t *testing.T) {
	defer func(v bool) { encoderBF16 = v }(encoderBF16)
	for _, bf16 := range []bool{false, true} {
		if bf16 && !kern.HaveBF16() {
			t.Log("no AVX512_BF16: bfloat16 encoder not tested")
			continue
		}
		encoderBF16 = bf16
		t.Run(map[bool]string{false: "float32", true: "bfloat16"}[bf16], func(t *testing.T) { testBatchEncoder(t, bf16) })
	}
}

func testBatchEncoder(t *testing.T, bf16 bool) {
	tolH, tolLP := 1e-5, 1e-4
	if bf16 {
		tolH, tolLP = 2e-2, 5e-2
	}
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
			near("H", g.H, want.H, tolH)
			near("CTCLogProbs", g.CTCLogProbs, want.CTCLogProbs, tolLP)
			if g.T > 0 {
				m.AddKeys(g)
				near("Vhb", g.Vhb, want.Vhb, tolLP)
			}
			c := m.EncodeCTC(feats[i], f)
			near("EncodeCTC H", c.H, want.H, 0)
			near("EncodeCTC CTCLogProbs", c.CTCLogProbs, want.CTCLogProbs, 0)
		}
	}
}
