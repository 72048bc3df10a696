package train

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/heed-asr/heed/audio"
	"github.com/heed-asr/heed/model"
)

// TestLoadManifestNonSpeech keeps a non-speech line (empty text) for
// training, with no token to predict.
func TestLoadManifestNonSpeech(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"s.wav", "m.wav"} {
		x := make([]float32, 8000)
		for i := range x {
			x[i] = float32(0.1 * math.Sin(float64(i)/7))
		}
		var b bytes.Buffer
		if err := audio.WriteWAV(&b, x, 16000); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	man := filepath.Join(dir, "m.jsonl")
	lines := `{"audio":"s.wav","text":"hi there"}` + "\n" + `{"audio":"m.wav","text":"","nonspeech":true,"source":"nonspeech"}` + "\n"
	if err := os.WriteFile(man, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	utts, skipped, err := LoadManifest(man, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(utts) != 2 || skipped != 0 {
		t.Fatalf("%d utterances, %d skipped; want 2, 0", len(utts), skipped)
	}
	u := utts[1]
	if !u.NonSpeech || u.Text != "" || u.Source != "nonspeech" || u.Frames < 40 {
		t.Fatalf("non-speech utterance %+v", *u)
	}
	if ids, err := model.Encode(u.Text); err != nil || len(ids) != 0 {
		t.Fatalf("its targets %v (%v), want none", ids, err)
	}
	if utts[0].NonSpeech || utts[0].Text != "hi there" {
		t.Fatalf("speech utterance %+v", *utts[0])
	}
	// An empty text without the marker is refused by the manifest reader.
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"audio":"m.wav","text":""}`+"\n"), 0o644)
	if _, _, err := LoadManifest(bad, 1, nil); err == nil {
		t.Fatal("empty text without \"nonspeech\" accepted")
	}
}
