package speech

import (
	"math"
	"sync"

	"github.com/heed-asr/heed/features"
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
	buf, frame := make([]complex128, heldWin/2), make([]float64, heldWin)
	top := 0.0
	for i := range n {
		power[i] = tab.spectrum(spec[i*bins:(i+1)*bins], samples[i*heldHop:i*heldHop+heldWin], frame, buf)
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

// heldTables are heldShare's tables, made once: the Hann window and the
// real heldWin-point transform.
type heldTables struct {
	hann []float64 // (heldWin)
	fft  *features.RealFFT
}

var heldTabs = sync.OnceValue(func() *heldTables {
	t := &heldTables{hann: make([]float64, heldWin), fft: features.NewRealFFT(heldWin)}
	for j := range t.hann {
		t.hann[j] = 0.5 - 0.5*math.Cos(2*math.Pi*float64(j)/heldWin)
	}
	return t
})

// spectrum writes the magnitudes of bins heldLo..heldHi-1 of the
// Hann-windowed frame x (heldWin samples) to s and returns their power (sum
// of squares); frame (heldWin) and buf (heldWin/2) are scratch.
func (t *heldTables) spectrum(s []float64, x []float32, frame []float64, buf []complex128) float64 {
	for j, v := range x[:heldWin] {
		frame[j] = t.hann[j] * float64(v)
	}
	return t.fft.Magnitude(s, heldLo, frame, buf)
}
