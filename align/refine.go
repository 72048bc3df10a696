package align

import (
	"math"
	"sort"
)

// refineFrameSec is the hop of the energy envelope Refine reads: 5 ms.
const refineFrameSec = 0.005

// Refine's search limits: how far (seconds) a pause may lie from the
// boundary the path gave, how far the first start and the last end may move
// out, and how many quiet frames make a pause.
const (
	pauseReach     = 0.02
	edgeReach      = 0.06
	minPauseFrames = 2
	longPause      = 0.15 // a pause this long counts anywhere between two words' middles
	wordKeep       = 0.06 // seconds per character a word keeps when Refine moves its edges
)

// Refine's quiet threshold (see quietFrames and floorMargin), dB.
const (
	quietUnderLoud = 40 // under the loud frames
	marginClean    = 8  // over the noise floor, at a level contrast of cleanContrast or more
	marginNoisy    = 1  // over the noise floor, at a level contrast of noisyContrast or less
	cleanContrast  = 40
	noisyContrast  = 25
)

// Refine moves the boundaries of words that are not interpolated to the
// audio's energy, at
// 5 ms precision, below the resolution of the encoder (30 ms):
//
//   - between two aligned words, if the stretch from 20 ms before the first
//     one's end to 20 ms after the second one's start (at most to the
//     words' middles) holds a pause (two or more quiet 5 ms frames that
//     meet the stretch the path gave to the space between them), the first
//     word ends where the longest such pause begins and the second starts
//     where it ends; otherwise both meet in the middle of the space's
//     stretch, except in noisy audio (level contrast 25 dB or less) where
//     the path gave the space 150 ms or more: that space is kept (the
//     pause is there, but the noise breaks it into short quiet runs, and
//     the longest of them may lie anywhere in it);
//   - the first aligned word starts at its first loud frame from 60 ms
//     before its start up to its middle (the path may give it the silence
//     before it: nothing else can take it), and the last one ends after its
//     last loud frame from 60 ms after its end back to its middle.
//
// A frame is quiet when its level is more than 40 dB under the loud frames
// (99th percentile) or less than a margin over the noise floor (10th
// percentile): 8 dB when the two lie 40 dB or more apart, down to 1 dB when
// they lie 25 dB or less apart, so that in noise a quiet consonant is not
// taken for a pause and cut off its word (see floorMargin). In audio whose
// 10th percentile is digital silence (edited, gated or glued recordings)
// the floor is that of the sound in the pauses between the words, when there
// is such sound 35 dB or more under the loud frames (see pauseFloor): room
// tone there would otherwise be taken for speech. samples are the
// audio the word times refer to, at rate Hz. Character times are kept inside
// their word's.
func Refine(words []Word, samples []float32, rate int) {
	fl := int(float64(rate) * refineFrameSec)
	if fl < 1 || len(samples) < 2*fl {
		return
	}
	quiet, contrast := quietFrames(samples, fl, words)
	noisy := contrast <= noisyContrast
	n := len(quiet)
	toF := func(t float64) int { return min(n, max(0, int(math.Round(t/refineFrameSec)))) }
	toT := func(f int) float64 { return float64(f) * refineFrameSec }
	mid := func(w *Word) float64 { return (w.Start + w.End) / 2 }
	// A word keeps at least half its span or wordKeep per character,
	// whichever is shorter: head is the latest its start may move to,
	// tail the earliest its end may move to. A word the path stretched
	// over a pause may thus lose the pause whole.
	keep := func(w *Word) float64 {
		return math.Min((w.End-w.Start)/2, wordKeep*float64(max(1, len(w.Chars))))
	}
	head := func(w *Word) float64 { return w.End - keep(w) }
	tail := func(w *Word) float64 { return w.Start + keep(w) }
	var idx []int // aligned words
	for i, w := range words {
		if w.Status != StatusInterpolated {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return
	}
	if w := &words[idx[0]]; true {
		lo, hi := toF(w.Start-edgeReach), toF(head(w))
		for f := lo; f+1 < hi; f++ {
			if !quiet[f] && !quiet[f+1] {
				w.Start = toT(f)
				break
			}
		}
	}
	if w := &words[idx[len(idx)-1]]; true {
		lo, hi := toF(tail(w)), toF(w.End+edgeReach)
		for f := hi - 1; f > lo; f-- {
			if !quiet[f] && !quiet[f-1] {
				w.End = toT(f + 1)
				break
			}
		}
	}
	for k := 0; k+1 < len(idx); k++ {
		a, b := &words[idx[k]], &words[idx[k+1]]
		if idx[k+1] != idx[k]+1 {
			continue // an interpolated word lies between them
		}
		sp0, sp1 := toF(a.End), toF(b.Start) // what the path gave the space
		// A long pause anywhere between the words' middles (or further
		// into a word stretched over it), else a short one near the space.
		at, n := longestQuiet(quiet, toF(tail(a)), toF(head(b)), sp0, sp1)
		if float64(n)*refineFrameSec < longPause {
			if noisy && float64(sp1-sp0)*refineFrameSec >= longPause {
				// The path gave the space a pause the energy does not
				// show whole (noise): keep it.
				continue
			}
			lo := toF(math.Max(a.End-pauseReach, mid(a)))
			hi := toF(math.Min(b.Start+pauseReach, mid(b)))
			at, n = longestQuiet(quiet, lo, hi, sp0, sp1)
		}
		if n >= minPauseFrames {
			a.End, b.Start = toT(at), toT(at+n)
		} else {
			m := (a.End + b.Start) / 2
			a.End, b.Start = m, m
		}
	}
	for _, i := range idx {
		clampChars(&words[i])
	}
}

// clampChars keeps a word's character times inside the word, in order: the
// first character starts with the word and the last ends with it.
func clampChars(w *Word) {
	if w.End < w.Start {
		w.End = w.Start
	}
	for j := range w.Chars {
		c := &w.Chars[j]
		c.Start = math.Min(math.Max(c.Start, w.Start), w.End)
		c.End = math.Min(math.Max(c.End, c.Start), w.End)
	}
	if len(w.Chars) > 0 {
		w.Chars[0].Start = w.Start
		w.Chars[len(w.Chars)-1].End = w.End
	}
}

// longestQuiet returns the start and length of the longest run of quiet
// frames within [lo, hi) that meets [sp0, sp1]: a pause must meet the space
// the path gave between two words, a quiet run inside a word (a stop's
// closure) does not.
func longestQuiet(quiet []bool, lo, hi, sp0, sp1 int) (at, n int) {
	for f := lo; f < hi; {
		if !quiet[f] {
			f++
			continue
		}
		g := f
		for g < hi && quiet[g] {
			g++
		}
		if g-f > n && g >= sp0 && f <= sp1 {
			at, n = f, g-f
		}
		f = g
	}
	return at, n
}

// quietFrames marks each whole frame of fl samples that is quiet: more than
// quietUnderLoud dB under the loud frames (99th-percentile level) or less
// than floorMargin dB over the noise floor (10th-percentile level), where
// floorMargin (see floorMargin) shrinks as the level contrast (loud minus
// floor) falls: in noise a quiet consonant lies only a few dB over the floor,
// and a wide margin would take it for a pause. When that floor is digital
// silence (audio edited or glued with it between sentences), the floor is
// that of the pauses the words' times leave (see pauseFloor), if they hold
// any sound: otherwise noise 40 dB under the voice, next to the digital
// silence, would be taken for speech. contrast is the level contrast (dB).
func quietFrames(x []float32, fl int, words []Word) (quiet []bool, contrast float64) {
	lv := frameLevels(x, fl)
	sorted := append([]float64(nil), lv...)
	sort.Float64s(sorted)
	loud, floor := percentile(sorted, 0.99), percentile(sorted, 0.10)
	if floor < digitalSilence {
		if f, ok := pauseFloor(lv, words); ok && loud-f >= minPauseContrast {
			floor = f
		}
	}
	thr := math.Max(loud-quietUnderLoud, floor+floorMargin(loud-floor))
	quiet = make([]bool, len(lv))
	for i, v := range lv {
		quiet[i] = v < thr
	}
	return quiet, loud - floor
}

// digitalSilence is the level (dBFS) under which a frame is digital
// silence: quieter than one least significant bit of 16-bit audio.
const digitalSilence = -90

// pauseGuard is how far (seconds) from every word's span a frame must lie
// to count for pauseFloor: the path's resolution.
const pauseGuard = 0.03

// pauseFloor returns the 10th-percentile level of the 5 ms frames (levels
// lv) that lie outside every word's span by more than
// pauseGuard and are not digital silence, and whether there are at least
// minFloorFrames of them.
func pauseFloor(lv []float64, words []Word) (float64, bool) {
	inWord := make([]bool, len(lv))
	for _, w := range words {
		lo := max(0, int((w.Start-pauseGuard)/refineFrameSec))
		hi := min(len(lv), int(math.Ceil((w.End+pauseGuard)/refineFrameSec)))
		for f := lo; f < hi; f++ {
			inWord[f] = true
		}
	}
	var pause []float64
	for f, v := range lv {
		if !inWord[f] && v >= digitalSilence {
			pause = append(pause, v)
		}
	}
	if len(pause) < minFloorFrames {
		return 0, false
	}
	sort.Float64s(pause)
	return percentile(pause, 0.10), true
}

// minPauseContrast is how far (dB) under the loud frames pauseFloor's
// level must lie to be taken for a noise floor: a level closer to the
// voice's is speech the words' times left out (synthetic speech with digital
// silence between words has no other sound). At 30 dB, nine espeak-ng dev
// utterances took such speech for their floor (boundary mean 10.69 to
// 10.81 ms); at 35 dB none changed, and the glued real recordings of
// bench/longreal.py kept most of the gain (see bench/README.md).
const minPauseContrast = 35

// minFloorFrames is the fewest pause frames (50 ms) pauseFloor measures.
const minFloorFrames = 10

// floorMargin returns how far (dB) over the noise floor a frame may lie and
// still be quiet, for audio whose level contrast (99th minus 10th
// percentile level of its 5 ms frames) is contrast dB: marginNoisy up to
// noisyContrast, marginClean from cleanContrast, linear between. Chosen on
// 100 evenly spaced utterances each of the espeak-ng dev and dev_noisy sets
// and the glued FSDD digit strings: with 8 dB everywhere (the margin before)
// refinement made dev_noisy's mean boundary error worse than none (22.1 to
// 35.9 ms), with 1 dB everywhere it made the FSDD strings' worse than 8 dB
// (11.7 to 27.6 ms); the ramp improves on both in every 5 dB contrast band.
// On all utterances (heed eval align) the mean boundary error went from 13.0
// to 10.5 ms on dev, 35.4 to 16.0 ms on dev_noisy and 11.4 to 10.7 ms on
// the FSDD strings.
func floorMargin(contrast float64) float64 {
	t := math.Min(math.Max((contrast-noisyContrast)/(cleanContrast-noisyContrast), 0), 1)
	return marginNoisy + t*(marginClean-marginNoisy)
}
