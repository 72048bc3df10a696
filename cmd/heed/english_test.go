package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmbeddedModel is the only test that uses the embedded English model:
// transcribing a short spoken clip without --model exits 0 with non-empty
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
