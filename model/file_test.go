package model

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/heed-asr/heed/features"
	"github.com/heed-asr/heed/internal/kern"
	"github.com/heed-asr/heed/model/modelfile"
)

// testBundle returns an untrained small model with identity CMVN.
func testBundle(t testing.TB) *Bundle {
	t.Helper()
	cfg := smallConfig()
	cfg.NumMel = 80
	p := InitParams[float32](cfg, 3)
	cmvn := features.CMVN{Mean: make([]float32, 80), Std: make([]float32, 80)}
	for i := range cmvn.Std {
		cmvn.Std[i] = 1
	}
	return &Bundle{Net: NewNet(p), Meta: Meta{Config: cfg, Features: features.DefaultConfig(), CMVN: cmvn}}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	lm, err := TrainLM([]string{"the cat sat on the mat", "a cat is not a hat", "hello world"}, 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	samples := make([]float32, 16000)
	for i := range samples {
		samples[i] = float32((i*7919)%200-100) / 400
	}
	for _, tc := range []struct {
		name  string
		dtype modelfile.DType
		lm    bool
	}{
		{"f32", modelfile.F32, false},
		{"f32+lm", modelfile.F32, true},
		{"f16+lm", modelfile.F16, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := testBundle(t)
			if tc.lm {
				b.LM, b.Meta.LMWeight = lm, 0.25
			}
			path := filepath.Join(t.TempDir(), "m.heed")
			if err := b.Save(path, tc.dtype); err != nil {
				t.Fatal(err)
			}
			got, err := LoadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got.LM != nil {
				t.Fatal("LoadFile read the language model; it is read on first use")
			}
			glm, err := got.LanguageModel()
			if err != nil {
				t.Fatal(err)
			}
			if (glm != nil) != tc.lm || got.Meta.LMWeight != b.Meta.LMWeight {
				t.Fatalf("LM loaded = %v, weight %g; want %v, %g", glm != nil, got.Meta.LMWeight, tc.lm, b.Meta.LMWeight)
			}
			if tc.lm {
				ctx := glm.Encode("the ca")
				for tok := 0; tok < glm.V(); tok++ {
					// f16 rounds α and γ (relative error ≤ 2⁻¹¹).
					if a, w := glm.LogProb(ctx, tok), lm.LogProb(ctx, tok); a != w && (tc.dtype == modelfile.F32 || math.Abs(a-w) > 1e-3) {
						t.Fatalf("LM log p(%d | the ca) = %v after loading, want %v", tok, a, w)
					}
				}
			}
			got.Net.Materialize() // matrices read as binary16 are converted on demand
			for i, v := range got.Net.P.Data {
				w := b.Net.P.Data[i]
				if tc.dtype == modelfile.F32 && v != w {
					t.Fatalf("param %d = %v after loading, want %v", i, v, w)
				}
				if tc.dtype == modelfile.F16 && v != modelfile.F16ToF32(modelfile.F32ToF16(w)) {
					t.Fatalf("param %d = %v after loading, want half-precision %v", i, v, w)
				}
			}
			if tc.dtype == modelfile.F32 {
				opt := DecodeOptions{Beam: 2, CTCWeight: 0.3, LMWeight: -1}
				if a, w := got.Recognize(samples, opt).Text, b.Recognize(samples, opt).Text; a != w {
					t.Errorf("loaded model transcribes %q, saved one %q", a, w)
				}
			}
		})
	}
}

func TestLoadRejects(t *testing.T) {
	b := testBundle(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.heed")
	if err := b.Save(good, modelfile.F32); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), data...)
	flipped[len(flipped)/2] ^= 0x40
	badMagic := append([]byte("NOTHEED!"), data[8:]...)
	for _, tc := range []struct {
		name string
		data []byte
		want error
	}{
		{"truncated", data[:len(data)-100], modelfile.ErrTruncated},
		{"checksum", flipped, modelfile.ErrChecksum},
		{"magic", badMagic, modelfile.ErrMagic},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := LoadBytes(tc.data); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
	t.Run("not a recognizer", func(t *testing.T) {
		path := filepath.Join(dir, "other.heed")
		if err := modelfile.WriteFile(path, map[string]string{"format": "something-else"}, nil, modelfile.F32); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadFile(path); err == nil {
			t.Fatal("loaded a file that is not a heed model")
		}
	})
}

// TestResaveLazy: a float16 model loaded without converting its matrices
// (LoadFile) saves back to the same bytes: Save converts them first.
func TestResaveLazy(t *testing.T) {
	dir := t.TempDir()
	tb := testBundle(t)
	cfg := tb.Meta.Config
	cfg.EncHidden, cfg.EmbedDim, cfg.DecHidden, cfg.AttDim = 8, 8, 8, 4
	tb.Meta.Config, tb.Net = cfg, NewNet(InitParams[float32](cfg, 7))
	a, b := filepath.Join(dir, "a.heed"), filepath.Join(dir, "b.heed")
	if err := tb.Save(a, modelfile.F16); err != nil {
		t.Fatal(err)
	}
	m, err := LoadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	if kern.HalfDirect(8) && len(m.Net.unwidened) == 0 {
		t.Fatal("no matrix left unconverted at load")
	}
	if err := m.Save(b, modelfile.F16); err != nil {
		t.Fatal(err)
	}
	x, _ := os.ReadFile(a)
	y, _ := os.ReadFile(b)
	if !bytes.Equal(x, y) {
		t.Fatalf("resaved file differs (%d and %d bytes)", len(x), len(y))
	}
}
