package align

import (
	"math"
	"testing"
)

// voiced returns n samples of a loud 200 Hz tone.
func voiced(n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(0.3 * math.Sin(2*math.Pi*200*float64(i)/16000))
	}
	return x
}

func TestRefine(t *testing.T) {
	const hz = 16000
	// Audio: 0.1 s silence, word A 0.1-0.5 s, pause 0.5-0.7 s, word B
	// 0.7-1.0 s directly followed by word C 1.0-1.3 s, then silence.
	var x []float32
	x = append(x, make([]float32, hz/10)...)
	x = append(x, voiced(hz*4/10)...)
	x = append(x, make([]float32, hz*2/10)...)
	x = append(x, voiced(hz*6/10)...)
	x = append(x, make([]float32, hz*2/10)...)
	aligned := func(w string, s, e float64) Word {
		return Word{Word: w, Start: s, End: e, Status: StatusAligned, Confidence: 1,
			Chars: []Char{{Char: w[:1], Start: s, End: e}}}
	}
	// The path's boundaries are off by up to 30 ms, as at 30 ms frames.
	words := []Word{aligned("a", 0.13, 0.49), aligned("b", 0.68, 0.97), aligned("c", 1.02, 1.33)}
	Refine(words, x, hz)
	const tol = 0.0051
	want := [][2]float64{{0.1, 0.5}, {0.7, 0.995}, {0.995, 1.3}}
	for i, w := range words {
		if math.Abs(w.Start-want[i][0]) > tol || math.Abs(w.End-want[i][1]) > tol {
			t.Errorf("word %s: %.3f..%.3f, want %.3f..%.3f", w.Word, w.Start, w.End, want[i][0], want[i][1])
		}
		if w.Chars[0].Start != w.Start || w.Chars[0].End != w.End {
			t.Errorf("word %s: char %v..%v not clamped to the word", w.Word, w.Chars[0].Start, w.Chars[0].End)
		}
	}
	// The path may give the first word the silence before it and the last
	// one the silence after it, further than 60 ms.
	words = []Word{aligned("a", 0, 0.49), aligned("b", 0.68, 0.97), aligned("c", 1.02, 1.45)}
	Refine(words, x, hz)
	if math.Abs(words[0].Start-0.1) > tol || math.Abs(words[2].End-1.3) > tol {
		t.Errorf("edges: a starts %.3f, c ends %.3f; want 0.100, 1.300", words[0].Start, words[2].End)
	}
	// An interpolated word and its neighbours' shared boundary are left alone.
	words = []Word{aligned("a", 0.13, 0.49), {Word: "x", Start: 0.49, End: 0.6, Status: StatusInterpolated}, aligned("b", 0.68, 0.97)}
	Refine(words, x, hz)
	if words[1].Start != 0.49 || words[1].End != 0.6 || words[0].End != 0.49 {
		t.Errorf("interpolated neighbourhood changed: %+v", words[:2])
	}
}
