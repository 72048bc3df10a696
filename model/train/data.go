package train

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"

	"github.com/heed-asr/heed/audio"
	"github.com/heed-asr/heed/corpus"
	"github.com/heed-asr/heed/features"
	"github.com/heed-asr/heed/internal/par"
)

// Utt is one utterance ready for training: its filterbank features and its
// transcript.
type Utt struct {
	Audio  string    // the audio path from the manifest
	Text   string    // spoken-form transcript
	Source string    // manifest "source"
	Feats  []float32 // (Frames, NumMel) raw log-mel features, CMVN not applied
	Frames int       // 10 ms frames
}

// Seconds is the utterance's duration in seconds, from its frame count.
func (u *Utt) Seconds() float64 { return float64(u.Frames) / 100 }

// LoadManifest reads the manifest at path and computes the features of every
// utterance on jobs goroutines (all CPUs when jobs <= 0). Utterances whose
// audio is shorter than one frame are dropped and counted in skipped.
// progress, when not nil, is called after each utterance from one goroutine
// at a time.
func LoadManifest(path string, jobs int, progress func(done, total int)) (utts []*Utt, skipped int, err error) {
	list, err := corpus.ReadManifest(path)
	if err != nil {
		return nil, 0, err
	}
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	utts = make([]*Utt, len(list))
	cfg := features.DefaultConfig()
	fbanks := make(chan *features.Fbank, jobs) // one per goroutine at a time
	for w := 0; w < jobs; w++ {
		fbanks <- features.NewFbank(cfg)
	}
	var mu sync.Mutex
	done := 0
	err = par.ForEach(context.Background(), len(list), jobs, func(i int) error {
		u := list[i]
		clip, err := audio.Load16k(u.Audio)
		if err != nil {
			return fmt.Errorf("%s: utterance %d: %w", path, i+1, err)
		}
		fb := <-fbanks
		feats, frames := fb.Compute(nil, clip.Samples)
		fbanks <- fb
		utts[i] = &Utt{Audio: u.Audio, Text: u.Text, Source: u.Source, Feats: feats, Frames: frames}
		mu.Lock()
		done++
		if progress != nil {
			progress(done, len(list))
		}
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	out := utts[:0]
	for _, u := range utts {
		if u.Frames < 1 || u.Text == "" {
			skipped++
			continue
		}
		out = append(out, u)
	}
	return out, skipped, nil
}

// CMVNOf computes per-dimension mean and standard deviation over all frames
// of utts.
func CMVNOf(utts []*Utt, numMel int) features.CMVN {
	var st features.CMVNStats
	for _, u := range utts {
		st.Add(u.Feats, u.Frames)
	}
	return st.Finish(1e-3)
}

// Batches groups utterance indexes into batches of similar length: utts are
// sorted by frame count and cut into runs holding at most maxFrames frames
// in all (and at least one utterance). The batch order is then shuffled with
// rng so that an epoch mixes lengths while each batch wastes little work.
func Batches(utts []*Utt, maxFrames int, rng *rand.Rand) [][]int {
	idx := make([]int, len(utts))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return utts[idx[a]].Frames < utts[idx[b]].Frames })
	var out [][]int
	var cur []int
	total := 0
	for _, i := range idx {
		if len(cur) > 0 && total+utts[i].Frames > maxFrames {
			out = append(out, cur)
			cur, total = nil, 0
		}
		cur = append(cur, i)
		total += utts[i].Frames
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	rng.Shuffle(len(out), func(a, b int) { out[a], out[b] = out[b], out[a] })
	return out
}
