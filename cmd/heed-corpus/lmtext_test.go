package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heed-asr/heed/corpus"
)

// TestWriteLMText checks that the LM text holds the training prompts and
// the prose sentences, and never a dev prompt or a sentence IsDev assigns
// to dev.
func TestWriteLMText(t *testing.T) {
	o := testSources(t)
	dir := t.TempDir()
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte("The dog ran home. The cat sat.\n\nThen the cat slept far away [Obs.].\n"))
	zw.Close()
	prose := filepath.Join(dir, "prose.dict.dz")
	if err := os.WriteFile(prose, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	o.lmText = filepath.Join(dir, "lm.txt")
	o.lmProse = prose + "," + filepath.Join(dir, "missing.dz")
	var log bytes.Buffer
	if err := writeLMText(o, &log); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(o.lmText)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	trainP, devP, err := buildPrompts(o)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, l := range lines {
		if got[l] {
			t.Errorf("line %q twice", l)
		}
		got[l] = true
		if corpus.IsDev(l, o.devFrac) {
			t.Errorf("dev sentence %q in the LM text", l)
		}
	}
	for _, p := range devP {
		if got[p.Text] {
			t.Errorf("dev prompt %q in the LM text", p.Text)
		}
	}
	for _, p := range trainP {
		if !got[p.Text] {
			t.Errorf("training prompt %q missing", p.Text)
		}
	}
	for _, s := range []string{"the dog ran home", "the cat sat", "then the cat slept far away"} {
		if !got[s] && !corpus.IsDev(s, o.devFrac) {
			t.Errorf("prose sentence %q missing", s)
		}
	}
	if !strings.Contains(log.String(), "skipping") {
		t.Errorf("no note about the missing source in %q", log.String())
	}
}
