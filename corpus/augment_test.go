package corpus

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/dsp/fourier"
)

const testRate = 16000

// toneBursts is a speech-like test signal: bursts of a few harmonics
// separated by near-silence, with word times for each burst.
func toneBursts(rng *rand.Rand) ([]float32, []Word) {
	x := make([]float32, 0, 3*testRate)
	var words []Word
	for i := range 5 {
		gap := make([]float32, testRate/10)
		for j := range gap {
			gap[j] = float32(1e-4 * rng.NormFloat64())
		}
		x = append(x, gap...)
		start := len(x)
		f0 := 100 + 40*float64(i)
		for n := range testRate / 3 {
			t := float64(n) / testRate
			v := 0.0
			for h := 1; h <= 8; h++ {
				v += math.Sin(2*math.Pi*f0*float64(h)*t) / float64(h)
			}
			x = append(x, float32(0.2*v))
		}
		words = append(words, Word{Word: "w", Start: float64(start) / testRate, End: float64(len(x)) / testRate})
	}
	return append(x, make([]float32, testRate/10)...), words
}

// snrOver measures the SNR in dB of clean within y (noise = y - clean)
// over the speech frames of clean.
func snrOver(clean, y []float32) float64 {
	noise := make([]float32, len(clean))
	for i := range clean {
		noise[i] = y[i] - clean[i]
	}
	sp := SpeechFrames(clean, testRate)
	return 10 * math.Log10(powerOver(clean, sp)/powerOver(noise, sp))
}

func TestAddNoiseSNR(t *testing.T) {
	const tol = 0.5 // dB
	rng := rand.New(rand.NewPCG(1, 2))
	x, _ := toneBursts(rng)
	babble := [][]float32{x[:testRate], x[testRate:]}
	for _, kind := range []string{NoiseWhite, NoisePink, NoiseBrown, NoiseBabble} {
		for _, snr := range []float64{0, 5, 10, 20, 30} {
			t.Run(kind+"@"+ftoa(snr), func(t *testing.T) {
				a := AugSpec{Noise: kind, SNR: snr, Seed: 7}
				y, _, _, err := a.Apply(x, testRate, nil, babble)
				if err != nil {
					t.Fatal(err)
				}
				if got := snrOver(x, y); math.Abs(got-snr) > tol {
					t.Errorf("SNR %.2f dB, want %.2f", got, snr)
				}
			})
		}
	}
	if _, _, _, err := (AugSpec{Noise: NoiseBabble, SNR: 10}).Apply(x, testRate, nil, nil); err == nil {
		t.Error("babble without sources: no error")
	}
}

func ftoa(v float64) string { return AugSpec{GainDB: v}.String() }

// spectrumSlope fits the power of x in octave bands 250 Hz..4 kHz and
// returns the mean change in dB per octave.
func spectrumSlope(x []float32) float64 {
	const n = 4096
	fft := fourier.NewFFT(n)
	pow := make([]float64, n/2+1)
	buf := make([]float64, n)
	for off := 0; off+n <= len(x); off += n {
		for i := range buf {
			buf[i] = float64(x[off+i])
		}
		for k, c := range fft.Coefficients(nil, buf) {
			pow[k] += real(c * cmplx.Conj(c))
		}
	}
	band := func(lo float64) float64 {
		s := 0.0
		for k := int(lo * n / testRate); k < int(2*lo*n/testRate); k++ {
			s += pow[k]
		}
		return s / lo // power density
	}
	return (10*math.Log10(band(4000)) - 10*math.Log10(band(250))) / 4
}

func TestNoiseColors(t *testing.T) {
	const tol = 1.0 // dB per octave
	tests := []struct {
		name string
		gen  func([]float32, *rand.Rand)
		want float64 // dB per octave of power density
	}{
		{"white", WhiteNoise, 0},
		{"pink", PinkNoise, -3},
		{"brown", BrownNoise, -6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := make([]float32, 20*4096)
			tc.gen(x, rand.New(rand.NewPCG(3, 4)))
			if ms := MeanSquare(x); math.Abs(ms-1) > 0.05 {
				t.Errorf("mean square %.3f, want 1", ms)
			}
			if got := spectrumSlope(x); math.Abs(got-tc.want) > tol {
				t.Errorf("slope %.2f dB/octave, want %.2f", got, tc.want)
			}
		})
	}
}

func TestSpeedDuration(t *testing.T) {
	const tol = 2e-3 // relative
	rng := rand.New(rand.NewPCG(5, 6))
	x, words := toneBursts(rng)
	for _, f := range []float64{0.9, 0.95, 1.05, 1.1} {
		t.Run(ftoa(f), func(t *testing.T) {
			y, ws, _, err := AugSpec{Speed: f}.Apply(x, testRate, words, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := float64(len(y)), float64(len(x))/f; math.Abs(got-want) > tol*want {
				t.Errorf("length %v, want %v", got, want)
			}
			for i, w := range ws {
				if want := words[i].End / f; math.Abs(w.End-want) > 1e-3 {
					t.Errorf("word %d ends at %.4f, want %.4f", i, w.End, want)
				}
				// The word's energy moved with it: the scaled span holds
				// the burst.
				a, b := int(w.Start*testRate), int(w.End*testRate)
				if ms := MeanSquare(y[a+80 : b-80]); ms < 0.01 {
					t.Errorf("word %d: scaled span is quiet (%.3g)", i, ms)
				}
			}
		})
	}
}

// toneLevel is the RMS of the steady part of y for a sine input.
func toneLevel(y []float32) float64 {
	return math.Sqrt(MeanSquare(y[len(y)/4 : 3*len(y)/4]))
}

func TestTelephoneBand(t *testing.T) {
	tests := []struct {
		freq   float64 // Hz
		wantDB float64 // gain limit
		below  bool    // gain must be below wantDB, else above
	}{
		{100, -15, true},
		{1000, -1, false},
		{2000, -1, false},
		{5000, -30, true},
		{7000, -30, true},
	}
	for _, tc := range tests {
		t.Run(ftoa(tc.freq), func(t *testing.T) {
			x := make([]float32, testRate)
			for i := range x {
				x[i] = float32(0.5 * math.Sin(2*math.Pi*tc.freq*float64(i)/testRate))
			}
			y := Telephone(x, testRate)
			if len(y) != len(x) {
				t.Fatalf("length %d, want %d", len(y), len(x))
			}
			g := 20 * math.Log10(toneLevel(y)/toneLevel(x))
			if tc.below && g > tc.wantDB || !tc.below && g < tc.wantDB {
				t.Errorf("gain %.1f dB at %v Hz (limit %v, below=%v)", g, tc.freq, tc.wantDB, tc.below)
			}
		})
	}
}

func TestConvolveDirect(t *testing.T) {
	const tol = 1e-5
	rng := rand.New(rand.NewPCG(8, 9))
	for _, n := range [][2]int{{1, 1}, {5, 3}, {100, 37}, {257, 256}} {
		x := make([]float32, n[0])
		h := make([]float32, n[1])
		WhiteNoise(x, rng)
		WhiteNoise(h, rng)
		got := Convolve(x, h)
		if len(got) != n[0]+n[1]-1 {
			t.Fatalf("length %d, want %d", len(got), n[0]+n[1]-1)
		}
		for i := range got {
			want := 0.0
			for j := range h {
				if k := i - j; k >= 0 && k < len(x) {
					want += float64(x[k]) * float64(h[j])
				}
			}
			if math.Abs(float64(got[i])-want) > tol*(1+math.Abs(want)) {
				t.Fatalf("n=%v: y[%d] = %v, want %v", n, i, got[i], want)
			}
		}
	}
}

func TestReverbDecay(t *testing.T) {
	const tol = 0.1 // relative error of the measured RT60
	for _, rt60 := range []float64{0.2, 0.5, 0.8} {
		t.Run(ftoa(rt60), func(t *testing.T) {
			h := ImpulseResponse(testRate, rt60, 3, rand.New(rand.NewPCG(10, 11)))
			if len(h) != int(rt60*testRate) || h[0] != 1 {
				t.Fatalf("len %d h[0] %v", len(h), h[0])
			}
			// Schroeder backward integration; fit the -5..-25 dB decay.
			e := make([]float64, len(h))
			s := 0.0
			for i := len(h) - 1; i >= 1; i-- {
				s += float64(h[i]) * float64(h[i])
				e[i] = s
			}
			var t5, t25 float64
			for i := 1; i < len(h); i++ {
				db := 10 * math.Log10(e[i]/e[1])
				if t5 == 0 && db <= -5 {
					t5 = float64(i) / testRate
				}
				if db <= -25 {
					t25 = float64(i) / testRate
					break
				}
			}
			got := 3 * (t25 - t5) // T20 extrapolated to 60 dB
			if math.Abs(got-rt60) > tol*rt60 {
				t.Errorf("measured RT60 %.3f s, want %.3f", got, rt60)
			}
			rng := rand.New(rand.NewPCG(12, 13))
			x, _ := toneBursts(rng)
			y := Reverb(x, testRate, rt60, 3, rng)
			if len(y) < len(x) || len(y) > len(x)+int(0.3*testRate) {
				t.Errorf("reverb length %d for input %d", len(y), len(x))
			}
			if r := MeanSquare(y[:len(x)]) / MeanSquare(x); math.Abs(r-1) > 1e-3 {
				t.Errorf("level changed by a factor %.4f", r)
			}
		})
	}
}

func TestApplyGainNoClip(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 15))
	x, _ := toneBursts(rng)
	tests := []struct {
		gain     float64
		wantPeak float64 // expected peak, 0 = x's peak times the gain
	}{
		{-10, 0},
		{-3, 0},
		{6, 0},
		{10, 0.98},
		{20, 0.98},
	}
	peakX := 0.0
	for _, v := range x {
		peakX = max(peakX, math.Abs(float64(v)))
	}
	for _, tc := range tests {
		t.Run(ftoa(tc.gain), func(t *testing.T) {
			y, _, a, err := AugSpec{GainDB: tc.gain}.Apply(x, testRate, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			peak := 0.0
			for _, v := range y {
				peak = max(peak, math.Abs(float64(v)))
			}
			want := tc.wantPeak
			if want == 0 {
				want = peakX * math.Pow(10, tc.gain/20)
			}
			if math.Abs(peak-want) > 1e-3 {
				t.Errorf("peak %.4f, want %.4f (applied %v dB)", peak, want, a.GainDB)
			}
			if tc.wantPeak == 0 && a.GainDB != tc.gain {
				t.Errorf("recorded gain %v, want %v", a.GainDB, tc.gain)
			}
		})
	}
}

func TestRandomAugDeterministic(t *testing.T) {
	rng1 := rand.New(rand.NewPCG(1, 1))
	rng2 := rand.New(rand.NewPCG(1, 1))
	x, words := toneBursts(rand.New(rand.NewPCG(2, 2)))
	babble := [][]float32{x}
	seen := make(map[string]bool)
	for range 200 {
		a, b := RandomAug(rng1, true), RandomAug(rng2, true)
		if a != b {
			t.Fatalf("same seed, different specs: %+v %+v", a, b)
		}
		if a.String() == "" {
			t.Fatal("empty augmentation drawn")
		}
		if a.Speed != 0 && (a.Speed < 0.9 || a.Speed > 1.1) || a.RT60 != 0 && (a.RT60 < 0.2 || a.RT60 > 0.8) || a.GainDB < -10 || a.GainDB > 6 {
			t.Fatalf("out of range: %+v", a)
		}
		seen[a.Noise] = true
		if len(seen) < 5 {
			y1, _, _, err1 := a.Apply(x, testRate, words, babble)
			y2, _, _, err2 := b.Apply(x, testRate, words, babble)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			for i := range y1 {
				if y1[i] != y2[i] {
					t.Fatalf("%s: sample %d differs between runs", a, i)
				}
			}
		}
	}
	for _, k := range []string{"", NoiseWhite, NoisePink, NoiseBrown, NoiseBabble} {
		if !seen[k] {
			t.Errorf("noise %q never drawn", k)
		}
	}
}

func TestAugSpecString(t *testing.T) {
	tests := []struct {
		a    AugSpec
		want string
	}{
		{AugSpec{}, ""},
		{AugSpec{Speed: 1}, ""},
		{AugSpec{Speed: 0.95, Noise: NoisePink, SNR: 12}, "speed0.95+noise:pink@12dB"},
		{AugSpec{RT60: 0.45, Telephone: true, GainDB: -3}, "reverb0.45s+tel+gain-3dB"},
	}
	for _, tc := range tests {
		if got := tc.a.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.a, got, tc.want)
		}
	}
}
