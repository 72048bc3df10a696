package align

import (
	"math"
	"strings"
	"testing"

	"github.com/heed-asr/heed/align/normalize"
)

// layout describes synthetic audio for a transcript: every character of a
// "present" word takes charFrames encoder frames, a space takes spaceFrames
// plus any extra pause before the next word; words marked absent are not
// in the audio at all (their rows attend uniformly); extra frames of
// unrelated audio can sit before a word.
type layout struct {
	charFrames, spaceFrames int
	absent                  map[int]bool // spoken word index -> not spoken
	pause                   map[int]int  // spoken word index -> frames of silence/music before it
}

// synth builds the (L, T) attention for chars and returns it with T and the
// true [start, end) encoder frames of every spoken word (absent words get
// {-1, -1}).
func (ly layout) synth(chars string) (att []float32, T int, truth [][2]int) {
	ranges := wordRanges(chars)
	centre := make([]float64, len(chars))
	uniform := make([]bool, len(chars))
	t := 0
	for k, r := range ranges {
		if k > 0 {
			// The space before word k.
			centre[r[0]-1] = float64(t) + float64(ly.spaceFrames)/2 - 0.5
			t += ly.spaceFrames
		}
		t += ly.pause[k]
		if ly.absent[k] {
			for l := r[0]; l < r[1]; l++ {
				uniform[l] = true
			}
			truth = append(truth, [2]int{-1, -1})
			continue
		}
		start := t
		for l := r[0]; l < r[1]; l++ {
			centre[l] = float64(t) + float64(ly.charFrames)/2 - 0.5
			t += ly.charFrames
		}
		truth = append(truth, [2]int{start, t})
	}
	T = t + 2
	att = make([]float32, len(chars)*T)
	for l := range chars {
		row := att[l*T : (l+1)*T]
		sum := 0.0
		for i := range row {
			v := 1.0
			if !uniform[l] {
				d := (float64(i) - centre[l]) / (0.3 * float64(ly.charFrames))
				v = math.Exp(-0.5*d*d) + 1e-12
			}
			row[i] = float32(v)
			sum += v
		}
		for i := range row {
			row[i] = float32(float64(row[i]) / sum)
		}
	}
	return att, T, truth
}

func TestAlignText(t *testing.T) {
	const frameSec = 0.03
	const tol = 0.035 // seconds: about one encoder frame
	tests := []struct {
		name   string
		text   string
		ly     layout
		interp []int // token indices expected to be interpolated
	}{
		{"clean", "Dr. Smith paid $42.50 on May 3rd, 1999.", layout{charFrames: 2, spaceFrames: 2}, nil},
		{"pauses", "Hello there, general Kenobi!", layout{charFrames: 3, spaceFrames: 1, pause: map[int]int{1: 20, 3: 40}}, nil},
		{"extra word in text", "the cat sat on the mat", layout{charFrames: 2, spaceFrames: 2, absent: map[int]bool{2: true}}, []int{2}},
		{"extra audio", "one two three", layout{charFrames: 2, spaceFrames: 2, pause: map[int]int{1: 150}}, nil},
		{"silent token", "wait — what", layout{charFrames: 2, spaceFrames: 2}, []int{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			txt, err := normalize.Normalize(tt.text)
			if err != nil {
				t.Fatal(err)
			}
			chars := Transcript(txt)
			att, T, truth := tt.ly.synth(chars)
			opts := DefaultOptions()
			opts.FrameSec = frameSec
			words, err := AlignText(txt, att, T, opts)
			if err != nil {
				t.Fatal(err)
			}
			r := &Result{File: "x.wav", Duration: float64(T) * frameSec, Words: words}
			if err := r.Validate(); err != nil {
				t.Fatalf("invalid result: %v", err)
			}
			fields := strings.Fields(tt.text)
			if len(words) != len(fields) {
				t.Fatalf("got %d words, want %d", len(words), len(fields))
			}
			interp := map[int]bool{}
			for _, i := range tt.interp {
				interp[i] = true
			}
			off := txt.Offsets()
			for i, w := range words {
				if w.Word != fields[i] {
					t.Errorf("word %d = %q, want %q", i, w.Word, fields[i])
				}
				wantStatus := StatusAligned
				if interp[i] {
					wantStatus = StatusInterpolated
				}
				if w.Status != wantStatus {
					t.Errorf("word %d %q: status %s (confidence %.3f), want %s", i, w.Word, w.Status, w.Confidence, wantStatus)
				}
				if w.Confidence < 0 || w.Confidence > 1 {
					t.Errorf("word %d: confidence %v outside [0, 1]", i, w.Confidence)
				}
				if wantStatus != StatusAligned || off[i] == off[i+1] {
					continue
				}
				first, last := truth[off[i]], truth[off[i+1]-1]
				wantStart, wantEnd := float64(first[0])*frameSec, float64(last[1])*frameSec
				if math.Abs(w.Start-wantStart) > tol || math.Abs(w.End-wantEnd) > tol {
					t.Errorf("word %d %q: [%.3f, %.3f], want [%.3f, %.3f] (tol %v)", i, w.Word, w.Start, w.End, wantStart, wantEnd, tol)
				}
			}
		})
	}
}

func TestAlignTextSilentTokenPlacement(t *testing.T) {
	txt, err := normalize.Normalize("— wait — — what ...")
	if err != nil {
		t.Fatal(err)
	}
	att, T, _ := layout{charFrames: 2, spaceFrames: 2}.synth(Transcript(txt))
	words, err := AlignText(txt, att, T, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ tok, neighbour int }{{0, 1}, {2, 1}, {3, 1}, {5, 4}} {
		w, n := words[tt.tok], words[tt.neighbour]
		want := n.End
		if tt.tok < tt.neighbour {
			want = n.Start
		}
		if w.Start != want || w.End != want || w.Status != StatusInterpolated || w.Confidence != 0 {
			t.Errorf("token %d %q = %+v, want zero length at %v, interpolated", tt.tok, w.Word, w, want)
		}
	}
}

func TestAlignTextNothingSpoken(t *testing.T) {
	txt, err := normalize.Normalize("— ...")
	if err != nil {
		t.Fatal(err)
	}
	words, err := AlignText(txt, nil, 10, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(words) != 2 || words[0].Word != "—" || words[1].Status != StatusInterpolated || words[1].End != 0 {
		t.Errorf("words = %+v, want two zero-length interpolated tokens at 0", words)
	}
}

func TestAlignTextNoPath(t *testing.T) {
	txt, err := normalize.Normalize("abc de")
	if err != nil {
		t.Fatal(err)
	}
	const T = 1 // 3 upsampled frames for 6 characters: no path
	att := make([]float32, 6*T)
	words, err := AlignText(txt, att, T, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	const tol = 1e-12
	want := [][2]float64{{0, 0.018}, {0.018, 0.03}}
	for i, w := range words {
		if w.Status != StatusInterpolated || math.Abs(w.Start-want[i][0]) > tol || math.Abs(w.End-want[i][1]) > tol {
			t.Errorf("word %d = %+v, want interpolated over %v", i, w, want[i])
		}
	}
}

func TestAlignTextErrors(t *testing.T) {
	txt, _ := normalize.Normalize("ab")
	tests := []struct {
		name string
		att  []float32
		T    int
		opts Options
	}{
		{"size", make([]float32, 5), 3, DefaultOptions()},
		{"frame", make([]float32, 6), 3, Options{}},
		{"ctc", make([]float32, 6), 3, Options{FrameSec: 0.03, Path: PathOptions{CTC: make([]float32, 2)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := AlignText(txt, tt.att, tt.T, tt.opts); err == nil {
				t.Error("no error")
			}
		})
	}
}

func TestInterpolate(t *testing.T) {
	const tol = 1e-12
	mk := func(word string, s, e, conf float64) Word {
		w := Word{Word: word, Start: s, End: e, Confidence: conf, Status: StatusAligned}
		for _, c := range word {
			w.Chars = append(w.Chars, Char{Char: string(c)})
		}
		return w
	}
	tests := []struct {
		name  string
		words []Word
		want  [][2]float64
	}{
		{"middle run", []Word{mk("aa", 0, 1, 0.9), mk("b", 5, 5.1, 0.1), mk("ccc", 6, 6.2, 0.1), mk("d", 8, 9, 0.8)},
			[][2]float64{{0, 1}, {1, 2.75}, {2.75, 8}, {8, 9}}},
		{"leading and trailing", []Word{mk("ab", 3, 3.5, 0.1), mk("c", 4, 5, 0.9), mk("de", 9, 9.1, 0)},
			[][2]float64{{0, 4}, {4, 5}, {5, 10}}},
		{"all", []Word{mk("a", 1, 2, 0), mk("bcd", 2, 3, 0)}, [][2]float64{{0, 2.5}, {2.5, 10}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			Interpolate(tt.words, 0.5, 0, 10)
			for i, w := range tt.words {
				if math.Abs(w.Start-tt.want[i][0]) > tol || math.Abs(w.End-tt.want[i][1]) > tol {
					t.Errorf("word %d = [%v, %v], want %v", i, w.Start, w.End, tt.want[i])
				}
				if (w.Confidence < 0.5) != (w.Status == StatusInterpolated) {
					t.Errorf("word %d: confidence %v status %s", i, w.Confidence, w.Status)
				}
				if w.Status == StatusInterpolated {
					if c := w.Chars; c[0].Start != w.Start || math.Abs(c[len(c)-1].End-w.End) > tol {
						t.Errorf("word %d chars %v do not span the word", i, c)
					}
				}
			}
		})
	}
}

// word2 is an aligned two-character word at s-e seconds, confidence 0.9,
// its characters halving it.
func word2(s, e float64) Word {
	return Word{Start: s, End: e, Status: StatusAligned, Confidence: 0.9,
		Chars: []Char{{Start: s, End: (s + e) / 2}, {Start: (s + e) / 2, End: e}}}
}

// TestShrinkAndDropSkipped: a word the attention path stretched over speech
// the segmentation left outside it is pulled in to the segmentation's
// edges; a word the segmentation left out between two confidently placed
// words is left to Interpolate, and its neighbours' edges next to it move
// out to the segmentation's.
func TestShrinkAndDropSkipped(t *testing.T) {
	const chars = "ab cd ef"
	// Encoder frames of 0.1 s: ab at 0-2, cd at 10-12, ef at 13-15.
	seg := &Segmentation{
		Spans:  []Span{{0, 1}, {1, 2}, {2, 10}, {10, 11}, {11, 12}, {12, 13}, {13, 14}, {14, 15}},
		Placed: []bool{true, true, true},
		Conf:   []float64{0.9, 0.9, 0.9},
	}
	spoken := []Word{word2(0, 0.2), word2(0.3, 1.2), word2(1.3, 1.5)}
	shrinkToSegmentation(spoken, chars, seg, 0.1, 0)
	if math.Abs(spoken[1].Start-1.0) > 1e-9 || math.Abs(spoken[1].End-1.2) > 1e-9 {
		t.Errorf("cd at %.2f-%.2f, want 1.00-1.20 (the segmentation's start; its end is within reach)", spoken[1].Start, spoken[1].End)
	}
	if math.Abs(spoken[1].Chars[0].Start-1.0) > 1e-9 {
		t.Errorf("cd's first character starts at %.2f, want 1.00", spoken[1].Chars[0].Start)
	}
	// cd left out by the segmentation: the path gave it 0.25-0.45 s.
	seg.Placed[1], seg.Conf[1] = false, 0
	seg.Spans = []Span{{0, 1}, {1, 3}, {3, 3}, {3, 3}, {3, 3}, {3, 3}, {3, 4}, {4, 5}}
	spoken = []Word{word2(0, 0.25), word2(0.25, 0.45), word2(0.45, 0.5)}
	dropSkipped(spoken, chars, seg, 0.1, 0)
	if spoken[1].Status != StatusInterpolated {
		t.Errorf("cd: status %v, want interpolated", spoken[1].Status)
	}
	if math.Abs(spoken[0].End-0.3) > 1e-9 || math.Abs(spoken[2].Start-0.3) > 1e-9 {
		t.Errorf("neighbours: ab ends %.2f, ef starts %.2f; want 0.30 and 0.30", spoken[0].End, spoken[2].Start)
	}
	// The path ran ab on past the segmentation's start of ef: both take
	// the segmentation's edges, so that the times stay in order.
	spoken = []Word{word2(0, 0.4), word2(0.4, 0.45), word2(0.45, 0.5)}
	dropSkipped(spoken, chars, seg, 0.1, 0)
	if math.Abs(spoken[0].End-0.3) > 1e-9 || math.Abs(spoken[2].Start-0.3) > 1e-9 {
		t.Errorf("overlapping neighbours: ab ends %.2f, ef starts %.2f; want 0.30 and 0.30", spoken[0].End, spoken[2].Start)
	}
}

// TestShrinkMovesDisplaced: a word the attention path put beside its sound
// (its neighbour took the sound, as when a word of the text is not in the
// audio) takes the CTC segmentation's span when the two barely overlap,
// and the words around it give way; a word the segmentation placed weakly
// is left where the path put it.
func TestShrinkMovesDisplaced(t *testing.T) {
	const chars = "ab cd ef"
	// Encoder frames of 0.1 s: ab at 0-2, cd at 5-7, ef at 10-12.
	seg := &Segmentation{
		Spans:  []Span{{0, 1}, {1, 2}, {2, 5}, {5, 6}, {6, 7}, {7, 10}, {10, 11}, {11, 12}},
		Placed: []bool{true, true, true},
		Conf:   []float64{0.3, 0.9, 0.9},
	}
	spoken := []Word{word2(0, 0.7), word2(0.7, 1.1), word2(1.1, 1.2)}
	shrinkToSegmentation(spoken, chars, seg, 0.1, 0)
	want := [][2]float64{{0, 0.5}, {0.5, 0.7}, {1.1, 1.2}}
	for k, w := range spoken {
		if math.Abs(w.Start-want[k][0]) > 1e-9 || math.Abs(w.End-want[k][1]) > 1e-9 {
			t.Errorf("word %d at %.2f-%.2f, want %.2f-%.2f", k, w.Start, w.End, want[k][0], want[k][1])
		}
	}
	if c := spoken[1].Chars; math.Abs(c[0].End-0.6) > 1e-9 || math.Abs(c[1].Start-0.6) > 1e-9 {
		t.Errorf("cd's characters %+v, want the segmentation's (0.5-0.6, 0.6-0.7)", c)
	}
	// The word after gives way too, even when the segmentation placed it
	// too weakly to move or shrink it: times stay in order.
	seg.Conf = []float64{0.9, 0.9, 0.3}
	spoken = []Word{word2(0, 0.3), word2(0.3, 0.45), word2(0.45, 1.2)}
	shrinkToSegmentation(spoken, chars, seg, 0.1, 0)
	want = [][2]float64{{0, 0.3}, {0.5, 0.7}, {0.7, 1.2}}
	for k, w := range spoken {
		if math.Abs(w.Start-want[k][0]) > 1e-9 || math.Abs(w.End-want[k][1]) > 1e-9 {
			t.Errorf("weak next word: word %d at %.2f-%.2f, want %.2f-%.2f", k, w.Start, w.End, want[k][0], want[k][1])
		}
	}
	seg.Conf = []float64{0.3, 0.3, 0.9}
	spoken = []Word{word2(0, 0.7), word2(0.7, 1.1), word2(1.1, 1.2)}
	shrinkToSegmentation(spoken, chars, seg, 0.1, 0)
	if spoken[1].Start != 0.7 || spoken[1].End != 1.1 {
		t.Errorf("weakly placed cd moved to %.2f-%.2f", spoken[1].Start, spoken[1].End)
	}
}
