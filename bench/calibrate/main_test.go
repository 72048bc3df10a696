package main

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/heed-asr/heed/align"
)

// TestFit draws words from a known logistic model and checks that Fit
// recovers its feature weights. Weighting both labels equally is
// case-control sampling, which changes only the intercept, by
// log(n0/n1) (off words over right ones).
func TestFit(t *testing.T) {
	const tol = 0.15
	r := rand.New(rand.NewPCG(7, 11))
	bias, want := 3.0, [align.NumFeatures]float64{4.0, 1.5, 0.5}
	var x [][align.NumFeatures]float64
	var y []float64
	n1, n0 := 0.0, 0.0
	for i := 0; i < 40000; i++ {
		f := [align.NumFeatures]float64{1.5 * r.Float64(), 2 * r.Float64(), 5 * r.Float64()}
		z := bias
		for j := range f {
			z -= want[j] * f[j]
		}
		v := 0.0
		if r.Float64() < 1/(1+math.Exp(-z)) {
			v = 1
			n1++
		} else {
			n0++
		}
		x, y = append(x, f), append(y, v)
	}
	c, err := Fit(x, y, make([]int, len(y)))
	if err != nil {
		t.Fatal(err)
	}
	wantBias := bias + math.Log(n0/n1)
	got := c.Weights()
	for j := range got {
		if math.Abs(got[j]-want[j]) > tol {
			t.Errorf("Fit = %+v: weight %d is %.3f, want %v (±%v)", c, j, got[j], want[j], tol)
		}
	}
	if math.Abs(c.Bias-wantBias) > tol {
		t.Errorf("Fit = %+v, want Bias %.3f (±%v)", c, wantBias, tol)
	}
	if err := c.Validate(); err != nil {
		t.Error(err)
	}
}

// TestFitGroups: two groups of words whose labels depend on the features in
// the same way, one ten times larger and with ten times fewer off words,
// give the same fit as the two groups of equal size and base rate, because
// every group and both labels within it weigh the same (up to the ridge,
// which does not scale with the words' weights).
func TestFitGroups(t *testing.T) {
	const tol = 1e-3
	var x [][align.NumFeatures]float64
	var y []float64
	var g []int
	add := func(group, right, off int) {
		for i := 0; i < right; i++ {
			x, y, g = append(x, [align.NumFeatures]float64{float64(i % 3), 0, 0}), append(y, 1), append(g, group)
		}
		for i := 0; i < off; i++ {
			x, y, g = append(x, [align.NumFeatures]float64{float64(i%3 + 1), 0, 0}), append(y, 0), append(g, group)
		}
	}
	add(0, 30, 30)
	add(1, 30, 30)
	even, err := Fit(x, y, g)
	if err != nil {
		t.Fatal(err)
	}
	x, y, g = nil, nil, nil
	add(0, 30, 30)
	add(1, 300, 30)
	uneven, err := Fit(x, y, g)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(even.Bias-uneven.Bias) > tol || math.Abs(even.Moved-uneven.Moved) > tol {
		t.Errorf("Fit of equal groups %+v, of unequal ones %+v: want the same", even, uneven)
	}
}

func TestFitErrors(t *testing.T) {
	if _, err := Fit([][align.NumFeatures]float64{{0, 1}, {1, 0}}, []float64{1, 1}, []int{0, 0}); err == nil {
		t.Error("one label only: no error")
	}
	if _, err := Fit([][align.NumFeatures]float64{{0, 1}, {1, 0}, {1, 1}}, []float64{1, 0, 1}, []int{0, 0, 1}); err == nil {
		t.Error("a group with one label only: no error")
	}
	// A feature that never varies (always 0) and a label it cannot explain
	// leave a singular system only through the ridge; two identical rows of
	// opposite labels must still fit (bias 0).
	c, err := Fit([][align.NumFeatures]float64{{0, 0}, {0, 0}}, []float64{1, 0}, []int{0, 0})
	if err != nil || math.Abs(c.Bias) > 1e-6 {
		t.Errorf("Fit of two opposite identical words = %+v, %v; want bias 0", c, err)
	}
}

// TestKeepBias: the bias rises just enough for every group to keep the
// share asked of its right words, and never falls.
func TestKeepBias(t *testing.T) {
	c := align.Calibration{Bias: 1, Moved: 1}
	var x [][align.NumFeatures]float64
	var y []float64
	var g []int
	for i := 1; i <= 10; i++ { // group 0: right words needing bias 1..10
		x, y, g = append(x, [align.NumFeatures]float64{float64(i)}), append(y, 1), append(g, 0)
	}
	x, y, g = append(x, [align.NumFeatures]float64{50}), append(y, 0), append(g, 0) // off: ignored
	x, y, g = append(x, [align.NumFeatures]float64{0.5}), append(y, 1), append(g, 1)
	for _, tt := range []struct{ keep, want float64 }{{0.9, 9}, {0.95, 10}, {0.5, 5}, {0.05, 1}} {
		if got := KeepBias(c, x, y, g, tt.keep); got != tt.want {
			t.Errorf("KeepBias(keep %v) = %v, want %v", tt.keep, got, tt.want)
		}
	}
}
