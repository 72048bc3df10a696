package align

import (
	"fmt"
	"image/color"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// PlotReliability writes a reliability diagram as a PNG to path: for each
// set of word counts stats[i] (named names[i], as from WordStats), the
// share of words within 50 ms of the gold (solid line) and within 100 ms
// (dashed) against the confidence bin (its middle), with the number of
// words above each bin of the first set; a grey diagonal and the flag
// threshold FlagConfidence are drawn for reference. Bins without words are
// left out. It returns an error when names and stats differ in length, no
// set has a word, or the file cannot be written (it is replaced
// atomically).
func PlotReliability(path string, names []string, stats []WordStats) error {
	if len(names) != len(stats) {
		return fmt.Errorf("align: reliability plot: %d names for %d sets", len(names), len(stats))
	}
	words := 0
	for _, s := range stats {
		for _, b := range s.Bins {
			words += b.Words
		}
	}
	if words == 0 {
		return fmt.Errorf("align: reliability plot: no words to plot")
	}
	p := plot.New()
	p.Title.Text = "word confidence against boundary error"
	p.X.Label.Text = "confidence (bin middle)"
	p.Y.Label.Text = "share of words within 50 ms (solid) / 100 ms (dashed)"
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1.08
	p.Legend.Top, p.Legend.Left = false, false
	diag, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	if err != nil {
		return fmt.Errorf("align: reliability plot: %w", err)
	}
	diag.Color = color.Gray{Y: 190}
	p.Add(diag)
	flag, err := plotter.NewLine(plotter.XYs{{X: FlagConfidence, Y: 0}, {X: FlagConfidence, Y: 1}})
	if err != nil {
		return fmt.Errorf("align: reliability plot: %w", err)
	}
	flag.Color = color.Gray{Y: 120}
	flag.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
	p.Add(flag)
	colors := []color.Color{
		color.RGBA{R: 31, G: 119, B: 180, A: 255}, color.RGBA{R: 214, G: 39, B: 40, A: 255},
		color.RGBA{R: 44, G: 160, B: 44, A: 255}, color.RGBA{R: 148, G: 103, B: 189, A: 255},
		color.RGBA{R: 255, G: 127, B: 14, A: 255}, color.RGBA{R: 140, G: 86, B: 75, A: 255},
	}
	for i, s := range stats {
		var w50, w100 plotter.XYs
		var counts plotter.XYLabels
		for k, b := range s.Bins {
			if b.Words == 0 {
				continue
			}
			x := (float64(k) + 0.5) / ReliabilityBins
			w50 = append(w50, plotter.XY{X: x, Y: float64(b.Within50) / float64(b.Words)})
			w100 = append(w100, plotter.XY{X: x, Y: float64(b.Within100) / float64(b.Words)})
			counts.XYs = append(counts.XYs, plotter.XY{X: x, Y: 1.02})
			counts.Labels = append(counts.Labels, fmt.Sprint(b.Words))
		}
		if len(w50) == 0 {
			continue
		}
		c := colors[i%len(colors)]
		for j, xy := range []plotter.XYs{w50, w100} {
			l, pts, err := plotter.NewLinePoints(xy)
			if err != nil {
				return fmt.Errorf("align: reliability plot: %w", err)
			}
			l.Color, pts.Color = c, c
			pts.Shape = draw.CircleGlyph{}
			if j == 1 {
				l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			} else {
				p.Legend.Add(names[i], l, pts)
			}
			p.Add(l, pts)
		}
		if i == 0 {
			lab, err := plotter.NewLabels(counts)
			if err != nil {
				return fmt.Errorf("align: reliability plot: %w", err)
			}
			for j := range lab.TextStyle {
				lab.TextStyle[j].Font.Size = vg.Points(7)
			}
			p.Add(lab)
		}
	}
	img := vgimg.New(7*vg.Inch, 5*vg.Inch)
	p.Draw(draw.New(img))
	return WriteAtomic(path, func(w io.Writer) error {
		if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(w); err != nil {
			return fmt.Errorf("png: %w", err)
		}
		return nil
	})
}
