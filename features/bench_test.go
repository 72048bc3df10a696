package features

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/heed-asr/heed/audio"
	"github.com/mjibson/go-dsp/fft"
	"gonum.org/v1/gonum/dsp/fourier"
)

// BenchmarkFFT512 compares pure-Go real 512-point FFTs on one frame:
//
//   - tables: the hot path, Fbank.powerSpectrum (RealFFT.Power: pack into
//     256 complex values in bit-reversed order, butterflies on twiddles
//     made once, split, |X|²);
//   - gonum-packed: the same packing and split around gonum's in-place
//     fourier.CoefficientsRadix2 (the hot path before RealFFT);
//   - gonum-fftpack: gonum's fourier.FFT.Coefficients (buffers reused);
//   - go-dsp: github.com/mjibson/go-dsp/fft.FFTReal (allocates per call),
//     used only as an independent cross-check in tests.
func BenchmarkFFT512(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	x := make([]float64, 512)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	b.Run("tables", func(b *testing.B) {
		fb := NewFbank(DefaultConfig())
		copy(fb.frame, x)
		b.ReportAllocs()
		for b.Loop() {
			fb.powerSpectrum()
		}
	})
	b.Run("gonum-packed", func(b *testing.B) {
		p := NewRealFFT(512)
		z, pw := make([]complex128, 256), make([]float64, 256)
		b.ReportAllocs()
		for b.Loop() {
			for n := range z {
				z[n] = complex(x[2*n], x[2*n+1])
			}
			fourier.CoefficientsRadix2(z)
			for k := range pw {
				xr, xi := p.bin(z, k, 256)
				pw[k] = xr*xr + xi*xi
			}
		}
	})
	b.Run("gonum-fftpack", func(b *testing.B) {
		f := fourier.NewFFT(512)
		dst := make([]complex128, 257)
		b.ReportAllocs()
		for b.Loop() {
			f.Coefficients(dst, x)
		}
	})
	b.Run("go-dsp", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			fft.FFTReal(x)
		}
	})
}

// BenchmarkFbank measures Compute on 10 s of noise; ns/op is per 10 s, and
// the audio-s/s metric is seconds of 16 kHz audio processed per second on
// one core.
func BenchmarkFbank(b *testing.B) {
	const seconds = 10
	cfg := DefaultConfig()
	samples := noise(1, seconds*cfg.SampleRate)
	fb := NewFbank(cfg)
	dst := make([]float32, 0, fb.NumFrames(len(samples))*cfg.NumMel)
	b.ReportAllocs()
	for b.Loop() {
		dst, _ = fb.Compute(dst[:0], samples)
	}
	b.ReportMetric(seconds*float64(b.N)/b.Elapsed().Seconds(), "audio-s/s")
}

// stereoWAV builds a 16-bit PCM stereo WAV in memory: seconds of seeded
// noise plus a tone at rate Hz.
func stereoWAV(seconds, rate int) []byte {
	const channels = 2
	n := seconds * rate * channels
	b := make([]byte, 44+2*n)
	le := binary.LittleEndian
	copy(b[0:], "RIFF")
	le.PutUint32(b[4:], uint32(36+2*n))
	copy(b[8:], "WAVEfmt ")
	le.PutUint32(b[16:], 16)
	le.PutUint16(b[20:], 1) // PCM
	le.PutUint16(b[22:], channels)
	le.PutUint32(b[24:], uint32(rate))
	le.PutUint32(b[28:], uint32(rate*channels*2))
	le.PutUint16(b[32:], channels*2)
	le.PutUint16(b[34:], 16)
	copy(b[36:], "data")
	le.PutUint32(b[40:], uint32(2*n))
	rng := rand.New(rand.NewPCG(2, 2))
	for i := range n {
		v := 3000*rng.NormFloat64() + 8000*math.Sin(float64(i/channels)*0.03)
		le.PutUint16(b[44+2*i:], uint16(int16(max(-32768, min(32767, v)))))
	}
	return b
}

// BenchmarkDecodeResampleFbank runs the whole front end on 60 s of 44.1 kHz
// stereo 16-bit WAV held in memory: audio.Decode (downmix), audio.Resample
// to 16 kHz, then Fbank.Compute. The s/hour metric is the time one hour of
// such audio would take on one core (target <= 10).
func BenchmarkDecodeResampleFbank(b *testing.B) {
	const seconds, rate = 60, 44100
	wav := stereoWAV(seconds, rate)
	cfg := DefaultConfig()
	fb := NewFbank(cfg)
	var dst []float32
	b.SetBytes(int64(len(wav)))
	for b.Loop() {
		clip, err := audio.Decode(bytes.NewReader(wav), "bench.wav")
		if err != nil {
			b.Fatal(err)
		}
		s16 := audio.Resample(clip.Samples, clip.Rate, cfg.SampleRate)
		var n int
		dst, n = fb.Compute(dst[:0], s16)
		if n != fb.NumFrames(seconds*cfg.SampleRate) {
			b.Fatalf("%d frames from %d samples", n, len(s16))
		}
	}
	perOp := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(perOp*3600/seconds, "s/hour")
}
