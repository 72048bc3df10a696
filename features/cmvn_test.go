package features

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// randFeats returns frames × dim values with per-dimension offset and scale;
// dimension 0 gets offset big (e.g. 1e4 >> std, to test cancellation).
func randFeats(seed uint64, frames, dim int, big float64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 11))
	x := make([]float32, frames*dim)
	for t := range frames {
		for d := range dim {
			off := float64(d) - 3
			if d == 0 {
				off = big
			}
			x[t*dim+d] = float32(off + (0.5+float64(d))*rng.NormFloat64())
		}
	}
	return x
}

// directStats is the reference: two-pass float64 mean and population std.
func directStats(x []float32, dim int) (mean, std []float64) {
	n := len(x) / dim
	mean, std = make([]float64, dim), make([]float64, dim)
	for i, v := range x {
		mean[i%dim] += float64(v)
	}
	for d := range mean {
		mean[d] /= float64(n)
	}
	for i, v := range x {
		dv := float64(v) - mean[i%dim]
		std[i%dim] += dv * dv
	}
	for d := range std {
		std[d] = math.Sqrt(std[d] / float64(n))
	}
	return mean, std
}

func TestCMVNStats(t *testing.T) {
	const tol = 1e-6 // relative, float32 output
	const dim, frames = 5, 1000
	x := randFeats(1, frames, dim, 1e4)
	wantMean, wantStd := directStats(x, dim)
	for _, tc := range []struct {
		name   string
		splits []int // frame counts per Add; remainder in a last Add
	}{
		{"one batch", nil},
		{"single frames", []int{1, 1, 1, 1, 1, 1, 1}},
		{"uneven", []int{3, 0, 500, 17}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s CMVNStats
			p := 0
			for _, k := range tc.splits {
				s.Add(x[p*dim:(p+k)*dim], k)
				p += k
			}
			s.Add(x[p*dim:], frames-p)
			if s.Frames() != frames || s.Dim() != dim {
				t.Fatalf("Frames %d Dim %d, want %d %d", s.Frames(), s.Dim(), frames, dim)
			}
			c := s.Finish(1e-3)
			for d := range dim {
				if e := math.Abs(float64(c.Mean[d])-wantMean[d]) / max(1, math.Abs(wantMean[d])); e > tol {
					t.Errorf("dim %d mean %g, want %g", d, c.Mean[d], wantMean[d])
				}
				if e := math.Abs(float64(c.Std[d])-wantStd[d]) / wantStd[d]; e > tol {
					t.Errorf("dim %d std %g, want %g", d, c.Std[d], wantStd[d])
				}
			}
		})
	}
}

func TestCMVNStatsMerge(t *testing.T) {
	const tol = 1e-6
	const dim = 4
	a, b := randFeats(2, 300, dim, 1e4), randFeats(3, 700, dim, 1e4)
	var sa, sb, all, empty CMVNStats
	sa.Add(a, 300)
	sb.Add(b, 700)
	all.Add(append(append([]float32(nil), a...), b...), 1000)
	empty.Merge(&sa)
	empty.Merge(&sb)
	empty.Merge(&CMVNStats{})
	got, want := empty.Finish(1e-3), all.Finish(1e-3)
	for d := range dim {
		if math.Abs(float64(got.Mean[d]-want.Mean[d])) > tol*max(1, math.Abs(float64(want.Mean[d]))) ||
			math.Abs(float64(got.Std[d]-want.Std[d])) > tol*float64(want.Std[d]) {
			t.Errorf("dim %d: merged %g±%g, direct %g±%g", d, got.Mean[d], got.Std[d], want.Mean[d], want.Std[d])
		}
	}
}

func TestCMVNMinStdAndApply(t *testing.T) {
	const tol = 1e-4
	const dim, frames = 3, 200
	x := randFeats(4, frames, dim, 12)
	for i := 0; i < len(x); i += dim {
		x[i+2] = -15.942385 // constant dimension (silence floor)
	}
	var s CMVNStats
	s.Add(x, frames)
	c := s.Finish(0.01)
	if c.Std[2] != 0.01 {
		t.Errorf("constant dimension std %g, want minStd 0.01", c.Std[2])
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	orig := slices.Clone(x)
	c.Apply(x)
	back := slices.Clone(x)
	c.Undo(back)
	for i := range back {
		if d := math.Abs(float64(back[i] - orig[i])); d > 1e-4*math.Max(1, math.Abs(float64(orig[i]))) {
			t.Fatalf("Undo(Apply(x))[%d] = %g, want %g", i, back[i], orig[i])
		}
	}
	mean, std := directStats(x, dim)
	for d := range dim {
		wantStd := 1.0
		if d == 2 {
			wantStd = 0
		}
		if math.Abs(mean[d]) > tol || math.Abs(std[d]-wantStd) > tol {
			t.Errorf("dim %d after Apply: mean %g std %g, want 0 and %g", d, mean[d], std[d], wantStd)
		}
	}
}

func TestCMVNJSONRoundTrip(t *testing.T) {
	c := CMVN{Mean: []float32{1.5, -2, 0.1}, Std: []float32{1, 0.25, 3.75}}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"mean":[1.5,-2,0.1]`) {
		t.Errorf("JSON %s lacks the mean field", b)
	}
	var back CMVN
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for d := range c.Mean {
		if back.Mean[d] != c.Mean[d] || back.Std[d] != c.Std[d] {
			t.Fatalf("round trip dim %d: %v, want %v", d, back, c)
		}
	}
}

func TestCMVNValidate(t *testing.T) {
	nan := float32(math.NaN())
	for _, tc := range []struct {
		name string
		c    CMVN
		ok   bool
	}{
		{"good", CMVN{Mean: []float32{0, 1}, Std: []float32{1, 2}}, true},
		{"empty", CMVN{}, false},
		{"length mismatch", CMVN{Mean: []float32{0, 1}, Std: []float32{1}}, false},
		{"zero std", CMVN{Mean: []float32{0}, Std: []float32{0}}, false},
		{"negative std", CMVN{Mean: []float32{0}, Std: []float32{-1}}, false},
		{"NaN mean", CMVN{Mean: []float32{nan}, Std: []float32{1}}, false},
		{"NaN std", CMVN{Mean: []float32{0}, Std: []float32{nan}}, false},
		{"inf std", CMVN{Mean: []float32{0}, Std: []float32{float32(math.Inf(1))}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.c.Validate()
			if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrCMVN)) {
				t.Errorf("Validate() = %v, want ok=%v wrapping ErrCMVN", err, tc.ok)
			}
		})
	}
}

func TestCMVNPanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"finish empty", func() { var s CMVNStats; s.Finish(1) }},
		{"finish zero minStd", func() { var s CMVNStats; s.Add([]float32{1}, 1); s.Finish(0) }},
		{"add ragged", func() { var s CMVNStats; s.Add([]float32{1, 2, 3}, 2) }},
		{"add negative", func() { var s CMVNStats; s.Add(nil, -1) }},
		{"add dim change", func() { var s CMVNStats; s.Add([]float32{1, 2}, 1); s.Add([]float32{1, 2, 3}, 1) }},
		{"apply ragged", func() { CMVN{Mean: []float32{0, 0}, Std: []float32{1, 1}}.Apply([]float32{1, 2, 3}) }},
		{"apply malformed", func() { CMVN{Mean: []float32{0, 0}, Std: []float32{1}}.Apply([]float32{1, 2}) }},
		{"undo ragged", func() { CMVN{Mean: []float32{0, 0}, Std: []float32{1, 1}}.Undo([]float32{1, 2, 3}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || !strings.HasPrefix(s, "features: ") {
					t.Errorf("panic %v, want a features: message", r)
				}
			}()
			tc.f()
		})
	}
}
