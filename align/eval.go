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

// WordStats counts, over words paired by position with their gold times,
// what heed's flag says about them. A word is flagged when its confidence
// is below FlagConfidence (status StatusUncertain or StatusInterpolated:
// the aligner gives StatusAligned exactly to the words placed with at least
// that confidence); it is off when its start or end is more than 100 ms
// from the gold, and right when both are within 50 ms. Collapsed words are
// those given less than 40 ms where the gold gives them at least 40 ms.
// Bins counts the words by confidence for a reliability diagram (see
// ReliabilityBin). Words of a token without spoken words are skipped.
type WordStats struct {
	Words     int `json:"words"`
	Off       int `json:"off"`        // more than 100 ms off
	Right     int `json:"right"`      // within 50 ms
	Flagged   int `json:"flagged"`    // flagged words
	OffFlag   int `json:"off_flag"`   // off and flagged
	RightKept int `json:"right_kept"` // right and not flagged
	Collapsed int `json:"collapsed"`  // under 40 ms where the gold is not
	// Bins holds, per confidence bin [i/10, (i+1)/10) (the last one
	// closed), the words and how many of them are within 50 and 100 ms.
	Bins [ReliabilityBins]ReliabilityBin `json:"reliability"`
}

// ReliabilityBins is the number of confidence bins of WordStats.Bins.
const ReliabilityBins = 10

// ReliabilityBin counts the words whose confidence falls in one bin: all
// of them, those within 50 ms and those within 100 ms of the gold.
type ReliabilityBin struct {
	Words     int `json:"words"`
	Within50  int `json:"within_50ms"`
	Within100 int `json:"within_100ms"`
}

// FlagConfidence is the confidence below which a word counts as flagged.
const FlagConfidence = 0.5

// Add counts the words of hyp against gold (paired by position).
func (s *WordStats) Add(gold, hyp []Word) {
	for i := 0; i < min(len(gold), len(hyp)); i++ {
		g, h := gold[i], hyp[i]
		if len(h.Chars) == 0 {
			continue
		}
		e := math.Max(math.Abs(h.Start-g.Start), math.Abs(h.End-g.End))
		s.Count(e, h.End-h.Start, g.End-g.Start, h.Confidence)
	}
}

// Count counts one word whose boundary error (the larger of its start and
// end errors) is err, whose duration is dur where the gold gives it
// goldDur, and whose confidence is conf; all times in seconds.
func (s *WordStats) Count(err, dur, goldDur, conf float64) {
	const slack = 1e-9
	flag := conf < FlagConfidence
	off, right := err > 0.1+slack, err <= 0.05+slack
	s.Words++
	if off {
		s.Off++
	}
	if right {
		s.Right++
	}
	if flag {
		s.Flagged++
	}
	if off && flag {
		s.OffFlag++
	}
	if right && !flag {
		s.RightKept++
	}
	if dur < 0.04-slack && goldDur >= 0.04-slack {
		s.Collapsed++
	}
	bin := &s.Bins[min(ReliabilityBins-1, max(0, int(conf*ReliabilityBins)))]
	bin.Words++
	if right {
		bin.Within50++
	}
	if err <= 0.1+slack {
		bin.Within100++
	}
}

// Merge adds the counts of o to s.
func (s *WordStats) Merge(o WordStats) {
	s.Words += o.Words
	s.Off += o.Off
	s.Right += o.Right
	s.Flagged += o.Flagged
	s.OffFlag += o.OffFlag
	s.RightKept += o.RightKept
	s.Collapsed += o.Collapsed
	for i, b := range o.Bins {
		s.Bins[i].Words += b.Words
		s.Bins[i].Within50 += b.Within50
		s.Bins[i].Within100 += b.Within100
	}
}

// Precision is the share of flagged words that are off, Recall the share
// of off words that are flagged, Kept the share of right words that are
// not flagged, CollapsedShare the share of collapsed words; each is NaN
// without words to count.
func (s WordStats) Precision() float64      { return ratio(s.OffFlag, s.Flagged) }
func (s WordStats) Recall() float64         { return ratio(s.OffFlag, s.Off) }
func (s WordStats) Kept() float64           { return ratio(s.RightKept, s.Right) }
func (s WordStats) CollapsedShare() float64 { return ratio(s.Collapsed, s.Words) }

func ratio(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}
