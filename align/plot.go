package align

import (
	"fmt"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// FeatureFrameSec is the feature frame shift (10 ms) that Plot assumes.
const FeatureFrameSec = 0.010

// grid is a plotter.GridXYZ over a dense matrix: cell (c, r) is z(c, r),
// centred at x0 + (c+0.5)*dx and at row r.
type grid struct {
	cols, rows int
	x0, dx     float64
	z          func(c, r int) float64
}

func (g grid) Dims() (int, int)   { return g.cols, g.rows }
func (g grid) Z(c, r int) float64 { return g.z(c, r) }
func (g grid) X(c int) float64    { return g.x0 + (float64(c)+0.5)*g.dx }
func (g grid) Y(r int) float64    { return float64(r) }
func (g grid) minMax() (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for c := 0; c < g.cols; c++ {
		for r := 0; r < g.rows; r++ {
			v := g.z(c, r)
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if hi <= lo {
		hi = lo + 1
	}
	return lo, hi
}

// raster draws a rasterized heat map without reporting one glyph box per
// cell (which plotter.HeatMap does, at a cost of memory per cell).
type raster struct{ h *plotter.HeatMap }

func (r raster) Plot(c draw.Canvas, p *plot.Plot)            { r.h.Plot(c, p) }
func (r raster) DataRange() (xmin, xmax, ymin, ymax float64) { return r.h.DataRange() }
func newRaster(g grid, cm palette.ColorMap) raster {
	cm.SetMin(0)
	cm.SetMax(1)
	h := plotter.NewHeatMap(g, cm.Palette(256))
	h.Min, h.Max = g.minMax()
	h.Rasterized = true
	return raster{h}
}

// Plot writes a PNG to path with two panels sharing a time axis in seconds:
// on top the log-mel spectrogram feats, (frames, nmel) row-major at
// FeatureFrameSec per frame, with the words' boundaries (solid at starts,
// dashed at ends) and labels; below, the attention matrix att, (L, T)
// row-major, on a log10 scale, with the monotonic path spans (upsampled
// frames, upsample per encoder frame; nil for none) drawn over it as one
// segment per character and the same word boundaries (green for aligned
// words, orange for interpolated ones). The encoder frame duration is
// FeatureFrameSec times the stride round(frames/T). It returns an error
// for empty or mis-sized inputs or when the file cannot be written (the
// file is replaced atomically).
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

	spec := plot.New()
	spec.Title.Text = "log-mel spectrogram and words"
	spec.Y.Label.Text = "mel bin"
	spec.Add(newRaster(grid{cols: frames, rows: nmel, dx: FeatureFrameSec,
		z: func(c, r int) float64 { return float64(feats[c*nmel+r]) }}, moreland.ExtendedBlackBody()))

	const attFloor = 1e-5
	attn := plot.New()
	attn.Title.Text = "attention (log10) and monotonic path"
	attn.X.Label.Text = "time (s)"
	attn.Y.Label.Text = "character"
	attn.Add(newRaster(grid{cols: T, rows: L, dx: encSec,
		z: func(c, r int) float64 { return math.Log10(math.Max(float64(att[r*T+c]), attFloor)) }}, moreland.ExtendedKindlmann()))
	for l, s := range spans {
		// One segment per character, so that gaps stay visible.
		line, err := plotter.NewLine(plotter.XYs{{X: float64(s.Start) * fineSec, Y: float64(l)}, {X: float64(s.End) * fineSec, Y: float64(l)}})
		if err != nil {
			return fmt.Errorf("align: plot: %w", err)
		}
		line.Color = color.RGBA{R: 0, G: 220, B: 255, A: 255}
		line.Width = vg.Points(2)
		attn.Add(line)
	}
	if err := addWordMarks(spec, words, -0.5, float64(nmel)-0.5, true); err != nil {
		return err
	}
	if err := addWordMarks(attn, words, -0.5, float64(L)-0.5, false); err != nil {
		return err
	}
	for _, p := range []*plot.Plot{spec, attn} {
		p.X.Min, p.X.Max = 0, dur
	}
	spec.Y.Min, spec.Y.Max = -0.5, float64(nmel)+0.12*float64(nmel) // room for labels
	attn.Y.Min, attn.Y.Max = -0.5, float64(L)-0.5

	width := vg.Length(math.Min(math.Max(4+1.5*dur, 10), 40)) * vg.Inch
	height := 9 * vg.Inch
	img := vgimg.New(width, height)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadX: vg.Millimeter, PadY: vg.Millimeter * 2,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	plots := [][]*plot.Plot{{spec}, {attn}}
	canvases := plot.Align(plots, tiles, dc)
	for i := range plots {
		plots[i][0].Draw(canvases[i][0])
	}
	return WriteAtomic(path, func(w io.Writer) error {
		if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(w); err != nil {
			return fmt.Errorf("png: %w", err)
		}
		return nil
	})
}

// addWordMarks draws a solid line at each word start and a dashed one at
// each end between y0 and y1; with labels, it writes the words above the
// panel on two alternating rows so that neighbours overlap less.
func addWordMarks(p *plot.Plot, words []Word, y0, y1 float64, labels bool) error {
	var lx plotter.XYLabels
	for i, w := range words {
		for k, x := range []float64{w.Start, w.End} {
			l, err := plotter.NewLine(plotter.XYs{{X: x, Y: y0}, {X: x, Y: y1}})
			if err != nil {
				return fmt.Errorf("align: plot: %w", err)
			}
			l.Color = color.RGBA{R: 80, G: 255, B: 80, A: 255}
			if w.Status != StatusAligned {
				l.Color = color.RGBA{R: 255, G: 160, B: 0, A: 255}
			}
			l.Width = vg.Points(0.8)
			if k == 1 {
				l.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
			}
			p.Add(l)
		}
		if labels {
			row := float64(i % 2)
			lx.XYs = append(lx.XYs, plotter.XY{X: w.Start, Y: y1 + 0.5 + (0.02+0.05*row)*(y1-y0)})
			lx.Labels = append(lx.Labels, w.Word)
		}
	}
	if len(lx.Labels) == 0 {
		return nil
	}
	lab, err := plotter.NewLabels(lx)
	if err != nil {
		return fmt.Errorf("align: plot: %w", err)
	}
	for i := range lab.TextStyle {
		lab.TextStyle[i].Font.Size = vg.Points(9)
	}
	p.Add(lab)
	return nil
}
