package corpus

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"unicode"
)

// ParseFortunes splits a fortune(6) data file into its entries: entries are
// separated by lines holding only "%". Attribution lines (starting with
// "--" after optional blanks) are dropped, and each entry's lines are joined
// with single spaces.
func ParseFortunes(r io.Reader) ([]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, " "))
			cur = cur[:0]
		}
	}
	for sc.Scan() {
		line := sc.Text()
		t := strings.TrimSpace(line)
		switch {
		case t == "%":
			flush()
		case strings.HasPrefix(t, "--"):
			// attribution
		case t != "":
			cur = append(cur, t)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	flush()
	return out, nil
}

// abbreviations are tokens ending in a period that do not end a sentence
// and that a synthesizer reads differently from how they are written; a
// sentence holding one is dropped.
var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "st": true, "jr": true,
	"sr": true, "vs": true, "etc": true, "eg": true, "ie": true, "vol": true,
	"ft": true, "mt": true, "inc": true, "ltd": true, "prof": true,
	"capt": true, "sgt": true, "lt": true, "dept": true, "univ": true,
	"approx": true, "cf": true, "esq": true, "messrs": true, "bros": true,
	"corp": true, "viz": true, "blvd": true, "hrs": true, "lbs": true,
	"lb": true, "oz": true, "mph": true, "feb": true, "apr": true,
	"jun": true, "jul": true, "aug": true, "sep": true, "sept": true,
	"oct": true, "nov": true, "dec": true, "ibid": true, "pp": true,
}

// SplitSentences splits text at sentence ends: '.', '!' or '?' (with any
// closing quotes or brackets after them) followed by a space or the end, and
// at ';' and ':' followed by a space or the end. A period after a known abbreviation or a single letter
// (an initial) does not end a sentence; CleanSentence later drops the
// sentence holding it.
func SplitSentences(text string) []string {
	var out []string
	start := 0
	emit := func(end int) {
		if s := strings.TrimSpace(text[start:end]); s != "" {
			out = append(out, s)
		}
		start = end
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch c {
		case ';', ':':
			if i+1 == len(text) || text[i+1] == ' ' || text[i+1] == '\t' {
				emit(i + 1) // not inside "3:30"
			}
		case '.', '!', '?':
			j := i + 1
			for j < len(text) && strings.IndexByte(".!?\"')]`", text[j]) >= 0 {
				j++
			}
			if j < len(text) && text[j] != ' ' && text[j] != '\t' {
				i = j - 1
				continue // "3.14", "e.g", "..."
			}
			if c == '.' && j == i+1 && isAbbrev(text[start:i]) {
				continue
			}
			emit(j)
			i = j - 1
		}
	}
	emit(len(text))
	return out
}

// isAbbrev reports whether the last word of s (just before a period) is a
// known abbreviation or a single letter.
func isAbbrev(s string) bool {
	k := strings.LastIndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
	w := strings.ToLower(s[k+1:])
	return (len(w) == 1 && w != "a" && w != "i") || abbreviations[w]
}

// CleanOptions controls CleanSentence.
type CleanOptions struct {
	MinWords, MaxWords int // length limits in words (inclusive)
	// Dict, when not nil, is the set of allowed lowercase words; a sentence
	// with any other word is dropped (it protects against typos, names and
	// words a synthesizer would spell out).
	Dict map[string]bool
	// Numbers, when not nil, rewrites a token holding digits into spoken
	// words (e.g. "1984" -> "nineteen eighty four"); it returns false when
	// it cannot, and the sentence is dropped. When nil, sentences holding
	// digits are dropped.
	Numbers func(tok string) (string, bool)
}

// CleanSentence turns one written sentence into spoken form (see CheckText)
// or reports false when it cannot be spoken reliably. It lowercases,
// removes punctuation (keeping apostrophes inside words; hyphens and dashes
// become spaces) and drops sentences holding digits (unless opt.Numbers
// spells them), symbols, URLs and e-mail addresses, abbreviations such as
// "dr." or "e.g.", all-caps acronyms, single letters other than "a" and
// "i", non-ASCII characters, words outside opt.Dict, or a word count outside
// [opt.MinWords, opt.MaxWords].
func CleanSentence(s string, opt CleanOptions) (string, bool) {
	for _, r := range s {
		if r > unicode.MaxASCII || (r < ' ' && r != '\t') {
			return "", false
		}
		if strings.ContainsRune("&@#$%*+=/\\<>|~^_[]{}", r) {
			return "", false
		}
	}
	low := strings.ToLower(s)
	if strings.Contains(low, "http") || strings.Contains(low, "www") || strings.Contains(low, ".com") {
		return "", false
	}
	var words []string
	for _, raw := range strings.Fields(strings.NewReplacer("--", " ", "-", " ").Replace(s)) {
		// Trim surrounding punctuation and quotes.
		tok := strings.TrimFunc(raw, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if tok == "" {
			continue
		}
		if strings.HasSuffix(strings.TrimRight(raw, "\"')]`,;:!?"), ".") && abbreviations[strings.ToLower(tok)] {
			return "", false
		}
		if strings.Contains(tok, ".") { // "e.g", "U.S", "3.14" unspelled
			if opt.Numbers == nil || !isNumberToken(tok) {
				return "", false
			}
		}
		if strings.IndexFunc(tok, unicode.IsDigit) >= 0 {
			if opt.Numbers == nil {
				return "", false
			}
			sp, ok := opt.Numbers(tok)
			if !ok {
				return "", false
			}
			words = append(words, strings.Fields(sp)...)
			continue
		}
		upper := 0
		for _, r := range tok {
			if unicode.IsUpper(r) {
				upper++
			}
		}
		if upper >= 2 && upper == countLetters(tok) {
			return "", false // acronym or shouting
		}
		w := strings.ToLower(tok)
		for _, r := range w {
			if !(r >= 'a' && r <= 'z' || r == '\'') {
				return "", false
			}
		}
		if len(w) == 1 && w != "a" && w != "i" {
			return "", false
		}
		if opt.Dict != nil && !opt.Dict[w] {
			return "", false
		}
		words = append(words, w)
	}
	if len(words) < opt.MinWords || len(words) > opt.MaxWords || len(words) == 0 {
		return "", false
	}
	out := strings.Join(words, " ")
	if CheckText(out) != nil {
		return "", false
	}
	return out, true
}

// isNumberToken reports whether tok looks like a decimal number ("3.14",
// "1,000").
func isNumberToken(tok string) bool {
	for _, r := range tok {
		if !(r >= '0' && r <= '9' || r == '.' || r == ',') {
			return false
		}
	}
	return true
}

func countLetters(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}

// LoadDict reads a word list (one word per line, like
// /usr/share/dict/american-english) into a set of lowercase words. Entries
// with characters outside a-z and the apostrophe after lowercasing are
// skipped.
func LoadDict(path string) (map[string]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	defer f.Close()
	dict := make(map[string]bool)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		w := strings.ToLower(strings.TrimSpace(sc.Text()))
		if w != "" && CheckText(w) == nil && !strings.Contains(w, " ") {
			dict[w] = true
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("corpus: reading %s: %w", path, err)
	}
	return dict, nil
}

// ParseProse splits a plain-text document into paragraphs for
// SplitSentences: paragraphs are separated by blank lines and their lines
// joined with single spaces. Dictionary markup as in the dictd databases of
// Debian's dict-gcide, dict-devil and dict-jargon is removed: bracketed
// notes ("[1913 Webster]", "[Obs.]", etymologies), pronunciations between
// backslashes, cross-reference braces (the word inside is kept), and
// attributions from "--" to the end of the line. A paragraph whose first
// line starts at the left margin and holds a pronunciation (a headword
// line: `Affect \Af*fect"\, v. t.`) is split after that line, so that
// what is left of it does not run into the definition. Enumeration marks
// ("1.", "(a)", "(2)") are dropped.
func ParseProse(r io.Reader) ([]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var out []string
	var cur []string
	head := false // cur[0] is a headword line
	flush := func() {
		if len(cur) == 0 {
			return
		}
		text := stripMarkup(strings.Join(cur, "\n"))
		parts := []string{text}
		if head {
			parts = strings.SplitN(text, "\n", 2)
		}
		for _, p := range parts {
			if p = strings.Join(slices.DeleteFunc(strings.Fields(p), isEnumMark), " "); p != "" {
				out = append(out, p)
			}
		}
		cur, head = cur[:0], false
	}
	for sc.Scan() {
		line := sc.Text()
		t := strings.TrimSpace(line)
		if t == "" {
			flush()
			continue
		}
		if len(cur) == 0 && line[0] != ' ' && line[0] != '\t' && strings.Contains(t, "\\") {
			head = true
		}
		if k := strings.Index(t, "--"); k >= 0 && k+2 < len(t) && unicode.IsUpper(rune(t[k+2])) {
			t = t[:k] // "--Milton."
		}
		cur = append(cur, t)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	flush()
	return out, nil
}

// isEnumMark reports whether a word is an enumeration mark: digits and a
// period ("12."), or one or two letters or digits in parentheses ("(a)").
func isEnumMark(w string) bool {
	if n := len(w); n >= 2 && w[n-1] == '.' {
		return strings.Trim(w[:n-1], "0123456789") == ""
	}
	if n := len(w); n >= 3 && n <= 4 && w[0] == '(' && w[n-1] == ')' {
		return strings.IndexFunc(w[1:n-1], func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) < 0
	}
	return false
}

// stripMarkup removes the spans "[...]" and "\...\" and the braces of
// "{...}" from s. An unclosed span runs to the end of s.
func stripMarkup(s string) string {
	var b strings.Builder
	depth := 0 // inside [...]
	pron := false
	for _, r := range s {
		switch {
		case r == '[':
			depth++
		case r == ']' && depth > 0:
			depth--
		case depth > 0:
		case r == '\\':
			pron = !pron
		case pron:
		case r == '{' || r == '}':
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
