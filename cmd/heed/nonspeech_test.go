package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heed-asr/heed/corpus"
)

// nonSpeechCorpus is tinyCorpus with a non-speech clip (manifest
// "nonspeech", empty text) added; it returns the manifest's path.
func nonSpeechCorpus(t *testing.T) string {
	t.Helper()
	m := tinyCorpus(t)
	utts, err := corpus.ReadManifest(m)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(m)
	if err := os.MkdirAll(filepath.Join(dir, "ns"), 0o755); err != nil {
		t.Fatal(err)
	}
	wav := writeUtterances(t, filepath.Join(dir, "ns"), 0.7)[0]
	utts = append(utts, corpus.Utterance{Audio: wav, NonSpeech: true, Source: "nonspeech", Duration: 0.7})
	path := filepath.Join(dir, "with_nonspeech.jsonl")
	if err := corpus.WriteManifest(path, utts); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestNonSpeechManifest runs heed train, eval asr and lm on a manifest with
// a non-speech line: training uses it (no skip), eval reports it apart from
// CER and WER, and lm takes no text from it.
func TestNonSpeechManifest(t *testing.T) {
	m := nonSpeechCorpus(t)
	if b, _ := os.ReadFile(m); !strings.Contains(string(b), `"text":"","source":"nonspeech","duration":0.7,"nonspeech":true`) {
		t.Fatalf("manifest lacks the non-speech line:\n%s", b)
	}
	mod := writeTinyModel(t)

	t.Run("train", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "run")
		args := []string{"train", "--train", m, "--dev", m, "--out", out, "--batch-frames", "2000", "--log-every", "1", "--eval-every", "0", "--steps", "2"}
		r := heed(t, "", append(args, tinyTrainFlags...)...)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, "4 utterances (0 skipped)") {
			t.Errorf("the non-speech clip was not loaded: %s", r.stderr)
		}
		for _, rec := range trainLog(t, out) {
			if l, ok := rec["loss"].(float64); ok && !(l > 0) {
				t.Errorf("train record with loss %v: %v", l, rec)
			}
		}
	})

	t.Run("eval asr", func(t *testing.T) {
		r := heed(t, "", "eval", "asr", "--model", mod, "--json", "--beam", "1", m)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		rows := evalRows(t, r.stdout)
		found := false
		for _, row := range rows {
			switch row.Source {
			case "all":
				if row.Utts != 4 || row.Chars != 5 || row.NonSpeech != 1 || row.NonSpeechWords > 1 {
					t.Errorf("all: %+v, want 4 utterances, 5 chars, 1 non-speech", row)
				}
			case "nonspeech":
				found = true
				if row.Utts != 1 || row.Chars != 0 || row.CER != 0 || row.NonSpeech != 1 {
					t.Errorf("nonspeech: %+v, want 1 utterance, no chars, CER 0", row)
				}
			}
		}
		if !found {
			t.Errorf("no nonspeech row:\n%s", r.stdout)
		}
		r = heed(t, "", "eval", "asr", "--model", mod, "--beam", "1", m)
		if r.code != 0 || !strings.Contains(r.stdout, "non-speech clips gave words (should give none)") {
			t.Errorf("table: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
	})

	t.Run("lm", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "lm.heed")
		r := heed(t, "", "lm", "--model", mod, "--out", out, "--min-count", "1", m)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		// The three speech lines, and no empty line for the non-speech one.
		if !strings.Contains(r.stderr, "heed: lm: 3 lines") {
			t.Errorf("want 3 lines: %q", r.stderr)
		}
	})
}
