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
	tab := heldTabs()
	spec := make([]float64, n*bins) // (frames, bins)
	power := make([]float64, n)
	buf := make([]complex128, heldWin/2)
	top := 0.0
	for i := range n {
		power[i] = tab.spectrum(spec[i*bins:(i+1)*bins], samples[i*heldHop:i*heldHop+heldWin], buf)
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

// heldTables are heldShare's tables, made once: the Hann window, the plan
// of the heldWin/2-point complex transform that does the real heldWin-point
// one, and the twiddles that split its result.
type heldTables struct {
	hann  []float64    // (heldWin)
	fft   *fftPlan     // heldWin/2 points
	split []complex128 // (heldHi) exp(-2πik/heldWin)
}

var heldTabs = sync.OnceValue(func() *heldTables {
	t := &heldTables{hann: make([]float64, heldWin), fft: newFFTPlan(heldWin / 2), split: make([]complex128, heldHi)}
	for j := range t.hann {
		t.hann[j] = 0.5 - 0.5*math.Cos(2*math.Pi*float64(j)/heldWin)
	}
	for k := range t.split {
		sin, cos := math.Sincos(-2 * math.Pi * float64(k) / heldWin)
		t.split[k] = complex(cos, sin)
	}
	return t
})

// spectrum writes the magnitudes of bins heldLo..heldHi-1 of the
// Hann-windowed frame x (heldWin samples) to s and returns their power (sum
// of squares); buf (heldWin/2) is scratch. The real transform is one
// complex transform of half the length: with z[m] = x[2m] + i·x[2m+1] and
// Z its M-point transform (M = heldWin/2), the even and odd samples have
// the transforms E[k] = (Z[k] + conj(Z[M-k]))/2 and
// O[k] = (Z[k] - conj(Z[M-k]))/(2i), and X[k] = E[k] + exp(-2πik/heldWin)·O[k].
func (t *heldTables) spectrum(s []float64, x []float32, buf []complex128) float64 {
	p := t.fft
	for m, r := range p.rev {
		buf[r] = complex(t.hann[2*m]*float64(x[2*m]), t.hann[2*m+1]*float64(x[2*m+1]))
	}
	p.butterflies(buf)
	M := len(p.rev)
	power := 0.0
	for i := range s {
		k := heldLo + i
		a, b := buf[k], buf[(M-k)&(M-1)]
		e := complex(0.5*(real(a)+real(b)), 0.5*(imag(a)-imag(b)))
		o := complex(0.5*(imag(a)+imag(b)), -0.5*(real(a)-real(b)))
		s[i] = cmplx.Abs(e + t.split[k]*o)
		power += s[i] * s[i]
	}
	return power
}

// fftPlan holds the tables of a radix-2 complex FFT of one size, made once:
// the bit-reversal permutation and the twiddles of every butterfly size.
type fftPlan struct {
	rev []int        // (n) position of input j after the bit-reversal permutation
	tw  []complex128 // twiddles exp(-2πik/size) of sizes 2, 4, ..., n: size/2 each, in that order
}

// newFFTPlan returns the plan of the n-point transform (n a power of two).
func newFFTPlan(n int) *fftPlan {
	p := &fftPlan{rev: make([]int, n)}
	for i, j := 1, 0; i < n; i++ {
		bit := n >> 1
		for ; j&bit != 0; bit >>= 1 {
			j ^= bit
		}
		j |= bit
		p.rev[i] = j
	}
	for size := 2; size <= n; size <<= 1 {
		for k := range size / 2 {
			sin, cos := math.Sincos(-2 * math.Pi * float64(k) / float64(size))
			p.tw = append(p.tw, complex(cos, sin))
		}
	}
	return p
}

// butterflies transforms x in place; x holds the input in bit-reversed order
// (x[rev[j]] = input j) and afterwards bin k in x[k].
func (p *fftPlan) butterflies(x []complex128) {
	n := len(p.rev)
	x = x[:n]
	tw := p.tw
	for size := 2; size <= n; size <<= 1 {
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
}
