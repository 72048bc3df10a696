// Command curveplot draws the speed/accuracy curve written by
// bench/speedcurve.sh: CER against CPU seconds per audio second, one line
// per decoder variant (attention only, + CTC, + LM, + CTC + LM) through
// beams 1, 2, 4, 8, 16.
//
// Usage: go run ./bench/curveplot CURVE.tsv OUT.png
package main

import (
	"bufio"
	"fmt"
	"image/color"
	"os"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: curveplot CURVE.tsv OUT.png")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintf(os.Stderr, "curveplot: %v\n", err)
		os.Exit(1)
	}
}

// point is one row of the TSV.
type point struct {
	beam     int
	cer, cpu float64
}

func run(in, out string) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	lines := map[string][]point{}
	var order []string
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		c := strings.Split(sc.Text(), "\t")
		if n == 1 {
			continue // header
		}
		if len(c) != 7 {
			return fmt.Errorf("%s:%d: %d columns, want 7", in, n, len(c))
		}
		beam, err1 := strconv.Atoi(c[0])
		cer, err2 := strconv.ParseFloat(c[3], 64)
		cpu, err3 := strconv.ParseFloat(c[6], 64)
		if err1 != nil || err2 != nil || err3 != nil {
			return fmt.Errorf("%s:%d: bad number", in, n)
		}
		name := "attention"
		if c[1] != "0" {
			name += " + CTC"
		}
		if c[2] != "0" {
			name += " + LM"
		}
		if _, ok := lines[name]; !ok {
			order = append(order, name)
		}
		lines[name] = append(lines[name], point{beam, 100 * cer, cpu})
	}
	if err := sc.Err(); err != nil {
		return err
	}
	p := plot.New()
	p.Title.Text = "heed transcribe: speed and accuracy (labels: beam)"
	p.X.Label.Text = "CPU seconds per audio second (one core)"
	p.Y.Label.Text = "CER (%)"
	p.Add(plotter.NewGrid())
	colors := []color.RGBA{{R: 0x1f, G: 0x77, B: 0xb4, A: 255}, {R: 0xff, G: 0x7f, B: 0x0e, A: 255},
		{R: 0x2c, G: 0xa0, B: 0x2c, A: 255}, {R: 0xd6, G: 0x27, B: 0x28, A: 255}}
	for i, name := range order {
		pts := lines[name]
		xy := make(plotter.XYs, len(pts))
		labels := make([]string, len(pts))
		for j, q := range pts {
			xy[j].X, xy[j].Y = q.cpu, q.cer
			labels[j] = strconv.Itoa(q.beam)
		}
		l, s, err := plotter.NewLinePoints(xy)
		if err != nil {
			return err
		}
		l.Color, s.Color = colors[i%len(colors)], colors[i%len(colors)]
		lab, err := plotter.NewLabels(plotter.XYLabels{XYs: xy, Labels: labels})
		if err != nil {
			return err
		}
		p.Add(l, s, lab)
		p.Legend.Add(name, l, s)
	}
	p.Legend.Top = true
	tmp := out + ".tmp.png"
	if err := p.Save(8*vg.Inch, 5*vg.Inch, tmp); err != nil {
		return err
	}
	return os.Rename(tmp, out)
}
