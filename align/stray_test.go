package align

import (
	"testing"

	"github.com/heed-asr/heed/align/normalize"
)

// TestUnstrand checks that a sentence's first word left against the
// sentence before it, a pause of more than strayGap before the rest of its
// sentence, moves into its sentence (sharing the next word's span by
// characters) and is flagged, that a sentence's last word left against the
// next sentence moves back the same way, as does a last word more than
// strayFar after the rest of its sentence wherever it lies, and that words
// with no such pause, or a first word far from both sentences, stay where
// they are.
func TestUnstrand(t *testing.T) {
	txt, err := normalize.Normalize("pay me some time.\nin the other country.\nhe turned and asked them.\nshe ran.\nwe went home.\nso it goes")
	if err != nil {
		t.Fatal(err)
	}
	word := func(s string, a, b float64) Word {
		w := Word{Word: s, Start: a, End: b, Confidence: 0.9, Status: StatusAligned}
		for i, r := range s {
			d := (b - a) / float64(len(s))
			w.Chars = append(w.Chars, Char{Char: string(r), Start: a + d*float64(i), End: a + d*float64(i+1)})
		}
		return w
	}
	words := []Word{
		word("pay", 0.0, 0.3), word("me", 0.3, 0.5), word("some", 0.5, 0.9), word("time", 0.9, 1.2),
		word("in", 1.2, 1.5), // stray: against "time", 2.5 s before "the"
		word("the", 4.0, 4.5), word("other", 4.5, 5.0), word("country", 5.0, 5.6),
		word("he", 6.5, 6.7), word("turned", 6.7, 7.1), word("and", 7.1, 7.3), word("asked", 7.3, 7.8),
		word("them", 9.9, 10.2), // stray: 2.1 s after "asked", against "she"
		word("she", 10.3, 10.5), word("ran", 10.5, 10.9),
		word("we", 12.0, 12.2), word("went", 12.2, 12.6),
		word("home", 15.3, 15.7), // stray: 2.7 s after "went", 1.8 s before "so"
		word("so", 17.5, 17.7),   // 1.8 s after "home", 2.3 s before "it": stays
		word("it", 20.0, 20.2), word("goes", 20.2, 20.6),
	}
	if len(words) != len(txt.Tokens) {
		t.Fatalf("%d words for %d tokens", len(words), len(txt.Tokens))
	}
	before := append([]Word(nil), words...)
	unstrand(words, txt)
	in, the := words[4], words[5]
	if in.Start != 4.0 || the.End != 4.5 || in.End != the.Start || in.End <= in.Start || the.End <= the.Start {
		t.Errorf("in %.3f-%.3f, the %.3f-%.3f: want in from 4.0 and the to 4.5, sharing the span", in.Start, in.End, the.Start, the.End)
	}
	if got := in.End; got < 4.19 || got > 4.21 { // 2 of 5 characters
		t.Errorf("in ends at %.3f, want 4.2", got)
	}
	asked, them := words[11], words[12]
	if asked.Start != 7.3 || them.End != 7.8 || asked.End != them.Start {
		t.Errorf("asked %.3f-%.3f, them %.3f-%.3f: want them moved into the end of asked's span", asked.Start, asked.End, them.Start, them.End)
	}
	went, home := words[16], words[17]
	if went.Start != 12.2 || home.End != 12.6 || went.End != home.Start || home.Start < 12.39 || home.Start > 12.41 {
		t.Errorf("went %.3f-%.3f, home %.3f-%.3f: want home moved into the second half of went's span", went.Start, went.End, home.Start, home.End)
	}
	for _, w := range []Word{in, them, home} {
		if w.Status != StatusUncertain || w.Confidence > strayConfidence {
			t.Errorf("%s: status %s, confidence %.2f; want uncertain at most %.2f", w.Word, w.Status, w.Confidence, strayConfidence)
		}
		if w.Chars[0].Start != w.Start || w.Chars[len(w.Chars)-1].End != w.End {
			t.Errorf("%s: characters %.3f-%.3f outside the word %.3f-%.3f", w.Word, w.Chars[0].Start, w.Chars[len(w.Chars)-1].End, w.Start, w.End)
		}
	}
	for k := range words {
		if k == 4 || k == 5 || k == 11 || k == 12 || k == 16 || k == 17 {
			continue
		}
		if words[k].Start != before[k].Start || words[k].End != before[k].End || words[k].Status != before[k].Status {
			t.Errorf("%s moved: %.3f-%.3f %s, was %.3f-%.3f %s", words[k].Word, words[k].Start, words[k].End, words[k].Status, before[k].Start, before[k].End, before[k].Status)
		}
	}
}

// TestFlagUnheard: of four placed words, one squeezed under minCharSec a
// character and one laid over quiet frames only are flagged (uncertain,
// confidence at most strayConfidence); a word with sound in its span at a
// plausible pace keeps its status, and an interpolated one is left alone.
func TestFlagUnheard(t *testing.T) {
	chars := func(s string) []Char { return make([]Char, len(s)) }
	words := []Word{
		{Word: "heard", Start: 0.10, End: 0.50, Status: StatusAligned, Confidence: 0.9, Chars: chars("heard")},
		{Word: "momentum", Start: 0.50, End: 0.56, Status: StatusAligned, Confidence: 0.9, Chars: chars("momentum")},
		{Word: "pause", Start: 0.70, End: 1.00, Status: StatusAligned, Confidence: 0.8, Chars: chars("pause")},
		{Word: "gap", Start: 1.00, End: 1.01, Status: StatusInterpolated, Chars: chars("gap")},
	}
	quiet := make([]bool, 240) // 1.2 s of 5 ms frames: sound until 0.6 s, then quiet
	for f := 120; f < len(quiet); f++ {
		quiet[f] = true
	}
	flagUnheard(words, quiet)
	want := []struct {
		status string
		conf   float64
	}{{StatusAligned, 0.9}, {StatusUncertain, strayConfidence}, {StatusUncertain, strayConfidence}, {StatusInterpolated, 0}}
	for i, w := range words {
		if w.Status != want[i].status || w.Confidence != want[i].conf {
			t.Errorf("%s: %s %.2f, want %s %.2f", w.Word, w.Status, w.Confidence, want[i].status, want[i].conf)
		}
	}
}
