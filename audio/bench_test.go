package audio

import (
	"bytes"
	"testing"
)

// benchWAV is a 60 s 44.1 kHz stereo 16-bit WAV: a tone on the left, a
// different one on the right.
func benchWAV() []byte {
	const rate, secs = 44100, 60
	l := tone(rate, 440, 0.4, rate*secs)
	r := tone(rate, 1300, 0.3, rate*secs)
	b := make([]byte, 0, 4*len(l))
	for i := range l {
		b = append(b, s16(int16(l[i]*32767), int16(r[i]*32767))...)
	}
	return riff(fmtChunk(1, 2, rate, 16), data(b))
}

func BenchmarkDecodeResample(b *testing.B) {
	wav := benchWAV()
	const secs = 60
	run := func(b *testing.B, f func() []float32) {
		b.SetBytes(int64(len(wav)))
		b.ReportAllocs()
		for b.Loop() {
			if n := len(f()); n != secs*TargetRate {
				b.Fatalf("%d samples", n)
			}
		}
		b.ReportMetric(secs*float64(b.N)/b.Elapsed().Seconds(), "audio-s/s")
	}
	b.Run("Decode+Resample", func(b *testing.B) {
		run(b, func() []float32 {
			c, err := Decode(bytes.NewReader(wav), "bench")
			if err != nil {
				b.Fatal(err)
			}
			return Resample(c.Samples, c.Rate, TargetRate)
		})
	})
	b.Run("fused(Load16k)", func(b *testing.B) {
		run(b, func() []float32 {
			c, err := decode(bytes.NewReader(wav), "bench", int64(len(wav)), TargetRate)
			if err != nil {
				b.Fatal(err)
			}
			return c.Samples
		})
	})
	b.Run("Stream", func(b *testing.B) {
		buf := make([]float32, 4096)
		run(b, func() []float32 {
			s, err := NewStream(bytes.NewReader(wav), "bench", StreamOptions{})
			if err != nil {
				b.Fatal(err)
			}
			out, err := readAll(s, buf)
			if err != nil {
				b.Fatal(err)
			}
			return out
		})
	})
}

func BenchmarkDecode(b *testing.B) {
	wav := benchWAV()
	b.SetBytes(int64(len(wav)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(bytes.NewReader(wav), "bench"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(60*float64(b.N)/b.Elapsed().Seconds(), "audio-s/s")
}

func BenchmarkNewFilterBank(b *testing.B) {
	for b.Loop() {
		newFilterBank(44100, 16000)
	}
}
