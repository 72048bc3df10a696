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

// BenchmarkTrainStep compares the two training paths side by side on the
// shipped model's shape (3 × BiGRU 256, decoder 256) and the default
// trainer settings (2 workers, SpecAugment, dropout), on batches of about
// 60 s of audio of similar length (what --batch-frames 6000 cuts from
// length-sorted data), about 12 characters per second: 20x3s is 20
// utterances of 2.8 to 3.2 s (the training data's median is 2.3 s), 60x1s
// and 12x5s the short and long ends. Each iteration runs one step per
// utterance (the path before batching) and one batched step, alternately,
// so that both see the same load on a shared machine; it reports the audio
// seconds per second of each, their ratio, and the CPU seconds each spends
// per audio second. enc320-20utt-3s is 20x3s with the encoder of the model
// now shipped, 320 units per direction (named so that the pattern
// TrainStep/20x3s selects only the 256-unit case).
func BenchmarkTrainStep(b *testing.B) {
	for _, bs := range []struct{ n, frames int }{{20, 300}, {60, 100}, {12, 500}} {
		b.Run(fmt.Sprintf("%dx%ds", bs.n, bs.frames/100), func(b *testing.B) {
			benchTrainStep(b, 256, bs.n, bs.frames)
		})
	}
	b.Run("enc320-20utt-3s", func(b *testing.B) { benchTrainStep(b, 320, 20, 300) })
}

// benchTrainStep runs BenchmarkTrainStep with encHidden units per
// direction on n utterances of frames ± 7%.
func benchTrainStep(b *testing.B, encHidden, n, frames int) {
	cfg := DefaultConfig()
	cfg.EncHidden = encHidden
	var batch []Utterance
	audio := 0.0
	for i := range n {
		f := frames - frames*7/100 + frames*14/100*i/n
		batch = append(batch, benchUtterance(cfg, f, uint64(i)))
		audio += float64(f) / 100
	}
	trainer := func(perUtt bool) *Trainer {
		tr, err := NewTrainer(NewNet(InitParams[float32](cfg, 1)), TrainConfig{Workers: 2, Seed: 1, Adam: DefaultAdam(), ClipNorm: 5,
			Schedule: Schedule{Peak: 1e-4, Warmup: 100, Decay: "inv_sqrt"}, SpecAug: DefaultSpecAugment(), PerUtterance: perUtt})
		if err != nil {
			b.Fatal(err)
		}
		return tr
	}
	old, bat := trainer(true), trainer(false)
	var wall, cpu [2]time.Duration // per utterance, batched
	step := func(i int, tr *Trainer) {
		t0, c0 := time.Now(), processCPU()
		if _, err := tr.TrainStep(batch); err != nil {
			b.Fatal(err)
		}
		wall[i] += time.Since(t0)
		cpu[i] += processCPU() - c0
	}
	step(0, old) // warm-up: workspaces grow to the batch
	step(1, bat)
	wall, cpu = [2]time.Duration{}, [2]time.Duration{}
	b.ReportAllocs()
	for b.Loop() {
		step(0, old)
		step(1, bat)
	}
	total := float64(b.N) * audio
	b.ReportMetric(total/wall[0].Seconds(), "per-utt-audio-s/s")
	b.ReportMetric(total/wall[1].Seconds(), "batched-audio-s/s")
	b.ReportMetric(wall[0].Seconds()/wall[1].Seconds(), "speedup")
	if cpu[0] > 0 && cpu[1] > 0 {
		// CPU seconds per audio second, all threads: the figure that the
		// load of a shared machine disturbs least.
		b.ReportMetric(cpu[0].Seconds()/total, "per-utt-cpu-s/audio-s")
		b.ReportMetric(cpu[1].Seconds()/total, "batched-cpu-s/audio-s")
	}
}
