package align

import (
	"math"
	"slices"
	"time"
)

// Piece is a half-open range [Start, End) of samples of a longer recording.
type Piece struct {
	Start, End int
}

// Seconds returns the piece's start and end in seconds at the given sample
// rate (Hz).
func (p Piece) Seconds(rate int) (start, end float64) {
	return float64(p.Start) / float64(rate), float64(p.End) / float64(rate)
}

// splitFrameSec is the energy frame used by SplitAtSilences.
const splitFrameSec = 0.010

// SplitAtSilences cuts samples (mono, rate Hz) into consecutive pieces of at
// most maxPiece each that together cover all samples. Cuts go in the middle
// of pauses: runs of low-energy 10 ms frames at least minPause long, where
// low means below 30% of the way from the 1st to the 95th percentile of
// frame energy in dB, and at least up to 35 dB below the 95th percentile
// (so that digital silence does not hide noisy pauses). For each cut it prefers, among pauses in the second
// half of the allowed window, the longest pause (then the quietest); it
// falls back to pauses in the first half, and, with no pause at all, to the
// quietest frame of the second half. Audio no longer than maxPiece is one
// piece; empty audio gives none. It panics if rate <= 0 or maxPiece is
// shorter than 20 ms.
func SplitAtSilences(samples []float32, rate int, maxPiece, minPause time.Duration) []Piece {
	if rate <= 0 {
		panic("align: SplitAtSilences: sample rate must be positive")
	}
	if maxPiece < 20*time.Millisecond {
		panic("align: SplitAtSilences: maxPiece shorter than 20 ms")
	}
	if len(samples) == 0 {
		return nil
	}
	if time.Duration(float64(len(samples))/float64(rate)*float64(time.Second)) <= maxPiece {
		return []Piece{{0, len(samples)}}
	}
	hop := max(int(math.Round(float64(rate)*splitFrameSec)), 1)
	nf := (len(samples) + hop - 1) / hop
	energy := make([]float64, nf) // dB per frame
	for i := range energy {
		seg := samples[i*hop : min((i+1)*hop, len(samples))]
		var sum float64
		for _, x := range seg {
			sum += float64(x) * float64(x)
		}
		energy[i] = 10 * math.Log10(sum/float64(len(seg))+1e-10)
	}
	sorted := slices.Clone(energy)
	slices.Sort(sorted)
	lo, hi := percentile(sorted, 0.01), percentile(sorted, 0.95)
	thr := math.Max(lo+0.3*(hi-lo), hi-35)
	if hi-lo < 6 { // no real contrast: no pauses
		thr = math.Inf(-1)
	}
	// Pause runs long enough to cut in.
	type pause struct {
		mid, length int
		mean        float64
	}
	minFrames := max(int(math.Ceil(minPause.Seconds()/splitFrameSec)), 1)
	var pauses []pause
	for i := 0; i < nf; {
		if energy[i] >= thr {
			i++
			continue
		}
		j, sum := i, 0.0
		for j < nf && energy[j] < thr {
			sum += energy[j]
			j++
		}
		if j-i >= minFrames {
			pauses = append(pauses, pause{mid: (i + j) / 2, length: j - i, mean: sum / float64(j-i)})
		}
		i = j
	}
	maxFrames := max(int(maxPiece.Seconds()/splitFrameSec), 2)
	// The last frame may be partial; cut positions are whole frames.
	var pieces []Piece
	start := 0
	for nf-start > maxFrames {
		lo, mid, hi := start, start+maxFrames/2, start+maxFrames
		best := -1
		for _, window := range [][2]int{{mid, hi}, {lo, mid}} {
			for k, p := range pauses {
				if p.mid <= window[0] || p.mid > window[1] {
					continue
				}
				if best < 0 || p.length > pauses[best].length || p.length == pauses[best].length && p.mean < pauses[best].mean {
					best = k
				}
			}
			if best >= 0 {
				break
			}
		}
		cut := 0
		if best >= 0 {
			cut = pauses[best].mid
		} else {
			cut = mid + 1
			for f := mid + 1; f <= hi && f < nf; f++ {
				if energy[f] < energy[cut] {
					cut = f
				}
			}
		}
		pieces = append(pieces, Piece{start * hop, cut * hop})
		start = cut
	}
	return append(pieces, Piece{start * hop, len(samples)})
}

// percentile returns the p-quantile (0 <= p <= 1) of sorted values with
// linear interpolation between closest ranks; NaN for no values.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	x := p * float64(len(sorted)-1)
	i := int(x)
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (x-float64(i))*(sorted[i+1]-sorted[i])
}

// Stitch joins the word results of consecutive pieces: the words of
// parts[i] are shifted by offsets[i] seconds (the piece start), characters
// included, and concatenated. Times are then made monotonic: a word never
// starts before the previous word, and never ends before it starts. It
// panics if len(offsets) != len(parts).
func Stitch(offsets []float64, parts [][]Word) []Word {
	if len(offsets) != len(parts) {
		panic("align: Stitch: offsets and parts differ in length")
	}
	var out []Word
	prev := 0.0
	for i, part := range parts {
		for _, w := range part {
			w.Start, w.End = math.Max(w.Start+offsets[i], prev), math.Max(w.End+offsets[i], prev)
			w.End = math.Max(w.End, w.Start)
			if w.Chars != nil {
				chars := make([]Char, len(w.Chars))
				for j, c := range w.Chars {
					chars[j] = Char{Char: c.Char, Start: c.Start + offsets[i], End: c.End + offsets[i]}
				}
				w.Chars = chars
			}
			prev = w.Start
			out = append(out, w)
		}
	}
	return out
}
