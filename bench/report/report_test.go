package main

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/heed-asr/heed/corpus"
)

func TestWords(t *testing.T) {
	for in, want := range map[string][]string{
		"Hello, World!":         {"hello", "world"},
		"  can't  stop\tnow \n": {"can't", "stop", "now"},
		"<sil> [noise]":         {"sil", "noise"},
		"":                      {},
	} {
		if got := words(in); !reflect.DeepEqual(got, want) {
			t.Errorf("words(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestReadHyps(t *testing.T) {
	dir := t.TempDir()
	utts := []corpus.Utterance{{Audio: "/d/a.wav"}, {Audio: "/d/b.wav"}}
	for _, tc := range []struct {
		format, text string
		utts         []corpus.Utterance
		want         map[string]string
	}{
		{"heed", "/d/a.wav\thello world\n/d/b.wav\t\n", utts, map[string]string{"/d/a.wav": "hello world", "/d/b.wav": ""}},
		{"heed", "just one\n", utts[:1], map[string]string{"/d/a.wav": "just one"}},
		{"ps", "hello world (/d/a -2076)\n (/d/b -5)\n", utts, map[string]string{"/d/a.wav": "hello world ", "/d/b.wav": " "}},
	} {
		path := filepath.Join(dir, "hyp")
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readHyps(path, tc.format, tc.utts)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %q: got %q, %v; want %q", tc.format, tc.text, got, err, tc.want)
		}
	}
	path := filepath.Join(dir, "bad")
	if err := os.WriteFile(path, []byte("no id here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readHyps(path, "ps", utts); err == nil {
		t.Error("a pocketsphinx line without (ID SCORE) was accepted")
	}
}

func TestFit(t *testing.T) {
	const tol = 1e-12
	s := series{x: []float64{10, 60, 600, 3600}, y: []float64{1.5, 4, 31, 181}} // 1 + 0.05 x
	a, b, r2 := s.fit()
	if math.Abs(a-1) > tol || math.Abs(b-0.05) > tol || math.Abs(r2-1) > tol {
		t.Errorf("fit = %v + %v x, R² %v; want 1 + 0.05 x, 1", a, b, r2)
	}
	s.y = []float64{0, 100, 0, 0} // no line
	if _, _, r2 := s.fit(); r2 > 0.99 {
		t.Errorf("R² %v for a bent line", r2)
	}
}

func TestSclite(t *testing.T) {
	dir := t.TempDir()
	ref, hyp := filepath.Join(dir, "ref.trn"), filepath.Join(dir, "hyp.trn")
	os.WriteFile(ref, []byte("a b c d (s_0001)\nhello world (s_0002)\n"), 0o644)
	os.WriteFile(hyp, []byte("a b x d (s_0001)\nhello (s_0002)\n"), 0o644)
	wer, err := sclite(ref, hyp)
	if err != nil {
		t.Fatal(err)
	}
	if wer < 0 {
		t.Skip("sclite is not installed (Debian sctk)")
	}
	if math.Abs(wer-2.0/6) > 1e-3 {
		t.Errorf("sclite WER %v, want 2/6", wer)
	}
}
