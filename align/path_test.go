package align

import (
	"math"
	"math/rand/v2"
	"testing"
)

// bumpAttention makes an (L, T) attention matrix whose row l is a Gaussian
// bump around centre[l] (in encoder frames) with the given width (or
// widths[l] when widths is not nil), plus uniform noise of the given
// amplitude; rows are normalized to sum to 1.
func bumpAttention(centre []float64, width float64, widths []float64, T int, noise float64, rng *rand.Rand) []float32 {
	L := len(centre)
	att := make([]float32, L*T)
	for l, c := range centre {
		row := att[l*T : (l+1)*T]
		w := width
		if widths != nil {
			w = widths[l]
		}
		var sum float64
		for t := range row {
			d := (float64(t) - c) / w
			v := math.Exp(-0.5*d*d) + 1e-9
			if rng != nil {
				v += noise * rng.Float64()
			}
			row[t] = float32(v)
			sum += v
		}
		for t := range row {
			row[t] = float32(float64(row[t]) / sum)
		}
	}
	return att
}

// checkSpans fails unless spans are non-empty, in order, non-overlapping and
// inside 0..N, tiling 0..N exactly when tile is set.
func checkSpans(t *testing.T, spans []Span, L, N int, tile bool) {
	t.Helper()
	if len(spans) != L {
		t.Fatalf("got %d spans, want %d", len(spans), L)
	}
	prev := 0
	for l, s := range spans {
		if s.Start >= s.End || s.Start < prev || s.End > N {
			t.Fatalf("span %d = %v invalid (previous end %d, N %d): %v", l, s, prev, N, spans)
		}
		if tile && s.Start != prev {
			t.Fatalf("span %d = %v does not start at previous end %d", l, s, prev)
		}
		prev = s.End
	}
	if tile && prev != N {
		t.Fatalf("last span ends at %d, want %d", prev, N)
	}
}

func TestMonotonicPathSynthetic(t *testing.T) {
	const tol = 1 // upsampled frames
	tests := []struct {
		name   string
		centre []float64 // encoder frames
		width  float64
		widths []float64
		T      int
		noise  float64
		opts   PathOptions
		// want holds expected spans (upsampled frames), compared within tol.
		want []Span
	}{
		{
			name: "diagonal", centre: []float64{2, 6, 10, 14}, width: 1.2, T: 17,
			opts: PathOptions{},
			want: []Span{{0, 4}, {4, 8}, {8, 12}, {12, 17}},
		},
		{
			name: "diagonal upsampled", centre: []float64{2, 6, 10, 14}, width: 1.2, T: 17,
			opts: PathOptions{Upsample: 3},
			want: []Span{{0, 14}, {14, 26}, {26, 38}, {38, 51}},
		},
		{
			name: "noisy", centre: []float64{3, 8, 13, 18, 23}, width: 1.5, T: 27, noise: 0.02,
			opts: PathOptions{Upsample: 3, AllowGaps: true, GapLogProb: math.Log(1e-3)},
			want: []Span{{0, 18}, {18, 33}, {33, 48}, {48, 63}, {63, 81}},
		},
		{
			// Four characters, a 20-frame pause nobody attends to between
			// rows 1 and 2: with gaps it belongs to nobody.
			name: "pause with gaps", centre: []float64{2, 5, 28, 31}, width: 0.8, T: 34,
			opts: PathOptions{AllowGaps: true, GapLogProb: math.Log(1e-3)},
			want: []Span{{0, 4}, {4, 8}, {26, 30}, {30, 34}},
		},
		{
			// "ab cd" where the space row attends broadly over the pause:
			// the pause goes to the space, with or without gaps.
			name: "pause to space", centre: []float64{2, 5, 16.5, 28, 31}, widths: []float64{0.8, 0.8, 6, 0.8, 0.8}, T: 34,
			opts: PathOptions{},
			want: []Span{{0, 4}, {4, 7}, {7, 27}, {27, 30}, {30, 34}},
		},
		{
			name: "pause to space with gaps", centre: []float64{2, 5, 16.5, 28, 31}, widths: []float64{0.8, 0.8, 6, 0.8, 0.8}, T: 34,
			opts: PathOptions{AllowGaps: true, GapLogProb: math.Log(1e-3)},
			want: []Span{{0, 4}, {4, 7}, {7, 27}, {27, 30}, {30, 34}},
		},
		{
			name: "more characters than encoder frames", centre: []float64{0, 0.4, 0.8, 1.2, 1.6, 2}, width: 0.3, T: 3,
			opts: PathOptions{Upsample: 3},
			want: []Span{{0, 1}, {1, 2}, {2, 4}, {4, 5}, {5, 7}, {7, 9}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			att := bumpAttention(tt.centre, tt.width, tt.widths, tt.T, tt.noise, rng)
			L, N := len(tt.centre), tt.T*tt.opts.upsample()
			spans := MonotonicPath(att, L, tt.T, tt.opts)
			checkSpans(t, spans, L, N, !tt.opts.AllowGaps)
			for l := range spans {
				if abs(spans[l].Start-tt.want[l].Start) > tol || abs(spans[l].End-tt.want[l].End) > tol {
					t.Errorf("spans = %v\nwant    %v (tol %d)", spans, tt.want, tol)
					break
				}
			}
		})
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// bruteBest enumerates every valid segmentation of N frames into L spans
// (with optional gaps) and returns the best objective.
func bruteBest(att []float32, L, T int, opts PathOptions) float64 {
	N := T * opts.upsample()
	best := math.Inf(-1)
	spans := make([]Span, L)
	var rec func(l, from int)
	rec = func(l, from int) {
		if l == L {
			if !opts.AllowGaps && from != N {
				return
			}
			best = math.Max(best, pathScore(att, L, T, opts, spans))
			return
		}
		for s := from; s < N; s++ {
			if !opts.AllowGaps && s != from {
				break
			}
			for e := s + 1; e <= N; e++ {
				spans[l] = Span{s, e}
				rec(l+1, e)
			}
		}
	}
	rec(0, 0)
	return best
}

func TestMonotonicPathBruteForce(t *testing.T) {
	const tol = 1e-9
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := 0; trial < 60; trial++ {
		L := 1 + rng.IntN(3)
		T := 1 + rng.IntN(5)
		opts := PathOptions{Upsample: 1 + rng.IntN(2), AllowGaps: rng.IntN(2) == 0, GapLogProb: math.Log(0.05)}
		att := make([]float32, L*T)
		for i := range att {
			att[i] = float32(rng.Float64())
		}
		if rng.IntN(2) == 0 {
			opts.CTC = make([]float32, T*L)
			for i := range opts.CTC {
				opts.CTC[i] = float32(rng.Float64())
			}
			opts.CTCWeight = 0.5
		}
		N := T * opts.upsample()
		spans := MonotonicPath(att, L, T, opts)
		if L > N {
			if spans != nil {
				t.Fatalf("trial %d: L=%d > N=%d but got %v", trial, L, N, spans)
			}
			continue
		}
		checkSpans(t, spans, L, N, !opts.AllowGaps)
		got, want := pathScore(att, L, T, opts, spans), bruteBest(att, L, T, opts)
		if math.Abs(got-want) > tol {
			t.Fatalf("trial %d (L=%d T=%d %+v): DP score %v, brute force %v, spans %v", trial, L, T, opts, got, want, spans)
		}
	}
}

func TestMonotonicPathCTC(t *testing.T) {
	// Flat attention carries no information; CTC peaks decide.
	const L, T = 3, 12
	att := make([]float32, L*T)
	for i := range att {
		att[i] = 1.0 / T
	}
	ctc := make([]float32, T*L)
	for t := 0; t < T; t++ {
		for l := 0; l < L; l++ {
			ctc[t*L+l] = 0.01
		}
	}
	// Character 0 at frames 0-1, 1 at 5-7, 2 at 10-11.
	for _, p := range [][2]int{{0, 0}, {1, 0}, {5, 1}, {6, 1}, {7, 1}, {10, 2}, {11, 2}} {
		ctc[p[0]*L+p[1]] = 0.9
	}
	spans := MonotonicPath(att, L, T, PathOptions{AllowGaps: true, GapLogProb: math.Log(1.0/T) + math.Log(0.05), CTC: ctc, CTCWeight: 1})
	want := []Span{{0, 2}, {5, 8}, {10, 12}}
	for l := range want {
		if spans[l] != want[l] {
			t.Fatalf("spans = %v, want %v", spans, want)
		}
	}
}

func TestMonotonicPathEdges(t *testing.T) {
	if got := MonotonicPath(nil, 0, 5, PathOptions{}); got != nil {
		t.Errorf("L=0: got %v, want nil", got)
	}
	if got := MonotonicPath(make([]float32, 4*2), 4, 2, PathOptions{}); got != nil {
		t.Errorf("L>N: got %v, want nil", got)
	}
	if got := MonotonicPath(make([]float32, 4*2), 4, 2, PathOptions{Upsample: 2}); len(got) != 4 {
		t.Errorf("L=N: got %v, want 4 one-frame spans", got)
	}
	for _, tt := range []struct {
		name string
		f    func()
	}{
		{"att size", func() { MonotonicPath(make([]float32, 5), 2, 3, PathOptions{}) }},
		{"ctc size", func() { MonotonicPath(make([]float32, 6), 2, 3, PathOptions{CTC: make([]float32, 5), CTCWeight: 1}) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("no panic")
				}
			}()
			tt.f()
		})
	}
}

func BenchmarkMonotonicPath(b *testing.B) {
	const L, T = 1000, 3000
	centre := make([]float64, L)
	for l := range centre {
		centre[l] = float64(l)*float64(T)/L + 1
	}
	att := bumpAttention(centre, 2, nil, T, 0, nil)
	opts := DefaultPathOptions()
	b.ReportAllocs()
	for b.Loop() {
		MonotonicPath(att, L, T, opts)
	}
}
