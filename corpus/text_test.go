package corpus

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseFortunes(t *testing.T) {
	in := "First one\nsecond line.\n\t\t-- Somebody Famous\n%\n%\n  Another.  \n%\nLast"
	got, err := ParseFortunes(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"First one second line.", "Another.", "Last"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestSplitSentences(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"One. Two! Three? Four", []string{"One.", "Two!", "Three?", "Four"}},
		{`He said "stop." Then left.`, []string{`He said "stop."`, "Then left."}},
		{"Wait... what?", []string{"Wait...", "what?"}},
		{"Pi is 3.14 or so. Yes.", []string{"Pi is 3.14 or so.", "Yes."}},
		{"Dr. Who is here. Ok.", []string{"Dr. Who is here.", "Ok."}},
		{"J. R. R. Tolkien wrote it.", []string{"J. R. R. Tolkien wrote it."}},
		{"So am I. You too.", []string{"So am I.", "You too."}},
		{"Q: why? A: because", []string{"Q:", "why?", "A:", "because"}},
		{"a; b", []string{"a;", "b"}},
		{"at 3:30 sharp", []string{"at 3:30 sharp"}},
		{"", nil},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := SplitSentences(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCleanSentence(t *testing.T) {
	dict := map[string]bool{"the": true, "cat": true, "sat": true, "on": true, "mat": true, "a": true}
	spell := func(tok string) (string, bool) {
		switch tok {
		case "42":
			return "forty two", true
		case "3rd":
			return "third", true
		}
		return "", false
	}
	base := CleanOptions{MinWords: 1, MaxWords: 40}
	tests := []struct {
		name string
		in   string
		opt  CleanOptions
		want string // "" = dropped
	}{
		{"plain", "The cat sat on the mat.", base, "the cat sat on the mat"},
		{"punctuation", `"Well," he said -- quietly; (really!)`, base, "well he said quietly really"},
		{"apostrophes kept inside", "Don't you know it's John's?", base, "don't you know it's john's"},
		{"quotes stripped", "'Tis 'quoted' words'", base, "tis quoted words"},
		{"hyphen splits", "A well-known fact", base, "a well known fact"},
		{"backticks", "``Hello'' she said", base, "hello she said"},
		{"digits dropped", "I have 42 cats", base, ""},
		{"digits spelled", "I have 42 cats", CleanOptions{MinWords: 1, MaxWords: 40, Numbers: spell}, "i have forty two cats"},
		{"ordinal spelled", "the 3rd time", CleanOptions{MinWords: 1, MaxWords: 40, Numbers: spell}, "the third time"},
		{"unspellable number", "route 66", CleanOptions{MinWords: 1, MaxWords: 40, Numbers: spell}, ""},
		{"decimal dropped", "pi is 3.14", base, ""},
		{"abbreviation dr", "Ask Dr. Smith", base, ""},
		{"abbreviation mr", "mr. jones", base, ""},
		{"abbreviation etc", "cats, dogs, etc.", base, ""},
		{"initialism", "e.g. this", base, ""},
		{"acronym", "The IBM machine", base, ""},
		{"shouting", "STOP THAT", base, ""},
		{"single I ok", "I am", base, "i am"},
		{"single letter", "plan b works", base, ""},
		{"url", "see www.example.org now", base, ""},
		{"http", "visit http:foo", base, ""},
		{"symbol", "fish & chips", base, ""},
		{"percent", "half % off", base, ""},
		{"non ascii", "caf\u00e9 time", base, ""},
		{"tab ok", "a\tcat", base, "a cat"},
		{"too long", strings.Repeat("word ", 41), base, ""},
		{"max length", strings.Repeat("word ", 40), base, strings.TrimSpace(strings.Repeat("word ", 40))},
		{"too short", "cat", CleanOptions{MinWords: 2, MaxWords: 40}, ""},
		{"empty", " -- ", base, ""},
		{"dict ok", "The cat sat.", CleanOptions{MinWords: 1, MaxWords: 40, Dict: dict}, "the cat sat"},
		{"dict miss", "The dog sat.", CleanOptions{MinWords: 1, MaxWords: 40, Dict: dict}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := CleanSentence(tc.in, tc.opt)
			if ok != (tc.want != "") || got != tc.want {
				t.Errorf("CleanSentence(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
			}
			if ok {
				if err := CheckText(got); err != nil {
					t.Errorf("result fails CheckText: %v", err)
				}
			}
		})
	}
}

func TestIsDev(t *testing.T) {
	n, dev := 20000, 0
	for i := range n {
		s := strings.Repeat("x", i%7) + string(rune('a'+i%26)) + strings.Repeat("y", i/26)
		a, b := IsDev(s, 0.1), IsDev(s, 0.1)
		if a != b {
			t.Fatal("IsDev not deterministic")
		}
		if a {
			dev++
			if !IsDev(s, 0.2) {
				t.Fatalf("%q in the 10%% dev set but not in the 20%% one", s)
			}
		}
	}
	if frac := float64(dev) / float64(n); frac < 0.09 || frac > 0.11 {
		t.Errorf("dev fraction %.3f, want about 0.1", frac)
	}
}

func TestBuildPrompts(t *testing.T) {
	dir := t.TempDir()
	fortunes := filepath.Join(dir, "fortunes")
	var b strings.Builder
	for i := range 300 {
		b.WriteString("The cat sat on the mat number " + strings.Repeat("very ", i%40) + "fine. Dr. Who? IBM!\n%\n")
	}
	b.WriteString("The cat sat on the mat number fine.\n%\n") // duplicate
	if err := os.WriteFile(fortunes, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	dictPath := filepath.Join(dir, "words")
	if err := os.WriteFile(dictPath, []byte("The\ncat\nsat\non\nmat\nnumber\nvery\nfine\nzebra\nquokka\naardvark\nAlice's\nx-ray\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := PromptConfig{
		FortuneFiles: []string{fortunes}, Dict: dictPath,
		NumberWords: func(n int) string { return DigitWord(n % 10) },
		MinWords:    1, MaxWords: 40,
		WordLists: 50, DigitStrings: 50, NumberPrompts: 20,
		DevFraction: 0.2, Seed: 3,
	}
	train, dev, err := BuildPrompts(cfg)
	if err != nil {
		t.Fatal(err)
	}
	train2, dev2, err := BuildPrompts(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(train, train2) || !reflect.DeepEqual(dev, dev2) {
		t.Error("BuildPrompts is not deterministic")
	}
	seen := make(map[string]bool)
	kinds := make(map[string]int)
	for _, p := range append(append([]Prompt(nil), train...), dev...) {
		if seen[p.Text] {
			t.Errorf("duplicate prompt %q", p.Text)
		}
		seen[p.Text] = true
		kinds[p.Kind]++
		if err := CheckText(p.Text); err != nil {
			t.Errorf("prompt %q: %v", p.Text, err)
		}
		if p.Kind == KindWords {
			for _, w := range strings.Fields(p.Text) {
				if w != "zebra" && w != "quokka" && w != "aardvark" {
					t.Errorf("word list %q has %q, not a rare word", p.Text, w)
				}
			}
		}
	}
	for _, p := range dev {
		if !IsDev(p.Text, cfg.DevFraction) {
			t.Errorf("dev prompt %q is not on the dev side", p.Text)
		}
	}
	for _, p := range train {
		if IsDev(p.Text, cfg.DevFraction) {
			t.Errorf("train prompt %q is on the dev side", p.Text)
		}
	}
	// 33 distinct sentences (0..32 "very", the rest is over 40 words), no
	// "dr who" or "ibm".
	if kinds[KindSentence] != 33 {
		t.Errorf("%d sentences, want 33", kinds[KindSentence])
	}
	if kinds[KindWords] == 0 || kinds[KindDigits] == 0 || kinds[KindNumber] == 0 {
		t.Errorf("missing kinds: %v", kinds)
	}
	if len(dev) == 0 || len(train) == 0 {
		t.Errorf("%d train, %d dev prompts", len(train), len(dev))
	}
}

func TestParseProse(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"paragraphs", "One line\nand the next.\n\n\nSecond.\n", []string{"One line and the next.", "Second."}},
		{"gcide entry", "Affect \\Af*fect\"\\, v. t. [imp. & p. p.\n   {Affected}.]\n   1. To act upon; to produce an {effect}.\n      [1913 Webster]\n\n            The climate affected their health. --Macaulay.\n      [1913 Webster]\n",
			[]string{"Affect , v. t.", "To act upon; to produce an effect.", "The climate affected their health."}},
		{"enumerations", "(a) A band of linen. (12) Twelve 12. x.", []string{"A band of linen. Twelve x."}},
		{"unclosed bracket", "Text [never closed\nmore", []string{"Text"}},
		{"empty", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseProse(strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
