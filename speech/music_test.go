package speech

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/heed-asr/heed/align"
	"github.com/heed-asr/heed/model"
)

// tune returns sec seconds of plucked-string music at 16 kHz: a chord
// progression (C, Am, F, G), one chord a bar of four beats of beat
// seconds, each beat a note of the chord (an arpeggio) over the chord
// struck at the bar's start, every note five harmonics that decay
// exponentially, and every fourth bar a rest; peak 0.5.
func tune(sec, beat float64, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 3))
	chords := [][]float64{{261.6, 329.6, 392.0}, {220.0, 261.6, 329.6}, {174.6, 220.0, 261.6}, {196.0, 246.9, 293.7}}
	x := make([]float64, int(sec*Rate))
	note := func(at, f, amp, tau float64) {
		i0 := int(at * Rate)
		for i := i0; i < len(x) && float64(i-i0) < 5*tau*Rate; i++ {
			t := float64(i-i0) / Rate
			env := amp * math.Exp(-t/tau) * math.Min(1, t*200)
			for k := 1; k <= 5; k++ {
				x[i] += env / float64(k) * math.Sin(2*math.Pi*f*float64(k)*t)
			}
		}
	}
	for b := 0; float64(b)*beat < sec; b++ {
		if (b/4)%4 == 3 {
			continue // a rest: the level falls as between phrases of speech
		}
		ch := chords[(b/4)%len(chords)]
		if b%4 == 0 {
			for _, f := range ch {
				note(float64(b)*beat, f/2, 0.3, 1.2)
			}
		}
		note(float64(b)*beat, ch[rng.IntN(len(ch))]*2, 0.5, 0.35)
	}
	peak := 0.0
	for _, v := range x {
		peak = math.Max(peak, math.Abs(v))
	}
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(0.5 * v / peak)
	}
	return out
}

// rms is the root mean square of x.
func rms(x []float32) float64 {
	s := 0.0
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	return math.Sqrt(s / float64(max(1, len(x))))
}

// TestHeldShare: chords and arpeggios hold their notes, a spoken sentence
// does not.
func TestHeldShare(t *testing.T) {
	_, x := setup(t)
	for _, tc := range []struct {
		name    string
		x       []float32
		musical bool
	}{
		{"arpeggio 0.3 s", tune(8, 0.3, 1), true},
		{"arpeggio 0.5 s", tune(8, 0.5, 2), true},
		{"speech", x, false},
		{"silence", make([]float32, Rate), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if h := heldShare(tc.x); musical(tc.x) != tc.musical {
				t.Errorf("heldShare %.3f, musical %v; want %v", h, !tc.musical, tc.musical)
			}
		})
	}
}

// TestMusicIsNotSpeech: music, short or long, read whole or streamed, gives
// no transcript and no words.
func TestMusicIsNotSpeech(t *testing.T) {
	b, _ := setup(t)
	a := align.NewAligner(b)
	dec := model.DefaultDecodeOptions()
	dec.Beam = 4
	for _, tc := range []struct {
		name string
		x    []float32
	}{
		{"arpeggio 0.3 s, 8 s", tune(8, 0.3, 1)},
		{"arpeggio 0.5 s, 12 s", tune(12, 0.5, 2)},
		{"arpeggio 0.25 s in pink noise, 6 s", tune(6, 0.25, 3)},
		{"arpeggio 0.4 s, 40 s", tune(40, 0.4, 4)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.Contains(tc.name, "noise") {
				n := noise(float64(len(tc.x))/Rate, rms(tc.x)/10, true, 5)
				for i := range tc.x {
					tc.x[i] += n[i]
				}
			}
			wantNothing(t, a, tc.x, dec)
		})
	}
	t.Run("stream", func(t *testing.T) {
		for _, ev := range finals(push(NewEndpointer(b, StreamOptions()), tune(8, 0.3, 6), 1600)) {
			r, err := Decode(a, ev.Segment, dec, true)
			if err != nil || r.Text != "" || len(r.Words) != 0 {
				t.Errorf("final %.2f..%.2f: text %q, %d words, error %v; want nothing",
					float64(ev.Start)/Rate, float64(ev.End)/Rate, r.Text, len(r.Words), err)
			}
		}
	})
}

// TestSpeechOverMusic: a sentence with music under it at 10 dB SNR is
// still transcribed, to about what it gives alone.
func TestSpeechOverMusic(t *testing.T) {
	b, x := setup(t)
	a := align.NewAligner(b)
	dec := model.DefaultDecodeOptions()
	dec.Beam = 4
	clean, _, err := Transcribe(a, x, dec, false, 1)
	if err != nil || clean == "" {
		t.Fatalf("clean: %q, %v", clean, err)
	}
	m := tune(float64(len(x))/Rate+0.1, 0.3, 7)
	g := rms(x) / rms(m) / math.Sqrt(10)
	mix := make([]float32, len(x))
	for i := range x {
		mix[i] = x[i] + float32(g)*m[i]
	}
	text, words, err := Transcribe(a, mix, dec, true, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(words) != len(strings.Fields(text)) || len(strings.Fields(text)) < len(strings.Fields(clean))/2 {
		t.Errorf("over music: %q (%d timed words); alone: %q", text, len(words), clean)
	}
}

// heldShareRef is heldShare as first written: a full transform by fft for
// every frame, its twiddles made as it goes.
func heldShareRef(samples []float32) float64 {
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

// TestHeldSpectrum: the spectra heldShare computes through the half-length
// complex transform are fft's of the whole frame to rounding, and heldShare
// gives the share heldShareRef gives, on music, speech, noise and silence.
func TestHeldSpectrum(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	tab := heldTabs()
	for trial := range 50 {
		x := make([]float32, heldWin)
		for j := range x {
			x[j] = float32(rng.NormFloat64() * math.Pow(10, float64(trial%7-3)))
		}
		ref := make([]complex128, heldWin)
		for j := range ref {
			ref[j] = complex(tab.hann[j]*float64(x[j]), 0)
		}
		fft(ref)
		s := make([]float64, heldHi-heldLo)
		tab.spectrum(s, x, make([]float64, heldWin), make([]complex128, heldWin/2))
		for i, v := range s {
			want := cmplx.Abs(ref[heldLo+i])
			if math.Abs(v-want) > 1e-12*want+1e-300 {
				t.Fatalf("trial %d bin %d: %g, fft %g", trial, heldLo+i, v, want)
			}
		}
	}
	_, speech := setup(t)
	for _, x := range [][]float32{tune(8, 0.3, 1), tune(6, 0.5, 7), speech, noise(3, 0.1, true, 2), make([]float32, Rate)} {
		if got, want := heldShare(x), heldShareRef(x); got != want {
			t.Errorf("heldShare %v, reference %v", got, want)
		}
	}
}

// BenchmarkHeldShare: heldShare on 3 s of music, and as first written.
func BenchmarkHeldShare(b *testing.B) {
	x := tune(3, 0.3, 1)
	b.Run("half-length", func(b *testing.B) {
		for b.Loop() {
			heldShare(x)
		}
	})
	b.Run("reference", func(b *testing.B) {
		for b.Loop() {
			heldShareRef(x)
		}
	})
}
