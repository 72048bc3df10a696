package align

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// speechLike makes rate-Hz audio from segments of (seconds, loudness):
// loudness 1 is noise at amplitude 0.3, 0 noise at 0.001 and -1 digital
// silence.
func speechLike(rate int, segs [][2]float64, rng *rand.Rand) []float32 {
	var out []float32
	for _, s := range segs {
		amp := map[float64]float64{1: 0.3, 0: 0.001, -1: 0}[s[1]]
		n := int(s[0] * float64(rate))
		for i := 0; i < n; i++ {
			out = append(out, float32(amp*(2*rng.Float64()-1)))
		}
	}
	return out
}

func TestSplitAtSilences(t *testing.T) {
	const rate = 8000
	const tol = 0.011 // seconds: one energy frame
	tests := []struct {
		name     string
		segs     [][2]float64 // (seconds, loud)
		maxPiece time.Duration
		minPause time.Duration
		cuts     []float64 // expected cut times in seconds
	}{
		{"short", [][2]float64{{0.2, 0}, {3, 1}, {0.2, 0}}, 10 * time.Second, 200 * time.Millisecond, nil},
		{"one pause", [][2]float64{{6, 1}, {0.6, 0}, {6, 1}}, 10 * time.Second, 200 * time.Millisecond, []float64{6.3}},
		{"longest pause wins", [][2]float64{{5.5, 1}, {0.3, 0}, {1.2, 1}, {0.8, 0}, {6, 1}}, 10 * time.Second, 200 * time.Millisecond, []float64{7.4}},
		{"too short pauses ignored", [][2]float64{{5.5, 1}, {0.1, 0}, {1, 1}, {0.5, 0}, {6, 1}}, 10 * time.Second, 200 * time.Millisecond, []float64{6.85}},
		{"second half preferred", [][2]float64{{4, 1}, {0.4, 0}, {4, 1}, {0.4, 0}, {4, 1}, {0.4, 0}, {4, 1}}, 10 * time.Second, 200 * time.Millisecond, []float64{8.6}},
		{"several pieces", [][2]float64{{4, 1}, {0.4, 0}, {4, 1}, {0.4, 0}, {4, 1}, {0.4, 0}, {4, 1}}, 5 * time.Second, 200 * time.Millisecond, []float64{4.2, 8.6, 13}},
		{"digital silence and noisy pause", [][2]float64{{0.5, -1}, {6, 1}, {0.6, 0}, {6, 1}, {0.5, -1}}, 10 * time.Second, 200 * time.Millisecond, []float64{6.8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := speechLike(rate, tt.segs, rand.New(rand.NewPCG(3, 4)))
			pieces := SplitAtSilences(x, rate, tt.maxPiece, tt.minPause)
			if pieces[0].Start != 0 || pieces[len(pieces)-1].End != len(x) {
				t.Fatalf("pieces %v do not cover 0..%d", pieces, len(x))
			}
			for i, p := range pieces {
				if p.End <= p.Start || i > 0 && p.Start != pieces[i-1].End {
					t.Fatalf("pieces %v not contiguous", pieces)
				}
				if s, e := p.Seconds(rate); e-s > tt.maxPiece.Seconds()+1e-9 {
					t.Errorf("piece %d lasts %.3f s > %v", i, e-s, tt.maxPiece)
				}
			}
			var cuts []float64
			for _, p := range pieces[1:] {
				s, _ := p.Seconds(rate)
				cuts = append(cuts, s)
			}
			if len(cuts) != len(tt.cuts) {
				t.Fatalf("cuts %v, want %v", cuts, tt.cuts)
			}
			for i := range tt.cuts {
				if math.Abs(cuts[i]-tt.cuts[i]) > tol {
					t.Errorf("cuts %v, want %v (tol %v)", cuts, tt.cuts, tol)
				}
			}
		})
	}
}

func TestSplitAtSilencesNoPause(t *testing.T) {
	const rate = 8000
	x := speechLike(rate, [][2]float64{{25, 1}}, rand.New(rand.NewPCG(5, 6)))
	pieces := SplitAtSilences(x, rate, 10*time.Second, 200*time.Millisecond)
	if len(pieces) != 3 {
		t.Fatalf("got %d pieces %v, want 3", len(pieces), pieces)
	}
	for i, p := range pieces {
		if s, e := p.Seconds(rate); e-s > 10 || e-s < 4.99 {
			t.Errorf("piece %d lasts %.3f s, want 5..10 s", i, e-s)
		}
	}
	if got := SplitAtSilences(nil, rate, time.Second, 0); got != nil {
		t.Errorf("empty audio: %v, want nil", got)
	}
}

func TestStitch(t *testing.T) {
	parts := [][]Word{
		{{Word: "a", Start: 0.1, End: 0.3, Chars: []Char{{"a", 0.1, 0.3}}}, {Word: "b", Start: 0.4, End: 0.5}},
		{{Word: "c", Start: 0, End: 0.2}, {Word: "d", Start: 0.3, End: 0.6}},
	}
	got := Stitch([]float64{10, 10.45}, parts)
	want := []Word{
		{Word: "a", Start: 10.1, End: 10.3, Chars: []Char{{"a", 10.1, 10.3}}},
		{Word: "b", Start: 10.4, End: 10.5},
		{Word: "c", Start: 10.45, End: 10.65},
		{Word: "d", Start: 10.75, End: 11.05},
	}
	const tol = 1e-12
	for i := range want {
		if got[i].Word != want[i].Word || math.Abs(got[i].Start-want[i].Start) > tol || math.Abs(got[i].End-want[i].End) > tol {
			t.Errorf("word %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if !reflect.DeepEqual(got[0].Chars, want[0].Chars) {
		t.Errorf("chars = %v, want %v", got[0].Chars, want[0].Chars)
	}
	if parts[0][0].Chars[0].Start != 0.1 {
		t.Error("Stitch modified its input")
	}
	// A word before the previous one is clamped.
	back := Stitch([]float64{0, 0}, [][]Word{{{Word: "x", Start: 1, End: 2}}, {{Word: "y", Start: 0.5, End: 0.7}}})
	if back[1].Start != 1 || back[1].End != 1 {
		t.Errorf("clamped word = %+v, want [1, 1]", back[1])
	}
}
