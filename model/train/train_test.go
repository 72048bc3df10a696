package train

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"", "abc", 3},
		{"kitten", "sitting", 3},
		{"the cat", "the cat", 0},
		{"the cat", "a cat", 3},
		{"flaw", "lawn", 2},
	} {
		t.Run(tc.a+"/"+tc.b, func(t *testing.T) {
			if got := EditDistance([]rune(tc.a), []rune(tc.b)); got != tc.want {
				t.Errorf("EditDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
			}
		})
	}
}

func TestBatches(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	utts := make([]*Utt, 500)
	for i := range utts {
		utts[i] = &Utt{Frames: 50 + rng.IntN(1500)}
	}
	const maxFrames = 4000
	b1 := Batches(utts, maxFrames, rand.New(rand.NewPCG(3, 4)))
	b2 := Batches(utts, maxFrames, rand.New(rand.NewPCG(3, 4)))
	var seen []int
	for i, b := range b1 {
		if !slices.Equal(b, b2[i]) {
			t.Fatal("batches differ for the same seed")
		}
		total := 0
		for _, j := range b {
			total += utts[j].Frames
			seen = append(seen, j)
		}
		if total > maxFrames && len(b) > 1 {
			t.Errorf("batch %d holds %d frames in %d utterances, limit %d", i, total, len(b), maxFrames)
		}
	}
	slices.Sort(seen)
	for i, j := range seen {
		if i != j {
			t.Fatalf("utterances are not each in exactly one batch: at %d found %d", i, j)
		}
	}
}

func TestPlotLog(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "train.jsonl")
	lines := `{"kind":"train","step":10,"loss":3.1}
{"kind":"train","step":20,"loss":2.5}
{"kind":"dev","step":20,"dev_cer":0.7,"dev_loss":2.6,"sharpness":0.3}
not json
{"kind":"train","step":30,"loss":2.2}
`
	if err := os.WriteFile(log, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	png := filepath.Join(dir, "curves.png")
	if err := PlotLog(log, png); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(png)
	if err != nil || len(b) < 8 || string(b[1:4]) != "PNG" {
		t.Fatalf("curves.png is not a PNG (err %v)", err)
	}
	if err := PlotLog(filepath.Join(dir, "missing.jsonl"), png); err == nil {
		t.Error("PlotLog of a missing log succeeded")
	}
}
