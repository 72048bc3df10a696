package normalize

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

var spokenRE = regexp.MustCompile(`^[a-z']+$`)

// FuzzNormalize checks that Normalize never panics, keeps every
// whitespace-separated token once and in order, and yields only words over
// a-z and the apostrophe, and that a token's variants are distinct valid
// readings, at most MaxVariants, the first equal to its spoken words.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		"Dr. Smith paid $42.50 on May 3rd, 1999.",
		"10:05 am — St. Paul & Main St. e.g. 12% of €2bn",
		"-$1.5 million 1990s '90s #7 U.S.A. don't",
		"In 2019, 1905 and 1,250: $1,250.75, 007, 0.5, 12% at 10:30pm on May 3 (NASA)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		txt, err := Normalize(s)
		if !utf8.ValidString(s) {
			if err == nil {
				t.Fatalf("Normalize(%q): no error for invalid UTF-8", s)
			}
			return
		}
		if err != nil {
			t.Fatalf("Normalize(%q): %v", s, err)
		}
		fields := strings.Fields(s)
		if len(txt.Tokens) != len(fields) {
			t.Fatalf("Normalize(%q): %d tokens, want %d", s, len(txt.Tokens), len(fields))
		}
		for i, tok := range txt.Tokens {
			if tok.Orig != fields[i] {
				t.Fatalf("token %d = %q, want %q", i, tok.Orig, fields[i])
			}
			for _, w := range tok.Spoken {
				if !spokenRE.MatchString(w) {
					t.Fatalf("Normalize(%q): token %q has bad word %q", s, tok.Orig, w)
				}
			}
			checkVariants(t, s, tok)
		}
		if n := len(txt.Words()); n != len(txt.WordTokens()) || n != txt.Offsets()[len(txt.Tokens)] {
			t.Fatalf("Normalize(%q): inconsistent word maps", s)
		}
	})
}

// checkVariants fails t unless tok.Variants is nil or holds 2 to
// MaxVariants distinct non-empty readings of valid words, the first equal
// to tok.Spoken.
func checkVariants(t *testing.T, s string, tok Token) {
	t.Helper()
	if tok.Variants == nil {
		return
	}
	if len(tok.Variants) < 2 || len(tok.Variants) > MaxVariants {
		t.Fatalf("Normalize(%q): token %q has %d variants", s, tok.Orig, len(tok.Variants))
	}
	if !slices.Equal(tok.Variants[0], tok.Spoken) {
		t.Fatalf("Normalize(%q): token %q: first variant %q, spoken %q", s, tok.Orig, tok.Variants[0], tok.Spoken)
	}
	for i, v := range tok.Variants {
		if len(v) == 0 {
			t.Fatalf("Normalize(%q): token %q: variant %d is empty", s, tok.Orig, i)
		}
		for _, w := range v {
			if !spokenRE.MatchString(w) {
				t.Fatalf("Normalize(%q): token %q: variant %q has bad word %q", s, tok.Orig, v, w)
			}
		}
		for _, u := range tok.Variants[:i] {
			if slices.Equal(u, v) {
				t.Fatalf("Normalize(%q): token %q: variant %q repeated", s, tok.Orig, v)
			}
		}
	}
}
