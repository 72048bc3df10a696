package model

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// benchUtterance returns frames random feature frames and a random
// transcript of about 12 characters per second of audio.
func benchUtterance(cfg Config, frames int, seed uint64) Utterance {
	rng := rand.New(rand.NewPCG(seed, 5))
	feats := make([]float32, frames*cfg.NumMel)
	for i := range feats {
		feats[i] = float32(rng.NormFloat64())
	}
	ids := make([]int, frames*12/100)
	for i := range ids {
		ids[i] = 1 + rng.IntN(VocabSize-1)
	}
	return Utterance{Feats: feats, Frames: frames, IDs: ids}
}

// BenchmarkEncode encodes 10 s of audio (1000 frames) with the default
// configuration.
func BenchmarkEncode(b *testing.B) {
	cfg := DefaultConfig()
	m := NewNet(InitParams[float32](cfg, 1))
	u := benchUtterance(cfg, 1000, 2)
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		m.Encode(u.Feats, u.Frames)
	}
	b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(b.N)/10, "ms/audio-s")
}

// BenchmarkDecodeStep runs windowed decoder steps over a 10 s encoding.
func BenchmarkDecodeStep(b *testing.B) {
	cfg := DefaultConfig()
	m := NewNet(InitParams[float32](cfg, 1))
	u := benchUtterance(cfg, 1000, 2)
	enc := m.Encode(u.Feats, u.Frames)
	logp := make([]float32, cfg.V())
	st := m.StartDecoder(enc)
	b.ReportAllocs()
	start := time.Now()
	i := 0
	for b.Loop() {
		m.Step(enc, st, u.IDs[i%len(u.IDs)], logp)
		i++
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/char")
}

// BenchmarkTrainStep runs training steps on a batch of 4 utterances of 3 s,
// for several encoder widths side by side.
func BenchmarkTrainStep(b *testing.B) {
	for _, h := range []int{128, 192, 256} {
		b.Run(fmt.Sprintf("enc%d", h), func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.EncHidden = h
			m := NewNet(InitParams[float32](cfg, 1))
			var batch []Utterance
			for i := range 4 {
				batch = append(batch, benchUtterance(cfg, 300, uint64(i)))
			}
			tr, err := NewTrainer(m, TrainConfig{Seed: 1, Adam: DefaultAdam(), ClipNorm: 5,
				Schedule: Schedule{Peak: 1e-4, Warmup: 100, Decay: "inv_sqrt"}, SpecAug: DefaultSpecAugment()})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			start := time.Now()
			for b.Loop() {
				if _, err := tr.TrainStep(batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)*12/time.Since(start).Seconds(), "audio-s/s")
		})
	}
}
