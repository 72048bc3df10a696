// Package chart draws simple PNG charts with the standard library: panels
// with linear axes, polylines, heat maps, text and legends.
//
// Text uses the fixed 7x13 pixel face of golang.org/x/image/font/basicfont,
// which is static data: importing this package parses no fonts and costs a
// program nothing at start-up. The face covers ASCII and Latin-1; other
// characters show as a replacement glyph. All sizes are in pixels; a panel maps data
// coordinates to pixels with its ranges XMin..XMax and YMin..YMax.
package chart

import (
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"
	"strconv"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// Text metrics of basicfont.Face7x13, in pixels.
const (
	textHeight = 13
	textAscent = 11
)

// Colors is a set of distinct line colours for data series.
var Colors = []color.RGBA{
	{31, 119, 180, 255}, {214, 39, 40, 255}, {44, 160, 44, 255},
	{148, 103, 189, 255}, {255, 127, 14, 255}, {140, 86, 75, 255},
}

// A ColorMap maps [0, 1] to colours by linear interpolation between its
// control points, spaced evenly from 0 to 1.
type ColorMap []color.RGBA

var (
	// BlackBody runs black, red, yellow, white.
	BlackBody = ColorMap{{0, 0, 0, 255}, {150, 15, 5, 255}, {240, 80, 0, 255}, {255, 200, 30, 255}, {255, 255, 255, 255}}
	// Viridis runs dark blue, teal, green, yellow.
	Viridis = ColorMap{{68, 1, 84, 255}, {59, 82, 139, 255}, {33, 145, 140, 255}, {94, 201, 98, 255}, {253, 231, 37, 255}}
)

// At returns the colour at v, clamped to [0, 1]; NaN gives the colour at 0.
func (m ColorMap) At(v float64) color.RGBA {
	if !(v > 0) {
		return m[0]
	}
	if v >= 1 {
		return m[len(m)-1]
	}
	f := v * float64(len(m)-1)
	i := int(f)
	f -= float64(i)
	a, b := m[i], m[i+1]
	mix := func(x, y uint8) uint8 { return uint8(float64(x) + f*(float64(y)-float64(x)) + 0.5) }
	return color.RGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 255}
}

// Style says how to draw a line: Width is in pixels (at least 1) and Dash,
// when above 0, is the length in pixels of each dash and of each gap.
type Style struct {
	Color color.Color
	Width int
	Dash  int
}

// A Canvas is an image to draw panels on.
type Canvas struct {
	RGBA *image.RGBA
}

// New returns a white canvas of width x height pixels.
func New(width, height int) *Canvas {
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	return &Canvas{RGBA: img}
}

// WritePNG encodes the canvas as PNG to w.
func (c *Canvas) WritePNG(w io.Writer) error {
	return png.Encode(w, c.RGBA)
}

// Text draws s at (x, y) in pixels. The anchors ax and ay say which point
// of the text's box lies there: 0 is its left or top edge, 0.5 its middle,
// 1 its right or bottom edge.
func (c *Canvas) Text(x, y int, s string, col color.Color, ax, ay float64) {
	d := font.Drawer{Dst: c.RGBA, Src: image.NewUniform(col), Face: basicfont.Face7x13}
	w := d.MeasureString(s).Ceil()
	top := y - int(ay*textHeight)
	d.Dot = fixed.P(x-int(ax*float64(w)), top+textAscent)
	d.DrawString(s)
}

// TextUp draws s reading from bottom to top, centred at (x, y) in pixels.
func (c *Canvas) TextUp(x, y int, s string, col color.Color) {
	w := font.MeasureString(basicfont.Face7x13, s).Ceil()
	mask := image.NewAlpha(image.Rect(0, 0, w, textHeight))
	d := font.Drawer{Dst: mask, Src: image.Opaque, Face: basicfont.Face7x13, Dot: fixed.P(0, textAscent)}
	d.DrawString(s)
	left, bottom := x-textHeight/2, y+w/2
	for i := 0; i < w; i++ {
		for j := 0; j < textHeight; j++ {
			if mask.AlphaAt(i, j).A > 0 {
				c.RGBA.Set(left+j, bottom-i, col)
			}
		}
	}
}

// Panel returns a panel drawn within the rectangle r of the canvas. Its
// plotting area, Area, leaves margins in r for the title, ticks and axis
// labels. The caller sets the data ranges before drawing.
func (c *Canvas) Panel(r image.Rectangle) *Panel {
	area := image.Rect(r.Min.X+72, r.Min.Y+22, r.Max.X-16, r.Max.Y-40)
	return &Panel{c: c, Outer: r, Area: area, XMin: 0, XMax: 1, YMin: 0, YMax: 1}
}

// A Panel is one chart on a canvas: a plotting area with axes.
type Panel struct {
	Title, XLabel, YLabel  string
	XMin, XMax, YMin, YMax float64
	Outer, Area            image.Rectangle // in canvas pixels

	c *Canvas
}

// X returns the pixel column, as a float, of the data abscissa x: XMin
// maps to the middle of the area's first column, XMax to its last.
func (p *Panel) X(x float64) float64 {
	return float64(p.Area.Min.X) + 0.5 + (x-p.XMin)/(p.XMax-p.XMin)*float64(p.Area.Dx()-1)
}

// Y returns the pixel row, as a float, of the data ordinate y: YMin maps
// to the area's bottom row, YMax to its top.
func (p *Panel) Y(y float64) float64 {
	return float64(p.Area.Max.Y) - 0.5 - (y-p.YMin)/(p.YMax-p.YMin)*float64(p.Area.Dy()-1)
}

// Line draws the polyline through (xs[i], ys[i]), clipped to the area. A
// point with a NaN coordinate breaks the line.
func (p *Panel) Line(xs, ys []float64, st Style) {
	dist := 0.0 // pixels along the line so far, for the dashes
	for i := 1; i < len(xs) && i < len(ys); i++ {
		x0, y0, x1, y1 := p.X(xs[i-1]), p.Y(ys[i-1]), p.X(xs[i]), p.Y(ys[i])
		if math.IsNaN(x0 + y0 + x1 + y1) {
			continue
		}
		p.c.segment(x0, y0, x1, y1, dist, st, p.Area)
		dist += math.Hypot(x1-x0, y1-y0)
	}
}

// VLine draws a vertical line at x across the whole area.
func (p *Panel) VLine(x float64, st Style) {
	p.Line([]float64{x, x}, []float64{p.YMin, p.YMax}, st)
}

// Dots draws a filled disc of radius r pixels at each point inside the area.
func (p *Panel) Dots(xs, ys []float64, r int, col color.Color) {
	for i := range min(len(xs), len(ys)) {
		cx, cy := int(math.Floor(p.X(xs[i]))), int(math.Floor(p.Y(ys[i])))
		for dy := -r; dy <= r; dy++ {
			for dx := -r; dx <= r; dx++ {
				if dx*dx+dy*dy <= r*r+r {
					p.c.set(cx+dx, cy+dy, col, p.Area)
				}
			}
		}
	}
}

// Text draws s at the data point (x, y); ax and ay anchor it as for
// Canvas.Text. It is not clipped to the area.
func (p *Panel) Text(x, y float64, s string, col color.Color, ax, ay float64) {
	p.c.Text(int(math.Floor(p.X(x))), int(math.Floor(p.Y(y))), s, col, ax, ay)
}

// A Grid is a dense matrix of Cols x Rows cells covering X0..X1 and
// Y0..Y1 in data coordinates: column c spans X0 + c*(X1-X0)/Cols onwards
// and row r spans Y0 + r*(Y1-Y0)/Rows upwards. Z(c, r) is a cell's value.
type Grid struct {
	Cols, Rows     int
	X0, X1, Y0, Y1 float64
	Z              func(c, r int) float64
}

// Heatmap paints g with the colour map m, scaled from the smallest value
// of Z (colour at 0) to the largest (colour at 1), nearest cell per pixel.
func (p *Panel) Heatmap(g Grid, m ColorMap) {
	lo, hi := math.Inf(1), math.Inf(-1) // NaN cells take no part
	for c := range g.Cols {
		for r := range g.Rows {
			v := g.Z(c, r)
			if v < lo {
				lo = v
			}
			if v > hi {
				hi = v
			}
		}
	}
	if !(hi > lo) {
		hi = lo + 1
	}
	// The cell of each pixel column and row, or -1 outside the grid. The
	// grid's edges lie at e0 and e1 in pixels, and a pixel whose centre is
	// less than half a pixel outside them joins the outer cell.
	cell := func(n, px int, e0, e1 float64) int {
		mid := float64(px) + 0.5
		if mid <= math.Min(e0, e1)-0.5 || mid >= math.Max(e0, e1)+0.5 {
			return -1
		}
		k := int(math.Floor((mid - e0) / (e1 - e0) * float64(n)))
		return min(max(k, 0), n-1)
	}
	cols := make([]int, p.Area.Dx())
	for i := range cols {
		cols[i] = cell(g.Cols, p.Area.Min.X+i, p.X(g.X0), p.X(g.X1))
	}
	for py := p.Area.Min.Y; py < p.Area.Max.Y; py++ {
		r := cell(g.Rows, py, p.Y(g.Y0), p.Y(g.Y1))
		if r < 0 {
			continue
		}
		for i, c := range cols {
			if c >= 0 {
				p.c.RGBA.SetRGBA(p.Area.Min.X+i, py, m.At((g.Z(c, r)-lo)/(hi-lo)))
			}
		}
	}
}

// A LegendItem names a data series drawn in Style.
type LegendItem struct {
	Name  string
	Style Style
}

// Legend draws a box listing items inside the area; ax and ay place it
// (0: left or top, 1: right or bottom).
func (p *Panel) Legend(ax, ay float64, items ...LegendItem) {
	if len(items) == 0 {
		return
	}
	w := 0
	for _, it := range items {
		w = max(w, font.MeasureString(basicfont.Face7x13, it.Name).Ceil())
	}
	const pad, swatch, rowH = 6, 24, 16
	box := image.Rect(0, 0, pad+swatch+pad+w+pad, pad+rowH*len(items)+pad/2)
	inner := p.Area.Inset(pad)
	box = box.Add(image.Pt(inner.Min.X+int(ax*float64(inner.Dx()-box.Dx())), inner.Min.Y+int(ay*float64(inner.Dy()-box.Dy()))))
	draw.Draw(p.c.RGBA, box, image.White, image.Point{}, draw.Src)
	p.c.rect(box, color.Gray{Y: 160})
	for i, it := range items {
		y := float64(box.Min.Y + pad + rowH*i + rowH/2)
		x := float64(box.Min.X + pad)
		p.c.segment(x, y, x+swatch, y, 0, it.Style, box)
		p.c.Text(box.Min.X+pad+swatch+pad, int(y), it.Name, color.Black, 0, 0.5)
	}
}

// Axes draws the frame around the area, the ticks and their labels, the
// axis labels and the title.
func (p *Panel) Axes() {
	a := p.Area
	p.c.rect(image.Rect(a.Min.X-1, a.Min.Y-1, a.Max.X+1, a.Max.Y+1), color.Black)
	xs, step := Ticks(p.XMin, p.XMax, max(a.Dx()/100, 2))
	for _, v := range xs {
		x := int(math.Floor(p.X(v)))
		for k := 1; k <= 5; k++ {
			p.c.RGBA.Set(x, a.Max.Y+k, color.Black)
		}
		p.c.Text(x, a.Max.Y+7, tickLabel(v, step), color.Black, 0.5, 0)
	}
	ys, step := Ticks(p.YMin, p.YMax, max(a.Dy()/60, 2))
	for _, v := range ys {
		y := int(math.Floor(p.Y(v)))
		for k := 2; k <= 6; k++ {
			p.c.RGBA.Set(a.Min.X-k, y, color.Black)
		}
		p.c.Text(a.Min.X-8, y, tickLabel(v, step), color.Black, 1, 0.5)
	}
	mid := (a.Min.X + a.Max.X) / 2
	p.c.Text(mid, a.Max.Y+23, p.XLabel, color.Black, 0.5, 0)
	p.c.Text(mid, a.Min.Y-5, p.Title, color.Black, 0.5, 1)
	p.c.TextUp(p.Outer.Min.X+9, (a.Min.Y+a.Max.Y)/2, p.YLabel, color.Black)
}

// Ticks returns about n evenly spaced "nice" values from lo to hi
// inclusive, none more than a step inside either end, and their step: 1, 2
// or 5 times a power of ten. It returns no ticks for an empty or infinite
// range.
func Ticks(lo, hi float64, n int) (ticks []float64, step float64) {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return nil, 0
	}
	raw := (hi - lo) / float64(max(n, 1))
	pow := math.Pow(10, math.Floor(math.Log10(raw)))
	step = 10 * pow
	for _, m := range []float64{5, 2, 1} {
		if m*pow >= raw {
			step = m * pow
		}
	}
	for k := math.Ceil(lo / step); k*step <= hi+step*1e-9; k++ {
		ticks = append(ticks, k*step+0) // +0 turns -0 into 0
	}
	return ticks, step
}

// tickLabel formats the tick v with as many decimals as step needs.
func tickLabel(v, step float64) string {
	decimals := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// Extent returns the smallest and largest finite values in vs, widened by
// 0.5 either way when they are equal; it returns 0, 1 when there are none.
func Extent(vs ...[]float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range vs {
		for _, v := range s {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	switch {
	case lo > hi:
		return 0, 1
	case lo == hi:
		return lo - 0.5, hi + 0.5
	}
	return lo, hi
}

// segment draws the line from (x0, y0) to (x1, y1) in pixels, clipped to
// clip; dist is the length already drawn before it, for the dashes.
func (c *Canvas) segment(x0, y0, x1, y1, dist float64, st Style, clip image.Rectangle) {
	dx, dy := x1-x0, y1-y0
	t0, t1, ok := clipLine(x0, y0, dx, dy, clip)
	if !ok {
		return
	}
	length := math.Hypot(dx, dy)
	n := int(math.Ceil(math.Max(math.Abs(dx), math.Abs(dy)) * (t1 - t0)))
	w := max(st.Width, 1)
	for k := 0; k <= n; k++ {
		t := t0 + (t1-t0)*float64(k)/float64(max(n, 1))
		if st.Dash > 0 && int((dist+t*length)/float64(st.Dash))%2 == 1 {
			continue
		}
		px, py := int(math.Floor(x0+t*dx))-(w-1)/2, int(math.Floor(y0+t*dy))-(w-1)/2
		for i := range w {
			for j := range w {
				c.set(px+i, py+j, st.Color, clip)
			}
		}
	}
}

// clipLine clips the line (x0, y0) + t*(dx, dy), t in [0, 1], to the
// rectangle r (Liang-Barsky) and returns the range of t left inside.
func clipLine(x0, y0, dx, dy float64, r image.Rectangle) (t0, t1 float64, ok bool) {
	t0, t1 = 0, 1
	// Inside each edge means p*t <= q.
	edges := [4]struct{ p, q float64 }{
		{-dx, x0 - float64(r.Min.X)}, {dx, float64(r.Max.X) - x0},
		{-dy, y0 - float64(r.Min.Y)}, {dy, float64(r.Max.Y) - y0},
	}
	for _, e := range edges {
		switch {
		case e.p == 0:
			if e.q < 0 {
				return 0, 0, false
			}
		case e.p < 0:
			t0 = math.Max(t0, e.q/e.p)
		default:
			t1 = math.Min(t1, e.q/e.p)
		}
	}
	return t0, t1, t0 <= t1
}

// set colours the pixel (x, y) if it lies in clip.
func (c *Canvas) set(x, y int, col color.Color, clip image.Rectangle) {
	if image.Pt(x, y).In(clip) {
		c.RGBA.Set(x, y, col)
	}
}

// rect draws the outline of r, inside it.
func (c *Canvas) rect(r image.Rectangle, col color.Color) {
	for x := r.Min.X; x < r.Max.X; x++ {
		c.RGBA.Set(x, r.Min.Y, col)
		c.RGBA.Set(x, r.Max.Y-1, col)
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		c.RGBA.Set(r.Min.X, y, col)
		c.RGBA.Set(r.Max.X-1, y, col)
	}
}
