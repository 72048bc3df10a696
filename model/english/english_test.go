package english

import (
	"testing"

	"github.com/heed-asr/heed/audio"
	"github.com/heed-asr/heed/model"
	"github.com/heed-asr/heed/model/modelfile"
	"github.com/heed-asr/heed/model/train"
)

// TestEmbeddedModelIsTrained checks that the shipped model loads, records
// real training and transcribes testdata/hello.wav ("hello world, this is a
// test of speech recognition", a sentence outside its training data) with a
// character error rate below 30%: a placeholder or untrained model fails.
func TestEmbeddedModelIsTrained(t *testing.T) {
	b, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if b.Meta.Training.Steps < 1000 || b.Meta.Training.Hours < 10 {
		t.Fatalf("embedded model records %d updates on %.1f h: not a trained model", b.Meta.Training.Steps, b.Meta.Training.Hours)
	}
	clip, err := audio.Load16k("../../testdata/hello.wav")
	if err != nil {
		t.Fatal(err)
	}
	const ref = "hello world this is a test of speech recognition"
	got := b.Recognize(clip.Samples, model.DefaultDecodeOptions()).Text
	cer := float64(train.EditDistance([]rune(ref), []rune(got))) / float64(len(ref))
	if cer > 0.3 {
		t.Errorf("transcript %q: CER %.0f%% against %q", got, 100*cer, ref)
	}
	t.Logf("transcript %q (CER %.1f%%)", got, 100*cer)
}

// TestEmbeddedChecksum checks the embedded model file completely, SHA-256
// included: Load trusts it at run time.
func TestEmbeddedChecksum(t *testing.T) {
	if _, err := modelfile.OpenBytes(Bytes()); err != nil {
		t.Fatal(err)
	}
	if _, err := model.LoadBytes(Bytes()); err != nil {
		t.Fatal(err)
	}
}
