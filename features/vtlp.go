package features

import "math"

// WarpMel applies vocal-tract-length perturbation (Jaitly and Hinton 2013)
// to log-mel features in place: the spectrum is read at frequency f/alpha
// for every bin centre f, so alpha > 1 moves formants up (a shorter vocal
// tract) and alpha < 1 down. feats holds frames × c.NumMel values computed
// with c. Each bin takes the linear interpolation, on the mel scale, of
// the two bins around its warped centre; centres warped below the first or
// above the last bin take that edge bin. Frequencies above 80% of the top
// edge are warped piecewise-linearly so that the top edge stays fixed, as
// in Kaldi's VTLN warping. alpha = 1 leaves feats unchanged.
func WarpMel(feats []float32, frames int, c Config, alpha float64) {
	n := c.NumMel
	if alpha == 1 || n < 2 || frames <= 0 {
		return
	}
	lo, hi := c.LowFreq, c.highFreq()
	melLo, melHi := melScale(lo), melScale(hi)
	delta := (melHi - melLo) / float64(n+1)
	invMel := func(m float64) float64 { return 700 * (math.Exp(m/1127) - 1) }
	// Source position (fractional bin index) for every output bin.
	pos := make([]float64, n)
	knee := 0.8 * hi
	for i := range pos {
		f := invMel(melLo + float64(i+1)*delta)
		var src float64
		if f <= knee {
			src = f / alpha
		} else { // from (knee, knee/alpha) to (hi, hi): top edge fixed
			src = knee/alpha + (f-knee)*(hi-knee/alpha)/(hi-knee)
		}
		pos[i] = (melScale(max(src, 0))-melLo)/delta - 1
	}
	row := make([]float32, n)
	for t := 0; t < frames; t++ {
		x := feats[t*n : (t+1)*n]
		copy(row, x)
		for i, p := range pos {
			switch {
			case p <= 0:
				x[i] = row[0]
			case p >= float64(n-1):
				x[i] = row[n-1]
			default:
				j := int(p)
				w := float32(p - float64(j))
				x[i] = (1-w)*row[j] + w*row[j+1]
			}
		}
	}
}
