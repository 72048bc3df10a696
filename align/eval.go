package align

import (
	"math"
	"slices"
	"sort"
)

// BoundaryErrors returns the absolute start and end errors in seconds of
// hyp against gold, two per word (start error, then end error), pairing
// words by position over the shorter slice. Both are expected to hold the
// same token sequence.
func BoundaryErrors(gold, hyp []Word) []float64 {
	n := min(len(gold), len(hyp))
	errs := make([]float64, 0, 2*n)
	for i := 0; i < n; i++ {
		errs = append(errs, math.Abs(hyp[i].Start-gold[i].Start), math.Abs(hyp[i].End-gold[i].End))
	}
	return errs
}

// BoundaryStats summarizes boundary errors: their number, mean, median and
// 90th percentile in seconds, and the fractions (0..1) within 20, 50 and
// 100 ms.
type BoundaryStats struct {
	N         int     `json:"n"`
	Mean      float64 `json:"mean"`
	Median    float64 `json:"median"`
	P90       float64 `json:"p90"`
	Within20  float64 `json:"within_20ms"`
	Within50  float64 `json:"within_50ms"`
	Within100 float64 `json:"within_100ms"`
}

// Summarize computes BoundaryStats of errs (seconds). Percentiles
// interpolate linearly between closest ranks. "Within" counts an error at
// most the limit (with 1 ns of slack for rounding). No errors give N = 0 and
// NaN statistics.
func Summarize(errs []float64) BoundaryStats {
	s := BoundaryStats{N: len(errs)}
	if len(errs) == 0 {
		nan := math.NaN()
		s.Mean, s.Median, s.P90, s.Within20, s.Within50, s.Within100 = nan, nan, nan, nan, nan, nan
		return s
	}
	sorted := slices.Clone(errs)
	slices.Sort(sorted)
	var sum float64
	var w20, w50, w100 int
	const slack = 1e-9
	for _, e := range sorted {
		sum += e
		if e <= 0.020+slack {
			w20++
		}
		if e <= 0.050+slack {
			w50++
		}
		if e <= 0.100+slack {
			w100++
		}
	}
	n := float64(len(errs))
	s.Mean = sum / n
	s.Median = percentile(sorted, 0.5)
	s.P90 = percentile(sorted, 0.9)
	s.Within20, s.Within50, s.Within100 = float64(w20)/n, float64(w50)/n, float64(w100)/n
	return s
}

// ReportSources orders the rows of a per-source report: the sources (keys
// of m) sorted, with the overall row "all" first unless there is only one
// other source, which "all" would repeat.
func ReportSources[V any](m map[string]V) []string {
	var keys []string
	for k := range m {
		if k != "all" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if len(keys) == 1 {
		return keys
	}
	return append([]string{"all"}, keys...)
}
