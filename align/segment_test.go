package align

import (
	"math"
	"math/rand/v2"
	"testing"
)

// tone returns n samples of a 300 Hz tone at amplitude a with a little noise.
func tone(n int, a float64, rng *rand.Rand) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(a*math.Sin(2*math.Pi*300*float64(i)/16000) + 1e-4*rng.NormFloat64())
	}
	return x
}

func TestSegmenter(t *testing.T) {
	const hz = 16000
	rng := rand.New(rand.NewPCG(1, 1))
	// 1 s speech, 0.5 s pause, 2 s speech, 0.2 s pause (too short), 1 s speech.
	var x []float32
	x = append(x, tone(hz, 0.3, rng)...)
	x = append(x, tone(hz/2, 0, rng)...)
	x = append(x, tone(2*hz, 0.3, rng)...)
	x = append(x, tone(hz/5, 0, rng)...)
	x = append(x, tone(hz, 0.3, rng)...)
	for _, chunk := range []int{1, 160, 1600, 7777, len(x)} {
		s := &Segmenter{Rate: hz, MaxSeg: 15 * hz, MinPause: hz * 3 / 10}
		var segs []Segment
		for i := 0; i < len(x); i += chunk {
			segs = append(segs, s.Push(x[i:min(i+chunk, len(x))])...)
		}
		if len(segs) != 1 {
			t.Fatalf("chunk %d: %d segments before the end of the stream, want 1", chunk, len(segs))
		}
		segs = append(segs, s.Flush()...)
		if len(segs) != 2 {
			t.Fatalf("chunk %d: %d segments, want 2", chunk, len(segs))
		}
		// The cut is in the middle of the first pause (1.0 .. 1.5 s).
		cut := segs[1].Start
		if cut < hz || cut > hz*3/2 {
			t.Errorf("chunk %d: cut at %.3f s, want inside the pause 1.0..1.5 s", chunk, float64(cut)/hz)
		}
		if got := int64(len(segs[0].Samples)); got != cut {
			t.Errorf("chunk %d: first segment has %d samples, second starts at %d", chunk, got, cut)
		}
		if end := segs[1].Start + int64(len(segs[1].Samples)); end != int64(len(x)) {
			t.Errorf("chunk %d: segments end at %d, stream has %d samples", chunk, end, len(x))
		}
	}
}

func TestSegmenterBounds(t *testing.T) {
	const hz = 16000
	rng := rand.New(rand.NewPCG(2, 2))
	s := &Segmenter{Rate: hz, MaxSeg: 2 * hz, MinPause: hz * 3 / 10}
	// 5 s of speech without a pause: forced cuts keep segments <= MaxSeg.
	segs := s.Push(tone(5*hz, 0.3, rng))
	segs = append(segs, s.Flush()...)
	if len(segs) < 3 {
		t.Fatalf("%d segments from 5 s without a pause at a 2 s limit", len(segs))
	}
	for i, g := range segs {
		if len(g.Samples) > 2*hz {
			t.Errorf("segment %d has %d samples, limit %d", i, len(g.Samples), 2*hz)
		}
	}
	// Silence alone is never emitted and not kept.
	s = &Segmenter{Rate: hz, MaxSeg: 2 * hz, MinPause: hz * 3 / 10}
	if segs := s.Push(tone(10*hz, 0, rng)); len(segs) != 0 {
		t.Errorf("silence gave %d segments", len(segs))
	}
	if len(s.buf) > 2*hz {
		t.Errorf("silence kept %d samples buffered", len(s.buf))
	}
	if segs := s.Flush(); len(segs) != 0 {
		t.Errorf("flushed silence gave %d segments", len(segs))
	}
}
