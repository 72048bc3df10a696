package speech

import (
	"testing"

	"github.com/heed-asr/heed/align"
	"github.com/heed-asr/heed/model"
)

// TestShortGate checks both tests that let a short recording be decoded
// whole: the clean sentence is voiced; in steady white noise its level
// barely moves (not voiced), and it is still decoded because the endpointer,
// which Transcribe then asks, hears speech in it.
func TestShortGate(t *testing.T) {
	b, x := setup(t)
	if !voiced(x) {
		t.Fatal("the clean sentence is not voiced")
	}
	n := noise(float64(len(x))/Rate, 0.05, false, 9)
	y := make([]float32, len(x))
	for i := range y {
		y[i] = x[i] + n[i]
	}
	if voiced(y) {
		t.Fatal("the sentence in noise is voiced: the test needs one that is not")
	}
	if !hasSpeech(b, y) {
		t.Fatal("the endpointer hears no speech in the sentence in noise")
	}
	dec := model.DefaultDecodeOptions()
	dec.Beam = 4
	text, _, err := Transcribe(align.NewAligner(b), y, dec, false, 1)
	if err != nil || text == "" {
		t.Errorf("transcript %q, error %v; want the sentence", text, err)
	}
}
