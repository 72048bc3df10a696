package features

import (
	"math"
	"math/rand/v2"
	"testing"
)

// noise returns n samples of seeded Gaussian noise plus a tone.
func noise(seed uint64, n int) []float32 {
	rng := rand.New(rand.NewPCG(seed, 99))
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(0.1*rng.NormFloat64() + 0.3*math.Sin(float64(i)*0.05))
	}
	return s
}

// streamAll feeds samples to st in the given chunk sizes (cycled), calling
// Frames after every chunk, and returns the concatenated frames. It also
// checks the memory bound after every Frames call.
func streamAll(t *testing.T, st *Streamer, samples []float32, chunks []int) ([]float32, int) {
	t.Helper()
	var out []float32
	total := 0
	for p, c := 0, 0; p < len(samples); c++ {
		k := min(chunks[c%len(chunks)], len(samples)-p)
		st.Accept(samples[p : p+k])
		p += k
		var n int
		out, n = st.Frames(out)
		total += n
		if st.Pending() >= st.Config().FrameLength {
			t.Fatalf("after Frames %d samples pending, want < frame length %d", st.Pending(), st.Config().FrameLength)
		}
	}
	return out, total
}

// TestStreamerMatchesBatch is the property test: random chunkings give
// bitwise the frames of Compute.
func TestStreamerMatchesBatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	wide := DefaultConfig()
	wide.FrameShift = 450 // shift > frame length: some samples are never used
	for _, tc := range []struct {
		name   string
		cfg    Config
		n      int
		chunks func() []int
	}{
		{"one chunk", DefaultConfig(), 5000, func() []int { return []int{5000} }},
		{"single samples", DefaultConfig(), 1200, func() []int { return []int{1} }},
		{"frame shift", DefaultConfig(), 4000, func() []int { return []int{160} }},
		{"primes", DefaultConfig(), 8000, func() []int { return []int{7, 401, 13, 159, 1000} }},
		{"short input", DefaultConfig(), 399, func() []int { return []int{100} }},
		{"random", DefaultConfig(), 16000, func() []int {
			c := make([]int, 50)
			for i := range c {
				c[i] = 1 + rng.IntN(700)
			}
			return c
		}},
		{"shift > length", wide, 9000, func() []int { return []int{3, 333, 1, 777} }},
	} {
		for trial := range 3 {
			t.Run(tc.name, func(t *testing.T) {
				samples := noise(uint64(trial), tc.n)
				want, wn := NewFbank(tc.cfg).Compute(nil, samples)
				st := NewStreamer(tc.cfg)
				got, gn := streamAll(t, st, samples, tc.chunks())
				if gn != wn || len(got) != len(want) {
					t.Fatalf("streamed %d frames (%d values), batch %d (%d)", gn, len(got), wn, len(want))
				}
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("value %d: streamed %g, batch %g", i, got[i], want[i])
					}
				}
			})
		}
	}
}

func TestStreamerReset(t *testing.T) {
	cfg := DefaultConfig()
	a, b := noise(1, 3000), noise(2, 3000)
	st := NewStreamer(cfg)
	st.Accept(a[:1234])
	st.Frames(nil)
	st.Accept(a[1234:1500]) // left pending, must be discarded
	st.Reset()
	if st.Pending() != 0 {
		t.Fatalf("Pending after Reset = %d", st.Pending())
	}
	st.Accept(b)
	got, n := st.Frames(nil)
	want, wn := NewFbank(cfg).Compute(nil, b)
	if n != wn || len(got) != len(want) {
		t.Fatalf("after Reset %d frames, want %d", n, wn)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("after Reset value %d: %g, want %g", i, got[i], want[i])
		}
	}
}

// TestStreamerBoundedMemory streams 60 s in 20 ms chunks and checks that the
// sample buffer's capacity stays small.
func TestStreamerBoundedMemory(t *testing.T) {
	cfg := DefaultConfig()
	st := NewStreamer(cfg)
	chunk := noise(3, 320)
	var dst []float32
	for range 3000 {
		st.Accept(chunk)
		dst, _ = st.Frames(dst[:0])
	}
	if c := cap(st.buf); c > 4*(cfg.FrameLength+len(chunk)) {
		t.Errorf("buffer capacity %d samples after 60 s, want O(frame + chunk)", c)
	}
}

// FuzzStreamer checks the streaming property on fuzzed chunk sizes.
func FuzzStreamer(f *testing.F) {
	f.Add([]byte{1, 2, 3}, uint16(3000))
	f.Add([]byte{255, 0, 17}, uint16(500))
	cfg := DefaultConfig()
	fb := NewFbank(cfg)
	f.Fuzz(func(t *testing.T, sizes []byte, n uint16) {
		if len(sizes) == 0 {
			return
		}
		samples := noise(uint64(n), int(n)%6000)
		want, wn := fb.Compute(nil, samples)
		chunks := make([]int, len(sizes))
		for i, s := range sizes {
			chunks[i] = 1 + 3*int(s)
		}
		got, gn := streamAll(t, NewStreamer(cfg), samples, chunks)
		if gn != wn {
			t.Fatalf("streamed %d frames, batch %d", gn, wn)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("value %d: streamed %g, batch %g", i, got[i], want[i])
			}
		}
	})
}
