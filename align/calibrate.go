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
	// (MaxApart when the segmentation left the word out).
	Apart float64
	// Moved is how far (seconds) Refine moved the word's start or end to
	// pauses in the audio's energy, the larger of the two; 0 without
	// refinement.
	Moved float64
	// Contrast is the level difference (dB) between the loud frames (99th
	// percentile) and the noise floor (10th percentile) of the 5 ms frames
	// of the audio the word was aligned in; 0 without refinement.
	Contrast float64
}

// MaxApart caps Evidence.Apart, seconds: edges this far apart say the two
// paths disagree; further apart says nothing more.
const MaxApart = 0.5

// Calibration maps a word's Evidence to a confidence in (0, 1) by a
// logistic function of two features (see Features):
//
//	z = Bias − Moved·moved − Apart·apart
//	confidence = 1 / (1 + exp(−z))
//
// moved is how far Refine moved an edge of the word (per 0.1 s), counted
// in full when the audio's level contrast is 20 dB or less and not at all
// from 50 dB up, in proportion between: the energy refinement finds the
// true pauses in clean audio and false ones in noise, where it cuts quiet
// sounds off a word. apart is how far the attention path and the CTC
// segmentation put the word's edges apart (per 0.1 s, at most MaxApart).
type Calibration struct {
	Bias, Moved, Apart float64
}

// DefaultCalibration is the map heed uses. It was fitted by logistic
// regression (bench/calibrate fit; both labels weighted equally, so a
// confidence of 0.5 is where the two kinds of mistake balance, and it is
// not a probability) on the words of the even-numbered utterances of the
// espeak-ng dev and dev_noisy sets and the glued FSDD digit strings: label
// 1 for a word whose start and end are both within 50 ms of the gold, 0 for
// one more than 100 ms off. Refitted the same way after Refine's quiet
// margin came to follow the level contrast (floorMargin), which left far
// fewer words off (dev_noisy, odd half: 43 instead of 439), it gave
// {Bias: 2.58, Moved: 3.86, Apart: 3.75}; on the odd half that flagged 44%
// of the FSDD strings' words within 50 ms (this map: 11%) for recall 43%
// instead of 7% on their 14 off words, so this map was kept.
func DefaultCalibration() Calibration {
	return Calibration{Bias: 4.8, Moved: 9.41, Apart: 2.37}
}

// Features returns the two features of e that Calibration weighs: moved
// (Evidence.Moved per 0.1 s, weighted by how little the level contrast is)
// and apart (Evidence.Apart per 0.1 s, at most MaxApart).
func Features(e Evidence) [2]float64 {
	noise := math.Min(math.Max((50-e.Contrast)/30, 0), 1)
	return [2]float64{math.Max(e.Moved, 0) / 0.1 * noise, math.Min(math.Max(e.Apart, 0), MaxApart) / 0.1}
}

// Confidence returns the calibrated confidence of a word with evidence e,
// in (0, 1).
func (c Calibration) Confidence(e Evidence) float64 {
	f := Features(e)
	z := c.Bias - c.Moved*f[0] - c.Apart*f[1]
	return 1 / (1 + math.Exp(-z))
}

// Validate returns an error unless every weight is finite and the feature
// weights are non-negative (an edge moved further or paths further apart
// never raise a confidence).
func (c Calibration) Validate() error {
	for _, v := range []float64{c.Bias, c.Moved, c.Apart} {
		if !finite(v) {
			return fmt.Errorf("align: calibration %+v: weights must be finite", c)
		}
	}
	if c.Moved < 0 || c.Apart < 0 {
		return fmt.Errorf("align: calibration %+v: feature weights must not be negative", c)
	}
	return nil
}

// measureEvidence fills in, for every spoken word (one per word of chars)
// that is not StatusInterpolated, the Segment and Apart of its evidence
// from the CTC segmentation seg (encoder frames of frameSec seconds, times
// plus offset). ev holds one Evidence per spoken word.
func measureEvidence(ev []Evidence, spoken []Word, chars string, seg *Segmentation, frameSec, offset float64) {
	ranges := wordRanges(chars)
	if len(ranges) != len(spoken) || len(seg.Placed) != len(spoken) || len(ev) != len(spoken) {
		panic("align: measureEvidence size mismatch")
	}
	at := func(f int) float64 { return math.Max(0, float64(f)*frameSec+offset) }
	for k, r := range ranges {
		w := &spoken[k]
		if w.Status == StatusInterpolated {
			continue
		}
		ev[k].Segment, ev[k].Apart = 0, MaxApart
		if seg.Placed[k] {
			ev[k].Segment = seg.Conf[k]
			d := math.Max(math.Abs(w.Start-at(seg.Spans[r[0]].Start)), math.Abs(w.End-at(seg.Spans[r[1]-1].End)))
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

// levelContrast returns the difference (dB) between the 99th and the 10th
// percentile level of the 5 ms frames of samples (at rate Hz), the two
// levels Refine's quiet threshold is set from; 0 for audio shorter than a
// frame.
func levelContrast(samples []float32, rate int) float64 {
	fl := int(float64(rate) * refineFrameSec)
	if fl < 1 || len(samples) < fl {
		return 0
	}
	lv := frameLevels(samples, fl)
	sort.Float64s(lv)
	return percentile(lv, 0.99) - percentile(lv, 0.10)
}
