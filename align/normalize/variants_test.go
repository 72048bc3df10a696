package normalize

import (
	"slices"
	"strings"
	"testing"
)

// TestVariants lists, per input text, the readings of its token tok
// (joined by spaces, the default first); nil wants no variants.
func TestVariants(t *testing.T) {
	tests := []struct {
		name string
		in   string
		tok  int
		want []string
	}{
		{"year pairs", "in 2019", 1, []string{"twenty nineteen", "two thousand nineteen", "two thousand and nineteen"}},
		{"year 2005", "2005", 0, []string{"two thousand five", "twenty oh five", "two thousand and five"}},
		{"year oh", "1905.", 0, []string{"nineteen oh five", "nineteen hundred five", "nineteen hundred and five", "one thousand nine hundred five", "one thousand nine hundred and five"}},
		{"year hundred", "1900", 0, []string{"nineteen hundred", "one thousand nine hundred"}},
		{"year 2000", "2000", 0, nil},
		{"cardinal commas", "1,250", 0, []string{"one thousand two hundred fifty", "one thousand two hundred and fifty", "twelve hundred fifty", "twelve hundred and fifty"}},
		{"cardinal and", "101", 0, []string{"one hundred one", "one hundred and one"}},
		{"thousand and", "3,005", 0, []string{"three thousand five", "three thousand and five"}},
		{"small cardinal", "42", 0, nil},
		{"digit string", "007", 0, []string{"zero zero seven", "oh oh seven"}},
		{"decimal zero", "3.05", 0, []string{"three point zero five", "three point oh five"}},
		{"leading point", "0.5", 0, []string{"zero point five", "point five", "oh point five"}},
		{"dollars", "$42.50", 0, []string{"forty two dollars and fifty cents", "forty two dollars fifty cents", "forty two dollars fifty", "forty two fifty"}},
		{"dollars thousands", "$1,250", 0, []string{"one thousand two hundred fifty dollars", "one thousand two hundred and fifty dollars", "twelve hundred fifty dollars", "twelve hundred and fifty dollars"}},
		{"negative amount", "-$101", 0, []string{"minus one hundred one dollars", "minus one hundred and one dollars"}},
		{"one dollar", "$1", 0, nil},
		{"scale word", "$2 million", 0, nil},
		{"percent", "12%", 0, []string{"twelve percent", "twelve per cent"}},
		{"time oh", "10:05", 0, []string{"ten oh five", "ten zero five"}},
		{"time hour", "3:00", 0, []string{"three o'clock", "three"}},
		{"time 24h", "15:00", 0, []string{"fifteen hundred", "fifteen", "fifteen hundred hours"}},
		{"time half", "10:30", 0, []string{"ten thirty", "half past ten"}},
		{"time quarter to", "7:45pm", 0, []string{"seven forty five p m", "quarter to eight p m"}},
		{"time before am", "9:00 am", 0, nil},
		{"day after month", "May 3,", 1, []string{"three", "third"}},
		{"day no month", "page 3", 1, nil},
		{"saint", "St. Paul", 0, []string{"saint", "street"}},
		{"street", "Main St.", 1, []string{"street", "saint"}},
		{"doctor", "Dr. Smith", 0, []string{"doctor", "drive"}},
		{"drive", "on Mulholland Dr.", 2, []string{"drive", "doctor"}},
		{"eg", "e.g.", 0, []string{"for example", "e g"}},
		{"capitals", "NASA", 0, []string{"nasa", "n a s a"}},
		{"initialism periods", "U.S.", 0, nil},
		{"plain word", "hello", 0, nil},
		{"am after time", "10:05 am", 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			txt, err := Normalize(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			tok := txt.Tokens[tt.tok]
			var got []string
			for _, v := range tok.Variants {
				got = append(got, strings.Join(v, " "))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("variants of %q in %q\n got %q\nwant %q", tok.Orig, tt.in, got, tt.want)
			}
			if r := tok.Readings(); len(r) == 0 || !slices.Equal(r[0], tok.Spoken) {
				t.Errorf("Readings()[0] = %q, want Spoken %q", r, tok.Spoken)
			}
		})
	}
}

func TestReadingsWithoutWords(t *testing.T) {
	txt, err := Normalize("—")
	if err != nil {
		t.Fatal(err)
	}
	if r := txt.Tokens[0].Readings(); r != nil {
		t.Errorf("Readings() = %q, want nil", r)
	}
}
