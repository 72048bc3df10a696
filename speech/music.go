package speech

import (
	"math"
	"math/cmplx"
	"sync"
)

// maxHeld is the largest share of held spectra (heldShare) in speech. On
// the dev sets of bench/music.py, read utterances, clean or over music at
// 10 dB SNR, stay under 0.48 and their segments of 1 s or more under 0.27
// (a single drawn-out word of 0.5 s reached 0.63); FSDD digits stay under
// 0.41. Chords and sustained tones lie near 1, half of the recorded music
// above 0.3.
const maxHeld = 0.5

// musical reports whether samples (16 kHz) hold notes the way music does:
// heldShare above maxHeld.
func musical(samples []float32) bool { return heldShare(samples) > maxHeld }

// Constants of the held-pitch measure (heldShare).
const (
	heldWin  = 512  // samples of a spectrum frame (32 ms)
	heldHop  = 160  // samples between frames (10 ms)
	heldLag  = 10   // frames between the two spectra compared (100 ms)
	heldLo   = 2    // lowest bin compared (62.5 Hz)
	heldHi   = 96   // bin past the highest compared (3 kHz)
	heldSim  = 0.9  // cosine similarity of two spectra that counts as a held pitch
	heldLoud = 1e-3 // a frame counts when its power is at least this share of the loudest
)

// heldShare returns the share of the loud 10 ms frames of samples (16 kHz)
// whose magnitude spectrum from 62.5 Hz to 3 kHz, at 31 Hz resolution,
// is still the same (cosine similarity at least heldSim) 100 ms later.
// Music holds its notes: a sustained or decaying note keeps its harmonics
// in the same bins. Speech does not: its pitch and formants move within
// 100 ms, which moves the upper harmonics by several bins.
func heldShare(samples []float32) float64 {
	n := (len(samples) - heldWin) / heldHop
	if n <= heldLag {
		return 0
	}
	const bins = heldHi - heldLo
	plan := heldPlan()
	spec := make([]float64, n*bins) // (frames, bins)
	power := make([]float64, n)
	buf := make([]complex128, heldWin)
	top := 0.0
	for i := range n {
		x := samples[i*heldHop : i*heldHop+heldWin]
		// The windowed frame goes straight to its bit-reversed place.
		for j, r := range plan.rev {
			buf[r] = complex(plan.hann[j]*float64(x[j]), 0)
		}
		plan.butterflies(buf, heldHi)
		s := spec[i*bins : (i+1)*bins]
		for k := range s {
			s[k] = cmplx.Abs(buf[heldLo+k])
			power[i] += s[k] * s[k]
		}
		top = math.Max(top, power[i])
	}
	loud, held := 0, 0
	for i := 0; i+heldLag < n; i++ {
		a, b := spec[i*bins:(i+1)*bins], spec[(i+heldLag)*bins:(i+heldLag+1)*bins]
		if top == 0 || power[i] < heldLoud*top || power[i+heldLag] < heldLoud*top {
			continue
		}
		loud++
		dot := 0.0
		for k := range a {
			dot += a[k] * b[k]
		}
		if dot >= heldSim*math.Sqrt(power[i]*power[i+heldLag]) {
			held++
		}
	}
	if loud == 0 {
		return 0
	}
	return float64(held) / float64(loud)
}

// fftPlan holds the tables of a radix-2 FFT of one size, computed once: the
// bit-reversal permutation, and for every butterfly size the twiddle
// factors made by the recurrence w_{k+1} = w_k·exp(-2πi/size) that fft
// runs, so that the transform gives fft's result to the last bit without
// the recurrence's complex products at every butterfly.
type fftPlan struct {
	rev  []int        // (n) position of input j after the bit-reversal permutation
	tw   []complex128 // twiddles of sizes 2, 4, ..., n: size/2 each, in that order
	hann []float64    // (n) the Hann window heldShare applies
}

// heldPlan is the plan of heldShare's heldWin-point transform.
var heldPlan = sync.OnceValue(func() *fftPlan { return newFFTPlan(heldWin) })

// newFFTPlan returns the plan of the n-point transform (n a power of two).
func newFFTPlan(n int) *fftPlan {
	p := &fftPlan{rev: make([]int, n), hann: make([]float64, n)}
	for i, j := 1, 0; i < n; i++ {
		bit := n >> 1
		for ; j&bit != 0; bit >>= 1 {
			j ^= bit
		}
		j |= bit
		p.rev[i] = j
	}
	for size := 2; size <= n; size <<= 1 {
		w := cmplx.Exp(complex(0, -2*math.Pi/float64(size)))
		wk := complex(1, 0)
		for range size / 2 {
			p.tw = append(p.tw, wk)
			wk *= w
		}
	}
	for j := range p.hann {
		p.hann[j] = 0.5 - 0.5*math.Cos(2*math.Pi*float64(j)/float64(n))
	}
	return p
}

// butterflies runs fft's butterflies over x, which holds its input in
// bit-reversed order (x[rev[j]] = input j). Afterwards x[k] for k < keep
// (keep at most n/2) is bin k of the transform, equal to fft's; the last
// stage leaves the other bins out.
func (p *fftPlan) butterflies(x []complex128, keep int) {
	n := len(p.rev)
	x = x[:n]
	tw := p.tw
	for size := 2; size < n; size <<= 1 {
		half := size / 2
		w := tw[:half]
		for start := 0; start < n; start += size {
			lo, hi := x[start:start+half], x[start+half:start+size]
			for k, wk := range w {
				a, b := lo[k], wk*hi[k]
				lo[k], hi[k] = a+b, a-b
			}
		}
		tw = tw[half:]
	}
	half := n / 2
	lo, hi := x[:keep], x[half:half+keep]
	for k, wk := range tw[:keep] {
		lo[k] += wk * hi[k]
	}
}
