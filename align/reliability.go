package align

import (
	"fmt"
	"image"
	"image/color"
	"io"

	"github.com/heed-asr/heed/internal/chart"
)

// PlotReliability writes a reliability diagram as a 700x500 PNG to path:
// for each set of word counts stats[i] (named names[i], as from
// WordStats), the share of words within 50 ms of the gold (solid line) and
// within 100 ms (dashed) against the confidence bin (its middle), with the
// number of words above each bin of the first set; a grey diagonal and the
// flag threshold FlagConfidence are drawn for reference. Bins without
// words are left out. It returns an error when names and stats differ in
// length, no set has a word, or the file cannot be written (it is replaced
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
	c := chart.New(700, 500)
	p := c.Panel(image.Rect(0, 0, 700, 500))
	p.Title = "word confidence against boundary error"
	p.XLabel = "confidence (bin middle)"
	p.YLabel = "share of words within 50 ms (solid) / 100 ms (dashed)"
	p.XMin, p.XMax, p.YMin, p.YMax = 0, 1, 0, 1.08
	p.Line([]float64{0, 1}, []float64{0, 1}, chart.Style{Color: color.Gray{Y: 190}})
	p.Line([]float64{FlagConfidence, FlagConfidence}, []float64{0, 1}, chart.Style{Color: color.Gray{Y: 120}, Dash: 3})
	var legend []chart.LegendItem
	for i, s := range stats {
		var x, w50, w100 []float64
		for k, b := range s.Bins {
			if b.Words == 0 {
				continue
			}
			x = append(x, (float64(k)+0.5)/ReliabilityBins)
			w50 = append(w50, float64(b.Within50)/float64(b.Words))
			w100 = append(w100, float64(b.Within100)/float64(b.Words))
			if i == 0 {
				p.Text(x[len(x)-1], 1.02, fmt.Sprint(b.Words), color.Black, 0.5, 0.5)
			}
		}
		if len(x) == 0 {
			continue
		}
		col := chart.Colors[i%len(chart.Colors)]
		p.Line(x, w50, chart.Style{Color: col, Width: 2})
		p.Line(x, w100, chart.Style{Color: col, Width: 2, Dash: 5})
		p.Dots(x, w50, 3, col)
		p.Dots(x, w100, 3, col)
		legend = append(legend, chart.LegendItem{Name: names[i], Style: chart.Style{Color: col, Width: 2}})
	}
	p.Legend(1, 1, legend...)
	p.Axes()
	return WriteAtomic(path, func(w io.Writer) error {
		if err := c.WritePNG(w); err != nil {
			return fmt.Errorf("png: %w", err)
		}
		return nil
	})
}
