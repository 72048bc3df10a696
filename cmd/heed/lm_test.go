package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heed-asr/heed/corpus"
	"github.com/heed-asr/heed/model"
)

// lmText is a small written-form corpus for heed lm; every sentence occurs
// several times so that n-grams survive the minimum count.
func lmText() string {
	sentences := []string{
		"Dr. Smith paid $42.50 on May 3rd, 1999.",
		"The cat sat on the mat.",
		"It's 5:30 p.m. and the dog is asleep.",
		"a",
	}
	var b strings.Builder
	for range 5 {
		for _, s := range sentences {
			b.WriteString(s + "\n")
		}
	}
	return b.String()
}

func TestLM(t *testing.T) {
	m := writeTinyModel(t)
	dir := t.TempDir()
	txt := filepath.Join(dir, "text.txt")
	if err := os.WriteFile(txt, []byte(lmText()), 0o644); err != nil {
		t.Fatal(err)
	}
	wav := writeUtterances(t, dir, 1.0)[0]
	// The manifest holds the spoken form of the last sentence, "a": with
	// --exclude its 5 lines of text.txt and its own line are dropped.
	man := writeManifest(t, filepath.Join(dir, "dev.jsonl"), []corpus.Utterance{{Audio: wav, Text: "a"}})

	t.Run("text and manifest sources", func(t *testing.T) {
		out := filepath.Join(dir, "lm.heed")
		r := heed(t, "", "lm", "--model", m, "--out", out, "--order", "4", "--weight", "0.25", txt, man)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, "heed: lm: 21 lines") || !strings.Contains(r.stderr, "order 4") || !strings.Contains(r.stderr, out) {
			t.Errorf("summary on stderr does not give 21 lines, order 4 and the file: %q", r.stderr)
		}
		b, err := model.LoadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if lm, err := b.LanguageModel(); err != nil || lm == nil || b.Meta.LMWeight != 0.25 {
			t.Errorf("%s: LM %v (%v), weight %v; want an LM with weight 0.25", out, lm != nil, err, b.Meta.LMWeight)
		}
		for _, w := range []string{"-1", "0", "0.5"} {
			tr := heed(t, "", "transcribe", "--model", out, "--lm-weight", w, wav)
			if tr.code != 0 || len(lines(tr.stdout)) != 1 {
				t.Errorf("transcribe --lm-weight %s: exit %d, stdout %q, stderr %q", w, tr.code, tr.stdout, tr.stderr)
			}
		}
		ev := heed(t, "", "eval", "asr", "--model", out, "--beam", "2", man)
		if ev.code != 0 || !strings.Contains(ev.stdout, "CER %") {
			t.Errorf("eval asr with an LM model: exit %d, stdout %q, stderr %q", ev.code, ev.stdout, ev.stderr)
		}
	})

	t.Run("exclude", func(t *testing.T) {
		out := filepath.Join(dir, "lm-ex.heed")
		r := heed(t, "", "lm", "--model", m, "--out", out, "--exclude", man, txt, man)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, "heed: lm: 15 lines") || !strings.Contains(r.stderr, "6 excluded") {
			t.Errorf("want 15 lines kept and 6 excluded: %q", r.stderr)
		}
	})

	t.Run("f16 is smaller", func(t *testing.T) {
		f32, f16 := filepath.Join(dir, "a32.heed"), filepath.Join(dir, "a16.heed")
		for _, c := range []struct{ out, dtype string }{{f32, "f32"}, {f16, "f16"}} {
			if r := heed(t, "", "lm", "--model", m, "--out", c.out, "--dtype", c.dtype, txt); r.code != 0 {
				t.Fatalf("--dtype %s: exit %d: %s", c.dtype, r.code, r.stderr)
			}
		}
		a, errA := os.Stat(f32)
		b, errB := os.Stat(f16)
		if errA != nil || errB != nil || b.Size() >= a.Size() {
			t.Errorf("f16 file %v bytes, f32 %v bytes (%v, %v)", b.Size(), a.Size(), errA, errB)
		}
		if _, err := model.LoadFile(f16); err != nil {
			t.Error(err)
		}
	})

	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte(`{"audio": "x.wav", "text": "Not Spoken Form"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runCases(t, []cliCase{
		{name: "missing source", args: []string{"lm", "--model", m, "--out", filepath.Join(dir, "o.heed"), filepath.Join(dir, "nope.txt")}, code: 1,
			stderr: []string{"heed:", "nope.txt"}, noStdout: true},
		{name: "missing model", args: []string{"lm", "--model", filepath.Join(dir, "nope.heed"), "--out", filepath.Join(dir, "o.heed"), txt}, code: 1,
			stderr: []string{"heed:", "nope.heed"}, noStdout: true},
		{name: "bad manifest", args: []string{"lm", "--model", m, "--out", filepath.Join(dir, "o.heed"), bad}, code: 1,
			stderr: []string{"heed:", "bad.jsonl:1:"}, noStdout: true},
		{name: "missing exclude", args: []string{"lm", "--model", m, "--out", filepath.Join(dir, "o.heed"), "--exclude", filepath.Join(dir, "nope.jsonl"), txt}, code: 1,
			stderr: []string{"heed:", "nope.jsonl"}, noStdout: true},
		{name: "out in missing directory", args: []string{"lm", "--model", m, "--out", filepath.Join(dir, "no", "o.heed"), txt}, code: 1,
			stderr: []string{"heed:", filepath.Join(dir, "no", "o.heed")}, noStdout: true},
	})
	if _, err := os.Stat(filepath.Join(dir, "o.heed")); err == nil {
		t.Errorf("a failed heed lm left %s behind", filepath.Join(dir, "o.heed"))
	}
}
