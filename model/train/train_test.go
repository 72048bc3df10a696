package train

import (
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/heed-asr/heed/internal/chart"
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
{"kind":"train","step":40,"loss":2.0}
{"kind":"dev","step":40,"dev_cer":0.5,"dev_loss":2.1,"sharpness":0.4}
{"kind":"train","step":50,"loss":1.9}
{"kind":"dev","step":50,"dev_cer":0.45,"dev_loss":2.0,"sharpness":0.5}
`
	if err := os.WriteFile(log, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "curves.png")
	if err := PlotLog(log, path); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("curves.png is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1200 || b.Dy() != 450 {
		t.Errorf("curves.png is %dx%d pixels, want 1200x450", b.Dx(), b.Dy())
	}
	// Train loss (colour 0) only on the left, dev loss and CER (colour 1)
	// on both sides, sharpness (colour 2) only on the right. Each curve
	// spans much of its panel: more pixels than its legend swatch (50).
	left, right := image.Rect(0, 0, 600, 450), image.Rect(600, 0, 1200, 450)
	for _, tt := range []struct {
		name        string
		c           color.RGBA
		left, right bool
	}{
		{"train loss", chart.Colors[0], true, false},
		{"dev loss, CER", chart.Colors[1], true, true},
		{"sharpness", chart.Colors[2], false, true},
	} {
		for _, side := range []struct {
			r    image.Rectangle
			want bool
		}{{left, tt.left}, {right, tt.right}} {
			n := countColor(img, side.r, tt.c)
			if side.want && n < 200 || !side.want && n != 0 {
				t.Errorf("%s: %d pixels in %v, want them: %v", tt.name, n, side.r, side.want)
			}
		}
	}

	if err := PlotLog(filepath.Join(dir, "missing.jsonl"), path); err == nil {
		t.Error("PlotLog of a missing log succeeded")
	}
	devOnly := filepath.Join(dir, "dev.jsonl")
	if err := os.WriteFile(devOnly, []byte(`{"kind":"dev","step":20,"dev_cer":0.7}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := PlotLog(devOnly, path); err == nil || !strings.Contains(err.Error(), "no training records") {
		t.Errorf("PlotLog of a log without training records: %v", err)
	}
}

// countColor returns how many pixels of r in img are exactly c.
func countColor(img image.Image, r image.Rectangle, c color.RGBA) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if color.RGBAModel.Convert(img.At(x, y)) == c {
				n++
			}
		}
	}
	return n
}
