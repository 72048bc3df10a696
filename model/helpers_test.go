package model

import (
	"math"
	"math/rand/v2"
	"testing"
)

// gradTol is the largest accepted relative error between an analytic
// gradient and its central finite difference: max|a-n| / max(|a|+|n|).
const gradTol = 1e-6

// fdEps is the central-difference step. The whole-model loss is a sum of
// ~10 terms whose float64 round-off (~1e-15 absolute) divided by 2·fdEps
// must stay well below gradTol times the smallest gradient scale (~1e-3 for
// the attention tensors); at 1e-6 it is ~1e-9 and marginal, at 1e-5 ten
// times smaller while the O(fdEps²) truncation error is still ~1e-10.
const fdEps = 1e-5

// checkGrad compares analytic, the gradient of f with respect to x, with
// central differences, perturbing x in place. It fails if the relative error
// exceeds gradTol or if the analytic gradient is identically zero (a check
// that could not fail).
func checkGrad(t *testing.T, name string, x, analytic []float64, f func() float64) {
	t.Helper()
	if len(x) != len(analytic) {
		t.Fatalf("%s: %d values, %d gradients", name, len(x), len(analytic))
	}
	var maxDiff, maxSum float64
	for i := range x {
		old := x[i]
		x[i] = old + fdEps
		fp := f()
		x[i] = old - fdEps
		fm := f()
		x[i] = old
		num := (fp - fm) / (2 * fdEps)
		maxDiff = math.Max(maxDiff, math.Abs(analytic[i]-num))
		maxSum = math.Max(maxSum, math.Abs(analytic[i])+math.Abs(num))
	}
	if maxSum == 0 {
		t.Errorf("%s: gradient identically zero", name)
		return
	}
	rel := maxDiff / maxSum
	if rel > gradTol || math.IsNaN(rel) {
		t.Errorf("%s: relative error %.3g > %g (max diff %.3g, scale %.3g)", name, rel, gradTol, maxDiff, maxSum)
	}
}

// randVec returns n values uniform in [-k, k].
func randVec(rng *rand.Rand, n int, k float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = (2*rng.Float64() - 1) * k
	}
	return v
}

// weighted returns Σ r[i]·y[i]: a scalar loss whose gradient w.r.t. y is r.
func weighted(r, y []float64) float64 {
	var s float64
	for i := range r {
		s += r[i] * y[i]
	}
	return s
}

// smallConfig is a tiny network for gradient checks.
func smallConfig() Config {
	c := DefaultConfig()
	c.NumMel, c.Stack, c.EncLayers, c.EncHidden = 4, 2, 2, 3
	c.EmbedDim, c.DecHidden, c.AttDim = 3, 4, 3
	c.ConvFilters, c.ConvWidth = 2, 3
	c.WindowLeft, c.WindowRight = 1, 2
	return c
}

// randParams returns parameters of cfg with all entries (biases included)
// random, so that no gradient path is trivially zero.
func randParams(cfg Config, seed uint64) *Params[float64] {
	p := NewParams[float64](cfg)
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := range p.Data {
		p.Data[i] = (2*rng.Float64() - 1) * 0.5
	}
	return p
}

// randSoftmax returns a random probability vector of length n.
func randSoftmax(rng *rand.Rand, n int) []float64 {
	v := randVec(rng, n, 2)
	softmax(v, v)
	return v
}
