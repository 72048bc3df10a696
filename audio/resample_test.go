package audio

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func tone(rate int, freq, amp float64, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(amp * math.Sin(2*math.Pi*freq*float64(i)/float64(rate)))
	}
	return x
}

// rmsDB returns the RMS level of x in dB relative to full-scale sine
// amplitude amp (0 dB = a sine of amplitude amp).
func rmsDB(x []float32, amp float64) float64 {
	var s float64
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	rms := math.Sqrt(s / float64(len(x)))
	return 20 * math.Log10(rms/(amp/math.Sqrt2))
}

func TestResampleTone(t *testing.T) {
	const amp = 0.5
	tests := []struct {
		from, to int
		freq     float64
		wantDB   float64 // expected level change
		tolDB    float64 // allowed deviation; 0 means "at most wantDB"
	}{
		{44100, 16000, 1000, 0, 0.1},
		{48000, 16000, 7000, 0, 1},
		{48000, 16000, 9000, -60, 0},
		{44100, 16000, 9000, -60, 0},
		{44100, 16000, 15000, -60, 0},
		{22050, 16000, 9000, -60, 0},
		{96000, 16000, 10000, -60, 0},
		{192000, 16000, 1000, 0, 0.1},
		{192000, 8000, 4600, -60, 0},
		{8000, 16000, 1000, 0, 0.1},
		{8000, 16000, 3400, 0, 0.1},
		{11025, 16000, 1000, 0, 0.1},
		{16000, 44100, 5000, 0, 0.1},
		{16000, 48000, 7000, 0, 0.1},
		{8001, 16000, 1000, 0, 0.1}, // interpolated-phase table
		{16000, 8001, 1000, 0, 0.1},
		{16000, 8001, 4600, -60, 0},
		{44100, 48000, 19000, 0, 0.1},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%d-%d-%gHz", tc.from, tc.to, tc.freq), func(t *testing.T) {
			in := tone(tc.from, tc.freq, amp, tc.from/2) // 0.5 s
			out := Resample(in, tc.from, tc.to)
			if want := (len(in)*tc.to + tc.from - 1) / tc.from; len(out) != want {
				t.Fatalf("len(out) = %d, want %d", len(out), want)
			}
			// Skip 20 ms at each end, where the signal starts and stops.
			skip := tc.to / 50
			got := rmsDB(out[skip:len(out)-skip], amp)
			if tc.tolDB == 0 {
				if got > tc.wantDB {
					t.Errorf("level %.2f dB, want at most %.1f dB", got, tc.wantDB)
				}
				return
			}
			if math.Abs(got-tc.wantDB) > tc.tolDB {
				t.Errorf("level %.3f dB, want %.1f ± %.2f dB", got, tc.wantDB, tc.tolDB)
			}
		})
	}
}

// TestResampleWaveform checks the output against the analytic signal at the
// output instants, which pins down gain, phase and the zero delay.
func TestResampleWaveform(t *testing.T) {
	const (
		amp = 0.5
		tol = 2e-4 // absolute; 70 dB stopband and fp32 rounding
	)
	tests := []struct {
		from, to int
		freq     float64
	}{
		{44100, 16000, 1000},
		{48000, 16000, 3000},
		{8000, 16000, 440},
		{22050, 16000, 6000},
		{8001, 16000, 1000},
		{16000, 44100, 2500},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%d-%d-%gHz", tc.from, tc.to, tc.freq), func(t *testing.T) {
			out := Resample(tone(tc.from, tc.freq, amp, tc.from/4), tc.from, tc.to)
			skip := tc.to / 50
			var worst float64
			for n := skip; n < len(out)-skip; n++ {
				want := amp * math.Sin(2*math.Pi*tc.freq*float64(n)/float64(tc.to))
				worst = max(worst, math.Abs(float64(out[n])-want))
			}
			if worst > tol {
				t.Errorf("max |error| = %.3g, want <= %g", worst, tol)
			}
		})
	}
}

func TestResampleSame(t *testing.T) {
	src := []float32{1, 2, 3}
	if got := Resample(src, 16000, 16000); &got[0] != &src[0] || len(got) != 3 {
		t.Errorf("Resample with from == to did not return src itself")
	}
	if got := Resample(nil, 44100, 16000); len(got) != 0 {
		t.Errorf("Resample(nil) has %d samples", len(got))
	}
	if got := Resample([]float32{0.5}, 8000, 16000); len(got) != 2 {
		t.Errorf("Resample of 1 sample 8k->16k gave %d samples, want 2", len(got))
	}
}

func TestResamplePanics(t *testing.T) {
	tests := []struct{ from, to int }{{0, 16000}, {16000, 0}, {-1, -1}, {192000, 100}}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%d-%d", tc.from, tc.to), func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("no panic")
				}
			}()
			Resample([]float32{1}, tc.from, tc.to)
		})
	}
}

// TestResamplerChunking feeds random chunkings to a Resampler and compares
// with Resample. The two run the same arithmetic on the same values, so
// the outputs must be identical.
func TestResamplerChunking(t *testing.T) {
	const tol = 0 // bit-exact by construction
	rng := rand.New(rand.NewPCG(1, 2))
	rates := [][2]int{{44100, 16000}, {48000, 16000}, {8000, 16000}, {16000, 16000},
		{22050, 16000}, {8001, 16000}, {16000, 44100}, {192000, 16000}, {11025, 8000}}
	for _, r := range rates {
		for _, n := range []int{0, 1, 7, 100, 5000} {
			t.Run(fmt.Sprintf("%d-%d-n%d", r[0], r[1], n), func(t *testing.T) {
				src := make([]float32, n)
				for i := range src {
					src[i] = float32(rng.Float64()*2 - 1)
				}
				want := Resample(src, r[0], r[1])
				rs := NewResampler(r[0], r[1])
				for trial := range 3 {
					var got []float32
					for pos := 0; pos < n; {
						c := min(n-pos, rng.IntN(3+trial*400))
						got = rs.Process(got, src[pos:pos+c])
						pos += c
					}
					got = rs.Flush(got)
					if len(got) != len(want) {
						t.Fatalf("trial %d: %d samples, want %d", trial, len(got), len(want))
					}
					for i := range got {
						if d := math.Abs(float64(got[i] - want[i])); d > tol {
							t.Fatalf("trial %d: sample %d = %g, want %g", trial, i, got[i], want[i])
						}
					}
				}
			})
		}
	}
}

func BenchmarkResample(b *testing.B) {
	for _, r := range [][2]int{{44100, 16000}, {48000, 16000}, {8000, 16000}} {
		b.Run(fmt.Sprintf("%d-%d", r[0], r[1]), func(b *testing.B) {
			src := tone(r[0], 440, 0.5, r[0]*10) // 10 s
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				Resample(src, r[0], r[1])
			}
			b.ReportMetric(10*float64(b.N)/b.Elapsed().Seconds(), "audio-s/s")
		})
	}
}

// TestResampleResponse sweeps tones across the passband (up to 0.875 of
// the output Nyquist frequency) and the stopband (from 1.125 of it) of
// several downsampling ratios. Measured: passband within ±0.0075 dB,
// stopband at most -70.8 dB.
func TestResampleResponse(t *testing.T) {
	const (
		amp       = 0.5
		passTolDB = 0.01
		stopDB    = -70
	)
	for _, r := range [][2]int{{48000, 16000}, {44100, 16000}, {22050, 16000}} {
		t.Run(fmt.Sprintf("%d-%d", r[0], r[1]), func(t *testing.T) {
			nyq := float64(r[1]) / 2
			for f := 50.0; f < float64(r[0])/2; f += 331 {
				if f > 0.875*nyq && f < 1.125*nyq {
					continue // transition band
				}
				out := Resample(tone(r[0], f, amp, r[0]/4), r[0], r[1])
				skip := r[1] / 50
				db := rmsDB(out[skip:len(out)-skip], amp)
				if f <= 0.875*nyq && math.Abs(db) > passTolDB {
					t.Errorf("%g Hz: passband level %.4f dB", f, db)
				}
				if f >= 1.125*nyq && db > stopDB {
					t.Errorf("%g Hz: stopband level %.1f dB", f, db)
				}
			}
		})
	}
}

// hannLevelDB is the level in dB (re amplitude amp) of the component of x
// at freq Hz, from a Hann-windowed DFT; the window keeps leakage from other
// tones far below -100 dB.
func hannLevelDB(x []float32, rate int, freq, amp float64) float64 {
	var re, im, wsum float64
	n := len(x)
	for i, v := range x {
		w := 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/float64(n-1))
		ph := 2 * math.Pi * freq * float64(i) / float64(rate)
		re += w * float64(v) * math.Cos(ph)
		im += w * float64(v) * math.Sin(ph)
		wsum += w
	}
	return 20 * math.Log10(2*math.Hypot(re, im)/wsum/amp)
}

// TestResampleImages checks upsampling: the tone keeps its level and its
// image at (input rate - f) is at least 70 dB down.
func TestResampleImages(t *testing.T) {
	const (
		amp    = 0.5
		tolDB  = 0.01
		stopDB = -70
	)
	tests := []struct {
		from, to int
		freq     float64
	}{
		{8000, 16000, 1000}, {8000, 16000, 3000}, {8000, 16000, 3500},
		{11025, 16000, 4000}, {16000, 44100, 6500},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%d-%d-%gHz", tc.from, tc.to, tc.freq), func(t *testing.T) {
			out := Resample(tone(tc.from, tc.freq, amp, tc.from/2), tc.from, tc.to)
			skip := tc.to / 50
			out = out[skip : len(out)-skip]
			if db := hannLevelDB(out, tc.to, tc.freq, amp); math.Abs(db) > tolDB {
				t.Errorf("tone level %.4f dB", db)
			}
			img := float64(tc.from) - tc.freq
			if db := hannLevelDB(out, tc.to, img, amp); db > stopDB {
				t.Errorf("image at %g Hz: %.1f dB", img, db)
			}
		})
	}
}

func TestResampleDC(t *testing.T) {
	const tol = 1e-6 // every phase of the table sums to 1
	for _, r := range [][2]int{{44100, 16000}, {8000, 16000}, {8001, 16000}, {16000, 44100}} {
		t.Run(fmt.Sprintf("%d-%d", r[0], r[1]), func(t *testing.T) {
			src := make([]float32, r[0]/10)
			for i := range src {
				src[i] = 0.5
			}
			out := Resample(src, r[0], r[1])
			skip := r[1] / 100
			for i := skip; i < len(out)-skip; i++ {
				if math.Abs(float64(out[i])-0.5) > tol {
					t.Fatalf("sample %d = %v, want 0.5", i, out[i])
				}
			}
		})
	}
}

// TestResampleConcurrent runs Resample from several goroutines on the
// shared table cache (meaningful under -race).
func TestResampleConcurrent(t *testing.T) {
	src := tone(44100, 440, 0.5, 4410)
	want := Resample(src, 44100, 16000)
	done := make(chan []float32)
	for range 4 {
		go func() { done <- Resample(src, 44100, 16000) }()
	}
	for range 4 {
		if got := <-done; !slices.Equal(got, want) {
			t.Errorf("concurrent Resample differs")
		}
	}
}
