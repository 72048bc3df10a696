// Package features computes the acoustic features heed's model reads: an
// 80-dimensional log-mel filterbank defined exactly as Kaldi's
// compute-fbank-feats (equivalently torchaudio.compliance.kaldi.fbank) with
// dither=0, energy_floor=0, use_energy=false, htk_compat=false,
// snip_edges=true, and per-dimension mean/variance normalisation (CMVN).
//
// # Definition
//
// Input samples are mono float32 in [-1, 1) at Config.SampleRate (16 kHz by
// default). They are first scaled by 32768, so the arithmetic happens on the
// same 16-bit-scaled values Kaldi reads from a PCM file. With the default
// Config each frame is computed as follows.
//
//  1. Framing: frame t covers samples [160t, 160t+400) (25 ms every 10 ms).
//     Only frames that fit entirely in the input are produced (snip edges), so
//     n samples give 0 frames if n < 400 and 1 + (n-400)/160 otherwise.
//  2. DC removal: the frame mean is subtracted from each of its 400 samples.
//  3. Pre-emphasis, Kaldi's variant: x[i] -= 0.97·x[i-1] for i = 399 down to 1,
//     then x[0] -= 0.97·x[0].
//  4. Povey window: x[i] *= (0.5 - 0.5·cos(2πi/399))^0.85.
//  5. The 400 samples are zero-padded to 512 and transformed with a real FFT;
//     the power spectrum P[k] = |X[k]|² is taken for bins k = 0..255 (bin
//     width 16000/512 = 31.25 Hz; the Nyquist bin 256 is not used).
//  6. Mel filterbank: with mel(f) = 1127·ln(1 + f/700), 80 triangles are
//     spaced evenly on the mel scale between mel(20 Hz) and mel(8000 Hz):
//     triangle m has left, centre and right edges at mel(20) + (m, m+1, m+2)·Δ
//     with Δ = (mel(8000) - mel(20))/81. FFT bin k contributes to triangle m
//     with weight (mel(31.25k) - left)/(centre - left) on the rising side
//     and (right - mel(31.25k))/(right - centre) on the falling side, zero
//     outside the open interval (left, right). This is how Kaldi computes the
//     weights: on the FFT bin centre frequencies, in the mel domain.
//  7. E[m] = Σ_k w[m][k]·P[k]; the feature is ln(max(E[m], ε)) with
//     ε = 1.1920929e-07 (float32 machine epsilon, Kaldi's floor).
//
// The result is natural-log power; a frame of digital silence gives
// ln(ε) ≈ -15.942 in every bin. Features are returned row-major,
// frames × NumMel.
//
// Fbank computes in float64 internally (the FFT is gonum's dsp/fourier) and
// rounds to float32 at the end. On the committed speech fixture it agrees
// with torchaudio 0.13.1's float32 kaldi.fbank to a mean absolute difference
// of 5e-6 and a maximum of 7e-4; against torchaudio run in float64 on the
// noise-and-tones fixture the maximum is 1.3e-4 (see fbank_test.go).
//
// # Streaming
//
// Streamer produces exactly (bitwise) the frames of Fbank.Compute from audio
// that arrives in arbitrary chunks, keeping only the samples that future
// frames still need.
//
// # Normalisation
//
// CMVNStats accumulates per-dimension statistics in float64 over a corpus;
// its Finish gives a CMVN (mean and standard deviation per dimension) that is
// stored in the model file and applied to every utterance's features.
package features

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
)

// LogFloor is the floor applied to mel energies before the natural log:
// float32 machine epsilon, as in Kaldi. ln(LogFloor) ≈ -15.942385 is the
// smallest value a feature can take.
const LogFloor = 1.1920928955078125e-07

// sampleScale converts samples in [-1, 1) to the 16-bit integer scale Kaldi
// computes on.
const sampleScale = 32768

// Config describes the filterbank. All fields are required; DefaultConfig
// gives heed's values. Use Validate to check a Config that came from a file.
type Config struct {
	// SampleRate is the input sample rate in Hz (16000).
	SampleRate int `json:"sample_rate"`
	// NumMel is the number of mel bins, the feature dimension (80).
	NumMel int `json:"num_mel"`
	// FrameLength is the frame (window) length in samples (400 = 25 ms).
	FrameLength int `json:"frame_length"`
	// FrameShift is the hop between frame starts in samples (160 = 10 ms).
	FrameShift int `json:"frame_shift"`
	// FFTSize is the zero-padded FFT length in samples, a power of two not
	// smaller than FrameLength (512).
	FFTSize int `json:"fft_size"`
	// LowFreq is the lower edge of the first mel triangle in Hz (20).
	LowFreq float64 `json:"low_freq"`
	// HighFreq is the upper edge of the last mel triangle in Hz. As in
	// Kaldi, a value <= 0 is an offset from the Nyquist frequency, so 0 (the
	// default) means SampleRate/2.
	HighFreq float64 `json:"high_freq"`
	// PreEmph is the pre-emphasis coefficient in [0, 1] (0.97).
	PreEmph float64 `json:"pre_emph"`
}

// DefaultConfig returns heed's filterbank: 16 kHz, 80 mel bins, 400-sample
// (25 ms) frames every 160 samples (10 ms), 512-point FFT, 20 Hz to Nyquist,
// pre-emphasis 0.97.
func DefaultConfig() Config {
	return Config{
		SampleRate:  16000,
		NumMel:      80,
		FrameLength: 400,
		FrameShift:  160,
		FFTSize:     512,
		LowFreq:     20,
		HighFreq:    0,
		PreEmph:     0.97,
	}
}

// ErrConfig is wrapped by every error Validate returns.
var ErrConfig = errors.New("features: invalid config")

// highFreq resolves the Kaldi convention for HighFreq <= 0.
func (c Config) highFreq() float64 {
	if c.HighFreq <= 0 {
		return c.HighFreq + 0.5*float64(c.SampleRate)
	}
	return c.HighFreq
}

// Validate reports whether c describes a computable filterbank, with the same
// checks Kaldi makes (including that no mel triangle is empty). The error
// wraps ErrConfig.
func (c Config) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrConfig}, args...)...)
	}
	switch {
	case c.SampleRate <= 0:
		return bad("sample rate %d Hz", c.SampleRate)
	case c.NumMel <= 3:
		return bad("num mel %d, need at least 4", c.NumMel)
	case c.FrameLength < 2:
		return bad("frame length %d samples, need at least 2", c.FrameLength)
	case c.FrameShift <= 0:
		return bad("frame shift %d samples", c.FrameShift)
	case c.FFTSize < c.FrameLength || c.FFTSize&(c.FFTSize-1) != 0:
		return bad("FFT size %d is not a power of two >= frame length %d", c.FFTSize, c.FrameLength)
	case !(c.PreEmph >= 0 && c.PreEmph <= 1):
		return bad("pre-emphasis %g outside [0, 1]", c.PreEmph)
	}
	nyq := 0.5 * float64(c.SampleRate)
	hi := c.highFreq()
	if !(c.LowFreq >= 0 && c.LowFreq < nyq && hi > 0 && hi <= nyq && c.LowFreq < hi) {
		return bad("low freq %g Hz and high freq %g Hz vs Nyquist %g Hz", c.LowFreq, c.HighFreq, nyq)
	}
	for m, b := range melBanks(c) {
		if len(b.w) == 0 {
			return bad("mel bin %d of %d is empty; too many mel bins for FFT size %d", m, c.NumMel, c.FFTSize)
		}
	}
	return nil
}

// NumFrames returns the number of frames n samples give with snip edges:
// 0 if n < FrameLength, else 1 + (n-FrameLength)/FrameShift.
func (c Config) NumFrames(n int) int {
	if n < c.FrameLength {
		return 0
	}
	return 1 + (n-c.FrameLength)/c.FrameShift
}

// melScale is Kaldi's mel scale: 1127·ln(1 + f/700), f in Hz.
func melScale(f float64) float64 { return 1127 * math.Log(1+f/700) }

// melBank is one triangle stored sparsely: w[j] is the weight of FFT bin
// start+j; every stored weight is positive.
type melBank struct {
	start int
	w     []float64
}

// melBanks computes the NumMel triangles the way Kaldi's MelBanks does, on
// FFT bins 0..FFTSize/2-1. c must have passed the basic range checks.
func melBanks(c Config) []melBank {
	numBins := c.FFTSize / 2
	binWidth := float64(c.SampleRate) / float64(c.FFTSize)
	melLow, melHigh := melScale(c.LowFreq), melScale(c.highFreq())
	delta := (melHigh - melLow) / float64(c.NumMel+1)
	// mel(k) increases with k, so the bins inside a triangle's open
	// interval (left, right) are contiguous: find the first by binary
	// search instead of scanning every bin for every triangle (a hostile
	// model file may ask for thousands of both).
	mels := make([]float64, numBins)
	for k := range mels {
		mels[k] = melScale(binWidth * float64(k))
	}
	banks := make([]melBank, c.NumMel)
	for m := range banks {
		left := melLow + float64(m)*delta
		centre := melLow + float64(m+1)*delta
		right := melLow + float64(m+2)*delta
		first := sort.Search(numBins, func(k int) bool { return mels[k] > left })
		var w []float64
		for k := first; k < numBins && mels[k] < right; k++ {
			mel := mels[k]
			wt := (right - mel) / (right - centre)
			if mel <= centre {
				wt = (mel - left) / (centre - left)
			}
			w = append(w, wt)
		}
		if len(w) == 0 {
			first = 0 // an empty triangle (Validate refuses it)
		}
		banks[m] = melBank{start: first, w: w}
	}
	return banks
}

// Fbank computes log-mel filterbank features (see the package doc for the
// exact definition). It holds the window, the sparse mel weights, the FFT
// plan and scratch buffers, so one Fbank should be reused across calls.
// An Fbank is not safe for concurrent use; give each goroutine its own.
type Fbank struct {
	cfg    Config
	window []float64 // (FrameLength) Povey window

	fft *RealFFT     // the FFTSize-point real transform
	z   []complex128 // (FFTSize/2) its scratch

	// Sparse mel matrix: triangle m covers FFT bins
	// melStart[m] .. melStart[m]+melOff[m+1]-melOff[m]-1 with weights
	// melW[melOff[m]:melOff[m+1]].
	melStart []int     // (NumMel)
	melOff   []int     // (NumMel+1)
	melW     []float64 // (total nonzero weights)
	maxBin   int       // one past the highest FFT bin any triangle uses

	frame []float64 // (FFTSize) windowed frame; [FrameLength:] stays 0
	power []float64 // (FFTSize/2) power spectrum, valid below maxBin
}

// NewFbank returns an Fbank for cfg. It panics if cfg.Validate fails; check
// configs that come from files with Validate first.
func NewFbank(cfg Config) *Fbank {
	if err := cfg.Validate(); err != nil {
		panic(err.Error())
	}
	f := &Fbank{
		cfg:      cfg,
		window:   make([]float64, cfg.FrameLength),
		fft:      NewRealFFT(cfg.FFTSize),
		z:        make([]complex128, cfg.FFTSize/2),
		melStart: make([]int, cfg.NumMel),
		melOff:   make([]int, cfg.NumMel+1),
		frame:    make([]float64, cfg.FFTSize),
		power:    make([]float64, cfg.FFTSize/2),
	}
	a := 2 * math.Pi / float64(cfg.FrameLength-1)
	for i := range f.window {
		f.window[i] = math.Pow(0.5-0.5*math.Cos(a*float64(i)), 0.85)
	}
	for m, b := range melBanks(cfg) {
		f.melStart[m] = b.start
		f.melW = append(f.melW, b.w...)
		f.melOff[m+1] = len(f.melW)
		f.maxBin = max(f.maxBin, b.start+len(b.w))
	}
	return f
}

// Config returns the configuration f was built with.
func (f *Fbank) Config() Config { return f.cfg }

// Dim returns the feature dimension, Config.NumMel.
func (f *Fbank) Dim() int { return f.cfg.NumMel }

// NumFrames returns the number of frames nSamples samples give:
// 0 if nSamples < FrameLength (400), else 1 + (nSamples-FrameLength)/FrameShift.
func (f *Fbank) NumFrames(nSamples int) int { return f.cfg.NumFrames(nSamples) }

// Compute appends the features of samples (mono, in [-1, 1), at
// Config.SampleRate) to dst, row-major frames × NumMel, and returns the
// extended slice and the number of frames appended. dst may be nil; it is
// grown only when its capacity is too small, so a reused dst makes Compute
// allocation-free.
func (f *Fbank) Compute(dst, samples []float32) ([]float32, int) {
	n := f.NumFrames(len(samples))
	d := f.cfg.NumMel
	dst = slices.Grow(dst, n*d)
	out := dst[len(dst) : len(dst)+n*d]
	for t := range n {
		s := samples[t*f.cfg.FrameShift : t*f.cfg.FrameShift+f.cfg.FrameLength]
		f.computeFrame(out[t*d:(t+1)*d], s)
	}
	return dst[:len(dst)+n*d], n
}

// windowFrame applies steps 1-4 of the definition to s (FrameLength samples)
// and leaves the result in f.frame[:FrameLength].
func (f *Fbank) windowFrame(s []float32) {
	x := f.frame[:len(s)]
	var sum float64
	for i, v := range s {
		fv := float64(v) * sampleScale
		x[i] = fv
		sum += fv
	}
	mean := sum / float64(len(x))
	// DC removal and Kaldi pre-emphasis fused: with y = x - mean,
	// y[i] - p·y[i-1] = x[i] - p·x[i-1] - (1-p)·mean and y[0] - p·y[0] = (1-p)·y[0].
	// Run backwards so x[i-1] is still unmodified when x[i] is computed.
	p := f.cfg.PreEmph
	c := (1 - p) * mean
	w := f.window[:len(x)]
	for i := len(x) - 1; i > 0; i-- {
		x[i] = (x[i] - p*x[i-1] - c) * w[i]
	}
	x[0] = (1 - p) * (x[0] - mean) * w[0]
}

// powerSpectrum leaves |X[k]|², X the FFTSize-point DFT of f.frame, in
// f.power[k] for k < maxBin.
func (f *Fbank) powerSpectrum() { f.fft.Power(f.power[:f.maxBin], f.frame, f.z) }

// computeFrame writes the NumMel features of one frame s (FrameLength
// samples) to dst.
func (f *Fbank) computeFrame(dst []float32, s []float32) {
	f.windowFrame(s)
	f.powerSpectrum()
	for m := range dst {
		w := f.melW[f.melOff[m]:f.melOff[m+1]]
		p := f.power[f.melStart[m] : f.melStart[m]+len(w)]
		var e float64
		for j, wj := range w {
			e += wj * p[j]
		}
		dst[m] = float32(math.Log(max(e, LogFloor)))
	}
}
