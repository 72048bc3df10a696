package align

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/heed-asr/heed/features"
	"github.com/heed-asr/heed/model"
)

// tinyBundle is an untrained model small enough to run in milliseconds.
func tinyBundle() *model.Bundle {
	cfg := model.DefaultConfig()
	cfg.EncLayers, cfg.EncHidden = 1, 8
	cfg.EmbedDim, cfg.DecHidden, cfg.AttDim = 4, 8, 8
	cfg.ConvFilters, cfg.ConvWidth = 2, 5
	cmvn := features.CMVN{Mean: make([]float32, cfg.NumMel), Std: make([]float32, cfg.NumMel)}
	for i := range cmvn.Std {
		cmvn.Std[i] = 1
	}
	return &model.Bundle{
		Net:  model.NewNet(model.InitParams[float32](cfg, 1)),
		Meta: model.Meta{Features: features.DefaultConfig(), CMVN: cmvn},
	}
}

// TestAlignLimits checks that Align refuses what it cannot do in bounded
// time and memory instead of trying (issue 16): a transcript far longer
// than the audio, and a CTC weight outside [0, 1]; and that a transcript
// at the limit is aligned.
func TestAlignLimits(t *testing.T) {
	a := NewAligner(tinyBundle())
	samples := make([]float32, 16000*5/2) // 2.5 s
	for i := range samples {
		samples[i] = float32(0.1 * math.Sin(float64(i)*0.05))
	}
	limit := int(MaxCharsPerSecond*2.5) + MaxCharsSlack
	for _, tc := range []struct {
		name, text string
		ok         bool
	}{
		{"at the limit", strings.Repeat("ab ", limit/3), true},
		{"just over", strings.Repeat("ab ", limit/3+2), false},
		{"1 MB", strings.Repeat("hello world ", 1<<20/12), false},
	} {
		_, _, err := a.Align(samples, tc.text)
		if tc.ok && err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if !tc.ok && !errors.Is(err, ErrTextTooLong) {
			t.Errorf("%s: error %v, want ErrTextTooLong", tc.name, err)
		}
	}
	for _, w := range []float64{-1, 5, math.NaN(), math.Inf(1)} {
		a.CTCWeight = w
		if _, _, err := a.Align(samples, "hello"); err == nil {
			t.Errorf("CTCWeight %g: no error", w)
		}
	}
}

// TestContextCancel checks that a cancelled context stops TranscribeContext
// and AlignContext with context.Canceled, and that bad decode options are
// an error, not a panic.
func TestContextCancel(t *testing.T) {
	a := NewAligner(tinyBundle())
	samples := make([]float32, 16000*30) // long enough to be split
	for i := range samples {
		samples[i] = float32(0.1 * math.Sin(float64(i)*0.05))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := a.TranscribeContext(ctx, samples, model.DefaultDecodeOptions(), true); !errors.Is(err, context.Canceled) {
		t.Errorf("TranscribeContext: %v, want context.Canceled", err)
	}
	if _, _, err := a.AlignContext(ctx, samples, "hello world"); !errors.Is(err, context.Canceled) {
		t.Errorf("AlignContext: %v, want context.Canceled", err)
	}
	bad := model.DefaultDecodeOptions()
	bad.LengthBonus = -1
	if _, _, err := a.Transcribe(samples[:16000], bad, false); err == nil {
		t.Error("Transcribe with LengthBonus -1: no error")
	}
}
