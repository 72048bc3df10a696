package normalize

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

var spokenRE = regexp.MustCompile(`^[a-z']+$`)

// FuzzNormalize checks that Normalize never panics, keeps every
// whitespace-separated token once and in order, and yields only words over
// a-z and the apostrophe.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		"Dr. Smith paid $42.50 on May 3rd, 1999.",
		"10:05 am — St. Paul & Main St. e.g. 12% of €2bn",
		"-$1.5 million 1990s '90s #7 U.S.A. don't",
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
		}
		if n := len(txt.Words()); n != len(txt.WordTokens()) || n != txt.Offsets()[len(txt.Tokens)] {
			t.Fatalf("Normalize(%q): inconsistent word maps", s)
		}
	})
}
