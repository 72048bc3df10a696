// Package normalize turns written English text into the spoken words heed's
// model is trained on and aligned against, keeping a map back to the
// original whitespace-separated tokens.
//
// The input is split on Unicode white space into tokens. Each token keeps its
// original spelling (Token.Orig, case and punctuation included) and gets zero
// or more spoken words (Token.Spoken), each a non-empty lowercase word over
// a-z and the apostrophe. For example
//
//	Dr. Smith paid $42.50 on May 3rd, 1999.
//
// becomes the tokens
//
//	"Dr."      doctor
//	"Smith"    smith
//	"paid"     paid
//	"$42.50"   forty two dollars and fifty cents
//	"on"       on
//	"May"      may
//	"3rd,"     third
//	"1999."    nineteen ninety nine
//
// Handled forms: cardinals up to 999 trillion (longer digit strings and
// numbers with leading zeros are read digit by digit), decimals ("3.14" ->
// "three point one four"), negative numbers, currency ($, £, €, ¥, ¢, with
// scale words such as "$2 million" -> "two million dollars"), ordinals,
// years ("1999", "2005", "1900s"), times ("10:05 am" -> "ten oh five a m"),
// percentages, a few units after numbers ("5kg"), common abbreviations
// (Dr., Mr., Mrs., Ms., St., etc., vs., e.g., i.e., No., month and weekday
// abbreviations where unambiguous), initialisms written with periods
// ("U.S." -> "u s"), "&", "+", "@", hyphenated and slashed words (split into
// words), apostrophes inside words (don't, o'clock), curly quotes and dashes,
// and Latin letters with diacritics (folded to ASCII: é -> e). A token with
// nothing speakable ("—", "...") gets no spoken words but is still present.
//
// Four-digit integers from 1100 to 2099 written without a thousands
// separator are read as years; write "1,999" for the cardinal.
//
// # Variants
//
// Spoken is one reading, the most common; people often say another. A
// token that can plausibly be read in other ways also gets Token.Variants:
// its readings, at most MaxVariants, the first always equal to Spoken. An
// aligner can try each against the audio and keep the one it hears best.
// The readings offered:
//
//	"2019"     twenty nineteen / two thousand nineteen / two thousand and nineteen
//	"2005"     two thousand five / twenty oh five / two thousand and five
//	"1905"     nineteen oh five / nineteen hundred five / nineteen hundred and five /
//	           one thousand nine hundred five / one thousand nine hundred and five
//	"1,250"    one thousand two hundred fifty / one thousand two hundred and fifty /
//	           twelve hundred fifty / twelve hundred and fifty
//	"007"      zero zero seven / oh oh seven (digit strings; decimals likewise)
//	"0.5"      zero point five / point five / oh point five
//	"$42.50"   forty two dollars and fifty cents / forty two dollars fifty cents /
//	           forty two dollars fifty / forty two fifty
//	"12%"      twelve percent / twelve per cent
//	"10:05"    ten oh five / ten zero five
//	"3:00"     three o'clock / three; "15:00" fifteen hundred / fifteen / fifteen hundred hours
//	"10:30"    ten thirty / half past ten (":15" quarter past, ":45" quarter to)
//	"May 3"    three / third (a day number after a month)
//	"St."      saint / street, "Dr." doctor / drive (the default by context first)
//	"e.g."     for example / e g; "i.e." that is / i e
//	"NASA"     nasa / n a s a (words of 2 to 5 capitals)
//
// Amounts combine: "$1,250" also reads "one thousand two hundred and fifty
// dollars". Readings that move words between tokens ("the third of May")
// are not offered, nor are alternatives for a token whose reading depends
// on its neighbours' words ("$2 million", "am" after a time).
package normalize

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrInvalidUTF8 is returned (wrapped, with the byte offset) when the input
// text is not valid UTF-8.
var ErrInvalidUTF8 = errors.New("invalid UTF-8")

// Token is one whitespace-separated token of the input text.
type Token struct {
	// Orig is the token exactly as given, case and punctuation kept.
	Orig string
	// Spoken holds the token's spoken words in order (possibly none); each
	// matches ^[a-z']+$ and contains at least one letter.
	Spoken []string
	// Variants, when not nil, holds the token's readings (see the package
	// doc): two to MaxVariants distinct word lists, the first equal to
	// Spoken, each word matching ^[a-z']+$. Nil when the token has only the
	// one reading Spoken (see Readings).
	Variants [][]string
	// Ends reports whether the token ends a sentence or a line: it ends
	// in '!', '?', ';', ':' or a '.' that does not close a title such as
	// "Dr." (after closing quotes or brackets), or a line break or the end
	// of the text follows it.
	Ends bool
}

// Text is a normalized text: every whitespace-separated token of the input,
// in order.
type Text struct {
	Tokens []Token
}

// Words returns all spoken words of t in order.
func (t *Text) Words() []string {
	var n int
	for _, tok := range t.Tokens {
		n += len(tok.Spoken)
	}
	words := make([]string, 0, n)
	for _, tok := range t.Tokens {
		words = append(words, tok.Spoken...)
	}
	return words
}

// WordTokens returns, for every spoken word of Words(), the index into
// t.Tokens of the token it came from (non-decreasing).
func (t *Text) WordTokens() []int {
	var idx []int
	for i, tok := range t.Tokens {
		for range tok.Spoken {
			idx = append(idx, i)
		}
	}
	return idx
}

// Offsets returns len(t.Tokens)+1 prefix sums of word counts: the spoken
// words of token i are Words()[off[i]:off[i+1]].
func (t *Text) Offsets() []int {
	off := make([]int, len(t.Tokens)+1)
	for i, tok := range t.Tokens {
		off[i+1] = off[i] + len(tok.Spoken)
	}
	return off
}

// String returns the spoken words joined by single spaces.
func (t *Text) String() string { return strings.Join(t.Words(), " ") }

// Normalize splits text on Unicode white space and converts every token to
// its spoken words. It fails only when text is not valid UTF-8.
func Normalize(text string) (*Text, error) {
	if !utf8.ValidString(text) {
		for i := 0; i < len(text); {
			r, size := utf8.DecodeRuneInString(text[i:])
			if r == utf8.RuneError && size == 1 {
				return nil, fmt.Errorf("normalize: byte offset %d: %w", i, ErrInvalidUTF8)
			}
			i += size
		}
	}
	fields := strings.Fields(text)
	n := &normalizer{toks: make([]tokInfo, len(fields))}
	for i, f := range fields {
		n.toks[i] = splitToken(f)
	}
	out := &Text{Tokens: make([]Token, len(fields))}
	rest := text
	for i, f := range fields {
		rest = rest[strings.Index(rest, f)+len(f):]
		gap := rest[:len(rest)-len(strings.TrimLeftFunc(rest, unicode.IsSpace))]
		m := lastMark(f)
		ends := i == len(fields)-1 || strings.ContainsAny(gap, "\n\r\u2028\u2029") ||
			strings.ContainsAny(m, "!?;:") || (m == "." && !isTitle(f))
		spoken := clean(n.token(i))
		out.Tokens[i] = Token{Orig: f, Spoken: spoken, Variants: n.variants(i, spoken), Ends: ends}
	}
	return out, nil
}

// isTitle reports whether f looks like an abbreviated title such as
// "Dr.", "Mr.", "Mrs." or "St.": a capital and at most three more letters
// before the dot.
func isTitle(f string) bool {
	w := strings.TrimSuffix(f, ".")
	if len(w) == 0 || len(w) > 4 || w[0] < 'A' || w[0] > 'Z' {
		return false
	}
	for _, c := range w[1:] {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// lastMark returns the last rune of f after closing quotes and brackets
// are dropped, as a string ("" if none is left).
func lastMark(f string) string {
	f = strings.TrimRight(f, "\"')]}\u201d\u2019\u00bb")
	r, n := utf8.DecodeLastRuneInString(f)
	if n == 0 {
		return ""
	}
	return string(r)
}

// SpokenForm returns the spoken words of text, lowercase, joined by single
// spaces. Invalid UTF-8 bytes are treated as white space.
func SpokenForm(text string) string {
	t, err := Normalize(strings.ToValidUTF8(text, " "))
	if err != nil {
		panic("normalize: valid UTF-8 rejected: " + err.Error())
	}
	return t.String()
}

// clean drops anything that is not a valid spoken word: it trims
// apostrophes other than the known leading elisions and removes words
// without letters.
func clean(words []string) []string {
	out := words[:0]
	for _, w := range words {
		if !strings.HasPrefix(w, "'") || !leadingElision[w] {
			w = strings.Trim(w, "'")
		} else {
			w = strings.TrimRight(w, "'")
		}
		if !validWord(w) || !strings.ContainsFunc(w, func(r rune) bool { return r >= 'a' && r <= 'z' }) {
			continue
		}
		out = append(out, w)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// validWord reports whether w matches ^[a-z']+$.
func validWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; (c < 'a' || c > 'z') && c != '\'' {
			return false
		}
	}
	return w != ""
}

// leadingElision lists words that keep a leading apostrophe.
var leadingElision = map[string]bool{
	"'em": true, "'tis": true, "'twas": true, "'til": true, "'cause": true, "'bout": true,
}

// tokInfo is a token after folding, split into leading punctuation, body and
// trailing punctuation.
type tokInfo struct {
	lead, body, trail string
}

// leadPunct and trailPunct are stripped from the ends of a folded token.
const (
	leadPunct  = "\"'([{<*_ "
	trailPunct = "\"')]}>.,;:!?*_ "
)

// splitToken folds a raw token and splits off its surrounding punctuation.
func splitToken(raw string) tokInfo {
	f := fold(raw)
	body := strings.TrimLeft(f, leadPunct)
	lead := f[:len(f)-len(body)]
	body = strings.TrimRight(body, trailPunct)
	trail := f[len(lead)+len(body):]
	if strings.HasSuffix(lead, "'") && leadingElision["'"+strings.ToLower(body)] {
		lead, body = lead[:len(lead)-1], "'"+body
	}
	return tokInfo{lead: lead, body: body, trail: trail}
}

// fold maps a token to ASCII where possible: letters with diacritics lose
// them, curly quotes become straight, dashes and the minus sign become '-',
// the ellipsis becomes "...". Currency signs and the degree sign are kept;
// the fractions ½ ¼ ¾ are spelled out; every other non-ASCII rune becomes a
// space.
func fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		case foldLetter(r) != "":
			b.WriteString(foldLetter(r))
		case r == '‘' || r == '’' || r == '‛' || r == '′' || r == 'ʼ' || r == '´' || r == '`':
			b.WriteByte('\'')
		case r == '“' || r == '”' || r == '„' || r == '″' || r == '«' || r == '»':
			b.WriteByte('"')
		case r == '‐' || r == '‑' || r == '‒' || r == '–' || r == '—' || r == '―' || r == '−':
			b.WriteByte('-')
		case r == '…':
			b.WriteString("...")
		case r == '½':
			b.WriteString(" one half")
		case r == '¼':
			b.WriteString(" one quarter")
		case r == '¾':
			b.WriteString(" three quarters")
		case r == '€' || r == '£' || r == '¥' || r == '¢' || r == '°':
			b.WriteRune(r)
		default:
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// normalizer holds the folded tokens of one text and the state carried from
// one token to the next.
type normalizer struct {
	toks []tokInfo
	// pending holds words owed by the previous token and spoken after this
	// one: "$2 million" reads "two" "million dollars".
	pending []string
}

// body returns the body of token i, or "" when i is out of range.
func (n *normalizer) body(i int) string {
	if i < 0 || i >= len(n.toks) {
		return ""
	}
	return n.toks[i].body
}

// capitalised reports whether token i starts with an upper-case letter.
func (n *normalizer) capitalised(i int) bool {
	b := n.body(i)
	return b != "" && b[0] >= 'A' && b[0] <= 'Z'
}

// sentenceStart reports whether token i begins a sentence.
func (n *normalizer) sentenceStart(i int) bool {
	return i == 0 || strings.ContainsAny(n.toks[i-1].trail, ".!?")
}

// startsWithDigit reports whether the body of token i starts with a digit.
func (n *normalizer) startsWithDigit(i int) bool {
	b := n.body(i)
	return b != "" && b[0] >= '0' && b[0] <= '9'
}

// token returns the spoken words of token i (before cleaning).
func (n *normalizer) token(i int) []string {
	t := n.toks[i]
	var words []string
	if w, ok := n.contextual(i); ok {
		words = w
	} else {
		words = n.convert(nil, t.body, i)
	}
	if len(n.pending) > 0 {
		words = append(words, n.pending...)
		n.pending = nil
	}
	if n.deferUnit(i, words) {
		// The currency unit moves after the following scale word.
		words, n.pending = words[:len(words)-1], words[len(words)-1:]
	}
	return words
}

// scaleWords may follow an amount: "$2 million".
var scaleWords = map[string]bool{"thousand": true, "million": true, "billion": true, "trillion": true}

// deferUnit reports whether token i, read as words, is a currency amount
// followed by a scale word, so that its unit word moves after the scale
// word. amount() already chose the plural for such amounts.
func (n *normalizer) deferUnit(i int, words []string) bool {
	if len(words) == 0 || !scaleWords[strings.ToLower(n.body(i+1))] {
		return false
	}
	last := words[len(words)-1]
	for _, c := range currencies {
		if last == c.plural && strings.Contains(n.body(i), c.sym) {
			return true
		}
	}
	return false
}

// contextual handles tokens whose reading depends on their neighbours:
// abbreviations, "am"/"pm" after a time, units after a number, a bare
// currency sign after a number.
func (n *normalizer) contextual(i int) ([]string, bool) {
	t := n.toks[i]
	if t.body == "" {
		return nil, true
	}
	period := strings.HasPrefix(t.trail, ".")
	lower := strings.ToLower(t.body)
	capital := n.capitalised(i)
	key := lower
	if period {
		key += "."
	}
	switch key {
	case "st.", "dr.":
		return n.saintOrStreet(i, lower), true
	case "st", "dr":
		if t.body == "St" || t.body == "Dr" {
			return n.saintOrStreet(i, lower), true
		}
	case "mr", "mrs", "ms", "jr", "sr":
		if capital && lower != t.body && strings.ToLower(t.body[1:]) == t.body[1:] {
			return []string{titles[lower+"."]}, true
		}
	case "no.":
		if n.startsWithDigit(i+1) || strings.HasPrefix(n.body(i+1), "#") {
			return []string{"number"}, true
		}
		return []string{"no"}, true
	case "nos.":
		if n.startsWithDigit(i + 1) {
			return []string{"numbers"}, true
		}
	case "am", "pm", "am.", "pm.":
		if looksLikeClock(n.body(i - 1)) {
			return []string{lower[:1], "m"}, true
		}
	}
	if w, ok := titles[key]; ok {
		return strings.Fields(w), true
	}
	if m, ok := monthAbbrev[lower]; ok {
		// "Mar." and bare "Jan" need a following day number.
		switch {
		case n.startsWithDigit(i + 1):
			return []string{m}, true
		case period && capital && lower != "mar":
			return []string{m}, true
		}
	}
	if d, ok := dayAbbrev[lower]; ok && capital {
		ambiguous := lower == "wed" || lower == "sat" || lower == "sun"
		if n.dateFollows(i) || (period && !ambiguous) {
			return []string{d}, true
		}
	}
	if u, ok := units[lower]; ok && n.isNumber(i-1) {
		return u.words(n.body(i-1) == "1"), true
	}
	for _, c := range currencies {
		if t.body == c.sym && n.isNumber(i-1) {
			return []string{c.plural}, true
		}
	}
	return nil, false
}

// saintOrStreet reads "St." (or "Dr."): street (drive) after a capitalised
// word inside a sentence or after a number ("Main St.", "42nd St."), saint
// (doctor) before a capitalised name ("St. Paul", "Dr. Smith"), street
// (doctor) otherwise.
func (n *normalizer) saintOrStreet(i int, lower string) []string {
	before, after := "saint", "street"
	if lower == "dr" {
		before, after = "doctor", "drive"
	}
	prevName := i > 0 && ((n.capitalised(i-1) && !n.sentenceStart(i-1)) || n.startsWithDigit(i-1)) &&
		!strings.ContainsAny(n.toks[i-1].trail, ".,;:!?")
	switch {
	case prevName:
		return []string{after}
	case n.capitalised(i + 1):
		return []string{before}
	case lower == "dr":
		return []string{before}
	}
	return []string{after}
}

// dateFollows reports whether token i+1 starts a date: a day number or a
// month name.
func (n *normalizer) dateFollows(i int) bool {
	if n.startsWithDigit(i + 1) {
		return true
	}
	next := strings.ToLower(n.body(i + 1))
	_, abbr := monthAbbrev[next]
	return abbr || monthNames[next]
}

// isNumber reports whether token i is a plain number ("5", "2.5", "1,000").
func (n *normalizer) isNumber(i int) bool {
	b := strings.TrimPrefix(n.body(i), "-")
	_, ok := parseNumber(b)
	return ok && b != "" && b != "."
}

// looksLikeClock reports whether s is a clock time or an hour: "10:05", "3".
func looksLikeClock(s string) bool {
	if h, m, ok := strings.Cut(s, ":"); ok {
		return len(h) >= 1 && len(h) <= 2 && allDigits(h) && len(m) == 2 && allDigits(m)
	}
	return len(s) >= 1 && len(s) <= 2 && allDigits(s)
}

// titles maps abbreviations (lower case, with their period) to their words.
var titles = map[string]string{
	"mr.": "mister", "mrs.": "missus", "ms.": "miz", "jr.": "junior", "sr.": "senior",
	"prof.": "professor", "capt.": "captain", "lt.": "lieutenant", "sgt.": "sergeant",
	"gov.": "governor", "sen.": "senator", "rev.": "reverend", "mt.": "mount",
	"ave.": "avenue", "blvd.": "boulevard", "rd.": "road",
	"etc.": "et cetera", "etc": "et cetera", "vs.": "versus", "vs": "versus",
	"e.g.": "for example", "i.e.": "that is", "approx.": "approximately",
	"dept.": "department", "inc.": "incorporated", "ltd.": "limited",
	"corp.": "corporation", "fig.": "figure", "vol.": "volume",
}

// monthAbbrev maps month abbreviations to month names.
var monthAbbrev = map[string]string{
	"jan": "january", "feb": "february", "mar": "march", "apr": "april",
	"jun": "june", "jul": "july", "aug": "august", "sep": "september",
	"sept": "september", "oct": "october", "nov": "november", "dec": "december",
}

// monthNames lists the full month names (lower case).
var monthNames = map[string]bool{
	"january": true, "february": true, "march": true, "april": true, "may": true,
	"june": true, "july": true, "august": true, "september": true, "october": true,
	"november": true, "december": true,
}

// dayAbbrev maps weekday abbreviations to weekday names.
var dayAbbrev = map[string]string{
	"mon": "monday", "tue": "tuesday", "tues": "tuesday", "wed": "wednesday",
	"thu": "thursday", "thur": "thursday", "thurs": "thursday", "fri": "friday",
	"sat": "saturday", "sun": "sunday",
}

// unit is the reading of a measurement unit written after a number.
type unit struct{ singular, plural string }

func (u unit) words(one bool) []string {
	if one {
		return strings.Fields(u.singular)
	}
	return strings.Fields(u.plural)
}

// units maps unit symbols (lower case) that follow a number to their words.
var units = map[string]unit{
	"km": {"kilometer", "kilometers"}, "kg": {"kilogram", "kilograms"},
	"cm": {"centimeter", "centimeters"}, "mm": {"millimeter", "millimeters"},
	"mph": {"mile per hour", "miles per hour"}, "lb": {"pound", "pounds"},
	"lbs": {"pound", "pounds"}, "oz": {"ounce", "ounces"}, "ft": {"foot", "feet"},
	"hz": {"hertz", "hertz"}, "khz": {"kilohertz", "kilohertz"},
	"mhz": {"megahertz", "megahertz"}, "ghz": {"gigahertz", "gigahertz"},
	"kb": {"kilobyte", "kilobytes"}, "mb": {"megabyte", "megabytes"},
	"gb": {"gigabyte", "gigabytes"}, "tb": {"terabyte", "terabytes"},
	"°": {"degree", "degrees"}, "°c": {"degree celsius", "degrees celsius"},
	"°f": {"degree fahrenheit", "degrees fahrenheit"},
}

// currency describes a currency sign and its unit words.
type currency struct {
	sym                    string
	singular, plural       string
	subSingular, subPlural string // "" when amounts are read as decimals
}

// currencies lists the supported currency signs.
var currencies = []currency{
	{"$", "dollar", "dollars", "cent", "cents"},
	{"£", "pound", "pounds", "penny", "pence"},
	{"€", "euro", "euros", "cent", "cents"},
	{"¥", "yen", "yen", "", ""},
}

// amountScales are scale suffixes written on amounts: "$5m", "€2bn".
var amountScales = map[string]string{
	"k": "thousand", "m": "million", "mn": "million", "bn": "billion", "b": "billion",
	"t": "trillion", "tn": "trillion",
}

// convert appends the spoken words of a token body s (folded, case kept) to
// dst. tokIdx is the token's index, used to look at the following token.
func (n *normalizer) convert(dst []string, s string, tokIdx int) []string {
	if s == "" {
		return dst
	}
	if w, ok := n.pattern(dst, s, tokIdx); ok {
		return w
	}
	// Split on hard separators, some of which are spoken.
	var parts []string
	var spoken []string // word spoken before parts[i], "" for none
	start := 0
	split := false
	for i, r := range s {
		var say string
		switch r {
		case '&':
			say = "and"
		case '+':
			say = "plus"
		case '@':
			say = "at"
		case '=':
			say = "equals"
		case '-', '/', '\\', '_', '~', '|', '(', ')', '[', ']', '{', '}', '<', '>', '"', '*', ';', '!', '?', '^', '`', ' ', ',':
		default:
			continue
		}
		split = true
		parts = append(parts, s[start:i])
		spoken = append(spoken, say)
		start = i + utf8.RuneLen(r)
	}
	if split {
		parts = append(parts, s[start:])
		for i, p := range parts {
			dst = n.convert(dst, strings.Trim(p, ".:'"), tokIdx)
			if i < len(spoken) && spoken[i] != "" {
				dst = append(dst, spoken[i])
			}
		}
		return dst
	}
	return runs(dst, s)
}

// runs splits s into letter runs (apostrophes inside words kept) and digit
// runs; digit runs are read as cardinals ("1.5" as a decimal), everything
// else separates.
func runs(dst []string, s string) []string {
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case isLetter(c):
			j := i
			for j < len(s) && (isLetter(s[j]) || s[j] == '\'' && j+1 < len(s) && isLetter(s[j+1])) {
				j++
			}
			dst = append(dst, strings.ToLower(s[i:j]))
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			dst = intWords(dst, s[i:j], false)
			if j+1 < len(s) && s[j] == '.' && s[j+1] >= '0' && s[j+1] <= '9' {
				k := j + 1
				for k < len(s) && s[k] >= '0' && s[k] <= '9' {
					k++
				}
				dst = digitWords(append(dst, "point"), s[j+1:k])
				j = k
			}
			i = j
		default:
			i++
		}
	}
	return dst
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// pattern recognises whole-body numeric and abbreviation forms.
func (n *normalizer) pattern(dst []string, s string, tokIdx int) ([]string, bool) {
	lower := strings.ToLower(s)
	if leadingElision[lower] {
		return append(dst, lower), true
	}
	// Signed numbers and amounts.
	if len(s) > 1 && (s[0] == '-' || s[0] == '+') && startsNumeric(s[1:]) {
		sign := "minus"
		if s[0] == '+' {
			sign = "plus"
		}
		if w, ok := n.pattern(append(dst, sign), s[1:], tokIdx); ok {
			return w, true
		}
	}
	// "#1" -> "number one".
	if len(s) > 1 && s[0] == '#' && allDigits(s[1:]) {
		return intWords(append(dst, "number"), s[1:], false), true
	}
	if w, ok := n.amount(dst, s, tokIdx); ok {
		return w, true
	}
	if num, ok := strings.CutSuffix(s, "%"); ok {
		if p, ok := parseNumber(num); ok && num != "." {
			return append(p.words(dst, false), "percent"), true
		}
	}
	if w, ok := n.clock(dst, lower, tokIdx); ok {
		return w, true
	}
	if w, ok := ordinalForm(dst, lower); ok {
		return w, true
	}
	// Plurals of numbers: "1990s", "'90s", "1990's".
	for _, suf := range []string{"'s", "s"} {
		if d, ok := strings.CutSuffix(lower, suf); ok && allDigits(d) {
			dst = intWords(dst, d, true)
			dst[len(dst)-1] = pluralWord(dst[len(dst)-1])
			return dst, true
		}
	}
	if p, ok := parseNumber(s); ok && s != "." {
		return p.words(dst, true), true
	}
	// Number with an attached unit: "5kg", "20°C".
	if i := strings.IndexFunc(lower, func(r rune) bool { return !(r >= '0' && r <= '9' || r == '.' || r == ',') }); i > 0 {
		if u, ok := units[lower[i:]]; ok {
			if p, ok := parseNumber(lower[:i]); ok {
				return append(p.words(dst, false), u.words(lower[:i] == "1")...), true
			}
		}
	}
	if w, ok := titles[lower+"."]; ok && strings.Contains(lower, ".") {
		// "e.g" left after the trailing period was stripped.
		return append(dst, strings.Fields(w)...), true
	}
	// Initialisms with periods: "U.S", "a.m".
	if initialism(s) {
		for i := 0; i < len(lower); i += 2 {
			dst = append(dst, lower[i:i+1])
		}
		return dst, true
	}
	return dst, false
}

// startsNumeric reports whether s starts with a digit, ".digit" or a
// currency sign.
func startsNumeric(s string) bool {
	if s == "" {
		return false
	}
	if s[0] >= '0' && s[0] <= '9' {
		return true
	}
	if len(s) > 1 && s[0] == '.' && s[1] >= '0' && s[1] <= '9' {
		return true
	}
	for _, c := range currencies {
		if strings.HasPrefix(s, c.sym) {
			return true
		}
	}
	return false
}

// initialism reports whether s is single letters separated by periods,
// at least two letters: "U.S", "a.m", "U.S.A".
func initialism(s string) bool {
	s = strings.TrimSuffix(s, ".")
	if len(s) < 3 || len(s)%2 == 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if i%2 == 0 && !isLetter(s[i]) || i%2 == 1 && s[i] != '.' {
			return false
		}
	}
	return true
}

// ordinalForm reads "3rd", "21st", "1,000th".
func ordinalForm(dst []string, lower string) ([]string, bool) {
	if len(lower) < 3 {
		return dst, false
	}
	num, suf := lower[:len(lower)-2], lower[len(lower)-2:]
	if suf != "st" && suf != "nd" && suf != "rd" && suf != "th" {
		return dst, false
	}
	p, ok := parseNumber(num)
	if !ok || p.hasPoint || p.intPart == "" {
		return dst, false
	}
	v, ok := parseUint(p.intPart)
	if !ok {
		return dst, false
	}
	return ordinal(dst, v), true
}

// clock reads times "3:30", "10:05am", "15:00", "1:23:45". An "am"/"pm"
// attached or in the next token suppresses "o'clock".
func (n *normalizer) clock(dst []string, lower string, tokIdx int) ([]string, bool) {
	var ampm string
	for _, suf := range []string{"am", "pm", "a.m", "p.m", "a.m.", "p.m."} {
		if rest, ok := strings.CutSuffix(lower, suf); ok {
			lower, ampm = rest, suf[:1]
			break
		}
	}
	parts := strings.Split(lower, ":")
	if len(parts) < 2 || len(parts) > 3 || len(parts[0]) < 1 || len(parts[0]) > 2 || !allDigits(parts[0]) {
		if ampm != "" && len(parts) == 1 && len(parts[0]) <= 2 && allDigits(parts[0]) {
			// "10am"
			return append(intWords(dst, parts[0], false), ampm, "m"), true
		}
		return dst, false
	}
	for _, p := range parts[1:] {
		if len(p) != 2 || !allDigits(p) || p[0] > '5' {
			return dst, false
		}
	}
	hour, _ := parseUint(parts[0])
	if hour > 24 {
		return dst, false
	}
	next := strings.ToLower(n.body(tokIdx + 1))
	if next == "am" || next == "pm" || next == "a.m" || next == "p.m" {
		ampm = "-" // spoken by the next token
	}
	dst = cardinal(dst, hour)
	switch minutes := parts[1]; {
	case minutes != "00":
		dst = twoDigits(dst, minutes)
	case len(parts) == 3 || ampm != "":
	case hour >= 1 && hour <= 12:
		dst = append(dst, "o'clock")
	default:
		dst = append(dst, "hundred")
	}
	if len(parts) == 3 {
		dst = twoDigits(dst, parts[2])
	}
	if ampm != "" && ampm != "-" {
		dst = append(dst, ampm, "m")
	}
	return dst, true
}

// twoDigits reads minutes or seconds: "05" -> "oh five", "30" -> "thirty",
// "00" -> "hundred".
func twoDigits(dst []string, s string) []string {
	switch {
	case s == "00":
		return append(dst, "hundred")
	case s[0] == '0':
		return append(dst, "oh", ones[s[1]-'0'])
	}
	v, _ := parseUint(s)
	return below100(dst, v)
}

// amount reads currency amounts: "$42.50", "£3", "€1.5m", "42€", "50¢".
func (n *normalizer) amount(dst []string, s string, tokIdx int) ([]string, bool) {
	if v, ok := strings.CutSuffix(s, "¢"); ok {
		if p, ok := parseNumber(v); ok && v != "." {
			dst = p.words(dst, false)
			if v == "1" {
				return append(dst, "cent"), true
			}
			return append(dst, "cents"), true
		}
	}
	for _, c := range currencies {
		v, ok := c.cut(s)
		if !ok {
			continue
		}
		scale := ""
		lv := strings.ToLower(v)
		for suf, w := range amountScales {
			if rest, ok := strings.CutSuffix(lv, suf); ok && rest != "" {
				if _, ok := parseNumber(rest); ok {
					v, scale = rest, w
					break
				}
			}
		}
		p, ok := parseNumber(v)
		if !ok || v == "." {
			continue
		}
		if scale == "" && scaleWords[strings.ToLower(n.body(tokIdx+1))] {
			// "$1.5 million": the unit is spoken after the scale word.
			return append(p.words(dst, false), c.plural), true
		}
		if scale != "" {
			return append(append(p.words(dst, false), scale), c.plural), true
		}
		return c.read(dst, p), true
	}
	return dst, false
}

// cut returns s without c's symbol, written before or after the amount
// ("$42.50", "1,250€"); ok is false when s has no such symbol or nothing
// besides it.
func (c currency) cut(s string) (v string, ok bool) {
	v, ok = strings.CutPrefix(s, c.sym)
	if !ok {
		v, ok = strings.CutSuffix(s, c.sym)
	}
	return v, ok && v != ""
}

// read appends the words of an amount p in currency c.
func (c currency) read(dst []string, p number) []string {
	whole := p.intPart
	if whole == "" {
		whole = "0"
	}
	if !p.hasPoint || c.subPlural == "" || len(p.frac) > 2 || p.frac == "" {
		dst = p.words(dst, false)
		if whole == "1" && !p.hasPoint {
			return append(dst, c.singular)
		}
		return append(dst, c.plural)
	}
	frac := p.frac
	if len(frac) == 1 {
		frac += "0"
	}
	sub, _ := parseUint(frac)
	zeroWhole := strings.Trim(whole, "0") == ""
	if !zeroWhole || sub == 0 {
		dst = number{intPart: whole, commas: p.commas}.words(dst, false)
		if whole == "1" {
			dst = append(dst, c.singular)
		} else {
			dst = append(dst, c.plural)
		}
	}
	if sub == 0 {
		return dst
	}
	if !zeroWhole {
		dst = append(dst, "and")
	}
	dst = cardinal(dst, sub)
	if sub == 1 {
		return append(dst, c.subSingular)
	}
	return append(dst, c.subPlural)
}
