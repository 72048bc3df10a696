package normalize

import (
	"strings"
)

var ones = [...]string{
	"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
	"ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
	"seventeen", "eighteen", "nineteen",
}

var tens = [...]string{
	"", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
}

// scales are the short-scale names of successive powers of one thousand.
var scales = [...]string{"", "thousand", "million", "billion", "trillion"}

// maxCardinal is the largest integer read as a cardinal; longer digit strings
// are read digit by digit.
const maxCardinal = 999_999_999_999_999

// cardinal appends the English words of n (0 <= n <= maxCardinal) to dst,
// American style without "and": 101 -> "one hundred one".
func cardinal(dst []string, n uint64) []string {
	if n == 0 {
		return append(dst, "zero")
	}
	if n > maxCardinal {
		panic("normalize: cardinal out of range")
	}
	var groups [len(scales)]uint64
	for i := range groups {
		groups[i] = n % 1000
		n /= 1000
	}
	for i := len(groups) - 1; i >= 0; i-- {
		if groups[i] == 0 {
			continue
		}
		dst = below1000(dst, groups[i])
		if scales[i] != "" {
			dst = append(dst, scales[i])
		}
	}
	return dst
}

// below1000 appends the words of 1 <= n <= 999.
func below1000(dst []string, n uint64) []string {
	if n >= 100 {
		dst = append(dst, ones[n/100], "hundred")
		n %= 100
	}
	return below100(dst, n)
}

// below100 appends the words of n < 100; nothing for zero.
func below100(dst []string, n uint64) []string {
	switch {
	case n == 0:
		return dst
	case n < 20:
		return append(dst, ones[n])
	case n%10 == 0:
		return append(dst, tens[n/10])
	default:
		return append(dst, tens[n/10], ones[n%10])
	}
}

// ordinalWord turns the last word of a cardinal into its ordinal form.
func ordinalWord(w string) string {
	switch w {
	case "one":
		return "first"
	case "two":
		return "second"
	case "three":
		return "third"
	case "five":
		return "fifth"
	case "eight":
		return "eighth"
	case "nine":
		return "ninth"
	case "twelve":
		return "twelfth"
	}
	if strings.HasSuffix(w, "y") {
		return w[:len(w)-1] + "ieth"
	}
	return w + "th"
}

// pluralWord turns the last word of a number into its plural ("the 1990s").
func pluralWord(w string) string {
	switch {
	case strings.HasSuffix(w, "y"):
		return w[:len(w)-1] + "ies"
	case strings.HasSuffix(w, "x"):
		return w + "es"
	}
	return w + "s"
}

// ordinal appends the ordinal words of n: 21 -> "twenty first".
func ordinal(dst []string, n uint64) []string {
	dst = cardinal(dst, n)
	dst[len(dst)-1] = ordinalWord(dst[len(dst)-1])
	return dst
}

// isYear reports whether a plain four-digit integer is read as a year.
func isYear(n uint64) bool { return n >= 1100 && n <= 2099 }

// year appends the words of a year 1100 <= n <= 2099 as commonly spoken:
// 1999 "nineteen ninety nine", 1905 "nineteen oh five", 1900 "nineteen
// hundred", 2005 "two thousand five", 2024 "twenty twenty four".
func year(dst []string, n uint64) []string {
	hi, lo := n/100, n%100
	if n >= 2000 && n < 2010 {
		return cardinal(dst, n)
	}
	dst = below100(dst, hi)
	switch {
	case lo == 0:
		return append(dst, "hundred")
	case lo < 10:
		return append(dst, "oh", ones[lo])
	default:
		return below100(dst, lo)
	}
}

// digitWords appends one word per decimal digit of s (which must hold only
// ASCII digits).
func digitWords(dst []string, s string) []string {
	for i := 0; i < len(s); i++ {
		dst = append(dst, ones[s[i]-'0'])
	}
	return dst
}

// allDigits reports whether s is a non-empty string of ASCII digits.
func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// parseUint parses a digit string that allDigits accepted; ok is false when
// it exceeds maxCardinal.
func parseUint(s string) (n uint64, ok bool) {
	for i := 0; i < len(s); i++ {
		if n > maxCardinal/10 {
			return 0, false
		}
		n = n*10 + uint64(s[i]-'0')
	}
	return n, n <= maxCardinal
}

// number is a parsed decimal numeral such as "1,234.56".
type number struct {
	intPart  string // digits before the point, commas removed; "" for ".5"
	frac     string // digits after the point; "" when there is no point
	hasPoint bool
	commas   bool // the integer part used thousands separators
}

// parseNumber parses an unsigned decimal numeral with optional thousands
// separators ("1,234,567") and an optional fractional part ("3.14", ".5").
// The whole string must be consumed.
func parseNumber(s string) (number, bool) {
	var num number
	intStr, frac, hasPoint := strings.Cut(s, ".")
	if hasPoint {
		if !allDigits(frac) {
			return number{}, false
		}
		num.frac, num.hasPoint = frac, true
		if intStr == "" {
			return num, true
		}
	}
	if strings.Contains(intStr, ",") {
		groups := strings.Split(intStr, ",")
		if len(groups[0]) < 1 || len(groups[0]) > 3 || !allDigits(groups[0]) {
			return number{}, false
		}
		for _, g := range groups[1:] {
			if len(g) != 3 || !allDigits(g) {
				return number{}, false
			}
		}
		num.intPart, num.commas = strings.Join(groups, ""), true
		return num, true
	}
	if !allDigits(intStr) {
		return number{}, false
	}
	num.intPart = intStr
	return num, true
}

// intWords appends the words of an integer digit string: leading zeros and
// over-long strings are read digit by digit ("007", phone numbers), plain
// four-digit years as years when asYear is set, everything else as a
// cardinal.
func intWords(dst []string, s string, asYear bool) []string {
	if len(s) > 1 && s[0] == '0' {
		return digitWords(dst, s)
	}
	n, ok := parseUint(s)
	if !ok {
		return digitWords(dst, s)
	}
	if asYear && len(s) == 4 && isYear(n) {
		return year(dst, n)
	}
	return cardinal(dst, n)
}

// words appends the spoken form of the number: "three point one four".
func (num number) words(dst []string, asYear bool) []string {
	switch {
	case num.intPart == "":
		// ".5" is read "point five".
	case num.commas:
		if n, ok := parseUint(num.intPart); ok {
			dst = cardinal(dst, n)
		} else {
			dst = digitWords(dst, num.intPart)
		}
	default:
		dst = intWords(dst, num.intPart, asYear && !num.hasPoint)
	}
	if num.hasPoint {
		dst = append(dst, "point")
		dst = digitWords(dst, num.frac)
	}
	return dst
}
