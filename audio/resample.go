package audio

import (
	"fmt"
	"math"
	"sync"
)

// Filter design. The anti-aliasing / anti-imaging low-pass filter is a
// Kaiser-windowed sinc whose -6 dB cutoff sits at the lower of the two
// Nyquist frequencies. The transition band spans ±transitionFrac of that
// Nyquist frequency (for 48 kHz -> 16 kHz: 7 kHz to 9 kHz), and the
// attenuation at the stopband edge is stopbandDB. Gain inside the passband
// deviates from unity by well under 0.01 dB.
const (
	stopbandDB     = 70.0
	transitionFrac = 0.125

	// maxExactTable bounds the polyphase table (phases × taps) of the exact
	// mode, in coefficients. Ratios whose reduced upsampling factor would
	// need a larger table use interpPhases phases with linear
	// interpolation between neighbouring phases.
	maxExactTable = 1 << 16
	interpPhases  = 512

	// maxDownRatio bounds from/to: the filter length grows with it.
	maxDownRatio = 1000
)

// filterBank is the precomputed polyphase table for one rate pair. It is
// read-only after newFilterBank and may be shared.
type filterBank struct {
	up, down int // reduced ratio: output n sits at input time n*down/up
	dq, dr   int // down/up and down%up: the time step in whole and 1/up samples
	ntaps    int // taps per phase, a positive multiple of 4
	half     int // ntaps/2; output at time i+φ uses inputs i-half+1 .. i+half
	exact    bool
	nphase   int       // up when exact, else interpPhases+1
	coef     []float32 // (nphase, ntaps); row q is for fractional time q/up (exact) or q/interpPhases
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// besselI0 is the modified Bessel function of the first kind, order 0.
func besselI0(x float64) float64 {
	sum, term := 1.0, 1.0
	q := x * x / 4
	for k := 1; k < 500; k++ {
		term *= q / float64(k*k)
		sum += term
		if term < sum*1e-17 {
			break
		}
	}
	return sum
}

// bankCache keeps the tables of recently used rate pairs (building one
// for 44.1 kHz -> 16 kHz takes about a millisecond), up to cacheCoefs
// coefficients in all.
var bankCache struct {
	sync.Mutex
	m     map[[2]int]*filterBank
	coefs int
}

const cacheCoefs = 1 << 22

// getFilterBank returns the (shared, read-only) table for from -> to.
func getFilterBank(from, to int) *filterBank {
	key := [2]int{from, to}
	bankCache.Lock()
	fb := bankCache.m[key]
	bankCache.Unlock()
	if fb != nil {
		return fb
	}
	fb = newFilterBank(from, to)
	bankCache.Lock()
	defer bankCache.Unlock()
	if bankCache.coefs+len(fb.coef) <= cacheCoefs {
		if bankCache.m == nil {
			bankCache.m = make(map[[2]int]*filterBank)
		}
		if bankCache.m[key] == nil {
			bankCache.m[key] = fb
			bankCache.coefs += len(fb.coef)
		}
	}
	return fb
}

func newFilterBank(from, to int) *filterBank {
	if from <= 0 || to <= 0 {
		panic(fmt.Sprintf("audio: resample rates must be positive, got %d -> %d", from, to))
	}
	if from > maxDownRatio*to {
		panic(fmt.Sprintf("audio: resample ratio %d -> %d beyond 1/%d", from, to, maxDownRatio))
	}
	g := gcd(from, to)
	fb := &filterBank{up: to / g, down: from / g}
	fb.dq, fb.dr = fb.down/fb.up, fb.down%fb.up

	// Everything below is in input-sample units.
	r := min(1, float64(to)/float64(from))
	fc := 0.5 * r                    // cutoff, cycles per input sample
	width := 2 * transitionFrac * fc // transition width, cycles per input sample
	n := int(math.Ceil((stopbandDB - 7.95) / (14.36 * width)))
	fb.ntaps = max(4, (n+3)/4*4)
	fb.half = fb.ntaps / 2
	beta := 0.1102 * (stopbandDB - 8.7)
	i0beta := besselI0(beta)

	fb.exact = fb.up*fb.ntaps <= maxExactTable
	den := interpPhases
	if fb.exact {
		fb.nphase, den = fb.up, fb.up
	} else {
		fb.nphase = interpPhases + 1
	}
	fb.coef = make([]float32, fb.nphase*fb.ntaps)
	row := make([]float64, fb.ntaps)
	for q := 0; q < fb.nphase; q++ {
		phi := float64(q) / float64(den)
		var sum float64
		for j := range row {
			u := phi + float64(fb.half-1-j) // distance from tap to output time
			x := u / float64(fb.half)
			var w float64
			if x > -1 && x < 1 {
				w = besselI0(beta*math.Sqrt(1-x*x)) / i0beta
			}
			s := 2 * fc
			if a := 2 * fc * u; a != 0 {
				s = 2 * fc * math.Sin(math.Pi*a) / (math.Pi * a)
			}
			row[j] = s * w
			sum += row[j]
		}
		// Unit DC gain in every phase.
		dst := fb.coef[q*fb.ntaps : (q+1)*fb.ntaps]
		for j, v := range row {
			dst[j] = float32(v / sum)
		}
	}
	return fb
}

// dot returns Σ h[j]·x[j]; len(h) is a multiple of 4 and len(x) >= len(h).
// This is where resampling spends its time.
func dot(h, x []float32) float32 {
	x = x[:len(h)]
	var s0, s1, s2, s3 float32
	for i := 0; i+4 <= len(h); i += 4 {
		hh := h[i : i+4 : i+4] // one bounds check per four taps
		xx := x[i : i+4 : i+4]
		s0 += hh[0] * xx[0]
		s1 += hh[1] * xx[1]
		s2 += hh[2] * xx[2]
		s3 += hh[3] * xx[3]
	}
	return (s0 + s1) + (s2 + s3)
}

// at computes the output whose fractional input time is p/up, from the
// window x[0:ntaps] of input samples i-half+1 .. i+half.
func (fb *filterBank) at(x []float32, p int) float32 {
	nt := fb.ntaps
	if fb.exact {
		return dot(fb.coef[p*nt:(p+1)*nt], x)
	}
	pos := float64(p) * interpPhases / float64(fb.up)
	q := int(pos)
	a := float32(pos - float64(q))
	d0 := dot(fb.coef[q*nt:(q+1)*nt], x)
	d1 := dot(fb.coef[(q+1)*nt:(q+2)*nt], x)
	return (1-a)*d0 + a*d1
}

// outLen is the number of output samples for n input samples:
// ceil(n·up/down), the outputs whose time lies inside the input.
func (fb *filterBank) outLen(n int64) int64 {
	return (n*int64(fb.up) + int64(fb.down) - 1) / int64(fb.down)
}

// Resample converts src, sampled at from Hz, to the rate to Hz with a
// band-limited (Kaiser-windowed sinc, polyphase) filter, and returns
// ceil(len(src)·to/from) samples. Output sample n is the band-limited
// signal at time n/to seconds, so there is no delay; the signal is taken
// as zero outside src. When from == to it returns src itself.
//
// The filter passes frequencies up to 0.875× the lower Nyquist frequency
// with under 0.01 dB ripple and attenuates frequencies from 1.125× it by
// at least 70 dB. Rates are meant to be 8000..192000 Hz; it panics if a
// rate is not positive or from > 1000·to.
//
// Resample gives exactly the same samples as a Resampler fed src in any
// chunking and then flushed.
func Resample(src []float32, from, to int) []float32 {
	if from == to {
		if from <= 0 {
			panic(fmt.Sprintf("audio: resample rates must be positive, got %d -> %d", from, to))
		}
		return src
	}
	fb := getFilterBank(from, to)
	out := make([]float32, fb.outLen(int64(len(src))))
	nt, h := fb.ntaps, fb.half
	var scratch []float32
	i, p := 0, 0 // time of output n is i + p/up
	for n := range out {
		k0 := i - h + 1
		if k0 >= 0 && k0+nt <= len(src) {
			out[n] = fb.at(src[k0:], p)
		} else {
			// Edge: copy the window with zeros outside src.
			if scratch == nil {
				scratch = make([]float32, nt)
			}
			for j := range scratch {
				scratch[j] = 0
				if k := k0 + j; k >= 0 && k < len(src) {
					scratch[j] = src[k]
				}
			}
			out[n] = fb.at(scratch, p)
		}
		i, p = i+fb.dq, p+fb.dr
		if p >= fb.up {
			i, p = i+1, p-fb.up
		}
	}
	return out
}

// Resampler is the streaming form of Resample: feed consecutive chunks of
// one signal to Process, then call Flush. The concatenated output equals
// Resample of the whole signal exactly, whatever the chunk sizes. It holds
// at most the filter length (96 input samples for 44.1 kHz -> 16 kHz) plus
// one chunk. A Resampler is not safe
// for concurrent use.
type Resampler struct {
	from, to int
	fb       *filterBank // nil when from == to
	buf      []float32   // pending input; buf[0] is input sample base
	base     int64       // input index of buf[0] (negative: leading zeros)
	i        int64       // next output time is i + p/up input samples
	p        int
	nIn      int64 // input samples received since the last Reset
	nOut     int64 // output samples produced since the last Reset
}

// NewResampler returns a Resampler from the rate from Hz to the rate to Hz.
// It panics like Resample on bad rates.
func NewResampler(from, to int) *Resampler {
	rs := &Resampler{from: from, to: to}
	if from != to {
		rs.fb = getFilterBank(from, to)
	} else if from <= 0 {
		panic(fmt.Sprintf("audio: resample rates must be positive, got %d -> %d", from, to))
	}
	rs.Reset()
	return rs
}

// Rates returns the input and output rates in Hz.
func (rs *Resampler) Rates() (from, to int) { return rs.from, rs.to }

// Reset discards any pending input so the Resampler can start a new
// signal. The filter table is kept.
func (rs *Resampler) Reset() {
	rs.i, rs.p, rs.nIn, rs.nOut = 0, 0, 0, 0
	if rs.fb == nil {
		rs.buf, rs.base = rs.buf[:0], 0
		return
	}
	// The first output needs inputs -half+1 .. half; those before 0 are zero.
	lead := rs.fb.half - 1
	rs.buf = append(rs.buf[:0], make([]float32, lead)...)
	rs.base = -int64(lead)
}

// Process consumes the next chunk src of input samples and appends to dst
// every output sample that src makes computable; it returns the extended
// dst. Outputs lag the input by half the filter length (48 input samples,
// about 1.1 ms, at 44.1 kHz -> 16 kHz); Flush releases the last ones.
func (rs *Resampler) Process(dst, src []float32) []float32 {
	rs.nIn += int64(len(src))
	if rs.fb == nil {
		rs.nOut += int64(len(src))
		return append(dst, src...)
	}
	rs.buf = append(rs.buf, src...)
	return rs.drain(dst, -1)
}

// drain appends outputs while their whole window is buffered, stopping
// before output number limit when limit >= 0.
func (rs *Resampler) drain(dst []float32, limit int64) []float32 {
	fb := rs.fb
	h := int64(fb.half)
	end := rs.base + int64(len(rs.buf)) // one past the last buffered input
	for rs.i+h < end {
		if limit >= 0 && rs.nOut >= limit {
			break
		}
		k0 := rs.i - h + 1 - rs.base
		dst = append(dst, fb.at(rs.buf[k0:], rs.p))
		rs.nOut++
		rs.i, rs.p = rs.i+int64(fb.dq), rs.p+fb.dr
		if rs.p >= fb.up {
			rs.i, rs.p = rs.i+1, rs.p-fb.up
		}
	}
	// Drop input no later output needs.
	if keep := rs.i - h + 1 - rs.base; keep > 0 {
		keep = min(keep, int64(len(rs.buf)))
		n := copy(rs.buf, rs.buf[keep:])
		rs.buf = rs.buf[:n]
		rs.base += keep
	}
	return dst
}

// Flush appends the outputs still pending at the end of the signal
// (treating input after the end as zero), so that the total output count is
// ceil(inputs·to/from), and resets the Resampler for a new signal.
func (rs *Resampler) Flush(dst []float32) []float32 {
	if rs.fb != nil {
		total := rs.fb.outLen(rs.nIn)
		rs.buf = append(rs.buf, make([]float32, rs.fb.ntaps)...)
		dst = rs.drain(dst, total)
	}
	rs.Reset()
	return dst
}
