package model

import (
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/heed-asr/heed/internal/kern"

	"github.com/heed-asr/heed/model/modelfile"
)

// sameBits reports the first index where a and b differ bit for bit, or -1.
func sameBits(a, b []float32) int {
	if len(a) != len(b) {
		return 0
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return i
		}
	}
	return -1
}

// TestFrozenSame: a frozen network, which reads binary16 copies of its
// weights and shares its batch steppers' packed weights, encodes, steps, decodes and aligns exactly as the same
// network unfrozen, whether its weights are binary16 values (as read from a
// float16 model file) or not.
func TestFrozenSame(t *testing.T) {
	cfg := DefaultConfig()
	for _, f16 := range []bool{true, false} {
		p := InitParams[float32](cfg, 3)
		if f16 {
			for i, v := range p.Data {
				p.Data[i] = modelfile.F16ToF32(modelfile.F32ToF16(v))
			}
		}
		plain, frozen := NewNet(p), NewNet(p)
		frozen.Freeze()
		if got := frozen.encWeights().dir[0][0].whh != nil && frozen.decWeights().wih != nil; got != f16 {
			t.Fatalf("binary16 weights %v: binary16 copies made %v", f16, got)
		}
		for _, frames := range []int{4, 25, 300} {
			u := benchUtterance(cfg, frames, uint64(frames))
			a, b := plain.Encode(u.Feats, u.Frames), frozen.Encode(u.Feats, u.Frames)
			for _, c := range []struct {
				name string
				x, y []float32
			}{{"H", a.H, b.H}, {"CTC", a.CTCLogProbs, b.CTCLogProbs}, {"keys", a.Vhb, b.Vhb}} {
				if i := sameBits(c.x, c.y); i >= 0 {
					t.Fatalf("f16 %v, %d frames: encoder %s differs at %d", f16, frames, c.name, i)
				}
			}
			sa, sb := plain.StartDecoder(a), frozen.StartDecoder(b)
			la, lb := make([]float32, cfg.V()), make([]float32, cfg.V())
			for i, tok := range append([]int{EOS}, u.IDs...) {
				plain.Step(a, sa, tok, la)
				frozen.Step(b, sb, tok, lb)
				if j := sameBits(la, lb); j >= 0 || sameBits(sa.Att, sb.Att) >= 0 || sameBits(sa.S, sb.S) >= 0 {
					t.Fatalf("f16 %v, %d frames: step %d differs (log-probability %d)", f16, frames, i, j)
				}
			}
			fa, fb := plain.ForceAlign(a, u.IDs), frozen.ForceAlign(b, u.IDs)
			for i := range fa {
				if sameBits(fa[i], fb[i]) >= 0 {
					t.Fatalf("f16 %v, %d frames: ForceAlign row %d differs", f16, frames, i)
				}
			}
			ba, bb := plain.NewBatchStepper(a), frozen.NewBatchStepper(b)
			sts := func() []*DecState {
				return []*DecState{plain.StartDecoder(a), plain.StartDecoder(a), plain.StartDecoder(a)}
			}
			xa, xb := sts(), sts()
			prev := []int{EOS, 3, 7}
			pa, pb := make([]float32, 3*cfg.V()), make([]float32, 3*cfg.V())
			for range 3 {
				ba.Step(xa, prev, pa)
				bb.Step(xb, prev, pb)
				if sameBits(pa, pb) >= 0 {
					t.Fatalf("f16 %v, %d frames: batched step differs", f16, frames)
				}
			}
		}
		// The batched encoder of long alignments (bfloat16 products where
		// the CPU has them: the frozen network packs them from its binary16
		// copies, the plain one from its float32 matrices).
		u1, u2 := benchUtterance(cfg, 40, 1), benchUtterance(cfg, 25, 2)
		feats, fr := [][]float32{u1.Feats, u2.Feats}, []int{u1.Frames, u2.Frames}
		ga, gb := plain.NewBatchEncoder().Encode(feats, fr), frozen.NewBatchEncoder().Encode(feats, fr)
		for i := range ga {
			if sameBits(ga[i].H, gb[i].H) >= 0 || sameBits(ga[i].CTCLogProbs, gb[i].CTCLogProbs) >= 0 {
				t.Fatalf("f16 %v: batched encoder differs on utterance %d", f16, i)
			}
		}
	}
}

// TestFrozenStepperShares: the batch steppers of a frozen network share
// one set of packed weights; those of a network in training get their own.
func TestFrozenStepperShares(t *testing.T) {
	cfg := DefaultConfig()
	p := InitParams[float32](cfg, 4)
	u := benchUtterance(cfg, 30, 1)
	plain, frozen := NewNet(p), NewNet(p)
	frozen.Freeze()
	ea, eb := plain.Encode(u.Feats, u.Frames), frozen.Encode(u.Feats, u.Frames)
	if plain.NewBatchStepper(ea).w == plain.NewBatchStepper(ea).w {
		t.Error("an unfrozen network's steppers share packed weights")
	}
	if frozen.NewBatchStepper(eb).w != frozen.NewBatchStepper(eb).w {
		t.Error("a frozen network's steppers packed their weights twice")
	}
}

// TestLoadedHalves: a network read from a float16 model file reads its
// one-row products' weights as the file's own binary16 bits, and encodes
// and steps exactly as the same weights in a network that is not frozen;
// one read from a float32 file has no binary16 copies. A float16 file's
// matrices are not converted at load: encoding, stepping, forced
// alignment and greedy decoding read them as binary16 only (the float32
// copies are NaN here until Materialize, so any read of them would show),
// and the batched decoder and encoder widen the matrices they pack from
// their binary16 copies.
func TestLoadedHalves(t *testing.T) {
	poisonUnwidened = true
	defer func() { poisonUnwidened = false }()
	for _, dtype := range []modelfile.DType{modelfile.F16, modelfile.F32} {
		path := filepath.Join(t.TempDir(), "m.heed")
		tb := testBundle(t)
		// Every matrix of this shape has a multiple of 8 columns, so
		// with F16C every product reads binary16.
		cfg := tb.Meta.Config
		cfg.EncHidden, cfg.EmbedDim, cfg.DecHidden, cfg.AttDim = 8, 8, 8, 4
		tb.Meta.Config, tb.Net = cfg, NewNet(InitParams[float32](cfg, 5))
		if err := tb.Save(path, dtype); err != nil {
			t.Fatal(err)
		}
		b, err := LoadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := halfMatrices(b.Net.P); dtype == modelfile.F16 && kern.HalfDirect(8) && len(b.Net.unwidened) != len(n) {
			t.Fatalf("%d of %d matrices left unconverted", len(b.Net.unwidened), len(n))
		}
		ref, err := LoadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ref.Net.Materialize()
		net := b.Net
		if got := net.encWeights().dir[1][1].whh != nil && net.decWeights().outW != nil; got != (dtype == modelfile.F16) {
			t.Fatalf("%v file: binary16 copies %v", dtype, got)
		}
		lazy := dtype == modelfile.F16 && kern.HalfDirect(8)
		if got := len(net.unwidened) > 0; got != lazy {
			t.Fatalf("%v file: matrices left unconverted %v, want %v", dtype, got, lazy)
		}
		plain := NewNet(ref.Net.P)
		u := benchUtterance(net.Cfg, 50, 9)
		a, e := plain.Encode(u.Feats, u.Frames), net.Encode(u.Feats, u.Frames)
		if sameBits(a.H, e.H) >= 0 || sameBits(a.CTCLogProbs, e.CTCLogProbs) >= 0 || sameBits(a.Vhb, e.Vhb) >= 0 {
			t.Fatalf("%v file: the encodings differ", dtype)
		}
		la, le := make([]float32, net.Cfg.V()), make([]float32, net.Cfg.V())
		sa, se := plain.StartDecoder(a), net.StartDecoder(e)
		for _, tok := range append([]int{EOS}, u.IDs...) {
			plain.Step(a, sa, tok, la)
			net.Step(e, se, tok, le)
			if sameBits(la, le) >= 0 {
				t.Fatalf("%v file: a step differs", dtype)
			}
		}
		fa, fe := plain.ForceAlign(a, u.IDs), net.ForceAlign(e, u.IDs)
		for i := range fa {
			if sameBits(fa[i], fe[i]) >= 0 {
				t.Fatalf("%v file: ForceAlign row %d differs", dtype, i)
			}
		}
		ga, _ := plain.Greedy(a, 40)
		ge, _ := net.Greedy(e, 40)
		if !slices.Equal(ga, ge) {
			t.Fatalf("%v file: greedy %v, want %v", dtype, ge, ga)
		}
		if net.widened.Load() {
			t.Fatalf("%v file: encoding and decoding converted the binary16 matrices", dtype)
		}
		pa, pe := make([]float32, 2*net.Cfg.V()), make([]float32, 2*net.Cfg.V())
		plain.NewBatchStepper(a).Step([]*DecState{plain.StartDecoder(a), plain.StartDecoder(a)}, []int{EOS, 3}, pa)
		net.NewBatchStepper(e).Step([]*DecState{net.StartDecoder(e), net.StartDecoder(e)}, []int{EOS, 3}, pe)
		if sameBits(pa, pe) >= 0 {
			t.Fatalf("%v file: the batched step differs", dtype)
		}
		be, bp := plain.NewBatchEncoder().Encode([][]float32{u.Feats}, []int{u.Frames}), net.NewBatchEncoder().Encode([][]float32{u.Feats}, []int{u.Frames})
		if sameBits(be[0].H, bp[0].H) >= 0 || sameBits(be[0].CTCLogProbs, bp[0].CTCLogProbs) >= 0 {
			t.Fatalf("%v file: the batched encodings differ", dtype)
		}
		if net.widened.Load() {
			t.Fatalf("%v file: the batched decoder and encoder converted every matrix", dtype)
		}
	}
}
