//go:build espeak

package corpus

import (
	"strings"
	"testing"
)

func TestEspeakWordTimes(t *testing.T) {
	e, err := NewEspeak()
	if err != nil {
		t.Fatal(err)
	}
	if e.SampleRate() != 22050 {
		t.Fatalf("sample rate %d, want 22050", e.SampleRate())
	}
	// Slack for word ends against the audio length, in seconds.
	const tol = 1e-3
	tests := []struct {
		text  string
		voice EspeakVoice
	}{
		{"tell me about the weather in the city for the night", EspeakVoice{Name: "en-us", Rate: 175, Pitch: 50, Range: 50}},
		{"he put it in the box of the king and went to the pub at the end of a day on the hill", EspeakVoice{Name: "en", Variant: "m3", Rate: 220, Pitch: 40, Range: 60}},
		{"four five two one", EspeakVoice{Name: "en-gb-scotland", Variant: "f1", Rate: 130, Pitch: 70, Range: 50}},
		{"won't you tell 'em i'd go", EspeakVoice{Name: "en-029", Variant: "klatt2", Rate: 260, Pitch: 30, Range: 40}},
		{"xylyl quixotry zymurgy", EspeakVoice{Name: "en-us-nyc", Variant: "m7", Rate: 110, Pitch: 20, Range: 50}},
		{"a", EspeakVoice{Name: "en-gb-x-rp", Rate: 175, Pitch: 50, Range: 50}},
		// No word event for "human" in this voice.
		{"human skin is actually made up of cells", EspeakVoice{Name: "en-us-nyc", Variant: "f5", Rate: 180, Pitch: 50, Range: 50, Volume: 60}},
	}
	for _, tc := range tests {
		t.Run(tc.voice.String()+"/"+tc.text, func(t *testing.T) {
			x, words, err := e.Synthesize(tc.text, tc.voice)
			if err != nil {
				t.Fatal(err)
			}
			dur := float64(len(x)) / float64(e.SampleRate())
			fields := strings.Fields(tc.text)
			if len(words) != len(fields) {
				t.Fatalf("%d words, want %d", len(words), len(fields))
			}
			thr := silenceThreshold(x, e.SampleRate())
			prevEnd := 0.0
			for i, w := range words {
				if w.Word != fields[i] {
					t.Errorf("word %d is %q, want %q", i, w.Word, fields[i])
				}
				if w.Start < prevEnd || w.End <= w.Start || w.End > dur+tol {
					t.Errorf("word %d %q: %.4f..%.4f after previous end %.4f, audio %.4f s", i, w.Word, w.Start, w.End, prevEnd, dur)
				}
				prevEnd = w.End
				// Ear-free check: the first and last 5 ms of every word
				// hold sound (trimmed by energy), and the word's own energy
				// is well above silence.
				a := int(w.Start * float64(e.SampleRate()))
				b := int(w.End * float64(e.SampleRate()))
				f := e.SampleRate() / 200
				if b-a >= 2*f {
					if ms := MeanSquare(x[a : a+f]); ms < thr/2 {
						t.Errorf("word %d %q starts in silence (%.3g < %.3g)", i, w.Word, ms, thr)
					}
					if ms := MeanSquare(x[b-f : b]); ms < thr/2 {
						t.Errorf("word %d %q ends in silence (%.3g < %.3g)", i, w.Word, ms, thr)
					}
				}
				if ms := MeanSquare(x[a:b]); ms < 100*thr {
					t.Errorf("word %d %q is nearly silent: %.3g", i, w.Word, ms)
				}
			}
			// Before the first word and after the last is quiet.
			a := int(words[0].Start * float64(e.SampleRate()))
			if a > 0 && MeanSquare(x[:a]) > 10*thr {
				t.Errorf("sound before the first word: %.3g", MeanSquare(x[:a]))
			}
			t.Logf("%.2f s: %v", dur, words)
		})
	}
}

func TestEspeakBadVoice(t *testing.T) {
	e, err := NewEspeak()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.Synthesize("hello", EspeakVoice{Name: "xx-nonexistent", Rate: 175, Pitch: 50}); err == nil {
		t.Error("no error for an unknown voice")
	}
	if _, _, err := e.Synthesize("Hello!", EspeakVoice{Name: "en-us", Rate: 175, Pitch: 50}); err == nil {
		t.Error("no error for text outside the alphabet")
	}
}
