package align

import (
	"flag"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/heed-asr/heed/align/normalize"
)

var plotOut = flag.String("plotout", "", "also write the synthetic alignment plot to this path")

// synthFeatures makes (frames, nmel) log-mel-like features for the layout:
// each spoken character lights a band of mel bins during its frames.
func synthFeatures(chars string, T, stride, nmel int, att []float32, rng *rand.Rand) []float32 {
	frames := T * stride
	feats := make([]float32, frames*nmel)
	for i := range feats {
		feats[i] = float32(-8 + 0.5*rng.NormFloat64())
	}
	for l := range chars {
		if chars[l] == ' ' {
			continue
		}
		// The character's peak attention frame.
		best := 0
		for t := 0; t < T; t++ {
			if att[l*T+t] > att[l*T+best] {
				best = t
			}
		}
		band := int(chars[l]-'a'+1) * nmel / 30
		for f := (best - 1) * stride; f < (best+2)*stride; f++ {
			if f < 0 || f >= frames {
				continue
			}
			for m := 0; m < nmel; m++ {
				d := float64(m-band) / 6
				feats[f*nmel+m] += float32(6 * math.Exp(-0.5*d*d))
			}
		}
	}
	return feats
}

func TestPlot(t *testing.T) {
	txt, err := normalize.Normalize("Dr. Smith paid $42.50 — on May 3rd, 1999.")
	if err != nil {
		t.Fatal(err)
	}
	chars := Transcript(txt)
	ly := layout{charFrames: 2, spaceFrames: 2, pause: map[int]int{2: 15}, absent: map[int]bool{8: true}}
	att, T, _ := ly.synth(chars)
	const stride, nmel = 3, 80
	feats := synthFeatures(chars, T, stride, nmel, att, rand.New(rand.NewPCG(9, 9)))
	opts := DefaultOptions()
	spans := MonotonicPath(att, len(chars), T, opts.Path)
	words, err := AlignText(txt, att, T, opts)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "plot.png")
	if err := Plot(path, feats, T*stride, nmel, att, len(chars), T, opts.Path.Upsample, spans, words); err != nil {
		t.Fatal(err)
	}
	img := decodePNG(t, path)
	dur := float64(T*stride) * FeatureFrameSec
	wantW := int(100 * math.Min(math.Max(4+1.5*dur, 10), 40))
	if b := img.Bounds(); b.Dx() != wantW || b.Dy() != 900 {
		t.Errorf("plot is %dx%d pixels, want %dx900", b.Dx(), b.Dy(), wantW)
	}
	top, bottom := image.Rect(0, 0, wantW, 450), image.Rect(0, 450, wantW, 900)
	for _, half := range []image.Rectangle{top, bottom} {
		if n := countColored(img, half); n < half.Dx()*half.Dy()/2 {
			t.Errorf("%v: %d of %d pixels have colour, want at least half (the heat map)", half, n, half.Dx()*half.Dy())
		}
	}

	// The path: cyan, only below, rising from left to right.
	if n := countColor(img, top, pathColor); n != 0 {
		t.Errorf("%d path pixels in the spectrogram panel", n)
	}
	left, right := image.Rect(0, 450, wantW/3, 900), image.Rect(2*wantW/3, 450, wantW, 900)
	if yl, yr := meanY(img, left, pathColor), meanY(img, right, pathColor); !(yl > yr) {
		t.Errorf("path at mean row %.0f on the left, %.0f on the right: want it rising", yl, yr)
	}

	// Word boundaries: a line in each panel per distinct aligned start
	// (solid) and end (dashed, so fewer pixels), orange for the others.
	starts, marks, others := map[float64]bool{}, map[float64]bool{}, 0
	for _, w := range words {
		if w.Status == StatusAligned {
			starts[w.Start] = true
			marks[w.Start], marks[w.End] = true, true
		} else {
			others++
		}
	}
	if len(starts) == 0 || others == 0 {
		t.Fatalf("test words have %d aligned starts and %d others, want some of each", len(starts), others)
	}
	for _, half := range []image.Rectangle{top, bottom} {
		if n := lineColumns(img, half, alignedColor); n < len(starts) || n > len(marks) {
			t.Errorf("%v: %d columns hold a green line, want %d to %d", half, n, len(starts), len(marks))
		}
		if n := countColor(img, half, otherColor); n < 100 {
			t.Errorf("%v: %d orange pixels, want lines for %d words", half, n, others)
		}
	}
	if *plotOut != "" {
		if err := Plot(*plotOut, feats, T*stride, nmel, att, len(chars), T, opts.Path.Upsample, spans, words); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		call func() error
	}{
		{"feature size", func() error { return Plot(path, feats[1:], T*stride, nmel, att, len(chars), T, 3, spans, words) }},
		{"attention size", func() error { return Plot(path, feats, T*stride, nmel, att[1:], len(chars), T, 3, spans, words) }},
		{"span count", func() error { return Plot(path, feats, T*stride, nmel, att, len(chars), T, 3, spans[1:], words) }},
		{"missing directory", func() error {
			return Plot(filepath.Join(path, "x", "y.png"), feats, T*stride, nmel, att, len(chars), T, 3, spans, words)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(); err == nil {
				t.Error("no error")
			}
		})
	}
}

func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s is not a PNG: %v", path, err)
	}
	return img
}

// rgba returns the colour at (x, y) as 8-bit RGBA.
func rgba(img image.Image, x, y int) color.RGBA {
	return color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
}

// countColor returns how many pixels of r in img are exactly c.
func countColor(img image.Image, r image.Rectangle, c color.RGBA) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if rgba(img, x, y) == c {
				n++
			}
		}
	}
	return n
}

// countColored returns how many pixels of r in img are not grey.
func countColored(img image.Image, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if c := rgba(img, x, y); c.R != c.G || c.G != c.B {
				n++
			}
		}
	}
	return n
}

// meanY returns the mean row of the pixels of r in img that are c, or NaN.
func meanY(img image.Image, r image.Rectangle, c color.RGBA) float64 {
	sum, n := 0, 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if rgba(img, x, y) == c {
				sum += y
				n++
			}
		}
	}
	return float64(sum) / float64(n)
}

// lineColumns returns how many columns of r in img hold more than a
// quarter of r's height in pixels of colour c: vertical lines.
func lineColumns(img image.Image, r image.Rectangle, c color.RGBA) int {
	cols := 0
	for x := r.Min.X; x < r.Max.X; x++ {
		n := 0
		for y := r.Min.Y; y < r.Max.Y; y++ {
			if rgba(img, x, y) == c {
				n++
			}
		}
		if n > r.Dy()/4 {
			cols++
		}
	}
	return cols
}
