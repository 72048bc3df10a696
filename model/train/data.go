package train

import (
	"context"
	"fmt"
	"hash/fnv"
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
	Audio     string    // the audio path from the manifest
	Text      string    // spoken-form transcript; empty for non-speech
	Source    string    // manifest "source"
	Aug       string    // manifest "aug": augmentations applied to the audio
	NonSpeech bool      // manifest "nonspeech": music or noise, Text empty
	Feats     []float32 // (Frames, NumMel) raw log-mel features, CMVN not applied
	Frames    int       // 10 ms frames
}

// Seconds is the utterance's duration in seconds, from its frame count.
func (u *Utt) Seconds() float64 { return float64(u.Frames) / 100 }

// LoadManifest reads the manifest at path and computes the features of every
// utterance on jobs goroutines (all CPUs when jobs <= 0). Utterances whose
// audio is shorter than one frame are dropped and counted in skipped.
// Non-speech utterances (manifest "nonspeech") are kept with an empty Text:
// their training target is no characters at all (CTC all blank, the
// decoder's <eos> at the first step).
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
		utts[i] = &Utt{Audio: u.Audio, Text: u.Text, Source: u.Source, Aug: u.Aug, NonSpeech: u.NonSpeech, Feats: feats, Frames: frames}
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
		if u.Frames < 1 || (u.Text == "" && !u.NonSpeech) {
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

// WarpAugmented applies vocal-tract-length perturbation (features.WarpMel)
// to every utterance whose audio was augmented (Aug != ""), with a warp
// factor in [1-maxWarp, 1+maxWarp] drawn from a hash of its audio path and
// seed: each augmented copy sounds like a speaker with a slightly longer
// or shorter vocal tract, the same one in every epoch, while the clean
// originals stay as recorded. It returns the number of utterances warped.
func WarpAugmented(utts []*Utt, cfg features.Config, maxWarp float64, seed uint64) int {
	if maxWarp <= 0 {
		return 0
	}
	n := 0
	for _, u := range utts {
		if u.Aug == "" {
			continue
		}
		h := fnv.New64a()
		h.Write([]byte(u.Audio))
		r := rand.New(rand.NewPCG(seed, h.Sum64()))
		features.WarpMel(u.Feats, u.Frames, cfg, 1+maxWarp*(2*r.Float64()-1))
		n++
	}
	return n
}
