package speech

import (
	"math"
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
