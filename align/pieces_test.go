package align

import (
	"slices"
	"testing"

	"github.com/heed-asr/heed/align/normalize"
)

// segFor builds a Segmentation of chars that places word w at frames
// at[w] (each character one frame, from there) with confidence conf[w].
func segFor(chars string, at []int, conf []float64) *Segmentation {
	ranges := wordRanges(chars)
	seg := &Segmentation{Spans: make([]Span, len(chars)), Placed: make([]bool, len(ranges)), Conf: conf}
	for w, r := range ranges {
		seg.Placed[w] = true
		for c := r[0]; c < r[1]; c++ {
			f := at[w] + c - r[0]
			seg.Spans[c] = Span{Start: f, End: f + 1}
		}
	}
	return seg
}

// normalized returns the normalized text of s and its transcript.
func normalized(t *testing.T, s string) (*normalize.Text, string) {
	t.Helper()
	txt, err := normalize.Normalize(s)
	if err != nil {
		t.Fatal(err)
	}
	return txt, txt.String()
}

// TestTokenPiecesWeakSentence: a sentence the model hears poorly (no word
// placed with confidence pieceConf) goes where the segmentation placed
// it, not into the piece of the sentence before it.
func TestTokenPiecesWeakSentence(t *testing.T) {
	txt, chars := normalized(t, "Keep quiet. Won't you draw up? Yes sir.")
	// Pieces start at frames 0, 100 and 200; the first sentence is heard
	// well in piece 0, the second weakly in piece 1, the third well in
	// piece 2.
	at := []int{10, 20, 110, 120, 130, 140, 210, 220}
	conf := []float64{0.9, 0.8, 0.1, 0.2, 0.05, 0.1, 0.9, 0.9}
	seg := segFor(chars, at, conf)
	got := tokenPieces(txt, chars, seg, []int{0, 100, 200, 300}, 33)
	// Tokens: keep quiet. | won't you draw up? | yes sir.
	if want := []int{0, 2, 6, 8}; !slices.Equal(got, want) {
		t.Errorf("token ranges %v, want %v", got, want)
	}

	// A weak token inside a sentence with strong tokens still follows
	// its sentence, even where its own weak placement points elsewhere.
	at = []int{10, 20, 110, 150, 130, 140, 210, 220}
	conf = []float64{0.9, 0.8, 0.9, 0.1, 0.9, 0.9, 0.9, 0.9}
	at[3] = 250 // "you" placed weakly in piece 2
	got = tokenPieces(txt, chars, segFor(chars, at, conf), []int{0, 100, 200, 300}, 33)
	if want := []int{0, 2, 6, 8}; !slices.Equal(got, want) {
		t.Errorf("with a stray weak word: token ranges %v, want %v", got, want)
	}
}

// TestTokenPiecesRunOn: weak words at the end of a sentence keep their own
// piece when they follow the last strong word within runOn frames (a slow
// reader's sentence running on over a pause), and stay with it when they
// lie further away (a stray match in the music after the sentence).
func TestTokenPiecesRunOn(t *testing.T) {
	txt, chars := normalized(t, "But what if they were right. Yes sir.")
	// Pieces start at frames 0, 100 and 200. "but what if" is heard in
	// piece 0 (ending at frame 70), "they were right" weakly from frame
	// 105 in piece 1; "yes sir" well in piece 2.
	at := []int{50, 60, 68, 105, 115, 125, 210, 220}
	conf := []float64{0.9, 0.8, 0.9, 0.1, 0.1, 0.1, 0.9, 0.9}
	for _, c := range []struct {
		runOn int
		want  []int
	}{
		{40, []int{0, 3, 6, 8}}, // the weak words start 35 frames after "if": their own piece
		{30, []int{0, 6, 6, 8}}, // too far: they stay with "if"
	} {
		got := tokenPieces(txt, chars, segFor(chars, at, conf), []int{0, 100, 200, 300}, c.runOn)
		if !slices.Equal(got, c.want) {
			t.Errorf("runOn %d: token ranges %v, want %v", c.runOn, got, c.want)
		}
	}
}
