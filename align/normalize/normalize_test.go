package normalize

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestSpokenForm(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"example", "Dr. Smith paid $42.50 on May 3rd, 1999.", "doctor smith paid forty two dollars and fifty cents on may third nineteen ninety nine"},
		{"empty", "", ""},
		{"plain", "Hello, World!", "hello world"},
		{"cardinal small", "0 7 13 20 45 100 101", "zero seven thirteen twenty forty five one hundred one hundred one"},
		{"cardinal commas", "1,234,567", "one million two hundred thirty four thousand five hundred sixty seven"},
		{"cardinal billions", "3,000,000,005", "three billion five"},
		{"cardinal plain big", "12000000", "twelve million"},
		{"year-like with comma", "1,999", "one thousand nine hundred ninety nine"},
		{"leading zeros", "007", "zero zero seven"},
		{"too long", "12345678901234567890", "one two three four five six seven eight nine zero one two three four five six seven eight nine zero"},
		{"decimal", "3.14", "three point one four"},
		{"decimal no int", ".5", "point five"},
		{"negative", "-5 -3.5", "minus five minus three point five"},
		{"unicode minus", "−12", "minus twelve"},
		{"dollars cents", "$42.50", "forty two dollars and fifty cents"},
		{"one dollar", "$1", "one dollar"},
		{"one cent", "$0.01", "one cent"},
		{"cents only", "$0.50", "fifty cents"},
		{"round dollars", "$42.00", "forty two dollars"},
		{"dollar and cent", "$1.01", "one dollar and one cent"},
		{"dollars commas", "$1,000", "one thousand dollars"},
		{"pounds", "£3.20", "three pounds and twenty pence"},
		{"euros", "€5", "five euros"},
		{"euro suffix", "5€", "five euros"},
		{"cents sign", "50¢", "fifty cents"},
		{"scale word", "$2 million", "two million dollars"},
		{"scale word decimal", "$1.5 billion", "one point five billion dollars"},
		{"one million", "$1 million", "one million dollars"},
		{"scale suffix", "€2bn", "two billion euros"},
		{"negative amount", "-$5", "minus five dollars"},
		{"ordinals", "1st 2nd 3rd 4th 11th 12th 21st 22nd 100th", "first second third fourth eleventh twelfth twenty first twenty second one hundredth"},
		{"ordinal twenty", "20th 90th", "twentieth ninetieth"},
		{"years", "1999 2005 2000 1900 1905 2024 1066 1100", "nineteen ninety nine two thousand five two thousand nineteen hundred nineteen oh five twenty twenty four one thousand sixty six eleven hundred"},
		{"decades", "1900s 1990s '90s 1980's", "nineteen hundreds nineteen nineties nineties nineteen eighties"},
		{"times", "3:30", "three thirty"},
		{"time am", "10:05 am", "ten oh five a m"},
		{"time attached pm", "7:45pm", "seven forty five p m"},
		{"time o'clock", "3:00", "three o'clock"},
		{"time am periods", "9:00 a.m.", "nine a m"},
		{"24h", "15:00", "fifteen hundred"},
		{"hour am", "10am 5 pm", "ten a m five p m"},
		{"am word", "I am here", "i am here"},
		{"percent", "12% 12.5%", "twelve percent twelve point five percent"},
		{"titles", "Mr. Mrs. Ms. Jones", "mister missus miz jones"},
		{"titles no period", "Mr Brown and Mrs Brown", "mister brown and missus brown"},
		{"saint", "St. Paul", "saint paul"},
		{"street", "Main St.", "main street"},
		{"street then sentence", "on Main St. Then we", "on main street then we"},
		{"saint sentence start", "Visit St. Louis", "visit saint louis"},
		{"numbered street", "42nd St.", "forty second street"},
		{"etc vs", "apples, etc. vs. oranges", "apples et cetera versus oranges"},
		{"eg ie", "e.g. this, i.e. that", "for example this that is that"},
		{"number abbrev", "No. 5 and no.", "number five and no"},
		{"hash number", "#1", "number one"},
		{"months", "Jan. 5, Feb 3, Mar. 4, Sept. 9", "january five february three march four september nine"},
		{"march verb", "forward mar. Good", "forward mar good"},
		{"weekdays", "Mon. Fri. Sat. 3 Jan. Jan", "monday friday saturday three january jan"},
		{"sun word", "the Sun. It", "the sun it"},
		{"ampersand", "Tom & Jerry R&D", "tom and jerry r and d"},
		{"hyphen", "well-known e-mail", "well known e mail"},
		{"slash", "and/or 24/7", "and or twenty four seven"},
		{"apostrophes", "don't o'clock rock'n'roll", "don't o'clock rock'n'roll"},
		{"curly quotes", "“Don’t,” she said", "don't she said"},
		{"accents", "Café naïve Ångström Łódź straße", "cafe naive angstrom lodz strasse"},
		{"dashes", "wait — what... ok", "wait what ok"},
		{"initialisms", "the U.S. and U.K.", "the u s and u k"},
		{"mixed", "mp3 COVID-19", "mp three covid nineteen"},
		{"units", "5kg 1 km 3 ft", "five kilograms one kilometer three feet"},
		{"elision", "'em 'tis", "'em 'tis"},
		{"possessive plural", "the dogs' bowls", "the dogs bowls"},
		{"plus at equals", "1+1=2 me@home", "one plus one equals two me at home"},
		{"non latin", "日本 ok", "ok"},
		{"parens", "(see [note])", "see note"},
		{"decimal in word", "1.5m v2.0", "one point five m v two point zero"},
		{"fractions", "½ 2¾", "one half two three quarters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SpokenForm(tt.in); got != tt.want {
				t.Errorf("SpokenForm(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestNormalizeTokens(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Token
	}{
		{"example", "Dr. Smith paid $42.50 on May 3rd, 1999.", []Token{
			{Orig: "Dr.", Spoken: []string{"doctor"}, Variants: [][]string{{"doctor"}, {"drive"}}, Ends: false},
			{Orig: "Smith", Spoken: []string{"smith"}, Ends: false},
			{Orig: "paid", Spoken: []string{"paid"}, Ends: false},
			{Orig: "$42.50", Spoken: []string{"forty", "two", "dollars", "and", "fifty", "cents"}, Variants: [][]string{
				{"forty", "two", "dollars", "and", "fifty", "cents"}, {"forty", "two", "dollars", "fifty", "cents"},
				{"forty", "two", "dollars", "fifty"}, {"forty", "two", "fifty"},
			}, Ends: false},
			{Orig: "on", Spoken: []string{"on"}, Ends: false},
			{Orig: "May", Spoken: []string{"may"}, Ends: false},
			{Orig: "3rd,", Spoken: []string{"third"}, Ends: false},
			{Orig: "1999.", Spoken: []string{"nineteen", "ninety", "nine"}, Variants: [][]string{
				{"nineteen", "ninety", "nine"}, {"nineteen", "hundred", "ninety", "nine"}, {"nineteen", "hundred", "and", "ninety", "nine"},
				{"one", "thousand", "nine", "hundred", "ninety", "nine"}, {"one", "thousand", "nine", "hundred", "and", "ninety", "nine"},
			}, Ends: true},
		}},
		{"silent tokens kept", "a — ... b", []Token{
			{Orig: "a", Spoken: []string{"a"}, Ends: false}, {Orig: "—", Spoken: nil, Ends: false}, {Orig: "...", Spoken: nil, Ends: true}, {Orig: "b", Spoken: []string{"b"}, Ends: true},
		}},
		{"scale word owns unit", "$2 million.", []Token{
			{Orig: "$2", Spoken: []string{"two"}, Ends: false}, {Orig: "million.", Spoken: []string{"million", "dollars"}, Ends: true},
		}},
		{"white space kinds", " x\t\ny\u00a0z ", []Token{
			{Orig: "x", Spoken: []string{"x"}, Ends: true}, {Orig: "y", Spoken: []string{"y"}, Ends: false}, {Orig: "z", Spoken: []string{"z"}, Ends: true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Normalize(tt.in)
			if err != nil {
				t.Fatalf("Normalize(%q): %v", tt.in, err)
			}
			if !reflect.DeepEqual(got.Tokens, tt.want) {
				t.Errorf("Normalize(%+v)\n got %+v\nwant %+v", tt.in, got.Tokens, tt.want)
			}
		})
	}
}

func TestWordMaps(t *testing.T) {
	txt, err := Normalize("Hi — $3 ok")
	if err != nil {
		t.Fatal(err)
	}
	wantWords := []string{"hi", "three", "dollars", "ok"}
	wantTok := []int{0, 2, 2, 3}
	wantOff := []int{0, 1, 1, 3, 4}
	if got := txt.Words(); !reflect.DeepEqual(got, wantWords) {
		t.Errorf("Words = %q, want %q", got, wantWords)
	}
	if got := txt.WordTokens(); !reflect.DeepEqual(got, wantTok) {
		t.Errorf("WordTokens = %v, want %v", got, wantTok)
	}
	if got := txt.Offsets(); !reflect.DeepEqual(got, wantOff) {
		t.Errorf("Offsets = %v, want %v", got, wantOff)
	}
}

func TestNormalizeInvalidUTF8(t *testing.T) {
	_, err := Normalize("ok \xff bad")
	if !errors.Is(err, ErrInvalidUTF8) {
		t.Fatalf("err = %v, want ErrInvalidUTF8", err)
	}
	if !strings.Contains(err.Error(), "offset 3") {
		t.Errorf("err = %v, want byte offset 3", err)
	}
	if got, want := SpokenForm("ok \xff bad"), "ok bad"; got != want {
		t.Errorf("SpokenForm = %q, want %q", got, want)
	}
	if _, err := Normalize("\ufffd literal"); err != nil {
		t.Errorf("literal U+FFFD rejected: %v", err)
	}
}

// TestFoldLetter checks the two blocks' edges and that every letter folds
// to ASCII letters (or apostrophe, for ŉ).
func TestFoldLetter(t *testing.T) {
	for r, want := range map[rune]string{
		0x00BF: "", 'À': "A", 'Æ': "AE", 0x00D7: "", 'ß': "ss", 'ɏ': "y", 0x0250: "",
		0x1DFF: "", 'Ḁ': "A", 'ẞ': "SS", 'ỹ': "y", 0x1EFF: "", 0x1F00: "",
	} {
		if got := foldLetter(r); got != want {
			t.Errorf("foldLetter(%U) = %q, want %q", r, got, want)
		}
	}
	n := 0
	for r := rune(0); r < 0x2000; r++ {
		s := foldLetter(r)
		if s != "" {
			n++
		}
		for _, c := range s {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '\'') {
				t.Errorf("foldLetter(%U) = %q: not an ASCII letter", r, s)
			}
		}
	}
	if n != 552 {
		t.Errorf("%d letters fold, want 552 (the generated table's entries)", n)
	}
}
