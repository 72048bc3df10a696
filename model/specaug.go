package model

import (
	"math/rand/v2"

	"github.com/heed-asr/heed/features"
	"github.com/heed-asr/heed/internal/kern"
)

// SpecAugment masks input features (Park et al. 2019, without time warping):
// FreqMasks bands of up to FreqWidth mel bins and TimeMasks spans of up to
// TimeWidth frames (and at most TimeRatio of the utterance each, when
// TimeRatio > 0) are set to 0, the mean of CMVN-normalised features. With
// TimeMasksPerSec > 0 a long utterance gets more time masks, that many per
// second of audio (frames of 10 ms), TimeMasks at least: the adaptive
// policy of Park et al. 2020, so that a 10-s utterance is masked in the
// same share as a 2-s one. The zero value masks nothing.
type SpecAugment struct {
	FreqMasks       int     `json:"freq_masks"`
	FreqWidth       int     `json:"freq_width"` // bins
	TimeMasks       int     `json:"time_masks"`
	TimeWidth       int     `json:"time_width"`                 // 10 ms frames
	TimeRatio       float64 `json:"time_ratio"`                 // cap on one time mask as a fraction of frames
	TimeMasksPerSec float64 `json:"time_masks_per_s,omitempty"` // time masks per second, TimeMasks at least
}

// DefaultSpecAugment returns 2 frequency masks of up to 15 bins and 2 time
// masks of up to 40 frames (at most 20% of the utterance each).
func DefaultSpecAugment() SpecAugment {
	return SpecAugment{FreqMasks: 2, FreqWidth: 15, TimeMasks: 2, TimeWidth: 40, TimeRatio: 0.2}
}

// Apply masks feats (frames, numMel) in place, drawing widths and positions
// from rng (deterministic for its state).
func (s SpecAugment) Apply(feats []float32, frames, numMel int, rng *rand.Rand) {
	specAugment(feats, frames, numMel, s, rng)
}

func specAugment[F kern.Float](feats []F, frames, numMel int, s SpecAugment, rng *rand.Rand) {
	if frames <= 0 {
		return
	}
	for range s.FreqMasks {
		w := rng.IntN(min(s.FreqWidth, numMel) + 1)
		f0 := rng.IntN(numMel - w + 1)
		for t := 0; t < frames; t++ {
			clear(feats[t*numMel+f0 : t*numMel+f0+w])
		}
	}
	maxW := s.TimeWidth
	if s.TimeRatio > 0 {
		maxW = min(maxW, int(s.TimeRatio*float64(frames)))
	}
	maxW = min(maxW, frames)
	masks := s.TimeMasks
	if s.TimeMasksPerSec > 0 {
		masks = max(masks, int(s.TimeMasksPerSec*float64(frames)/100+0.5))
	}
	for range masks {
		w := rng.IntN(maxW + 1)
		t0 := rng.IntN(frames - w + 1)
		clear(feats[t0*numMel : (t0+w)*numMel])
	}
}

// warpSpeaker is vocal-tract-length perturbation drawn anew at every update:
// it draws a factor in [1-maxWarp, 1+maxWarp] from rng and warps the mel
// axis of CMVN-normalised frames (frames, fc.NumMel) in place with
// features.WarpMel, undoing the normalisation first and redoing it after,
// so that the warp moves log-mel energies, not normalised values.
func warpSpeaker(feats []float32, frames int, fc features.Config, cmvn features.CMVN, maxWarp float64, rng *rand.Rand) {
	alpha := 1 + maxWarp*(2*rng.Float64()-1)
	x := feats[:frames*fc.NumMel]
	cmvn.Undo(x)
	features.WarpMel(x, frames, fc, alpha)
	cmvn.Apply(x)
}
