package speech

import (
	"testing"

	"github.com/heed-asr/heed/align"
	"github.com/heed-asr/heed/audio"
	"github.com/heed-asr/heed/model"
)

// TestTight checks the path for a word cut tight around its sound: an FSDD
// digit of 0.33 s that neither voiced nor the endpointer calls speech is
// transcribed (before tight, it gave ""), while a noise burst and near
// silence of the same length still give nothing.
func TestTight(t *testing.T) {
	b, _ := setup(t)
	c, err := audio.Load16k("../testdata/tight-four.wav")
	if err != nil {
		t.Fatal(err)
	}
	x := c.Samples
	if len(x) > tightMax*Rate || voiced(x) || hasSpeech(b, x) {
		t.Fatalf("tight-four.wav (%d samples): voiced %v, endpointer %v; the test needs a clip of at most %g s that neither calls speech", len(x), voiced(x), hasSpeech(b, x), float64(tightMax))
	}
	a := align.NewAligner(b)
	dec := model.DefaultDecodeOptions()
	if text, _, err := Transcribe(a, x, dec, false, 1); err != nil || text != "four" {
		t.Errorf("tight-four.wav: transcript %q, error %v; want \"four\"", text, err)
	}
	quiet := make([]float32, len(x))
	for i := range quiet {
		quiet[i] = 1e-5 * float32(i%3-1)
	}
	for name, y := range map[string][]float32{
		"white noise":  noise(float64(len(x))/Rate, 0.1, false, 3),
		"pink noise":   noise(float64(len(x))/Rate, 0.1, true, 4),
		"near silence": quiet,
	} {
		if text, _, err := Transcribe(a, y, dec, false, 1); err != nil || text != "" {
			t.Errorf("%s: transcript %q, error %v; want nothing", name, text, err)
		}
	}
}
