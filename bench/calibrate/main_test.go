package main

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFit draws words from a known logistic model and checks that Fit
// recovers its feature weights. Weighting both labels equally is
// case-control sampling, which changes only the intercept, by
// log(n0/n1) (off words over right ones).
func TestFit(t *testing.T) {
	const tol = 0.15
	r := rand.New(rand.NewPCG(7, 11))
	bias, moved, apart := 3.0, 4.0, 1.5
	var x [][2]float64
	var y []float64
	n1, n0 := 0.0, 0.0
	for i := 0; i < 40000; i++ {
		f := [2]float64{1.5 * r.Float64(), 2 * r.Float64()}
		p := 1 / (1 + math.Exp(-(bias - moved*f[0] - apart*f[1])))
		v := 0.0
		if r.Float64() < p {
			v = 1
			n1++
		} else {
			n0++
		}
		x, y = append(x, f), append(y, v)
	}
	c, err := Fit(x, y)
	if err != nil {
		t.Fatal(err)
	}
	wantBias := bias + math.Log(n0/n1)
	if math.Abs(c.Moved-moved) > tol || math.Abs(c.Apart-apart) > tol || math.Abs(c.Bias-wantBias) > tol {
		t.Errorf("Fit = %+v, want Bias %.3f Moved %v Apart %v (±%v)", c, wantBias, moved, apart, tol)
	}
	if err := c.Validate(); err != nil {
		t.Error(err)
	}
}

func TestFitErrors(t *testing.T) {
	if _, err := Fit([][2]float64{{0, 1}, {1, 0}}, []float64{1, 1}); err == nil {
		t.Error("one label only: no error")
	}
	// A feature that never varies (always 0) and a label it cannot explain
	// leave a singular system only through the ridge; two identical rows of
	// opposite labels must still fit (bias 0).
	c, err := Fit([][2]float64{{0, 0}, {0, 0}}, []float64{1, 0})
	if err != nil || math.Abs(c.Bias) > 1e-6 {
		t.Errorf("Fit of two opposite identical words = %+v, %v; want bias 0", c, err)
	}
}
