package normalize

import (
	"slices"
	"strings"
)

// MaxVariants is the most readings a token gets (Token.Variants).
const MaxVariants = 6

// Readings returns the token's readings: Variants when it has them, else
// its one reading Spoken (no readings for a token without spoken words).
func (t Token) Readings() [][]string {
	if len(t.Variants) > 0 {
		return t.Variants
	}
	if len(t.Spoken) == 0 {
		return nil
	}
	return [][]string{t.Spoken}
}

// variants returns the readings of token i, the first equal to spoken (its
// default reading, already cleaned), or nil when the token has only that
// one. Alternatives are proposed from the token's body alone (and, for a
// day number, the month before it); they are kept only when the body's
// own default reading is spoken, so a token whose reading came from its
// context ("$2 million", "am" after a time) keeps its single reading.
func (n *normalizer) variants(i int, spoken []string) [][]string {
	if len(spoken) == 0 {
		return nil
	}
	alts := n.alternatives(i)
	if len(alts) < 2 || !slices.Equal(clean(slices.Clone(alts[0])), spoken) {
		return nil
	}
	out := [][]string{spoken}
	for _, a := range alts[1:] {
		a = clean(slices.Clone(a))
		if len(a) == 0 || slices.ContainsFunc(out, func(o []string) bool { return slices.Equal(o, a) }) {
			continue
		}
		out = append(out, a)
		if len(out) == MaxVariants {
			break
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// alternatives proposes readings of token i: the first is what the body
// alone reads as (compared with the real default by variants), the rest
// other plausible ways to say it. Nil when there is nothing to propose.
func (n *normalizer) alternatives(i int) [][]string {
	t := n.toks[i]
	body := t.body
	lower := strings.ToLower(body)
	period := strings.HasPrefix(t.trail, ".")
	switch {
	case (lower == "st" || lower == "dr") && (period || body == "St" || body == "Dr"):
		pair := [2]string{"saint", "street"}
		if lower == "dr" {
			pair = [2]string{"doctor", "drive"}
		}
		def := n.saintOrStreet(i, lower)
		other := pair[0]
		if def[0] == pair[0] {
			other = pair[1]
		}
		return [][]string{def, {other}}
	case lower == "e.g" || lower == "e.g.":
		return [][]string{{"for", "example"}, {"e", "g"}}
	case lower == "i.e" || lower == "i.e.":
		return [][]string{{"that", "is"}, {"i", "e"}}
	}
	if v := spelledVariants(body); v != nil {
		return v
	}
	return n.numberVariants(i, body)
}

// spelledVariants offers, for a word written in capitals ("NASA", "FBI",
// 2 to 5 letters), the reading as a word and the letters spelled out.
func spelledVariants(body string) [][]string {
	if len(body) < 2 || len(body) > 5 {
		return nil
	}
	for i := 0; i < len(body); i++ {
		if body[i] < 'A' || body[i] > 'Z' {
			return nil
		}
	}
	lower := strings.ToLower(body)
	letters := make([]string, len(lower))
	for i := range lower {
		letters[i] = lower[i : i+1]
	}
	return [][]string{{lower}, letters}
}

// numberVariants proposes readings of numeric bodies: signed numbers,
// currency amounts, percentages, clock times, years, cardinals, decimals,
// digit strings and day numbers after a month.
func (n *normalizer) numberVariants(i int, s string) [][]string {
	if len(s) > 1 && (s[0] == '-' || s[0] == '+') && startsNumeric(s[1:]) {
		sign := "minus"
		if s[0] == '+' {
			sign = "plus"
		}
		vs := n.numberVariants(i, s[1:])
		out := make([][]string, len(vs))
		for k, v := range vs {
			out[k] = append([]string{sign}, v...)
		}
		return out
	}
	if v := n.amountVariants(i, s); v != nil {
		return v
	}
	if num, ok := strings.CutSuffix(s, "%"); ok {
		p, ok := parseNumber(num)
		if !ok || num == "." {
			return nil
		}
		var out [][]string
		for _, r := range numberReadings(p, false) {
			out = append(out, append(slices.Clone(r), "percent"), append(slices.Clone(r), "per", "cent"))
		}
		return out
	}
	if v := clockVariants(strings.ToLower(s), n.body(i+1)); v != nil {
		return v
	}
	p, ok := parseNumber(s)
	if !ok || s == "." {
		return nil
	}
	out := numberReadings(p, true)
	if len(out) > 0 && !p.hasPoint && !p.commas && n.afterMonth(i) {
		if v, ok := parseUint(p.intPart); ok && v >= 1 && v <= 31 && p.intPart[0] != '0' {
			out = append(out, ordinal(nil, v))
		}
	}
	return out
}

// afterMonth reports whether token i follows a month name or abbreviation
// ("May 3", "Jan. 5"): a day number may then be read as an ordinal.
func (n *normalizer) afterMonth(i int) bool {
	prev := strings.ToLower(n.body(i - 1))
	_, abbr := monthAbbrev[prev]
	return monthNames[prev] || abbr
}

// numberReadings returns the readings of a parsed number, the default
// (as number.words reads it) first.
func numberReadings(p number, asYear bool) [][]string {
	def := p.words(nil, asYear)
	out := [][]string{def}
	var ints [][]string
	switch {
	case p.intPart == "":
		ints = [][]string{nil, {"zero"}, {"oh"}}
	case len(p.intPart) > 1 && p.intPart[0] == '0' && !p.commas:
		d := digitWords(nil, p.intPart)
		ints = [][]string{d, ohForZero(d)}
	default:
		v, ok := parseUint(p.intPart)
		if !ok {
			d := digitWords(nil, p.intPart)
			ints = [][]string{d, ohForZero(d)}
			break
		}
		if asYear && !p.hasPoint && !p.commas && len(p.intPart) == 4 && isYear(v) {
			return append(out, yearVariants(v)...)
		}
		ints = cardinalVariants(v)
		if v == 0 && p.hasPoint {
			ints = append(ints, nil, []string{"oh"})
		}
	}
	if !p.hasPoint {
		return append(out, ints...)
	}
	frac := digitWords(nil, p.frac)
	fracs := [][]string{frac, ohForZero(frac)}
	for _, in := range ints {
		for _, f := range fracs {
			r := append(append(slices.Clone(in), "point"), f...)
			out = append(out, r)
		}
	}
	return out
}

// ohForZero replaces every "zero" of digit words by "oh".
func ohForZero(words []string) []string {
	out := slices.Clone(words)
	for i, w := range out {
		if w == "zero" {
			out[i] = "oh"
		}
	}
	return out
}

// cardinalVariants returns ways to say n (0 <= n <= maxCardinal): the
// American cardinal ("one thousand two hundred fifty"), the British with
// "and" ("one thousand two hundred and fifty") and, from 1,100 to 9,999
// when the hundreds are not zero, in hundreds ("twelve hundred fifty",
// "twelve hundred and fifty").
func cardinalVariants(n uint64) [][]string {
	out := [][]string{cardinal(nil, n)}
	if n%100 != 0 && n >= 100 {
		out = append(out, cardinalAnd(n))
	}
	if n >= 1100 && n <= 9999 && n/100%10 != 0 {
		h := append(below100(nil, n/100), "hundred")
		out = append(out, below100(slices.Clone(h), n%100))
		if n%100 != 0 {
			out = append(out, below100(append(h, "and"), n%100))
		}
	}
	return out
}

// cardinalAnd reads n >= 100 with "and" before its last part below one
// hundred, as in British English: 101 "one hundred and one", 1005 "one
// thousand and five".
func cardinalAnd(n uint64) []string {
	rest := n % 100
	head := cardinal(nil, n-rest)
	return below100(append(head, "and"), rest)
}

// yearVariants returns other ways to say the year n (1100..2099) than
// year(n): "two thousand nineteen", "two thousand and nineteen" and
// "twenty nineteen"; "nineteen hundred five", "nineteen hundred and
// five" and "one thousand nine hundred five" for 1905.
func yearVariants(n uint64) [][]string {
	hi, lo := n/100, n%100
	switch {
	case n >= 2000 && n < 2010:
		if lo == 0 {
			return nil
		}
		return [][]string{append(below100(nil, hi), "oh", ones[lo]), cardinalAnd(n)}
	case n >= 2010:
		return [][]string{cardinal(nil, n), cardinalAnd(n)}
	}
	// 1100..1999
	var out [][]string
	h := append(below100(nil, hi), "hundred")
	if lo != 0 {
		out = append(out, below100(slices.Clone(h), lo), below100(append(slices.Clone(h), "and"), lo))
	}
	out = append(out, cardinal(nil, n))
	if lo != 0 {
		out = append(out, cardinalAnd(n))
	}
	return out
}

// clockVariants proposes readings of a clock time "H:MM" (an "am"/"pm"
// attached or in the next token kept as it is read by default): the
// default; "H zero M" for minutes "0M"; "H" alone for full hours; "half
// past H", "quarter past H" and "quarter to H+1" for :30, :15 and :45.
func clockVariants(lower, next string) [][]string {
	var ampm []string
	for _, suf := range []string{"a.m.", "p.m.", "a.m", "p.m", "am", "pm"} {
		if rest, ok := strings.CutSuffix(lower, suf); ok {
			lower, ampm = rest, []string{suf[:1], "m"}
			break
		}
	}
	h, m, ok := strings.Cut(lower, ":")
	if !ok || len(h) < 1 || len(h) > 2 || !allDigits(h) || len(m) != 2 || !allDigits(m) || m[0] > '5' {
		return nil
	}
	hour, _ := parseUint(h)
	if hour > 24 {
		return nil
	}
	next = strings.ToLower(next)
	nextAMPM := next == "am" || next == "pm" || next == "a.m" || next == "p.m"
	minutes, _ := parseUint(m)
	tail := func(r []string) []string { return append(r, ampm...) }
	var def []string
	switch {
	case m != "00":
		def = twoDigits(cardinal(nil, hour), m)
	case ampm != nil || nextAMPM:
		def = cardinal(nil, hour)
	case hour >= 1 && hour <= 12:
		def = append(cardinal(nil, hour), "o'clock")
	default:
		def = append(cardinal(nil, hour), "hundred")
	}
	out := [][]string{tail(def)}
	h12 := hour
	if h12 > 12 {
		h12 -= 12
	}
	switch {
	case m[0] == '0' && m != "00":
		out = append(out, tail(append(cardinal(nil, hour), "zero", ones[m[1]-'0'])))
	case m == "00" && ampm == nil && !nextAMPM:
		out = append(out, cardinal(nil, hour))
		if hour > 12 {
			out = append(out, append(slices.Clone(def), "hours"))
		}
	}
	if h12 >= 1 {
		switch minutes {
		case 30:
			out = append(out, tail(append([]string{"half", "past"}, cardinal(nil, h12)...)))
		case 15:
			out = append(out, tail(append([]string{"quarter", "past"}, cardinal(nil, h12)...)))
		case 45:
			out = append(out, tail(append([]string{"quarter", "to"}, cardinal(nil, h12%12+1)...)))
		}
	}
	return out
}

// amountVariants proposes readings of a currency amount written with a
// sign before or after a plain number ("$42.50", "£3", "1,250€"): the
// whole part in its cardinal variants, and for an amount with cents "X
// dollars and Y cents", "X dollars Y cents", "X dollars Y" and "X Y".
// Amounts with a scale ("$2m", "$2 million") get none.
func (n *normalizer) amountVariants(i int, s string) [][]string {
	for _, c := range currencies {
		v, ok := c.cut(s)
		if !ok {
			continue
		}
		p, ok := parseNumber(v)
		if !ok || v == "." || scaleWords[strings.ToLower(n.body(i+1))] {
			return nil
		}
		def := c.read(nil, p)
		out := [][]string{def}
		whole := p.intPart
		if whole == "" {
			whole = "0"
		}
		wv, ok := parseUint(whole)
		if !ok || (p.hasPoint && (c.subPlural == "" || len(p.frac) != 2)) {
			return out
		}
		unit := c.plural
		if wv == 1 {
			unit = c.singular
		}
		wholes := cardinalVariants(wv)
		if !p.hasPoint || wv == 0 {
			for _, w := range wholes {
				if p.hasPoint {
					break
				}
				out = append(out, append(w, unit))
			}
			return out
		}
		sub, _ := parseUint(p.frac)
		if sub == 0 {
			for _, w := range wholes {
				out = append(out, append(w, unit))
			}
			return out
		}
		subUnit := c.subPlural
		if sub == 1 {
			subUnit = c.subSingular
		}
		subW := cardinal(nil, sub)
		for _, w := range wholes[:min(2, len(wholes))] {
			withUnit := append(slices.Clone(w), unit)
			out = append(out,
				slices.Concat(withUnit, []string{"and"}, subW, []string{subUnit}),
				slices.Concat(withUnit, subW, []string{subUnit}),
				slices.Concat(withUnit, subW))
		}
		if sub >= 10 {
			out = append(out, slices.Concat(wholes[0], subW))
		}
		return out
	}
	return nil
}
