package align

import (
	"fmt"
	"math"
)

// Word status values.
const (
	// StatusAligned marks a word whose times come from the alignment path.
	StatusAligned = "aligned"
	// StatusInterpolated marks a word whose confidence was below the
	// threshold (or that has no spoken form): its times are interpolated
	// between the neighbouring aligned words.
	StatusInterpolated = "interpolated"
	// StatusUncertain marks a word whose times come from an alignment
	// path that gives it little support: its confidence is below the
	// threshold, and its times are a guess better than interpolation.
	StatusUncertain = "uncertain"
)

// Char is one spoken character of a word with its time span in seconds.
type Char struct {
	Char  string  `json:"char"`
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

// Word is one whitespace-separated token of the transcript, spelled exactly
// as given, with its time span in seconds, a confidence in [0, 1] and a
// Status (StatusAligned, StatusUncertain or StatusInterpolated). Chars holds the characters of
// its spoken form (no spaces), possibly none. Spoken is the reading that
// was aligned, words joined by spaces, for a token that has more than one
// reading ("2019": "two thousand nineteen" when the audio says so) or whose
// reading is not its written letters ("$5": "five dollars", "Dr.":
// "doctor"); "" otherwise.
type Word struct {
	Word       string  `json:"word"`
	Spoken     string  `json:"spoken,omitempty"`
	Start      float64 `json:"start"`
	End        float64 `json:"end"`
	Confidence float64 `json:"confidence"`
	Status     string  `json:"status"`
	Chars      []Char  `json:"chars"`
	// Evidence is what Confidence was computed from (see Calibrate); nil
	// for a word whose confidence was not calibrated (interpolated, or
	// aligned without a CTC segmentation). Not part of any export format.
	Evidence *Evidence `json:"-"`
}

// Result is the alignment of one audio file: its path, its duration in
// seconds, its words in order and, from heed align, the share of its
// words that were aligned.
type Result struct {
	File     string  `json:"file"`
	Duration float64 `json:"duration"`
	Words    []Word  `json:"words"`
	// AlignedShare is the share (0..1) of the words with a spoken form
	// that are StatusAligned (see AlignedShare); nil when not computed.
	AlignedShare *float64 `json:"aligned_share,omitempty"`
}

// AlignedShare returns how many of words have a spoken form (characters)
// and how many of those are StatusAligned.
func AlignedShare(words []Word) (aligned, spoken int) {
	for _, w := range words {
		if len(w.Chars) == 0 {
			continue
		}
		spoken++
		if w.Status == StatusAligned {
			aligned++
		}
	}
	return aligned, spoken
}

// Validate checks that all times are finite and non-negative, that every
// word and character has Start <= End, that words do not go back in time
// (each starts at or after the previous start) and that confidences lie in
// [0, 1].
func (r *Result) Validate() error {
	if !finite(r.Duration) || r.Duration < 0 {
		return fmt.Errorf("align: result %q: bad duration %v", r.File, r.Duration)
	}
	prev := 0.0
	for i, w := range r.Words {
		if !finite(w.Start) || !finite(w.End) || w.Start < 0 || w.End < w.Start {
			return fmt.Errorf("align: word %d %q: bad times [%v, %v]", i, w.Word, w.Start, w.End)
		}
		if w.Start < prev {
			return fmt.Errorf("align: word %d %q starts at %v before the previous word (%v)", i, w.Word, w.Start, prev)
		}
		prev = w.Start
		if !finite(w.Confidence) || w.Confidence < 0 || w.Confidence > 1 {
			return fmt.Errorf("align: word %d %q: confidence %v outside [0, 1]", i, w.Word, w.Confidence)
		}
		for j, c := range w.Chars {
			if !finite(c.Start) || !finite(c.End) || c.Start < 0 || c.End < c.Start {
				return fmt.Errorf("align: word %d %q char %d: bad times [%v, %v]", i, w.Word, j, c.Start, c.End)
			}
		}
	}
	return nil
}

// end returns the largest time in r: its duration or the last word end.
func (r *Result) end() float64 {
	e := r.Duration
	for _, w := range r.Words {
		e = math.Max(e, w.End)
		for _, c := range w.Chars {
			e = math.Max(e, c.End)
		}
	}
	return e
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
