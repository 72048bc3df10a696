package corpus

import (
	"math"
	"strings"
	"testing"
)

// synthSignal builds a 1 kHz-rate test signal: sound (0.5) in the given
// [start, end) sample ranges, exact silence elsewhere.
func synthSignal(n int, sound ...[2]int) []float32 {
	x := make([]float32, n)
	for _, s := range sound {
		for i := s[0]; i < s[1]; i++ {
			x[i] = 0.5 * float32(1-2*(i%2))
		}
	}
	return x
}

func TestTimeWords(t *testing.T) {
	const rate = 1000 // samples per second; 5 ms frames are 5 samples
	const tol = 1e-9
	word := func(pos, n, sample int) synthEvent { return synthEvent{pos: pos, length: n, sample: sample} }
	ph := func(pos, sample int, name string) synthEvent {
		return synthEvent{phoneme: true, pos: pos, sample: sample, name: name}
	}
	tests := []struct {
		name   string
		text   string
		counts []int
		events []synthEvent
		sound  [][2]int
		n      int
		want   [][2]float64 // seconds
	}{
		{
			name: "one event per word, pause between",
			text: "ab cd", counts: []int{2, 2}, n: 400,
			events: []synthEvent{
				word(1, 2, 0), ph(1, 20, "a"), ph(1, 60, "b"),
				word(4, 2, 100), ph(4, 100, "_"), ph(4, 150, "c"), ph(4, 200, "d"), ph(4, 300, "_:"),
			},
			sound: [][2]int{{20, 100}, {150, 300}},
			want:  [][2]float64{{0.02, 0.1}, {0.15, 0.3}},
		},
		{
			name: "merged span split by phoneme counts",
			text: "in the city", counts: []int{2, 2, 3}, n: 500,
			events: []synthEvent{
				word(1, 2, 0), ph(1, 10, "I"), ph(1, 40, "n"), ph(1, 80, "D"), ph(1, 110, "@2"),
				word(8, 4, 150), ph(8, 150, "s"), ph(8, 200, "I"), ph(8, 250, "t"), ph(8, 300, "_:"),
			},
			sound: [][2]int{{10, 300}},
			want:  [][2]float64{{0.01, 0.08}, {0.08, 0.15}, {0.15, 0.3}},
		},
		{
			name: "merged span, counts disagree: proportional",
			text: "of a day", counts: []int{2, 2, 2}, n: 400,
			events: []synthEvent{
				word(1, 2, 0), ph(1, 0, "V"), ph(1, 30, "v"), ph(1, 60, "@"),
				word(6, 3, 100), ph(6, 100, "d"), ph(6, 150, "eI"), ph(6, 250, "_"),
			},
			sound: [][2]int{{0, 250}},
			want:  [][2]float64{{0, 0.06}, {0.06, 0.1}, {0.1, 0.25}},
		},
		{
			name: "trailing silence trimmed by energy",
			text: "stop", counts: []int{4}, n: 300,
			events: []synthEvent{
				word(1, 4, 0), ph(1, 0, "s"), ph(1, 50, "t"), ph(1, 100, "0"), ph(1, 150, "p"),
			},
			sound: [][2]int{{10, 120}, {160, 200}},
			want:  [][2]float64{{0.01, 0.2}},
		},
		{
			name: "no event for the first word",
			text: "human skin", counts: []int{5, 4}, n: 400,
			events: []synthEvent{
				ph(0, 0, "j"), ph(0, 40, "u:"), ph(0, 80, "m"), ph(0, 100, "@"), ph(0, 120, "n"),
				word(7, 4, 150), ph(7, 160, "s"), ph(7, 200, "k"), ph(7, 240, "I"), ph(7, 280, "n"), ph(7, 330, "_:"),
			},
			sound: [][2]int{{0, 140}, {160, 330}},
			want:  [][2]float64{{0, 0.14}, {0.16, 0.33}},
		},
		{
			name: "second event inside a word ignored",
			text: "xylyl go", counts: []int{0, 2}, n: 300,
			events: []synthEvent{
				word(1, 5, 0), ph(1, 0, "z"), word(3, 3, 50), ph(3, 50, "aI"),
				word(7, 2, 120), ph(7, 120, "g"), ph(7, 160, "oU"), ph(7, 250, "_"),
			},
			sound: [][2]int{{0, 250}},
			want:  [][2]float64{{0, 0.12}, {0.12, 0.25}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := synthSignal(tc.n, tc.sound...)
			got, err := timeWords(tc.text, tc.counts, tc.events, x, rate)
			if err != nil {
				t.Fatal(err)
			}
			fields := strings.Fields(tc.text)
			if len(got) != len(tc.want) {
				t.Fatalf("%d words, want %d", len(got), len(tc.want))
			}
			for i, w := range got {
				if w.Word != fields[i] || math.Abs(w.Start-tc.want[i][0]) > tol || math.Abs(w.End-tc.want[i][1]) > tol {
					t.Errorf("word %d: %+v, want %q %.3f..%.3f", i, w, fields[i], tc.want[i][0], tc.want[i][1])
				}
			}
		})
	}
}

func TestTimeWordsNoFirstEvent(t *testing.T) {
	x := synthSignal(100, [2]int{0, 100})
	events := []synthEvent{{pos: 4, length: 2, sample: 50}}
	if _, err := timeWords("ab cd", []int{0, 0}, events, x, 1000); err == nil {
		t.Error("no error without an event for the first word")
	}
}

func TestSplitCounts(t *testing.T) {
	tests := []struct {
		n       int
		weights []float64
		exact   bool
		want    []int
	}{
		{4, []float64{2, 2}, true, []int{0, 2, 4}},
		{5, []float64{1, 3, 1}, true, []int{0, 1, 4, 5}},
		{3, []float64{2, 2, 2}, false, []int{0, 1, 2, 3}},
		{10, []float64{1, 1}, false, []int{0, 5, 10}},
		{2, []float64{9, 1}, false, []int{0, 1, 2}}, // each run keeps one item
	}
	for _, tc := range tests {
		got := splitCounts(tc.n, tc.weights, tc.exact)
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("splitCounts(%d, %v, %v) = %v, want %v", tc.n, tc.weights, tc.exact, got, tc.want)
				break
			}
		}
	}
}
