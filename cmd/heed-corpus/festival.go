package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/heed-asr/heed/audio"
	"github.com/heed-asr/heed/corpus"
	"github.com/heed-asr/heed/internal/par"
)

// Festival voices: heed-corpus -out DIR -festival-hours H speaks training
// prompts with festival's voices (corpus.FestivalVoices, rate stretched
// 0.85-1.2) until about H hours, half of them augmented like the rest of
// the corpus, and -festival-dev N dev prompts (never trained on), and
// writes DIR/festival_train.jsonl and DIR/festival_dev.jsonl with the audio
// under DIR/wav/festival/. The prompts are those of the synthetic corpus
// built with the same -seed.

// festivalJob is one planned utterance.
type festivalJob struct {
	set  string
	text string
	v    corpus.FestivalVoice
	aug  *corpus.AugSpec
}

func planFestival(o *options) ([]festivalJob, error) {
	train, dev, err := buildPrompts(o)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(o.seed, 0x66657374))
	voice := func(i int) corpus.FestivalVoice {
		return corpus.FestivalVoice{Name: corpus.FestivalVoices[i%len(corpus.FestivalVoices)],
			Stretch: float64(int((0.85+0.35*rng.Float64())*100+0.5)) / 100}
	}
	var jobs []festivalJob
	perm := rng.Perm(len(dev))
	for i := 0; i < min(o.festivalDev, len(dev)); i++ {
		jobs = append(jobs, festivalJob{set: "dev", text: dev[perm[i]].Text, v: voice(i)})
	}
	perm = rng.Perm(len(train))
	secs := 0.0
	for i := 0; i < len(perm) && secs < o.festivalHours*3600; i++ {
		j := festivalJob{set: "train", text: train[perm[i]].Text, v: voice(i)}
		est := estimateFlite(j.text, corpus.FliteVoice{Stretch: j.v.Stretch})
		if rng.Float64() < o.aug {
			a := corpus.RandomAug(rng, false)
			j.aug = &a
			est = estimateAug(est, a)
		}
		secs += est
		jobs = append(jobs, j)
	}
	return jobs, nil
}

func buildFestival(ctx context.Context, o *options, stderr io.Writer) error {
	start := time.Now()
	jobs, err := planFestival(o)
	if err != nil {
		return err
	}
	out, err := filepath.Abs(o.out)
	if err != nil {
		return err
	}
	dir := filepath.Join(out, "wav", "festival")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "heed-festival-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	utts := make([]*corpus.Utterance, len(jobs))
	var mu sync.Mutex
	done, failed := 0, 0
	err = par.ForEach(ctx, len(jobs), o.jobs, func(i int) error {
		j := jobs[i]
		x, r, err := corpus.FestivalSynthesize(ctx, "text2wave", j.text, j.v, tmp)
		if err == nil && r != rate {
			x = audio.Resample(x, r, rate)
		}
		var aug string
		if err == nil && j.aug != nil {
			var used corpus.AugSpec
			x, _, used, err = j.aug.Apply(x, rate, nil, nil)
			aug = used.String()
		}
		mu.Lock()
		defer mu.Unlock()
		done++
		if done%500 == 0 || done == len(jobs) {
			fmt.Fprintf(stderr, "heed-corpus: festival %d/%d utterances, %s\n", done, len(jobs), time.Since(start).Round(time.Second))
		}
		if err != nil {
			failed++
			fmt.Fprintf(stderr, "heed-corpus: festival %q: skipped: %v\n", j.text, err)
			return nil
		}
		path := filepath.Join(dir, fmt.Sprintf("%s_%06d.wav", j.set, i))
		if err := writeWAV(path, x); err != nil {
			return err
		}
		utts[i] = &corpus.Utterance{Audio: path, Text: j.text, Source: "festival", Speaker: j.v.String(),
			Duration: roundSec(float64(len(x)) / rate), Aug: aug}
		return nil
	})
	if err != nil {
		return err
	}
	sets := map[string][]corpus.Utterance{}
	for i, u := range utts {
		if u != nil {
			sets[jobs[i].set] = append(sets[jobs[i].set], *u)
		}
	}
	for _, set := range []string{"train", "dev"} {
		if err := corpus.WriteManifest(filepath.Join(out, "festival_"+set+".jsonl"), sets[set]); err != nil {
			return err
		}
	}
	summarizeSets(stderr, sets, []string{"train", "dev"})
	fmt.Fprintf(stderr, "heed-corpus: festival speech built in %s\n", time.Since(start).Round(time.Second))
	if failed > len(jobs)/10 {
		return fmt.Errorf("festival: %d of %d utterances failed", failed, len(jobs))
	}
	return nil
}
