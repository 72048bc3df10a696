package corpus

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/heed-asr/heed/audio"
)

// Noise types for AugSpec.Noise.
const (
	NoiseWhite  = "white"
	NoisePink   = "pink"
	NoiseBrown  = "brown"
	NoiseBabble = "babble" // a sum of several other utterances
)

// AugSpec is a combination of augmentations. Apply runs them in this
// order: speed, reverb, noise, telephone band, gain. Zero values mean
// "not applied".
type AugSpec struct {
	Speed     float64 // tempo and pitch factor, 0.9..1.1: the duration is divided by it
	RT60      float64 // reverb decay time in seconds (60 dB decay), e.g. 0.2..0.8
	Noise     string  // one of the Noise* constants, or ""
	SNR       float64 // signal-to-noise ratio in dB over the speech, with Noise
	Telephone bool    // 8 kHz telephone channel, 300-3400 Hz
	GainDB    float64 // gain in dB, e.g. -10..+6, reduced if it would clip
	Seed      uint64  // seeds the noise, the impulse response and babble picks
}

// String describes a as recorded in a manifest's "aug" field, e.g.
// "speed0.95+reverb0.45s+noise:pink@12dB+tel+gain-3dB"; "" when nothing is
// applied.
func (a AugSpec) String() string {
	var parts []string
	if a.Speed != 0 && a.Speed != 1 {
		parts = append(parts, "speed"+strconv.FormatFloat(a.Speed, 'f', -1, 64))
	}
	if a.RT60 > 0 {
		parts = append(parts, "reverb"+strconv.FormatFloat(a.RT60, 'f', -1, 64)+"s")
	}
	if a.Noise != "" {
		parts = append(parts, "noise:"+a.Noise+"@"+strconv.FormatFloat(a.SNR, 'f', -1, 64)+"dB")
	}
	if a.Telephone {
		parts = append(parts, "tel")
	}
	if a.GainDB != 0 {
		parts = append(parts, "gain"+strconv.FormatFloat(a.GainDB, 'f', -1, 64)+"dB")
	}
	return strings.Join(parts, "+")
}

// RandomAug draws a non-empty combination of augmentations: speed
// 0.9-1.1 (p = 0.4), reverb RT60 0.2-0.8 s (p = 0.3), noise (p = 0.5; white,
// pink, brown, or babble when babble is true) at 5-25 dB SNR, telephone band
// (p = 0.15) and gain -10..+6 dB (p = 0.5). Values are rounded to keep the
// description short.
func RandomAug(rng *rand.Rand, babble bool) AugSpec {
	round := func(v, step float64) float64 { return math.Round(v/step) * step }
	for {
		a := AugSpec{Seed: rng.Uint64()}
		if rng.Float64() < 0.4 {
			a.Speed = round(0.9+0.2*rng.Float64(), 0.01)
		}
		if rng.Float64() < 0.3 {
			a.RT60 = round(0.2+0.6*rng.Float64(), 0.05)
		}
		if rng.Float64() < 0.5 {
			kinds := []string{NoiseWhite, NoisePink, NoiseBrown}
			if babble {
				kinds = append(kinds, NoiseBabble)
			}
			a.Noise = kinds[rng.IntN(len(kinds))]
			a.SNR = float64(5 + rng.IntN(21))
		}
		if rng.Float64() < 0.15 {
			a.Telephone = true
		}
		if rng.Float64() < 0.5 {
			a.GainDB = float64(-10 + rng.IntN(17))
		}
		if a.String() != "" {
			return a
		}
	}
}

// ErrNoBabble is returned by AugSpec.Apply for babble noise without any
// babble sources.
var ErrNoBabble = errors.New("corpus: babble noise needs source utterances")

// Apply augments x (mono, rate Hz) and returns the new samples, the word
// times moved to match (words may be nil), and a with GainDB set to the gain
// actually used (lowered so that the peak stays at or below 0.98). babble
// holds other utterances at the same rate for babble noise. x is not
// modified.
func (a AugSpec) Apply(x []float32, rate int, words []Word, babble [][]float32) ([]float32, []Word, AugSpec, error) {
	if len(x) == 0 {
		return nil, nil, a, errors.New("corpus: augmenting empty audio")
	}
	rng := rand.New(rand.NewPCG(a.Seed, 0x61756720))
	y := x
	words = append([]Word(nil), words...)
	if a.Speed != 0 && a.Speed != 1 {
		var f float64
		y, f = Speed(y, rate, a.Speed)
		for i := range words {
			words[i].Start = roundTime(words[i].Start / f)
			words[i].End = roundTime(words[i].End / f)
		}
	}
	if a.RT60 > 0 {
		y = Reverb(y, rate, a.RT60, 3, rng)
	}
	if a.Noise != "" {
		noise := make([]float32, len(y))
		switch a.Noise {
		case NoiseWhite:
			WhiteNoise(noise, rng)
		case NoisePink:
			PinkNoise(noise, rng)
		case NoiseBrown:
			BrownNoise(noise, rng)
		case NoiseBabble:
			if len(babble) == 0 {
				return nil, nil, a, ErrNoBabble
			}
			Babble(noise, babble, 3+rng.IntN(4), rng)
		default:
			return nil, nil, a, fmt.Errorf("corpus: unknown noise type %q", a.Noise)
		}
		y = AddNoise(nil, y, noise, a.SNR, rate)
	}
	if a.Telephone {
		y = Telephone(y, rate)
	}
	g := math.Pow(10, a.GainDB/20)
	peak := 0.0
	for _, v := range y {
		peak = max(peak, math.Abs(float64(v)))
	}
	if peak*g > 0.98 {
		g = 0.98 / peak
		a.GainDB = math.Round(20*math.Log10(g)*10) / 10
		if a.GainDB == 0 {
			a.GainDB = 0 // no "-0"
		}
	}
	if g != 1 {
		if &y[0] == &x[0] {
			y = append([]float32(nil), y...)
		}
		Gain(y, g)
	}
	return y, words, a, nil
}

// Speed resamples x so that it plays factor times faster (tempo and pitch
// both scale). The resampling ratio is rounded to whole Hz; the factor
// actually applied is returned, and the output has about len(x)/factor
// samples. It panics if factor is not positive.
func Speed(x []float32, rate int, factor float64) ([]float32, float64) {
	if !(factor > 0) {
		panic("corpus: Speed: factor must be positive")
	}
	from := int(math.Round(float64(rate) * factor))
	return audio.Resample(x, from, rate), float64(from) / float64(rate)
}

// Gain multiplies x by g in place.
func Gain(x []float32, g float64) {
	for i := range x {
		x[i] = float32(float64(x[i]) * g)
	}
}

// WhiteNoise fills dst with Gaussian white noise of unit variance.
func WhiteNoise(dst []float32, rng *rand.Rand) {
	for i := range dst {
		dst[i] = float32(rng.NormFloat64())
	}
}

// PinkNoise fills dst with noise whose power falls 3 dB per octave (1/f),
// made by filtering white noise with Paul Kellet's economy filter, scaled to
// unit variance.
func PinkNoise(dst []float32, rng *rand.Rand) {
	var b0, b1, b2 float64
	for i := range dst {
		w := rng.NormFloat64()
		b0 = 0.99765*b0 + w*0.0990460
		b1 = 0.96300*b1 + w*0.2965164
		b2 = 0.57000*b2 + w*1.0526913
		dst[i] = float32(b0 + b1 + b2 + w*0.1848)
	}
	normalize(dst)
}

// BrownNoise fills dst with noise whose power falls 6 dB per octave
// (integrated white noise with a slight leak to stay bounded), scaled to
// unit variance.
func BrownNoise(dst []float32, rng *rand.Rand) {
	var s float64
	for i := range dst {
		s = 0.998*s + rng.NormFloat64()
		dst[i] = float32(s)
	}
	UnitPower(dst)
}

// Babble fills dst with the sum of k talkers. Each talker is a stream of
// randomly chosen sources (each scaled to unit RMS) laid end to end from a
// random offset; the sum is scaled to unit variance. It panics if sources
// is empty.
func Babble(dst []float32, sources [][]float32, k int, rng *rand.Rand) {
	if len(sources) == 0 {
		panic("corpus: Babble: no sources")
	}
	clear(dst)
	for range k {
		pos := -rng.IntN(max(1, len(dst)/2+1)) // start mid-utterance
		for pos < len(dst) {
			src := sources[rng.IntN(len(sources))]
			if len(src) == 0 {
				pos++
				continue
			}
			g := 1 / math.Sqrt(max(MeanSquare(src), 1e-12))
			for j, v := range src {
				if p := pos + j; p >= 0 && p < len(dst) {
					dst[p] += float32(float64(v) * g)
				}
			}
			pos += len(src)
		}
	}
	normalize(dst)
}

// removeMean subtracts the mean of x from x.
func removeMean(x []float32) {
	if len(x) == 0 {
		return
	}
	m := 0.0
	for _, v := range x {
		m += float64(v)
	}
	m /= float64(len(x))
	for i := range x {
		x[i] -= float32(m)
	}
}

// UnitPower removes the mean of x and scales it to unit mean square (no
// change of scale for silence).
func UnitPower(x []float32) {
	removeMean(x)
	normalize(x)
}

// normalize scales x to unit mean square (no-op for silence).
func normalize(x []float32) {
	if ms := MeanSquare(x); ms > 0 {
		Gain(x, 1/math.Sqrt(ms))
	}
}

// SpeechFrames returns the [start, end) sample ranges of the 20 ms frames
// of x whose energy is within 40 dB of the loudest frame: where the speech
// is. Adjacent frames are merged.
func SpeechFrames(x []float32, rate int) [][2]int {
	frame := max(1, rate/50)
	peak := 0.0
	for i := 0; i < len(x); i += frame {
		peak = max(peak, MeanSquare(x[i:min(len(x), i+frame)]))
	}
	thr := peak * 1e-4
	var out [][2]int
	for i := 0; i < len(x); i += frame {
		e := min(len(x), i+frame)
		if peak > 0 && MeanSquare(x[i:e]) >= thr {
			if n := len(out); n > 0 && out[n-1][1] == i {
				out[n-1][1] = e
			} else {
				out = append(out, [2]int{i, e})
			}
		}
	}
	return out
}

// powerOver is the mean square of x over the ranges (0 if they are empty).
func powerOver(x []float32, ranges [][2]int) float64 {
	s, n := 0.0, 0
	for _, r := range ranges {
		for _, v := range x[r[0]:r[1]] {
			s += float64(v) * float64(v)
		}
		n += r[1] - r[0]
	}
	if n == 0 {
		return 0
	}
	return s / float64(n)
}

// AddNoise writes x + g·noise to dst and returns it, with g chosen so that
// the signal-to-noise ratio is snrDB, both powers measured over the speech
// frames of x (see SpeechFrames). noise must be at least as long as x. dst
// may be nil (allocated) or x itself; otherwise it must have len(x). If x is
// silent, dst is a copy of x.
func AddNoise(dst, x, noise []float32, snrDB float64, rate int) []float32 {
	if len(noise) < len(x) {
		panic("corpus: AddNoise: noise shorter than the signal")
	}
	if dst == nil {
		dst = make([]float32, len(x))
	} else if len(dst) != len(x) {
		panic("corpus: AddNoise: dst length mismatch")
	}
	sp := SpeechFrames(x, rate)
	ps, pn := powerOver(x, sp), powerOver(noise, sp)
	g := 0.0
	if ps > 0 && pn > 0 {
		g = math.Sqrt(ps / pn / math.Pow(10, snrDB/10))
	}
	for i := range x {
		dst[i] = x[i] + float32(g*float64(noise[i]))
	}
	return dst
}

// ImpulseResponse returns a synthetic room impulse response at rate Hz: a
// unit direct path followed, after a 2-6 ms gap, by Gaussian noise decaying
// exponentially by 60 dB in rt60 seconds. The tail's energy is drrDB below
// the direct path's. Its length is rt60 seconds.
func ImpulseResponse(rate int, rt60, drrDB float64, rng *rand.Rand) []float32 {
	n := max(2, int(rt60*float64(rate)))
	h := make([]float32, n)
	h[0] = 1
	gap := min(n-1, int(float64(rate)*(0.002+0.004*rng.Float64())))
	decay := math.Log(1000) / (rt60 * float64(rate)) // amplitude: -60 dB at rt60
	tail := 0.0
	for i := gap; i < n; i++ {
		v := rng.NormFloat64() * math.Exp(-decay*float64(i))
		h[i] = float32(v)
		tail += v * v
	}
	if tail > 0 {
		g := math.Sqrt(math.Pow(10, -drrDB/10) / tail)
		for i := gap; i < n; i++ {
			h[i] = float32(float64(h[i]) * g)
		}
	}
	return h
}

// Reverb convolves x with a synthetic impulse response (see
// ImpulseResponse) using the FFT. The output keeps up to 0.3 s of the
// reverberant tail after x, fades out over its last 10 ms, and is scaled to
// the RMS of x (over the first len(x) samples).
func Reverb(x []float32, rate int, rt60, drrDB float64, rng *rand.Rand) []float32 {
	h := ImpulseResponse(rate, rt60, drrDB, rng)
	full := Convolve(x, h)
	n := min(len(full), len(x)+int(0.3*float64(rate)))
	y := full[:n]
	fade := min(n, rate/100)
	for i := range fade {
		y[n-1-i] *= float32(i) / float32(fade)
	}
	if mx, my := MeanSquare(x), MeanSquare(y[:min(n, len(x))]); my > 0 {
		Gain(y, math.Sqrt(mx/my))
	}
	return y
}

// Convolve returns the full linear convolution of x and h (length
// len(x)+len(h)-1), computed with a real FFT of the next power of two.
func Convolve(x, h []float32) []float32 {
	if len(x) == 0 || len(h) == 0 {
		return nil
	}
	n := len(x) + len(h) - 1
	m := 1
	for m < n {
		m <<= 1
	}
	fft := fourier.NewFFT(m)
	buf := make([]float64, m)
	for i, v := range x {
		buf[i] = float64(v)
	}
	X := fft.Coefficients(nil, buf)
	clear(buf)
	for i, v := range h {
		buf[i] = float64(v)
	}
	H := fft.Coefficients(nil, buf)
	for i := range X {
		X[i] *= H[i]
	}
	fft.Sequence(buf, X)
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(buf[i] / float64(m))
	}
	return out
}

// Telephone passes x (rate Hz) through a telephone channel: resampling to
// 8 kHz (which removes everything above about 3.5 kHz), a 300-3400 Hz band
// pass (4th-order Butterworth high- and low-pass sections), and resampling
// back to rate. The output has len(x) samples.
func Telephone(x []float32, rate int) []float32 {
	const tel = 8000
	y := audio.Resample(x, rate, tel)
	for _, bq := range []Biquad{
		NewBiquad("high", tel, 300, 0.5411961), NewBiquad("high", tel, 300, 1.3065630),
		NewBiquad("low", tel, 3400, 0.5411961), NewBiquad("low", tel, 3400, 1.3065630),
	} {
		bq.Filter(y)
	}
	z := audio.Resample(y, tel, rate)
	out := make([]float32, len(x))
	copy(out, z)
	return out
}

// Biquad is a second-order IIR filter section (RBJ cookbook form,
// normalized so that a0 = 1).
type Biquad struct{ b0, b1, b2, a1, a2 float64 }

// NewBiquad designs a section for audio at rate Hz: kind "low" or "high"
// (low- or high-pass at fc Hz with quality q; a 4th-order Butterworth filter
// cascades q = 1/(2 cos(π/8)) and 1/(2 cos(3π/8))) or "band" (band pass
// centred on fc, 0 dB peak). fc is clamped to 0.45 rate.
func NewBiquad(kind string, rate int, fc, q float64) Biquad {
	w := 2 * math.Pi * math.Min(fc, 0.45*float64(rate)) / float64(rate)
	cw, sw := math.Cos(w), math.Sin(w)
	alpha := sw / (2 * q)
	a0 := 1 + alpha
	var b0, b1, b2 float64
	switch kind {
	case "low":
		b0, b1, b2 = (1-cw)/2, 1-cw, (1-cw)/2
	case "high":
		b0, b1, b2 = (1+cw)/2, -(1 + cw), (1+cw)/2
	case "band":
		b0, b1, b2 = alpha, 0, -alpha
	default:
		panic("corpus: NewBiquad: kind " + kind)
	}
	return Biquad{b0 / a0, b1 / a0, b2 / a0, -2 * cw / a0, (1 - alpha) / a0}
}

// Filter runs the section over x in place (direct form II transposed).
func (f Biquad) Filter(x []float32) {
	var z1, z2 float64
	for i, v := range x {
		in := float64(v)
		out := f.b0*in + z1
		z1 = f.b1*in - f.a1*out + z2
		z2 = f.b2*in - f.a2*out
		x[i] = float32(out)
	}
}
