package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmbeddedModel and TestAlignNoSpeech are the tests that use the
// embedded English model. TestEmbeddedModel checks that transcribing a short spoken clip without --model exits 0 with non-empty
// text. It checks that the model is embedded, loads and runs, not its
// accuracy. testdata/hello.wav is used when the repository has one,
// otherwise testdata/cli/hello.wav (eSpeak NG, see its README).
func TestEmbeddedModel(t *testing.T) {
	wav := filepath.Join("..", "..", "testdata", "hello.wav")
	if _, err := os.Stat(wav); err != nil {
		wav = filepath.Join(cliDir, "hello.wav")
	}
	r := heed(t, "", "transcribe", wav)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got := lines(r.stdout); len(got) != 1 || strings.TrimSpace(got[0]) == "" {
		t.Errorf("want one line of non-empty text, got %q", r.stdout)
	}
}

// TestAlignNoSpeech aligns a transcript against audio that holds no speech:
// three seconds of digital silence. No word may be "aligned" (until
// 2026-12-05 the paths agreed on the silence and gave each word 0.85),
// every word gets confidence 0, and a warning names the transcript. A
// transcript with no letter the model spells is interpolated, with a
// warning of its own.
func TestAlignNoSpeech(t *testing.T) {
	dir := t.TempDir()
	wav := filepath.Join(dir, "silence.wav")
	writeWAV(t, wav, make([]float32, 3*16000), 16000)
	txt := filepath.Join(dir, "hello.txt")
	if err := os.WriteFile(txt, []byte("hello big world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := heed(t, "", "align", wav, txt)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var res struct {
		Words []struct {
			Word       string  `json:"word"`
			Confidence float64 `json:"confidence"`
			Status     string  `json:"status"`
		} `json:"words"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	if len(res.Words) != 3 {
		t.Fatalf("%d words, want 3: %s", len(res.Words), r.stdout)
	}
	for _, w := range res.Words {
		if w.Status == "aligned" || w.Confidence != 0 {
			t.Errorf("%q on silence: %s at confidence %.3f, want not aligned at 0", w.Word, w.Status, w.Confidence)
		}
	}
	if !strings.Contains(r.stderr, "only 0 of 3 words") || !strings.Contains(r.stderr, txt) {
		t.Errorf("stderr %q: want a warning that no word of %s could be placed", r.stderr, txt)
	}

	zh := filepath.Join(dir, "zh.txt")
	if err := os.WriteFile(zh, []byte("这是中文的句子\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wav = filepath.Join("..", "..", "testdata", "hello.wav")
	if _, err := os.Stat(wav); err != nil {
		wav = filepath.Join(cliDir, "hello.wav")
	}
	r = heed(t, "", "align", "--format", "tsv", wav, zh)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "none of its 1 words has a letter the model spells") || !strings.Contains(r.stdout, "interpolated") {
		t.Errorf("a Chinese transcript: stdout %q, stderr %q; want it interpolated with a warning", r.stdout, r.stderr)
	}
}
