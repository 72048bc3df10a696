package align

import (
	"math"
	"testing"
)

func TestBoundaryErrors(t *testing.T) {
	const tol = 1e-12
	gold := []Word{{Word: "a", Start: 0, End: 1}, {Word: "b", Start: 1.5, End: 2}, {Word: "c", Start: 3, End: 4}}
	tests := []struct {
		name string
		hyp  []Word
		want []float64
	}{
		{"exact", gold, []float64{0, 0, 0, 0, 0, 0}},
		{"shifted", []Word{{Start: 0.01, End: 0.9}, {Start: 1.6, End: 2.05}, {Start: 2.9, End: 4}},
			[]float64{0.01, 0.1, 0.1, 0.05, 0.1, 0}},
		{"shorter hyp", []Word{{Start: 0.5, End: 1}}, []float64{0.5, 0}},
		{"empty", nil, []float64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := BoundaryErrors(gold, tt.hyp)
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if math.Abs(got[i]-tt.want[i]) > tol {
					t.Fatalf("got %v, want %v", got, tt.want)
				}
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	const tol = 1e-12
	tests := []struct {
		name string
		errs []float64
		want BoundaryStats
	}{
		{"one", []float64{0.03}, BoundaryStats{N: 1, Mean: 0.03, Median: 0.03, P90: 0.03, Within20: 0, Within50: 1, Within100: 1}},
		// sorted: 0 .01 .02 .05 .1 .2 .3 .4 .5 1 ; median (.1+.2)/2, p90 at rank 8.1: .5+.1*.5
		{"ten", []float64{0.5, 0, 0.2, 0.05, 1, 0.01, 0.3, 0.02, 0.4, 0.1},
			BoundaryStats{N: 10, Mean: 0.258, Median: 0.15, P90: 0.55, Within20: 0.3, Within50: 0.4, Within100: 0.5}},
		{"limits inclusive", []float64{0.020, 0.050, 0.100, 0.1 + 0.2 - 0.2}, BoundaryStats{N: 4, Mean: 0.0675, Median: 0.075, P90: 0.1, Within20: 0.25, Within50: 0.5, Within100: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Summarize(tt.errs)
			vals := func(s BoundaryStats) []float64 {
				return []float64{float64(s.N), s.Mean, s.Median, s.P90, s.Within20, s.Within50, s.Within100}
			}
			g, w := vals(got), vals(tt.want)
			for i := range g {
				if math.Abs(g[i]-w[i]) > tol {
					t.Fatalf("Summarize = %+v, want %+v", got, tt.want)
				}
			}
		})
	}
	if s := Summarize(nil); s.N != 0 || !math.IsNaN(s.Mean) || !math.IsNaN(s.Within20) {
		t.Errorf("Summarize(nil) = %+v, want N 0 and NaN", s)
	}
}
