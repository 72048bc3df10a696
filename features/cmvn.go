package features

import (
	"errors"
	"fmt"
	"math"
)

// CMVN holds per-dimension normalisation statistics: Apply maps each feature
// x[t][d] to (x[t][d] - Mean[d]) / Std[d]. Mean and Std have the feature
// dimension (NumMel) as length. The fields marshal to JSON as "mean" and
// "std" so the statistics can be stored in the model file.
type CMVN struct {
	Mean []float32 `json:"mean"` // (dim) per-dimension mean, log-mel units
	Std  []float32 `json:"std"`  // (dim) per-dimension standard deviation, > 0
}

// ErrCMVN is wrapped by every error CMVN.Validate returns.
var ErrCMVN = errors.New("features: invalid CMVN")

// Dim returns the feature dimension, len(c.Mean).
func (c CMVN) Dim() int { return len(c.Mean) }

// Validate reports whether c can be applied: Mean and Std are non-empty and
// of equal length, every Mean is finite and every Std finite and positive.
// Use it on statistics read from a file. The error wraps ErrCMVN.
func (c CMVN) Validate() error {
	if len(c.Mean) == 0 || len(c.Mean) != len(c.Std) {
		return fmt.Errorf("%w: %d means and %d standard deviations", ErrCMVN, len(c.Mean), len(c.Std))
	}
	for d := range c.Mean {
		m, s := float64(c.Mean[d]), float64(c.Std[d])
		if math.IsNaN(m) || math.IsInf(m, 0) || !(s > 0) || math.IsInf(s, 0) {
			return fmt.Errorf("%w: dimension %d has mean %g, std %g", ErrCMVN, d, m, s)
		}
	}
	return nil
}

// Apply normalises feats (row-major, frames × Dim) in place. It panics if
// len(c.Std) != len(c.Mean), if Dim is 0, or if len(feats) is not a multiple
// of Dim.
func (c CMVN) Apply(feats []float32) {
	c.rows("Apply", feats, func(row, mean, std []float32) {
		for j, v := range row {
			row[j] = (v - mean[j]) / std[j]
		}
	})
}

// Undo reverses Apply: feats (row-major, frames × Dim) go back to log-mel
// units in place. It panics as Apply does.
func (c CMVN) Undo(feats []float32) {
	c.rows("Undo", feats, func(row, mean, std []float32) {
		for j, v := range row {
			row[j] = v*std[j] + mean[j]
		}
	})
}

// rows calls f on every row of feats with the statistics, after checking
// them and the length of feats (panicking in the name of method op).
func (c CMVN) rows(op string, feats []float32, f func(row, mean, std []float32)) {
	d := len(c.Mean)
	if d == 0 || len(c.Std) != d {
		panic("features: CMVN." + op + " with malformed statistics")
	}
	if len(feats)%d != 0 {
		panic("features: CMVN." + op + ": feature length not a multiple of the dimension")
	}
	mean, std := c.Mean[:d], c.Std[:d]
	for t := 0; t < len(feats); t += d {
		f(feats[t:t+d], mean, std)
	}
}

// CMVNStats accumulates per-dimension mean and variance over any number of
// feature matrices, in float64, using the pairwise update of Chan, Golub and
// LeVeque (each batch's own mean and centred sum of squares, then merged), so
// the result does not depend on how frames are split into batches beyond
// rounding and does not lose precision when |mean| >> std. The zero value is
// ready to use; the dimension is fixed by the first Add.
type CMVNStats struct {
	n    int64     // frames seen
	mean []float64 // (dim) running mean
	m2   []float64 // (dim) running sum of squared deviations from mean
	bsum []float64 // (dim) scratch: batch sums, then batch means
	bm2  []float64 // (dim) scratch: batch centred sums of squares
}

// Frames returns the number of frames accumulated so far.
func (s *CMVNStats) Frames() int64 { return s.n }

// Dim returns the feature dimension, 0 before the first Add with frames.
func (s *CMVNStats) Dim() int { return len(s.mean) }

// Add accumulates frames feature vectors held row-major in feats
// (frames × dim). It panics if frames < 0, if len(feats) is not
// frames × dim for a dim >= 1, or if dim differs from earlier calls.
// Adding zero frames is a no-op.
func (s *CMVNStats) Add(feats []float32, frames int) {
	if frames < 0 {
		panic("features: CMVNStats.Add with negative frame count")
	}
	if frames == 0 {
		if len(feats) != 0 {
			panic("features: CMVNStats.Add: features given for zero frames")
		}
		return
	}
	if len(feats) == 0 || len(feats)%frames != 0 {
		panic("features: CMVNStats.Add: feature length not frames × dim")
	}
	d := len(feats) / frames
	if s.mean == nil {
		s.init(d)
	} else if d != len(s.mean) {
		panic("features: CMVNStats.Add: dimension differs from earlier calls")
	}
	bsum, bm2 := s.bsum[:d], s.bm2[:d]
	clear(bsum)
	clear(bm2)
	for t := 0; t < len(feats); t += d {
		for j, v := range feats[t : t+d] {
			bsum[j] += float64(v)
		}
	}
	nb := float64(frames)
	for j := range bsum {
		bsum[j] /= nb
	}
	for t := 0; t < len(feats); t += d {
		for j, v := range feats[t : t+d] {
			dv := float64(v) - bsum[j]
			bm2[j] += dv * dv
		}
	}
	s.merge(int64(frames), bsum, bm2)
}

// Merge adds the statistics accumulated in o to s, as if every frame given to
// o had been given to s. It panics if both have frames and their dimensions
// differ.
func (s *CMVNStats) Merge(o *CMVNStats) {
	if o.n == 0 {
		return
	}
	if s.mean == nil {
		s.init(len(o.mean))
	} else if len(o.mean) != len(s.mean) {
		panic("features: CMVNStats.Merge: dimensions differ")
	}
	s.merge(o.n, o.mean, o.m2)
}

func (s *CMVNStats) init(d int) {
	s.mean = make([]float64, d)
	s.m2 = make([]float64, d)
	s.bsum = make([]float64, d)
	s.bm2 = make([]float64, d)
}

// merge combines nb frames with per-dimension mean bmean and centred sum of
// squares bm2 into s.
func (s *CMVNStats) merge(nb int64, bmean, bm2 []float64) {
	na := float64(s.n)
	nt := na + float64(nb)
	fb := float64(nb)
	for j := range s.mean {
		delta := bmean[j] - s.mean[j]
		s.mean[j] += delta * fb / nt
		s.m2[j] += bm2[j] + delta*delta*na*fb/nt
	}
	s.n += nb
}

// Finish returns the accumulated statistics as a CMVN: the mean and the
// population standard deviation sqrt(Σ(x-mean)²/N) per dimension, each
// standard deviation raised to at least minStd (use it to keep constant
// dimensions, e.g. all-silence bins, from blowing up). It panics if no frames
// were added or minStd is not positive. s is not changed.
func (s *CMVNStats) Finish(minStd float32) CMVN {
	if s.n == 0 {
		panic("features: CMVNStats.Finish with no frames")
	}
	if !(minStd > 0) {
		panic("features: CMVNStats.Finish: minStd must be positive")
	}
	c := CMVN{Mean: make([]float32, len(s.mean)), Std: make([]float32, len(s.mean))}
	for j, m := range s.mean {
		c.Mean[j] = float32(m)
		c.Std[j] = max(float32(math.Sqrt(s.m2[j]/float64(s.n))), minStd)
	}
	return c
}
