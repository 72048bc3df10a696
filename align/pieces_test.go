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
	got, _ := tokenPieces(txt, chars, seg, []int{0, 100, 200, 300}, 33)
	// Tokens: keep quiet. | won't you draw up? | yes sir.
	if want := []int{0, 2, 6, 8}; !slices.Equal(got, want) {
		t.Errorf("token ranges %v, want %v", got, want)
	}

	// A weak token inside a sentence with strong tokens still follows
	// its sentence, even where its own weak placement points elsewhere.
	at = []int{10, 20, 110, 150, 130, 140, 210, 220}
	conf = []float64{0.9, 0.8, 0.9, 0.1, 0.9, 0.9, 0.9, 0.9}
	at[3] = 250 // "you" placed weakly in piece 2
	got, _ = tokenPieces(txt, chars, segFor(chars, at, conf), []int{0, 100, 200, 300}, 33)
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
		got, _ := tokenPieces(txt, chars, segFor(chars, at, conf), []int{0, 100, 200, 300}, c.runOn)
		if !slices.Equal(got, c.want) {
			t.Errorf("runOn %d: token ranges %v, want %v", c.runOn, got, c.want)
		}
	}
}

// TestMergedUnits: two pieces go together when a token given to one was
// placed in the other, unless the unit would grow past maxLen.
func TestMergedUnits(t *testing.T) {
	pieces := []Piece{{0, 100}, {100, 200}, {200, 300}, {300, 400}}
	b := []int{0, 2, 4, 6, 8} // two tokens a piece
	placed := []int{0, 0, 1, 1, 2, 2, 3, 3}
	if got := mergedUnits(pieces, b, placed, 1000); !slices.Equal(got, []int{0, 1, 2, 3, 4}) {
		t.Errorf("tokens where placed: units %v, want every piece alone", got)
	}
	placed[2] = 0 // token 2, given to piece 1, was placed in piece 0
	if got := mergedUnits(pieces, b, placed, 1000); !slices.Equal(got, []int{0, 2, 3, 4}) {
		t.Errorf("a token moved across the cut 0|1: units %v, want [0 2 3 4]", got)
	}
	placed[5] = 3 // and token 5, given to piece 2, was placed in piece 3
	if got := mergedUnits(pieces, b, placed, 1000); !slices.Equal(got, []int{0, 2, 4}) {
		t.Errorf("cuts 0|1 and 2|3: units %v, want [0 2 4]", got)
	}
	placed[3] = 2 // piece 1's token 3 placed in piece 2 as well: one unit of four pieces
	if got := mergedUnits(pieces, b, placed, 1000); !slices.Equal(got, []int{0, 4}) {
		t.Errorf("three cuts: units %v, want [0 4]", got)
	}
	if got := mergedUnits(pieces, b, placed, 250); !slices.Equal(got, []int{0, 2, 4}) {
		t.Errorf("units of at most 250 samples: %v, want [0 2 4]", got)
	}
	placed[0], placed[1] = -1, 2 // no placement, and a placement two pieces away
	placed[2], placed[3], placed[5] = 1, 1, 2
	if got := mergedUnits(pieces, b, placed, 1000); !slices.Equal(got, []int{0, 1, 2, 3, 4}) {
		t.Errorf("unplaced and distant tokens: units %v, want every piece alone", got)
	}
}

// TestSubSegmentation: the part of a long recording's segmentation for a
// range of words keeps every span's time in the frames of the stretch it is
// cut for, clamped into the stretch.
func TestSubSegmentation(t *testing.T) {
	_, chars := normalized(t, "one two three")
	seg := segFor(chars, []int{5, 50, 120}, []float64{0.9, 0.2, 0.7})
	// Frames of the whole recording are 30 ms; the stretch starts at
	// 1.2 s (frame 40) and has 50 frames of 30 ms.
	sec := func(f int) float64 { return 0.03 * float64(f) }
	sub := subSegmentation(seg, wordRanges(chars), 1, 3, sec, 1.2, 0.03, 50)
	if want := len("two three"); len(sub.Spans) != want {
		t.Fatalf("%d spans, want %d", len(sub.Spans), want)
	}
	if !slices.Equal(sub.Conf, []float64{0.2, 0.7}) || !slices.Equal(sub.Placed, []bool{true, true}) {
		t.Errorf("conf %v placed %v", sub.Conf, sub.Placed)
	}
	if got, want := sub.Spans[0], (Span{10, 11}); got != want {
		t.Errorf("'t' of two: %v, want %v", got, want)
	}
	if got, want := sub.Spans[len(sub.Spans)-1], (Span{50, 50}); got != want {
		t.Errorf("last 'e' of three, after the stretch: %v, want %v (clamped)", got, want)
	}
}
