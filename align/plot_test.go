package align

import (
	"flag"
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
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("plot is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 500 || b.Dy() < 500 {
		t.Errorf("plot is %dx%d pixels, want at least 500x500", b.Dx(), b.Dy())
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
