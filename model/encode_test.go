package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/heed-asr/heed/internal/kern"
	"github.com/heed-asr/heed/model/modelfile"
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

// TestEncodeBF16 checks EncodeBF16 on a frozen network with binary16
// weights (as a float16 model file loads): within bfloat16's rounding of
// Encode, bit for bit what a BatchEncoder gives the utterance alone (plus
// AddKeys), with one packing of the weights shared by every call; without
// AVX512_BF16 it must be Encode itself.
func TestEncodeBF16(t *testing.T) {
	cfg := DefaultConfig()
	p := InitParams[float32](cfg, 3)
	for i, v := range p.Data {
		p.Data[i] = modelfile.F16ToF32(modelfile.F32ToF16(v))
	}
	m := NewNet(p)
	m.Freeze()
	tol := 0.0
	if m.bf16Packs() != nil {
		tol = 5e-2
	} else {
		t.Log("no bfloat16 encoder on this CPU: EncodeBF16 must equal Encode")
	}
	for _, frames := range []int{1, 4, 97, 300} {
		u := benchUtterance(cfg, frames, uint64(frames))
		want := m.Encode(u.Feats, u.Frames)
		got := m.EncodeBF16(u.Feats, u.Frames)
		if got.T != want.T || len(got.Vhb) != len(want.Vhb) {
			t.Fatalf("%d frames: T %d, %d keys; want %d, %d", frames, got.T, len(got.Vhb), want.T, len(want.Vhb))
		}
		for i := range want.CTCLogProbs {
			if d := math.Abs(float64(got.CTCLogProbs[i] - want.CTCLogProbs[i])); d > tol {
				t.Fatalf("%d frames: CTC log-probability %d is %v, Encode's %v", frames, i, got.CTCLogProbs[i], want.CTCLogProbs[i])
			}
		}
		if tol == 0 {
			continue
		}
		be := m.NewBatchEncoder().Encode([][]float32{u.Feats}, []int{u.Frames})[0]
		m.AddKeys(be)
		for _, c := range []struct {
			name string
			x, y []float32
		}{{"H", got.H, be.H}, {"CTC", got.CTCLogProbs, be.CTCLogProbs}, {"keys", got.Vhb, be.Vhb}} {
			if i := sameBits(c.x, c.y); i >= 0 {
				t.Fatalf("%d frames: EncodeBF16 %s differs from BatchEncoder's at %d", frames, c.name, i)
			}
		}
	}
	if a, b := m.bf16Packs(), m.bf16Packs(); a != nil && a[0][0].ih16 != b[0][0].ih16 {
		t.Error("the bfloat16 packs are made again")
	}
}
