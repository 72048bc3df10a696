package chart

import (
	"image"
	"image/color"
	"math"
	"testing"
)

func TestTicks(t *testing.T) {
	const tol = 1e-9
	tests := []struct {
		lo, hi float64
		n      int
	}{
		{0, 1, 5}, {0, 1.08, 7}, {-0.5, 89.6, 6}, {128010, 143000, 5},
		{-3.2, -0.01, 4}, {0.001, 0.0013, 3}, {-5, 5, 10}, {0, 2.49, 9},
	}
	for _, tt := range tests {
		ticks, step := Ticks(tt.lo, tt.hi, tt.n)
		mant := step / math.Pow(10, math.Floor(math.Log10(step)+tol))
		if math.Abs(mant-1) > tol && math.Abs(mant-2) > tol && math.Abs(mant-5) > tol {
			t.Errorf("Ticks(%g, %g, %d): step %g is not 1, 2 or 5 times a power of ten", tt.lo, tt.hi, tt.n, step)
		}
		if len(ticks) < 2 || len(ticks) > 2*tt.n+1 {
			t.Errorf("Ticks(%g, %g, %d) = %v: want 2 to %d ticks", tt.lo, tt.hi, tt.n, ticks, 2*tt.n+1)
			continue
		}
		first, last := ticks[0], ticks[len(ticks)-1]
		if first < tt.lo-tol*step || first-tt.lo >= step || last > tt.hi+tol*step || tt.hi-last >= step {
			t.Errorf("Ticks(%g, %g, %d) = %v (step %g) do not cover the range", tt.lo, tt.hi, tt.n, ticks, step)
		}
		for i, v := range ticks {
			if k := v / step; math.Abs(k-math.Round(k)) > 1e-6 {
				t.Errorf("Ticks(%g, %g, %d): tick %g is not a multiple of %g", tt.lo, tt.hi, tt.n, v, step)
			}
			if i > 0 && math.Abs(v-ticks[i-1]-step) > 1e-6*step {
				t.Errorf("Ticks(%g, %g, %d): %g then %g, want a step of %g", tt.lo, tt.hi, tt.n, ticks[i-1], v, step)
			}
		}
	}
	for _, r := range [][2]float64{{1, 1}, {2, 1}, {math.NaN(), 1}, {0, math.Inf(1)}} {
		if ticks, _ := Ticks(r[0], r[1], 5); ticks != nil {
			t.Errorf("Ticks(%g, %g) = %v, want none", r[0], r[1], ticks)
		}
	}
}

func TestTickLabel(t *testing.T) {
	for _, tt := range []struct {
		v, step float64
		want    string
	}{
		{130000, 5000, "130000"}, {0.30000000000000004, 0.1, "0.3"}, {1, 0.2, "1.0"},
		{0.25, 0.05, "0.25"}, {-20, 10, "-20"}, {0, 0.5, "0.0"},
	} {
		if got := tickLabel(tt.v, tt.step); got != tt.want {
			t.Errorf("tickLabel(%g, %g) = %q, want %q", tt.v, tt.step, got, tt.want)
		}
	}
}

// count returns how many pixels of r in img are exactly col.
func count(img *image.RGBA, r image.Rectangle, col color.RGBA) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if img.RGBAAt(x, y) == col {
				n++
			}
		}
	}
	return n
}

func newPanel() (*Canvas, *Panel) {
	c := New(300, 200)
	p := c.Panel(c.RGBA.Bounds())
	p.XMin, p.XMax, p.YMin, p.YMax = 0, 10, 0, 10
	return c, p
}

func TestLine(t *testing.T) {
	red := color.RGBA{255, 0, 0, 255}
	c, p := newPanel()
	a := p.Area
	if x, y := p.X(10), p.Y(10); x != float64(a.Max.X)-0.5 || y != float64(a.Min.Y)+0.5 {
		t.Errorf("data (10, 10) at pixel (%g, %g), want the middle of the area's top right pixel", x, y)
	}
	if x, y := p.X(0), p.Y(0); x != float64(a.Min.X)+0.5 || y != float64(a.Max.Y)-0.5 {
		t.Errorf("data (0, 0) at pixel (%g, %g), want the middle of the area's bottom left pixel", x, y)
	}
	// The diagonal, and a horizontal line running far past both sides.
	p.Line([]float64{0, 10}, []float64{0, 10}, Style{Color: red})
	p.Line([]float64{-100, 200}, []float64{5, 5}, Style{Color: red})
	for _, pt := range [][2]float64{{0, 0}, {2.5, 2.5}, {5, 5}, {10, 10}, {0, 5}, {10, 5}, {7, 5}} {
		x, y := int(p.X(pt[0])), int(p.Y(pt[1]))
		if got := c.RGBA.RGBAAt(x, y); got != red {
			t.Errorf("pixel (%d, %d) at data %v is %v, want red", x, y, pt, got)
		}
	}
	if x, y := int(p.X(7)), int(p.Y(3)); c.RGBA.RGBAAt(x, y) == red {
		t.Errorf("pixel (%d, %d) off the lines is red", x, y)
	}
	if n, in := count(c.RGBA, c.RGBA.Bounds(), red), count(c.RGBA, p.Area, red); n != in {
		t.Errorf("%d red pixels outside the area", n-in)
	}
	if n := count(c.RGBA, p.Area, red); n < p.Area.Dx()*2-2 {
		t.Errorf("%d red pixels, want at least %d", n, p.Area.Dx()*2-2)
	}

	// A dashed line sets about half the pixels a solid one does, and a
	// wide one more.
	row := func(st Style) int {
		c, p := newPanel()
		p.Line([]float64{0, 10}, []float64{5, 5}, st)
		return count(c.RGBA, p.Area, red)
	}
	solid, dashed, wide := row(Style{Color: red}), row(Style{Color: red, Dash: 4}), row(Style{Color: red, Width: 3})
	if dashed < solid*4/10 || dashed > solid*6/10 {
		t.Errorf("dashed line sets %d pixels, solid %d: want about half", dashed, solid)
	}
	if wide != 3*solid {
		t.Errorf("line 3 pixels wide sets %d pixels, want 3 x %d", wide, solid)
	}
}

func TestColorMap(t *testing.T) {
	luma := func(c color.RGBA) float64 { return 0.299*float64(c.R) + 0.587*float64(c.G) + 0.114*float64(c.B) }
	for name, m := range map[string]ColorMap{"BlackBody": BlackBody, "Viridis": Viridis} {
		if m.At(0) != m[0] || m.At(1) != m[len(m)-1] || m.At(-1) != m[0] || m.At(2) != m[len(m)-1] || m.At(math.NaN()) != m[0] {
			t.Errorf("%s: ends or clamping wrong", name)
		}
		prev := -1.0
		for i := 0; i <= 100; i++ {
			l := luma(m.At(float64(i) / 100))
			if l <= prev {
				t.Errorf("%s: lightness %.1f at %d%% is not above %.1f", name, l, i, prev)
			}
			prev = l
		}
	}
	mid := ColorMap{{0, 0, 0, 255}, {200, 100, 50, 255}}.At(0.5)
	if mid != (color.RGBA{100, 50, 25, 255}) {
		t.Errorf("halfway between black and (200, 100, 50) = %v", mid)
	}
}

func TestHeatmap(t *testing.T) {
	c, p := newPanel()
	// Three cells side by side, each a third of the area: 3, 0 and 1.5
	// (the largest first), and NaNs above the range.
	p.Heatmap(Grid{Cols: 3, Rows: 2, X1: 10, Y1: 20, Z: func(c, r int) float64 {
		if r == 1 {
			return math.NaN()
		}
		return []float64{3, 0, 1.5}[c]
	}}, Viridis)
	a := p.Area
	for i, want := range []color.RGBA{Viridis.At(1), Viridis.At(0), Viridis.At(0.5)} {
		// The middle column of each cell, all but its top row: that one
		// borders the NaN row.
		x := a.Min.X + (2*i+1)*a.Dx()/6
		if n := count(c.RGBA, image.Rect(x, a.Min.Y+1, x+1, a.Max.Y), want); n != a.Dy()-1 {
			t.Errorf("cell %d: %d of %d pixels are %v", i, n, a.Dy()-1, want)
		}
	}
	if got := c.RGBA.RGBAAt(a.Min.X-3, a.Min.Y+3); got != (color.RGBA{255, 255, 255, 255}) {
		t.Errorf("heat map painted outside the area: %v", got)
	}

	// A grid over the right half and above the panel paints only the
	// right half.
	c, p = newPanel()
	p.Heatmap(Grid{Cols: 3, Rows: 4, X0: 5, X1: 10, Y1: 20, Z: func(c, r int) float64 { return 0 }}, BlackBody)
	// The column at the seam may go either way.
	right := image.Rect(a.Min.X+a.Dx()/2, a.Min.Y, a.Max.X, a.Max.Y)
	seam := right.Union(right.Add(image.Pt(-1, 0)))
	if n, in := count(c.RGBA, c.RGBA.Bounds(), BlackBody[0]), count(c.RGBA, right, BlackBody[0]); in != right.Dx()*right.Dy() || n != count(c.RGBA, seam, BlackBody[0]) {
		t.Errorf("right-half grid painted %d pixels, %d of the %d in the right half", n, in, right.Dx()*right.Dy())
	}
}

func TestText(t *testing.T) {
	black := color.RGBA{0, 0, 0, 255}
	c := New(200, 100)
	c.Text(100, 50, "heed", black, 0.5, 0.5)
	// "heed" is 4 glyphs of 7x13 pixels centred at (100, 50).
	box := image.Rect(86, 43, 114, 57)
	if n, in := count(c.RGBA, c.RGBA.Bounds(), black), count(c.RGBA, box, black); in < 20 || n != in {
		t.Errorf("Text: %d black pixels, %d of them in %v", n, in, box)
	}
	c = New(200, 100)
	c.TextUp(100, 50, "heed", black)
	box = image.Rect(93, 35, 107, 66)
	if n, in := count(c.RGBA, c.RGBA.Bounds(), black), count(c.RGBA, box, black); in < 20 || n != in {
		t.Errorf("TextUp: %d black pixels, %d of them in %v", n, in, box)
	}
}

func TestLegendAndAxes(t *testing.T) {
	green := color.RGBA{0, 200, 0, 255}
	c, p := newPanel()
	p.Title, p.XLabel, p.YLabel = "title", "x", "y"
	p.Legend(1, 0, LegendItem{Name: "series", Style: Style{Color: green, Width: 2}})
	p.Axes()
	a := p.Area
	if n := count(c.RGBA, image.Rect(a.Max.X-a.Dx()/2, a.Min.Y, a.Max.X, a.Min.Y+a.Dy()/2), green); n < 40 {
		t.Errorf("legend swatch: %d green pixels in the top right, want at least 40", n)
	}
	black := color.RGBA{0, 0, 0, 255}
	below := image.Rect(a.Min.X-20, a.Max.Y+1, a.Max.X+20, c.RGBA.Bounds().Max.Y)
	if n := count(c.RGBA, below, black); n < 100 {
		t.Errorf("%d black pixels below the area, want ticks and labels", n)
	}
	if got := c.RGBA.RGBAAt(a.Min.X-1, (a.Min.Y+a.Max.Y)/2); got != black {
		t.Errorf("no frame left of the area: %v", got)
	}
}

func TestExtent(t *testing.T) {
	for _, tt := range []struct {
		in     [][]float64
		lo, hi float64
	}{
		{nil, 0, 1},
		{[][]float64{{math.NaN()}}, 0, 1},
		{[][]float64{{2}}, 1.5, 2.5},
		{[][]float64{{3, 1, math.Inf(1)}, {5, math.NaN()}}, 1, 5},
	} {
		if lo, hi := Extent(tt.in...); lo != tt.lo || hi != tt.hi {
			t.Errorf("Extent(%v) = %g, %g, want %g, %g", tt.in, lo, hi, tt.lo, tt.hi)
		}
	}
}
