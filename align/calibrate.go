package align

import (
	"fmt"
	"math"
	"sort"
)

// Evidence is what a word's confidence is computed from when the aligner
// has both an attention path and a CTC segmentation of the transcript (see
// Calibration.Confidence). It is kept on the Word (not exported to JSON)
// for evaluation and for fitting a Calibration (bench/calibrate).
type Evidence struct {
	// Attention is the attention path's support for the word
	// (WordConfidence: the attention mass of its characters inside its span
	// and their CTC peaks), 0..1; 0 when no attention path placed it.
	// Measured, not weighed by Calibration: on the dev sets it does not
	// tell words placed right from words placed wrong.
	Attention float64
	// Segment is the CTC segmentation's confidence for the word
	// (Segmentation.Conf), 0..1; 0 when the segmentation left it out.
	// Measured, not weighed by Calibration (as Attention).
	Segment float64
	// Apart is how far apart (seconds) the word's edges lie in the times
	// the aligner gave it before refinement and in the CTC segmentation:
	// the larger of the start and the end difference, at most MaxApart
	// (MaxApart when the segmentation left the word out). Measured, not
	// weighed by Calibration: Settled tells more.
	Apart float64
	// Settled is Apart measured after both the aligner's times and the
	// CTC segmentation's were refined (Refine) to pauses in the audio's
	// energy, at most MaxApart (MaxApart when the segmentation left the
	// word out); 0 without refinement. Two paths that disagree only about
	// the silence next to a word agree once refined.
	Settled float64
	// Moved is how far (seconds) Refine moved the word's start or end to
	// pauses in the audio's energy, the larger of the two; 0 without
	// refinement.
	Moved float64
	// Contrast is the level difference (dB) between the loud frames (99th
	// percentile) and the noise floor (10th percentile) of the 5 ms frames
	// of the audio the word was aligned in; 0 without refinement.
	Contrast float64
	// Pause is the time (seconds) from the word's end to the start of the
	// next word placed, at most MaxPause, after refinement; 0 for a word
	// that ends a sentence or line (normalize.Token.Ends), which a pause
	// is expected to follow. A word inside a sentence that ends at a pause
	// may have lost a weak last sound to it: a fricative after a stop's
	// closure, a vowel's decay under noise.
	Pause float64
}

// MaxApart caps Evidence.Apart and Evidence.Settled, seconds: edges this
// far apart say the two paths disagree; further apart says nothing more.
const MaxApart = 0.5

// MaxPause caps Evidence.Pause, seconds: the pauses that tell of a lost
// sound on the dev sets are 100-250 ms, and a pause between sentences,
// 300 ms or more, is no evidence against a word (a sentence's last word
// counts none).
const MaxPause = 0.2

// NumFeatures is the number of features Calibration weighs (see Features).
const NumFeatures = 3

// Calibration maps a word's Evidence to a confidence in (0, 1) by a
// logistic function of three features (see Features):
//
//	z = Bias − Moved·moved − Settled·settled − Pause·pause
//	confidence = 1 / (1 + exp(−z))
//
// moved is how far Refine moved an edge of the word (per 0.1 s), counted
// in full when the audio's level contrast is 20 dB or less and not at all
// from 50 dB up, in proportion between: the energy refinement finds the
// true pauses in clean audio and false ones in noise, where it cuts quiet
// sounds off a word. settled is how far apart the attention path and the
// CTC segmentation put the word's edges once both are refined (per 0.1 s,
// at most MaxApart); pause is the pause after the word (per 0.1 s, at most
// MaxPause).
type Calibration struct {
	Bias, Moved, Settled, Pause float64
}

// DefaultCalibration is the map heed uses. It was fitted by logistic
// regression (bench/calibrate fit) on the words of the even-numbered
// utterances of the espeak-ng dev and dev_noisy sets and the glued FSDD
// digit strings: label 1 for a word whose start and end are both within 50
// ms of the gold, 0 for one more than 100 ms off, each set's two labels
// weighted equally; the bias was then raised until every one of the three
// sets keeps at least 90% of its words within 50 ms at a confidence of 0.5
// or more. So 0.5 is a threshold chosen to flag as many words that are off
// as can be while flagging at most one in ten of those placed right on any
// dev set, and the confidence is not a probability.
func DefaultCalibration() Calibration {
	return Calibration{Bias: 2.78, Moved: 3.66, Settled: 2.99, Pause: 0.779}
}

// Features returns the three features of e that Calibration weighs: moved
// (Evidence.Moved per 0.1 s, weighted by how little the level contrast
// is), settled (Evidence.Settled per 0.1 s, at most MaxApart) and pause
// (Evidence.Pause per 0.1 s, at most MaxPause).
func Features(e Evidence) [NumFeatures]float64 {
	noise := math.Min(math.Max((50-e.Contrast)/30, 0), 1)
	return [NumFeatures]float64{
		math.Max(e.Moved, 0) / 0.1 * noise,
		math.Min(math.Max(e.Settled, 0), MaxApart) / 0.1,
		math.Min(math.Max(e.Pause, 0), MaxPause) / 0.1,
	}
}

// Weights returns the feature weights of c in the order of Features.
func (c Calibration) Weights() [NumFeatures]float64 {
	return [NumFeatures]float64{c.Moved, c.Settled, c.Pause}
}

// Confidence returns the calibrated confidence of a word with evidence e,
// in (0, 1).
func (c Calibration) Confidence(e Evidence) float64 {
	f, w := Features(e), c.Weights()
	z := c.Bias
	for i := range f {
		z -= w[i] * f[i]
	}
	return 1 / (1 + math.Exp(-z))
}

// Validate returns an error unless every weight is finite and the feature
// weights are non-negative (an edge moved further, paths further apart or
// a longer pause never raise a confidence).
func (c Calibration) Validate() error {
	if !finite(c.Bias) {
		return fmt.Errorf("align: calibration %+v: weights must be finite", c)
	}
	for _, v := range c.Weights() {
		if !finite(v) {
			return fmt.Errorf("align: calibration %+v: weights must be finite", c)
		}
		if v < 0 {
			return fmt.Errorf("align: calibration %+v: feature weights must not be negative", c)
		}
	}
	return nil
}

// measureEvidence fills in, for every spoken word (one per word of chars)
// that is not StatusInterpolated, the Segment and Apart of its evidence
// from the CTC segmentation seg (encoder frames of frameSec seconds, times
// plus offset). ev holds one Evidence per spoken word.
func measureEvidence(ev []Evidence, spoken []Word, chars string, seg *Segmentation, frameSec, offset float64) {
	ranges := segWords(spoken, chars, seg, "measureEvidence")
	if len(ev) != len(spoken) {
		panic("align: measureEvidence size mismatch")
	}
	for k, r := range ranges {
		w := &spoken[k]
		if w.Status == StatusInterpolated {
			continue
		}
		ev[k].Segment, ev[k].Apart = 0, MaxApart
		if seg.Placed[k] {
			ev[k].Segment = seg.Conf[k]
			s, e := seg.wordSeconds(r, frameSec, offset)
			d := math.Max(math.Abs(w.Start-s), math.Abs(w.End-e))
			ev[k].Apart = math.Min(d, MaxApart)
		}
	}
}

// Calibrate gives every spoken word that is not StatusInterpolated its
// calibrated confidence, c.Confidence of its evidence ev[k], and a copy of
// that evidence in Word.Evidence. A word whose confidence reaches
// FlagConfidence is StatusAligned, any other StatusUncertain (its times are
// kept). ev holds one Evidence per spoken word (see measureEvidence).
func Calibrate(spoken []Word, ev []Evidence, c Calibration) {
	if len(ev) != len(spoken) {
		panic("align: Calibrate size mismatch")
	}
	for k := range spoken {
		w := &spoken[k]
		if w.Status == StatusInterpolated {
			continue
		}
		e := ev[k]
		w.Confidence = c.Confidence(e)
		w.Evidence = &e
		w.Status = StatusUncertain
		if w.Confidence >= FlagConfidence {
			w.Status = StatusAligned
		}
	}
}

// settledEvidence fills in the Settled of ev, one Evidence per spoken
// word, from the refined words spoken and the CTC segmentation seg
// (encoder frames of frameSec seconds, plus offset) refined the same way
// over the same audio (levels, see measureLevels).
func settledEvidence(ev []Evidence, spoken []Word, chars string, seg *Segmentation, frameSec, offset float64, levels refineLevels) {
	ranges := wordRanges(chars)
	at := func(f int) float64 { return frameSeconds(f, frameSec, offset) }
	other := make([]Word, len(spoken))
	for k, w := range spoken {
		other[k] = w
		other[k].Chars = append([]Char(nil), w.Chars...)
		if seg.Placed[k] && w.Status != StatusInterpolated {
			r := ranges[k]
			other[k].Start, other[k].End = at(seg.Spans[r[0]].Start), at(seg.Spans[r[1]-1].End)
			for j := range other[k].Chars {
				sp := seg.Spans[r[0]+j]
				other[k].Chars[j].Start, other[k].Chars[j].End = at(sp.Start), at(sp.End)
			}
		}
	}
	refine(other, levels, nil)
	for k, w := range spoken {
		ev[k].Settled = MaxApart
		if seg.Placed[k] {
			d := math.Max(math.Abs(w.Start-other[k].Start), math.Abs(w.End-other[k].End))
			ev[k].Settled = math.Min(d, MaxApart)
		}
	}
}

// pauseEvidence fills in the Pause of ev, one Evidence per spoken word:
// the time from each word's end to the start of the next word that is not
// StatusInterpolated, at most MaxPause; 0 for a word that ends a sentence
// (ends[k], see sentenceEdges), where a pause is expected, and for
// interpolated words.
func pauseEvidence(ev []Evidence, spoken []Word, ends []bool) {
	next := math.Inf(1)
	for k := len(spoken) - 1; k >= 0; k-- {
		w := spoken[k]
		if w.Status == StatusInterpolated {
			continue
		}
		if !ends[k] {
			ev[k].Pause = math.Min(math.Max(next-w.End, 0), MaxPause)
		}
		next = w.Start
	}
}

// levelContrast returns the difference (dB) between the 99th and the 10th
// percentile level of the 5 ms frames of a piece of audio (levels, see
// measureLevels; the whole band's), the two levels Refine's quiet
// threshold is set from; 0 for audio shorter than a frame.
func levelContrast(levels refineLevels) float64 {
	if len(levels.band) == 0 {
		return 0
	}
	lv := append([]float64(nil), levels.band...)
	sort.Float64s(lv)
	return percentile(lv, 0.99) - percentile(lv, 0.10)
}
