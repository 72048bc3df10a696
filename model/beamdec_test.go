package model

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/heed-asr/heed/model/beam"
)

// beamTestNet returns a small random float32 network and the encoding of
// frames random feature frames.
func beamTestNet(t *testing.T, frames int) (*Net[float32], *EncOutput[float32]) {
	t.Helper()
	cfg := smallConfig()
	cfg.DecHidden, cfg.AttDim, cfg.EncHidden = 8, 6, 5
	m := NewNet(ConvertParams[float32](randParams(cfg, 61)))
	rng := rand.New(rand.NewPCG(62, 63))
	feats := make([]float32, frames*cfg.NumMel)
	for i := range feats {
		feats[i] = float32(2*rng.Float64() - 1)
	}
	return m, m.Encode(feats, frames)
}

// noRecycle hides beamDecoder's Recycle, so that every step clones.
type noRecycle struct{ d *beamDecoder }

func (d noRecycle) Step(prev int, logp []float32) beam.Decoder {
	return noRecycle{d.d.Step(prev, logp).(*beamDecoder)}
}

func (d noRecycle) StepBatch(ds []beam.Decoder, prev []int, logp []float32, next []beam.Decoder) {
	in := make([]beam.Decoder, len(ds))
	for i, x := range ds {
		in[i] = x.(noRecycle).d
	}
	d.d.StepBatch(in, prev, logp, next)
	for i, x := range next {
		next[i] = noRecycle{x.(*beamDecoder)}
	}
}

// TestBeamDecoderRecycles: searches with the decoder states recycled find
// exactly what they find with fresh states, and once the search has as
// many states as it needs a step of the batch decoder allocates nothing.
func TestBeamDecoderRecycles(t *testing.T) {
	m, enc := beamTestNet(t, 40)
	V := m.Cfg.V()
	for _, opt := range []beam.Options{
		{Beam: 4, MaxLen: 12, EOS: EOS},
		{Beam: 8, MaxLen: 20, EOS: EOS, CTCWeight: 0.3, LengthBonus: 0.5},
		{Beam: 8, MaxLen: 20, EOS: EOS, CTCWeight: 0.3, LengthBonus: 0.5, ScoreBeam: 2},
	} {
		fresh := noRecycle{newBeamDecoder(m.NewBatchStepper(enc), m.StartDecoder(enc))}
		want := beam.Search(fresh, enc.CTCLogProbs, enc.T, V, nil, opt)
		got := beam.Search(newBeamDecoder(m.NewBatchStepper(enc), m.StartDecoder(enc)), enc.CTCLogProbs, enc.T, V, nil, opt)
		if len(want) == 0 || !reflect.DeepEqual(got, want) {
			t.Fatalf("%+v: recycled %+v, fresh %+v", opt, got, want)
		}
	}

	// Step 8 states at a time, handing the old ones back, as Search does.
	const n = 8
	start := newBeamDecoder(m.NewBatchStepper(enc), m.StartDecoder(enc))
	cur, next := make([]beam.Decoder, n), make([]beam.Decoder, n)
	for i := range cur {
		cur[i] = start
	}
	prev := make([]int, n)
	logp := make([]float32, n*V)
	step := func() {
		start.StepBatch(cur, prev, logp, next)
		for i, d := range cur {
			if d != beam.Decoder(start) {
				start.Recycle(d)
			}
			prev[i] = (prev[i] + i + 1) % V
		}
		cur, next = next, cur
	}
	step()
	step()
	if a := testing.AllocsPerRun(20, step); a != 0 {
		t.Errorf("a batched step of %d recycled states makes %g allocations", n, a)
	}
}
