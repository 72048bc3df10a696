package align

import (
	"math"
	"math/rand"
	"testing"

	"github.com/heed-asr/heed/align/normalize"
	"github.com/heed-asr/heed/model"
)

// TestChooseReadings spells one reading of a written text into synthetic
// CTC posteriors (spell) and checks that ChooseReadings picks it, whether
// it is the default, shorter or longer than the default.
func TestChooseReadings(t *testing.T) {
	tests := []struct {
		name, written, said string
		want                string // Transcript after the choice
		changed             bool
	}{
		{"default kept", "in 2019 we met", "in twenty nineteen we met", "in twenty nineteen we met", false},
		{"longer reading", "in 2019 we met", "in two thousand nineteen we met", "in two thousand nineteen we met", true},
		{"with and", "in 2019 we met", "in two thousand and nineteen we met", "in two thousand and nineteen we met", true},
		{"shorter reading", "paid $42.50 today", "paid forty two fifty today", "paid forty two fifty today", true},
		{"default among longer", "paid $42.50 today", "paid forty two dollars and fifty cents today", "paid forty two dollars and fifty cents today", false},
		{"street", "on St. Paul", "on street paul", "on street paul", true},
		{"two tokens", "In 1905, 1,250 came", "in nineteen hundred and five twelve hundred fifty came", "in nineteen hundred and five twelve hundred fifty came", true},
		{"first token", "2019 was", "two thousand nineteen was", "two thousand nineteen was", true},
		{"only token", "2019", "two thousand and nineteen", "two thousand and nineteen", true},
	}
	garbage := DefaultSegOptions().GarbageLogProb
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			txt, err := normalize.Normalize(tt.written)
			if err != nil {
				t.Fatal(err)
			}
			logp, T, _ := spell(tt.said, 5, rand.New(rand.NewSource(1)))
			V := model.VocabSize
			seg := CTCSegment(logp, T, V, Transcript(txt), sentenceEnds(txt), DefaultSegOptions())
			got, changed := ChooseReadings(logp, T, V, txt, seg, garbage)
			if s := Transcript(got); s != tt.want || changed != tt.changed {
				t.Errorf("ChooseReadings = %q, changed %v; want %q, %v", s, changed, tt.want, tt.changed)
			}
			if changed && Transcript(txt) == Transcript(got) {
				t.Errorf("changed reported but the transcript is the same")
			}
			for i, tok := range got.Tokens {
				if tok.Orig != txt.Tokens[i].Orig || len(tok.Variants) != len(txt.Tokens[i].Variants) {
					t.Errorf("token %d changed beyond its reading: %+v", i, tok)
				}
			}
		})
	}
}

func TestChooseReadingsNoSegmentation(t *testing.T) {
	txt, err := normalize.Normalize("2019")
	if err != nil {
		t.Fatal(err)
	}
	logp, T, _ := spell("two thousand nineteen", 2, rand.New(rand.NewSource(1)))
	got, changed := ChooseReadings(logp, T, model.VocabSize, txt, nil, -9)
	if changed || got != txt {
		t.Errorf("nil segmentation: changed %v, want the text unchanged", changed)
	}
}

func TestCTCScorer(t *testing.T) {
	logp, T, _ := spell("ab ba", 0, rand.New(rand.NewSource(1)))
	s := &ctcScorer{logp: logp, V: model.VocabSize, garbage: math.Log(1e-4)}
	right := s.score(0, T, []string{"ab", "ba"})
	wrong := s.score(0, T, []string{"ab", "bb"})
	if !(right > wrong) || right < -1 {
		t.Errorf("score(ab ba) = %v, score(ab bb) = %v: want the spoken words to score near 0 and best", right, wrong)
	}
	if v := s.score(0, 3, []string{"ab", "ba"}); !math.IsInf(v, -1) {
		t.Errorf("4 labels in 3 frames scored %v, want -Inf", v)
	}
	if v := s.score(0, T, []string{"a1"}); !math.IsInf(v, -1) {
		t.Errorf("a word outside the alphabet scored %v, want -Inf", v)
	}
	// A repeated letter needs a blank between its two frames.
	ll, TT, _ := spell("l", 0, rand.New(rand.NewSource(1))) // 3 frames: l l blank
	s = &ctcScorer{logp: ll, V: model.VocabSize, garbage: math.Log(1e-4)}
	if v := s.score(0, 2, []string{"ll"}); !math.IsInf(v, -1) {
		t.Errorf("\"ll\" in 2 frames scored %v, want -Inf", v)
	}
	if v := s.score(0, TT, []string{"ll"}); math.IsInf(v, -1) {
		t.Errorf("\"ll\" in 3 frames scored -Inf")
	}
}

func TestSpokenField(t *testing.T) {
	txt, err := normalize.Normalize(`Dr. Smith's "cat," paid $5 in 2019 — don't U.S. NASA`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"doctor", "", "", "", "five dollars", "", "twenty nineteen", "", "", "", "nasa"}
	for i, tok := range txt.Tokens {
		if got := spokenField(tok); got != want[i] {
			t.Errorf("spokenField(%q) = %q, want %q", tok.Orig, got, want[i])
		}
	}
	words := TokenWords(txt, make([]Word, len(txt.Words())))
	for i, w := range words {
		if w.Spoken != want[i] {
			t.Errorf("TokenWords word %q: Spoken %q, want %q", w.Word, w.Spoken, want[i])
		}
	}
}
