package align

import (
	"math"
	"math/rand"
	"testing"

	"github.com/heed-asr/heed/model"
)

// spell returns CTC log-probabilities (T, V) in which each character of
// text (spaces emitted as blanks) peaks on two frames, with a blank frame
// after each, plus lead blank frames before; 20 noise frames (weak blank,
// weak random characters) are inserted where text has '#'. It returns the first frame of
// every byte of text (-1 for '#').
func spell(text string, lead int, rng *rand.Rand) ([]float32, int, []int) {
	var frames [][]float32
	peak := func(id int) []float32 { return dist(id, 0.999) }
	for i := 0; i < lead; i++ {
		frames = append(frames, peak(model.EOS))
	}
	starts := make([]int, len(text))
	for i := 0; i < len(text); i++ {
		starts[i] = len(frames)
		switch c := text[i]; c {
		case ' ':
			frames = append(frames, peak(model.EOS))
		case '#':
			starts[i] = -1
			// Noise: a weak blank, a weak random character.
			for j := 0; j < 20; j++ {
				f := dist(model.EOS, 0.3)
				f[3+rng.Intn(26)] = float32(math.Log(0.2))
				frames = append(frames, f)
			}
		default:
			ids, _ := model.Encode(string(c))
			frames = append(frames, peak(ids[0]), peak(ids[0]), peak(model.EOS))
		}
	}
	var lp []float32
	for _, f := range frames {
		lp = append(lp, f...)
	}
	return lp, len(frames), starts
}

// dist returns one frame of CTC log-probabilities with p on id and the
// rest spread evenly over the other labels.
func dist(id int, p float64) []float32 {
	V := model.VocabSize
	f := make([]float32, V)
	for v := range f {
		f[v] = float32(math.Log((1 - p) / float64(V-1)))
	}
	f[id] = float32(math.Log(p))
	return f
}

func TestCTCSegment(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	long := ""
	for i := 0; i < 60; i++ {
		long += "the quick brown fox jumps over a lazy dog "
	}
	long = long[:len(long)-1]
	for _, tc := range []struct {
		name, audio, text string
		band              int
		placed            string // one letter per word: y placed, n left out
	}{
		{"plain", "hello big world", "hello big world", 0, "yyy"},
		{"noise between words", "hello # big # world", "hello big world", 0, "yyy"},
		{"word not in audio", "hello big world", "hello big green world", 0, "yyny"},
		{"first word not in audio", "big world", "the big world", 0, "nyy"},
		{"long in a narrow band", long, long, 64, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lp, T, starts := spell(tc.audio, 5, rng)
			seg := CTCSegment(lp, T, model.VocabSize, tc.text, nil, SegOptions{Band: tc.band, GarbageLogProb: math.Log(1e-4), SkipLogProb: math.Log(1e-4)})
			if seg == nil {
				t.Fatal("no segmentation")
			}
			// Expected frame of each byte of text: match words of the
			// text to words of the audio.
			aw, tw := wordRanges(tc.audio), wordRanges(tc.text)
			j := 0
			for w, r := range tw {
				word := tc.text[r[0]:r[1]]
				k := j
				for k < len(aw) && tc.audio[aw[k][0]:aw[k][1]] != word {
					k++
				}
				want := k < len(aw)
				if tc.placed != "" {
					want = tc.placed[w] == 'y'
				}
				if seg.Placed[w] != want {
					t.Fatalf("word %d %q placed %v, want %v", w, word, seg.Placed[w], want)
				}
				if !want {
					continue
				}
				j = k
				for i := r[0]; i < r[1]; i++ {
					if got, want := seg.Spans[i].Start, starts[aw[j][0]+i-r[0]]; got != want {
						t.Errorf("word %q char %d starts at frame %d, want %d", word, i-r[0], got, want)
					}
				}
				j++
			}
			for i := 1; i < len(seg.Spans); i++ {
				if seg.Spans[i].Start < seg.Spans[i-1].End || seg.Spans[i].End < seg.Spans[i].Start {
					t.Fatalf("spans %d, %d not monotonic: %v %v", i-1, i, seg.Spans[i-1], seg.Spans[i])
				}
			}
		})
	}
}

// TestUnheard: the frames between two placed words where the CTC head
// hears other characters (a word left out of the transcript) are reported;
// a repeat of the first word's last character (a long final vowel) and a
// pause are not.
func TestUnheard(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	opts := SegOptions{GarbageLogProb: math.Log(1e-4), SkipLogProb: math.Log(1e-4)}
	for _, tc := range []struct {
		name, audio, text string
		want              bool // an unheard span after the first word
	}{
		{"word left out", "hello big world", "hello world", true},
		{"plain", "hello world", "hello world", false},
		{"long final vowel", "helloo world", "hello world", false},
		{"noise between", "hello # world", "hello world", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lp, T, starts := spell(tc.audio, 5, rng)
			seg := CTCSegment(lp, T, model.VocabSize, tc.text, nil, opts)
			u := Unheard(seg, lp, T, model.VocabSize, tc.text)
			if len(u) != 2 || u[1].Len() != 0 {
				t.Fatalf("spans %v: want 2, the last empty", u)
			}
			if got := u[0].Len() > 0; got != tc.want {
				t.Fatalf("unheard after %q: %v, want a span: %v", tc.text[:5], u[0], tc.want)
			}
			if tc.want {
				// "big" is spelled from byte 6 of the audio: its frames
				// lie inside the span.
				if b, g := starts[6], starts[8]; u[0].Start > b || u[0].End <= g {
					t.Errorf("unheard %v does not cover big's frames %d..%d", u[0], b, g)
				}
			}
		})
	}
}

// BenchmarkCTCSegment segments about five minutes of spelled-out text
// (10,000 frames) with the default options: the trellis of a long
// alignment, which visits every state of the band at every frame.
func BenchmarkCTCSegment(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	words := []string{"the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "and", "runs"}
	text := ""
	for len(text) < 3000 {
		if text != "" {
			text += " "
		}
		text += words[rng.Intn(len(words))]
	}
	lp, T, _ := spell(text, 10, rng)
	opts := DefaultSegOptions()
	b.ReportMetric(float64(T), "frames")
	for b.Loop() {
		CTCSegment(lp, T, model.VocabSize, text, nil, opts)
	}
}

// TestSegmentPauseBetweenSentences: a word heard weakly in two places, just
// after the word before it and, a long pause later, just before the next
// word, goes where the pause falls between sentences. The second place is
// the likelier; without the sentence ends (or with InSentence 0) the path
// takes it and spends the pause inside the sentence.
func TestSegmentPauseBetweenSentences(t *testing.T) {
	V := model.VocabSize
	id := func(c string) int { ids, _ := model.Encode(c); return ids[0] }
	var lp []float32
	add := func(c int, p float64, n int) {
		for range n {
			lp = append(lp, dist(c, p)...)
		}
	}
	add(model.EOS, 0.999, 3)
	add(id("a"), 0.999, 2) // "a"
	add(model.EOS, 0.999, 1)
	add(id("x"), 0.5, 2) // "x", weakly, right after "a"
	add(model.EOS, 0.999, 40)
	add(id("x"), 0.6, 2) // "x", a little less weakly, before "b"
	add(model.EOS, 0.999, 1)
	add(id("b"), 0.999, 2) // "b"
	add(model.EOS, 0.999, 3)
	T := len(lp) / V
	opts := DefaultSegOptions()
	for _, tc := range []struct {
		name   string
		ends   []bool
		inSent float64
		start  int // frame where "x" starts
	}{
		{"sentence ends after x", []bool{false, true, true}, -0.1, 6},
		{"one sentence", []bool{false, false, true}, -0.1, 48},
		{"no ends given", nil, -0.1, 48},
		{"no penalty", []bool{false, true, true}, 0, 48},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := opts
			o.InSentence = tc.inSent
			seg := CTCSegment(lp, T, V, "a x b", tc.ends, o)
			if got := seg.Spans[2].Start; got != tc.start {
				t.Errorf("x starts at frame %d, want %d", got, tc.start)
			}
		})
	}
}
