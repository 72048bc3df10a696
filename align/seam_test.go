package align

import (
	"math"
	"slices"
	"testing"

	"github.com/heed-asr/heed/align/normalize"
	"github.com/heed-asr/heed/model"
)

func TestTokenLabels(t *testing.T) {
	txt, err := normalize.Normalize("ab, 7 cd")
	if err != nil {
		t.Fatal(err)
	}
	// Spoken: "ab" | "seven" | "cd".
	ids, at := tokenLabels(txt, 0, 3, 1)
	want, _ := model.Encode("ab seven cd")
	if !slices.Equal(ids, want) {
		t.Errorf("ids %v, want %v", ids, want)
	}
	if !slices.Equal(at, []int{2, 8, 11}) {
		t.Errorf("boundaries %v, want [2 8 11]", at)
	}
}

// peaked returns an encoding whose CTC log-posteriors (T, V) spell text: each character
// on two frames, a blank frame between characters.
func peaked(text string) *model.Encoded {
	ids, err := model.Encode(text)
	if err != nil {
		panic(err)
	}
	var seq []int
	for _, id := range ids {
		seq = append(seq, id, id, model.EOS)
	}
	V := model.VocabSize
	p := &model.Encoded{CTCLogProbs: make([]float32, len(seq)*V), T: len(seq)}
	for t, id := range seq {
		row := p.CTCLogProbs[t*V : (t+1)*V]
		for v := range row {
			row[v] = float32(math.Log(0.01 / float64(V-1)))
		}
		row[id] = float32(math.Log(0.99))
	}
	return p
}

func TestMendSeam(t *testing.T) {
	txt, err := normalize.Normalize("one two three four five six")
	if err != nil {
		t.Fatal(err)
	}
	// Piece 0 says "one two three four", piece 1 "five six".
	e0, e1 := peaked("one two three four"), peaked("five six")
	for _, b := range []int{1, 2, 3, 5, 6} {
		r := [][2]int{{0, b}, {b, 6}}
		mendSeam(r, e0, e1, txt, model.VocabSize)
		if r[0] != [2]int{0, 4} || r[1] != [2]int{4, 6} {
			t.Errorf("boundary %d mended to %v, want [[0 4] [4 6]]", b, r)
		}
	}
}

func TestMatchEnd(t *testing.T) {
	ref := []byte("the cat sat on the mat and then it slept all day long")
	tests := []struct {
		name string
		from int
		hyp  string
		want int // end position in ref
	}{
		{"exact", 0, "the cat sat", 11},
		{"with errors", 0, "the kat sad on", 14},
		{"from the middle", 12, "on the mat", 22},
		// The text position lags the audio by three words: the match
		// catches up instead of matching the wrong words.
		{"catches up", 0, "on the mat and", 26},
		{"empty", 5, "", 5},
		{"past the end", len(ref), "day", len(ref)},
	}
	for _, tc := range tests {
		if got := matchEnd(ref, tc.from, []byte(tc.hyp)); got != tc.want {
			t.Errorf("%s: matchEnd(%d, %q) = %d (%q), want %d", tc.name, tc.from, tc.hyp, got, ref[:got], tc.want)
		}
	}
}
