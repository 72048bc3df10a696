package speech

import (
	"math"
	"math/cmplx"
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
	spec := make([][]float64, n) // (frames, heldHi-heldLo)
	power := make([]float64, n)
	buf := make([]complex128, heldWin)
	hann := make([]float64, heldWin)
	for j := range hann {
		hann[j] = 0.5 - 0.5*math.Cos(2*math.Pi*float64(j)/heldWin)
	}
	top := 0.0
	for i := range spec {
		x := samples[i*heldHop : i*heldHop+heldWin]
		for j := range buf {
			buf[j] = complex(hann[j]*float64(x[j]), 0)
		}
		fft(buf)
		s := make([]float64, heldHi-heldLo)
		for k := range s {
			s[k] = cmplx.Abs(buf[heldLo+k])
			power[i] += s[k] * s[k]
		}
		spec[i] = s
		top = math.Max(top, power[i])
	}
	loud, held := 0, 0
	for i := 0; i+heldLag < n; i++ {
		a, b := spec[i], spec[i+heldLag]
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

// fft transforms x in place (radix 2); len(x) must be a power of two.
func fft(x []complex128) {
	n := len(x)
	for i, j := 1, 0; i < n; i++ {
		bit := n >> 1
		for ; j&bit != 0; bit >>= 1 {
			j ^= bit
		}
		j |= bit
		if i < j {
			x[i], x[j] = x[j], x[i]
		}
	}
	for size := 2; size <= n; size <<= 1 {
		w := cmplx.Exp(complex(0, -2*math.Pi/float64(size)))
		for start := 0; start < n; start += size {
			wk := complex(1, 0)
			for k := 0; k < size/2; k++ {
				a, b := x[start+k], wk*x[start+k+size/2]
				x[start+k], x[start+k+size/2] = a+b, a-b
				wk *= w
			}
		}
	}
}
