package align

import (
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"slices"

	"github.com/heed-asr/heed/internal/chart"
)

// FeatureFrameSec is the feature frame shift (10 ms) that Plot assumes.
const FeatureFrameSec = 0.010

// Colours of the marks drawn over the heat maps.
var (
	alignedColor = color.RGBA{R: 80, G: 255, B: 80, A: 255}
	otherColor   = color.RGBA{R: 255, G: 160, B: 0, A: 255}
	pathColor    = color.RGBA{R: 0, G: 220, B: 255, A: 255}
)

// Plot writes a PNG to path with two panels sharing a time axis in seconds:
// on top the log-mel spectrogram feats, (frames, nmel) row-major at
// FeatureFrameSec per frame (coloured from its 5th percentile up), with
// the words' boundaries (solid at starts, dashed at ends) and labels;
// below, the attention matrix att, (L, T) row-major, on a log10 scale,
// with the monotonic path spans (upsampled frames, upsample per encoder
// frame; nil for none) drawn over it as one segment per character and the
// same word boundaries (green for aligned words, orange for others). The
// encoder frame duration is FeatureFrameSec times the stride
// round(frames/T). The image is 900 pixels high and 100 pixels wide per
// inch of min(max(4+1.5*seconds, 10), 40). It returns an error for empty
// or mis-sized inputs or when the file cannot be written (the file is
// replaced atomically).
func Plot(path string, feats []float32, frames, nmel int, att []float32, L, T, upsample int, spans []Span, words []Word) error {
	if frames < 1 || nmel < 1 || len(feats) != frames*nmel {
		return fmt.Errorf("align: plot: features have %d values, want %d frames x %d mel bins (both >= 1)", len(feats), frames, nmel)
	}
	if L < 1 || T < 1 || len(att) != L*T {
		return fmt.Errorf("align: plot: attention has %d values, want %d rows x %d frames (both >= 1)", len(att), L, T)
	}
	if spans != nil && len(spans) != L {
		return fmt.Errorf("align: plot: %d spans for %d attention rows", len(spans), L)
	}
	up := max(upsample, 1)
	stride := max(math.Round(float64(frames)/float64(T)), 1)
	encSec := stride * FeatureFrameSec
	fineSec := encSec / float64(up)
	dur := math.Max(float64(frames)*FeatureFrameSec, float64(T)*encSec)

	const height = 900
	width := int(100 * math.Min(math.Max(4+1.5*dur, 10), 40))
	c := chart.New(width, height)

	spec := c.Panel(image.Rect(0, 0, width, height/2))
	spec.Title = "log-mel spectrogram and words"
	spec.YLabel = "mel bin"
	spec.XMin, spec.XMax = 0, dur
	spec.YMin, spec.YMax = -0.5, float64(nmel)+0.12*float64(nmel) // room for labels
	// Values under the 5th percentile show as the lowest colour, so that a
	// few frames of digital silence do not wash out the rest.
	floor := float64(slices.Sorted(slices.Values(feats))[len(feats)/20])
	spec.Heatmap(chart.Grid{Cols: frames, Rows: nmel, X1: float64(frames) * FeatureFrameSec, Y0: -0.5, Y1: float64(nmel) - 0.5,
		Z: func(c, r int) float64 { return math.Max(float64(feats[c*nmel+r]), floor) }}, chart.BlackBody)
	wordMarks(spec, words, -0.5, float64(nmel)-0.5)
	// Labels above the spectrogram, on two alternating rows so that
	// neighbours overlap less.
	top := int(spec.Y(float64(nmel) - 0.5))
	for i, w := range words {
		c.Text(int(spec.X(w.Start)), top-4-16*(i%2), w.Word, wordColor(w, true), 0, 1)
	}
	spec.Axes()

	const attFloor = 1e-5
	attn := c.Panel(image.Rect(0, height/2, width, height))
	attn.Title = "attention (log10) and monotonic path"
	attn.XLabel = "time (s)"
	attn.YLabel = "character"
	attn.XMin, attn.XMax = 0, dur
	attn.YMin, attn.YMax = -0.5, float64(L)-0.5
	attn.Heatmap(chart.Grid{Cols: T, Rows: L, X1: float64(T) * encSec, Y0: -0.5, Y1: float64(L) - 0.5,
		Z: func(c, r int) float64 { return math.Log10(math.Max(float64(att[r*T+c]), attFloor)) }}, chart.Viridis)
	for l, s := range spans {
		// One segment per character, so that gaps stay visible.
		attn.Line([]float64{float64(s.Start) * fineSec, float64(s.End) * fineSec}, []float64{float64(l), float64(l)},
			chart.Style{Color: pathColor, Width: 3})
	}
	wordMarks(attn, words, -0.5, float64(L)-0.5)
	attn.Axes()

	return WriteAtomic(path, func(w io.Writer) error {
		if err := c.WritePNG(w); err != nil {
			return fmt.Errorf("png: %w", err)
		}
		return nil
	})
}

// wordMarks draws a solid line at each word start and a dashed one at each
// end, from y0 to y1.
func wordMarks(p *chart.Panel, words []Word, y0, y1 float64) {
	for _, w := range words {
		p.Line([]float64{w.Start, w.Start}, []float64{y0, y1}, chart.Style{Color: wordColor(w, false)})
		p.Line([]float64{w.End, w.End}, []float64{y0, y1}, chart.Style{Color: wordColor(w, false), Dash: 4})
	}
}

// wordColor returns green for an aligned word and orange for others,
// darker for text on a white background.
func wordColor(w Word, onWhite bool) color.RGBA {
	c := alignedColor
	if w.Status != StatusAligned {
		c = otherColor
	}
	if onWhite {
		c.R, c.G, c.B = c.R*5/8, c.G*5/8, c.B*5/8
	}
	return c
}
