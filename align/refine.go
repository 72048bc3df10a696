package align

import (
	"math"
	"slices"
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

// onsetLag is how far (seconds) the path's start of a word lies after the
// boundary with the word before it where no pause separates them: the
// attention moves on to a word's first character about one encoder frame
// (30 ms) after its sound begins, the space before it holding the frame
// between, however long the path made the space. On 600 espeak-ng training
// utterances (none of the dev set) the median distance from the path's word
// start to the gold boundary (the word's start and the previous word's end
// pooled) was 29 ms and did not grow with the space (20-30 ms from the
// word's start at spaces of 10 to 110 ms); Refine's mean boundary error
// was least with 30 ms (13.2 ms with the space's middle, 12.0 ms with
// 30 ms, 12.3 with 25 and 12.1 with 35; espeak-ng dev 10.5 to 9.3 ms).
const onsetLag = 0.03

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
//     where it ends, a click in the pause (under 30 ms of sound with quiet
//     on both sides, see clicksAfter) counting as part of it; otherwise
//     both meet onsetLag (30 ms) before the second word's start, or at
//     the first one's end where the path gave
//     the space less than that (the path starts a word about one encoder
//     frame after its sound begins, the space taking the frame before;
//     see onsetLag), except in noisy audio (level contrast 25 dB or less) where
//     the path gave the space 150 ms or more: that space is kept (the
//     pause is there, but the noise breaks it into short quiet runs, and
//     the longest of them may lie anywhere in it);
//   - the first aligned word starts where its speech starts and the last
//     one ends where its speech ends (the path may give such a word the
//     silence next to it, or leave out its weak onset or long decay:
//     nothing else can take them), up to 300 ms out from where the path
//     put the edge and in as far as the word's middle. Speech is a stretch
//     of live 5 ms frames, louder than the noise in the pauses ever is
//     (speechFrames), joined across dips of up to 20 ms and holding 30 ms
//     of live frames in a row (shorter sounds are clicks); the edge moves
//     to the edge of the stretch the path's edge lies in, else of the
//     first stretch after the start (the last before the end) within the
//     word (speechStart, speechEnd). In noisy audio (level contrast 25 dB
//     or less) the last end only moves out: a weak decay lies under the
//     noise there, and the energy cannot show where it ends. The first
//     word starts where the level rises out of the 150 ms of noise before
//     the path's start (noisyOnset: the first 30 ms 3 dB over its median,
//     from its first frame that is, widened back over the frames over the
//     median), searched up to 150 ms after that start; where that noise
//     cannot be measured, its start too only moves out. Where the noise
//     cannot be measured at all (noiseFrames), the first word starts at
//     its first two loud frames from 60 ms before its start up to its
//     middle, and the last one ends after its last two from 60 ms after
//     its end back to its middle.
//
// A frame is quiet when its level is more than 40 dB under the loud frames
// (99th percentile) or less than a margin over the noise floor (10th
// percentile): 8 dB when the two lie 40 dB or more apart, down to 1 dB when
// they lie 25 dB or less apart, so that in noise a quiet consonant is not
// taken for a pause and cut off its word (see floorMargin). In audio whose
// 10th percentile is digital silence (edited, gated or glued recordings)
// the floor is that of the sound in the pauses between the words, when there
// is such sound 35 dB or more under the loud frames (see pauseFloor): room
// tone there would otherwise be taken for speech; and each recording glued
// between cuts whose room tone is louder is measured against its own
// (measured next to its cuts, whether or not the pauses gave a floor).
// Where the room tone is rumble, levels are measured above 100 Hz (see
// rumbles). samples are the audio the word times refer to, at rate Hz. Character
// times are kept inside their word's.
func Refine(words []Word, samples []float32, rate int) {
	refine(words, measureLevels(samples, rate), nil)
}

// refineLevels are the refineFrameSec levels (dBFS) of one piece of audio,
// measured once (measureLevels) for its refinement, its level contrast and
// the refinement of the other path's words that the settled evidence
// compares with (see settledEvidence).
type refineLevels struct {
	band []float64 // the whole band's levels: the level contrast (levelContrast)
	lv   []float64 // the levels refine reads: band's, or those above rumbleCutoff where the room tone rumbles (see rumbles)
}

// measureLevels returns the refineFrameSec levels of samples (at rate Hz),
// none for audio shorter than a frame.
func measureLevels(samples []float32, rate int) refineLevels {
	fl := int(float64(rate) * refineFrameSec)
	if fl < 1 || len(samples) < fl {
		return refineLevels{}
	}
	l := refineLevels{band: frameLevels(samples, fl)}
	l.lv = l.band
	if hp := frameLevels(highPass(samples, rate, rumbleCutoff), fl); rumbles(l.band, hp) {
		l.lv = hp
	}
	return l
}

// refine is Refine where gaps[k], when it is a span (seconds, end after
// start), is where sound that neither word k nor word k+1 holds may lie (a
// word left out of the transcript: the CTC head heard characters there
// that are neither word's, see Unheard). When that span holds
// unspokenFrames or more live frames in a row, the two words' edges are
// refined apart: the first word ends where a pause at its end begins (else
// where the path ended it), the second starts where a pause at its start
// ends (else onsetLag before the path's start), and the sound between them
// stays outside both.
//
// levels are the audio's, measured by measureLevels. It returns the quiet
// frames (refineFrameSec each) it measured, nil when the audio is too
// short to measure (under two frames).
func refine(words []Word, levels refineLevels, gaps [][2]float64) (quiet []bool) {
	lv := levels.lv
	if len(lv) < 2 {
		return nil
	}
	quiet, contrast := quietFrames(lv, words)
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
	if live := speechFrames(lv, quiet, words); live != nil {
		st := speechStretches(live)
		// In noise a word's weak start or end lies under the noise, where
		// the energy cannot show it: the edges only move out there.
		first, last := &words[idx[0]], &words[idx[len(idx)-1]]
		s0, e0, h0 := first.Start, last.End, head(first)
		speechStart(first, st, toF, toT, head)
		speechEnd(last, st, toF, toT, tail)
		if noisy {
			first.Start, last.End = math.Min(first.Start, s0), math.Max(last.End, e0)
			// Where the noise before the path's start can be measured,
			// the first word starts where the level rises out of it.
			if f, ok := noisyOnset(lv, toF(s0), toF(h0)); ok {
				first.Start = toT(f)
			}
		}
	} else {
		if w := &words[idx[0]]; true {
			s0 := w.Start
			lo, hi := toF(w.Start-edgeReach), toF(head(w))
			for f := lo; f+1 < hi; f++ {
				if !quiet[f] && !quiet[f+1] {
					w.Start = toT(f)
					break
				}
			}
			w.Start = toT(soundsFrom(quiet, toF(w.Start), toF(s0-edgeOutReach)))
		}
		if w := &words[idx[len(idx)-1]]; true {
			e0 := w.End
			lo, hi := toF(tail(w)), toF(w.End+edgeReach)
			for f := hi - 1; f > lo; f-- {
				if !quiet[f] && !quiet[f-1] {
					w.End = toT(f + 1)
					break
				}
			}
			w.End = toT(soundsOn(quiet, toF(w.End), toF(e0+edgeOutReach)))
		}
	}
	for k := 0; k+1 < len(idx); k++ {
		a, b := &words[idx[k]], &words[idx[k+1]]
		if idx[k+1] != idx[k]+1 {
			continue // an interpolated word lies between them
		}
		sp0, sp1 := toF(a.End), toF(b.Start) // what the path gave the space
		if g := idx[k]; g < len(gaps) && gaps[g][1] > gaps[g][0] && longestLive(quiet, toF(gaps[g][0]), toF(gaps[g][1])) >= unspokenFrames {
			if at, n := longestQuiet(quiet, toF(a.End-pauseReach), toF(a.End+pauseReach), sp0, sp0); n >= minPauseFrames {
				a.End = toT(at)
			}
			if at, n := longestQuiet(quiet, toF(b.Start-pauseReach), toF(b.Start+pauseReach), sp1, sp1); n >= minPauseFrames {
				b.Start = toT(at + n)
			} else {
				b.Start = math.Max(b.Start-onsetLag, math.Min(gaps[g][1], b.Start))
			}
			continue
		}
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
			// A click in the pause (a lip smack, a cut's discontinuity)
			// splits it in two; the words' edges lie at the pause's ends,
			// not at the click.
			end := clicksBefore(quiet, at, toF(tail(a)), clickQuietBefore)
			start := clicksAfter(quiet, at+n, toF(head(b)), clickQuietAfter)
			a.End, b.Start = toT(end), toT(start)
		} else {
			m := math.Max(b.Start-onsetLag, math.Min(a.End, b.Start))
			a.End, b.Start = m, m
		}
	}
	for _, i := range idx {
		clampChars(&words[i])
	}
	return quiet
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

// unspokenFrames is the shortest run of sound (100 ms) in the space the
// path left between two words that Refine takes for speech neither word
// holds (see Refine).
const unspokenFrames = 20

// longestLive returns the length of the longest run of frames within
// [lo, hi) that are not quiet.
func longestLive(quiet []bool, lo, hi int) int {
	best, run := 0, 0
	for f := max(lo, 0); f < min(hi, len(quiet)); f++ {
		if quiet[f] {
			run = 0
			continue
		}
		run++
		best = max(best, run)
	}
	return best
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

// Clicks inside a pause (see clicksAfter): a run of live frames shorter
// than clickFrames is a click when quiet runs of these lengths (frames)
// flank it. Before a pause's click the quiet must outlast a stop's closure
// (up to about 100 ms): a word's final stop ("eight") releases a burst
// as short as a click after its closure, and that burst is the word's.
const (
	clickFrames      = 6  // coreSec
	clickQuietAfter  = 10 // 50 ms
	clickQuietBefore = 21 // 105 ms
)

// clicksAfter returns where speech resumes after a pause that ends at
// frame f (quiet as quietFrames marks them): past every click (a run of
// fewer than clickFrames live frames) followed by at least minQuiet quiet
// frames, as long as that quiet run ends by frame hi.
func clicksAfter(quiet []bool, f, hi, minQuiet int) int {
	for f < hi {
		g := f
		for g < hi && !quiet[g] {
			g++
		}
		if g == f || g-f >= clickFrames {
			return f
		}
		h := g
		for h < hi && quiet[h] {
			h++
		}
		if h-g < minQuiet {
			return f
		}
		f = h
	}
	return f
}

// clicksBefore is clicksAfter backwards: where the sound before a pause
// that begins at frame f ends, before every click preceded by at least
// minQuiet quiet frames, as long as that quiet run begins at frame lo or
// later.
func clicksBefore(quiet []bool, f, lo, minQuiet int) int {
	for f > lo {
		g := f
		for g > lo && !quiet[g-1] {
			g--
		}
		if g == f || f-g >= clickFrames {
			return f
		}
		h := g
		for h > lo && quiet[h-1] {
			h--
		}
		if g-h < minQuiet {
			return f
		}
		f = h
	}
	return f
}

// quietFrames marks each frame (levels lv, dBFS) that is quiet: more than
// quietUnderLoud dB under the loud frames (99th-percentile level) or less
// than floorMargin dB over the noise floor (10th-percentile level), where
// floorMargin (see floorMargin) shrinks as the level contrast (loud minus
// floor) falls: in noise a quiet consonant lies only a few dB over the floor,
// and a wide margin would take it for a pause. When that floor is digital
// silence (audio edited or glued with it between sentences), the floor is
// that of the pauses the words' times leave (see pauseFloor), if they hold
// any sound: otherwise noise 40 dB under the voice, next to the digital
// silence, would be taken for speech. Recordings glued between cuts of
// digital silence (cutRegions) whose room tone next to the cuts
// (regionFloor) lies over that floor get a threshold of their own, from
// their room tone, where it is higher: a louder room's tone, which the
// path may give the first word after the cut, is a pause too. They get it
// whether or not the pauses gave a floor: a path that gave the words every
// sound of the recordings leaves no pause to measure.
// contrast is the level contrast (dB).
func quietFrames(lv []float64, words []Word) (quiet []bool, contrast float64) {
	sorted := append([]float64(nil), lv...)
	sort.Float64s(sorted)
	loud, floor := percentile(sorted, 0.99), percentile(sorted, 0.10)
	glued := floor < digitalSilence
	if glued {
		if f, ok := pauseFloor(lv, words); ok && loud-f >= minPauseContrast {
			floor = f
		}
	}
	thr := math.Max(loud-quietUnderLoud, floor+floorMargin(loud-floor))
	quiet = make([]bool, len(lv))
	for i, v := range lv {
		quiet[i] = v < thr
	}
	if glued {
		// Recordings glued between digital silences each keep their own
		// room tone: one louder than the quietest is quiet too.
		for _, r := range cutRegions(lv) {
			f, ok := regionFloor(lv, r)
			if !ok || f <= floor || loud-f < minPauseContrast {
				continue
			}
			rt := math.Max(thr, f+floorMargin(loud-f))
			for i := r[0]; i < r[1]; i++ {
				quiet[i] = lv[i] < rt
			}
		}
	}
	return quiet, loud - floor
}

// minCutFrames is the shortest run of digital silence (100 ms) that
// cutRegions takes for a cut between two recordings.
const minCutFrames = 20

// cutRegions returns the stretches [start, end) of frames (levels lv)
// between cuts: runs of at least minCutFrames frames of digital silence.
func cutRegions(lv []float64) [][2]int {
	var rs [][2]int
	start := 0
	for f := 0; f < len(lv); {
		if lv[f] >= digitalSilence {
			f++
			continue
		}
		g := f
		for g < len(lv) && lv[g] < digitalSilence {
			g++
		}
		if g-f >= minCutFrames {
			if f > start {
				rs = append(rs, [2]int{start, f})
			}
			start = g
		}
		f = g
	}
	if start < len(lv) {
		rs = append(rs, [2]int{start, len(lv)})
	}
	return rs
}

// regionFloor returns the room tone of the recording in frames r (levels
// lv) that cutRegions found between cuts: the median level of the
// minFloorFrames frames after its first cut (leaving out the frame that
// touches it) or of those before its last, whichever is lower (a recording
// cut tight at one end may hold its voice there), and whether r is long
// enough to measure both ends apart.
func regionFloor(lv []float64, r [2]int) (float64, bool) {
	f, g := r[0], r[1]
	if g-f < 2*minFloorFrames+2 || (f == 0 && g == len(lv)) {
		return 0, false
	}
	med := func(lo int) float64 {
		return percentile(slices.Sorted(slices.Values(lv[lo:lo+minFloorFrames])), 0.5)
	}
	floor := math.Inf(1)
	if f > 0 {
		floor = med(f + 1)
	}
	if g < len(lv) {
		floor = math.Min(floor, med(g-1-minFloorFrames))
	}
	return floor, true
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
	fs := framesOutside(lv, words, pauseGuard)
	if len(fs) < minFloorFrames {
		return 0, false
	}
	return percentile(levelsAt(lv, fs), 0.10), true
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

// Refine's speech edges (see speechFrames and speechStretches).
const (
	edgeOutReach = 0.3  // how far (seconds) out the first start and the last end may move
	coreSec      = 0.03 // the shortest run of live frames that is speech, not a click
	gapSec       = 0.02 // the longest dip a stretch of speech is joined across
	// liveSpread places the live threshold at the noise's 99th percentile:
	// that many times the distance from its 10th to its 30th percentile
	// over its 10th, as in a normal distribution ((2.326 + 1.282) / (1.282
	// - 0.524)). The lower percentiles are measured because the upper part
	// of the frames taken for noise may be speech. The noise frames are
	// mostly the quiet ones (noiseFrames), which leave out the noise's
	// loudest part; in steady noise the threshold then lies nearer the
	// noise's 90th percentile, which keeps more of the speech that barely
	// rises over it (on the glued recordings at 10 dB SNR of
	// bench/longreal.py that did better than the pauses' frames, whose
	// threshold lies at the 99th).
	liveSpread = 4.77
	// maxNoiseSpread is the most (dB) the 30th percentile of the noise
	// frames' levels may lie over their 10th: a wider spread (a standard
	// deviation of 4 dB in a normal distribution) is not a noise floor but
	// quiet speech (synthetic speech, where everything that is not digital
	// silence is voice), and the edges are then found as before.
	maxNoiseSpread = 3
	// minGluedSpread is the least spread (dB, 30th over 10th percentile)
	// assumed for the noise of audio with digital silence (glued
	// recordings), whose noise frames are mostly a room tone next to the
	// cuts: a steady tone measures about 0.2 dB there, which put the live
	// threshold inside the tone's own flicker
	// (TestRefineShortRoomToneCoveredByPath).
	minGluedSpread = 0.5
)

// speechFrames marks the frames (levels lv, dBFS) that are live: whose
// level averaged with their neighbours' (smoothLevels) is louder than the
// noise ever is (over its 99th percentile, see liveSpread; in audio whose
// 10th percentile is digital silence the noise's spread is taken to be at
// least minGluedSpread) and lies within quietUnderLoud dB of the loud
// frames (99th percentile). It returns nil when the noise cannot be
// measured (see noiseFrames) or its levels are spread too wide to be noise
// (maxNoiseSpread).
func speechFrames(lv []float64, quiet []bool, words []Word) []bool {
	noise := noiseFrames(lv, quiet, words)
	if noise == nil {
		return nil
	}
	sm := smoothLevels(lv)
	ns := levelsAt(sm, noise)
	q10, q30 := percentile(ns, 0.1), percentile(ns, 0.3)
	if q30-q10 > maxNoiseSpread {
		return nil
	}
	sorted := append([]float64(nil), lv...)
	sort.Float64s(sorted)
	spread := q30 - q10
	if percentile(sorted, 0.10) < digitalSilence {
		spread = math.Max(spread, minGluedSpread)
	}
	thr := math.Max(q10+liveSpread*spread, percentile(sorted, 0.99)-quietUnderLoud)
	live := make([]bool, len(sm))
	for i, v := range sm {
		live[i] = v > thr
	}
	return live
}

// noiseFrames returns the frames (levels lv, quiet as quietFrames marks
// them) in which to measure the noise: the quiet ones that are not digital
// silence, or where there are fewer than minFloorFrames of those (the quiet
// threshold, 40 dB under the loud frames, lies under the noise) the sound
// next to the digital silence if there is any and it lies 35 dB or more under
// the loud frames (cutFloor: the room tone of a recording cut tightly around
// the voice), else the ones outside every word's span by more than
// pauseGuard (framesOutside); nil
// when there are fewer than minFloorFrames of these too. Audio with digital
// silence in it (edited, gated, glued or synthetic) must also show that it
// holds noise: sound in the pauses between the words 35 dB or more under
// the loud frames (pauseFloor, minPauseContrast), sound next to the digital
// silence as far under them (cutFloor: the room tone of a recording cut or
// gated there, which a path that gave the first word the sound before the
// voice hides from pauseFloor), or sound farther than edgeOutReach from
// every word, where no word's edge can be; otherwise (synthetic speech,
// where every sound is voice) it returns nil.
func noiseFrames(lv []float64, quiet []bool, words []Word) []int {
	var fs []int
	digital := false
	for f, v := range lv {
		if v < digitalSilence {
			digital = true
		} else if quiet[f] {
			fs = append(fs, f)
		}
	}
	// The loud level and the room tone next to the cuts (cutFloor), where
	// the audio has digital silence.
	var loud float64
	var cut []int
	cutQuiet := false
	if digital {
		loud = loudLevel(lv)
		var f float64
		var ok bool
		cut, f, ok = cutFloor(lv)
		cutQuiet = ok && loud-f >= minPauseContrast
	}
	if len(fs) < minFloorFrames && cutQuiet {
		// Too few quiet frames to measure: where the recording was cut
		// tightly around the voice, its room tone lies next to the cuts.
		return cut
	}
	if len(fs) < minFloorFrames {
		fs = framesOutside(lv, words, pauseGuard)
	}
	if len(fs) < minFloorFrames {
		return nil
	}
	if !digital {
		return fs
	}
	if f, ok := pauseFloor(lv, words); ok && loud-f >= minPauseContrast {
		return fs
	}
	if cutQuiet {
		return fs
	}
	if len(framesOutside(lv, words, edgeOutReach)) >= minFloorFrames {
		return fs
	}
	return nil
}

// cutFloor returns the frames of the sound next to digital silence (levels
// lv): the minFloorFrames frames (50 ms) after every stretch of digital
// silence and before every one, leaving out the frame that touches it (it
// may be partly silent), in stretches of sound long enough to hold both ends
// apart; their median level; and whether there are at least minFloorFrames
// of them.
// Where a recording was cut, gated or glued between digital silences, that
// is its room tone, unless the cut fell inside the voice; in synthetic
// speech with digital silence between words it is the voice's own onsets
// and decays, which lie far less than minPauseContrast under the loud
// frames.
func cutFloor(lv []float64) ([]int, float64, bool) {
	var fs []int
	for f := 0; f < len(lv); {
		if lv[f] < digitalSilence {
			f++
			continue
		}
		g := f
		for g < len(lv) && lv[g] >= digitalSilence {
			g++
		}
		// Sound [f, g) between digital silences (or the audio's ends).
		if g-f >= 2*minFloorFrames+2 {
			if f > 0 {
				for h := f + 1; h <= f+minFloorFrames; h++ {
					fs = append(fs, h)
				}
			}
			if g < len(lv) {
				for h := g - 1 - minFloorFrames; h < g-1; h++ {
					fs = append(fs, h)
				}
			}
		}
		f = g
	}
	if len(fs) < minFloorFrames {
		return nil, 0, false
	}
	return fs, percentile(levelsAt(lv, fs), 0.5), true
}

// loudLevel returns the level of the loud frames of lv: its 99th
// percentile.
func loudLevel(lv []float64) float64 {
	sorted := append([]float64(nil), lv...)
	sort.Float64s(sorted)
	return percentile(sorted, 0.99)
}

// framesOutside returns the frames (levels lv) that lie outside every
// word's span by more than guard seconds and are not digital silence.
func framesOutside(lv []float64, words []Word, guard float64) []int {
	inWord := make([]bool, len(lv))
	for _, w := range words {
		lo := max(0, int((w.Start-guard)/refineFrameSec))
		hi := min(len(lv), int(math.Ceil((w.End+guard)/refineFrameSec)))
		for f := lo; f < hi; f++ {
			inWord[f] = true
		}
	}
	var fs []int
	for f, v := range lv {
		if !inWord[f] && v >= digitalSilence {
			fs = append(fs, f)
		}
	}
	return fs
}

// levelsAt returns the levels lv of frames fs, sorted.
func levelsAt(lv []float64, fs []int) []float64 {
	out := make([]float64, len(fs))
	for k, f := range fs {
		out[k] = lv[f]
	}
	sort.Float64s(out)
	return out
}

// smoothLevels returns the levels lv (dB) averaged as power over each frame
// and its two neighbours.
func smoothLevels(lv []float64) []float64 {
	out := make([]float64, len(lv))
	for i := range lv {
		p, n := 0.0, 0
		for j := max(0, i-1); j <= min(len(lv)-1, i+1); j++ {
			p += math.Pow(10, lv[j]/10)
			n++
		}
		out[i] = 10 * math.Log10(p/float64(n))
	}
	return out
}

// stretch is a run of frames [a, b).
type stretch struct{ a, b int }

// speechStretches returns the stretches of speech in live: runs of live
// frames joined across dips of at most gapSec that hold coreSec or more of
// live frames in a row.
func speechStretches(live []bool) []stretch {
	gap := int(math.Round(gapSec / refineFrameSec))
	core := int(math.Round(coreSec / refineFrameSec))
	var out []stretch
	for f := 0; f < len(live); {
		if !live[f] {
			f++
			continue
		}
		a, b, run, speech := f, f, 0, false
		for g := f; g < len(live) && g-b <= gap; g++ {
			if live[g] {
				b = g + 1
				run++
				speech = speech || run >= core
			} else {
				run = 0
			}
		}
		if speech {
			out = append(out, stretch{a, b})
		}
		f = b
	}
	return out
}

// soundsOn returns the frame after the sound that goes on from frame f
// (frames not quiet, across dips of at most gapSec) up to frame hi; f when
// no sound starts within gapSec of it. A last word's final lengthened vowel or weak consonant sounds
// on past where the path ended it (espeak-ng dev: "now", "yourself", "five"
// ended 130-200 ms early, the vowel still 7 dB under the loudest frames).
func soundsOn(quiet []bool, f, hi int) int {
	gap := int(math.Round(gapSec / refineFrameSec))
	hi = min(hi, len(quiet))
	end := f
	for g := f; g < hi && g-end <= gap; g++ {
		if !quiet[g] {
			end = g + 1
		}
	}
	return end
}

// soundsFrom is soundsOn backwards: the first frame of the sound that
// leads up to frame f (exclusive) from no earlier than frame lo; f when no
// sound ends within gapSec before it.
func soundsFrom(quiet []bool, f, lo int) int {
	gap := int(math.Round(gapSec / refineFrameSec))
	lo = max(lo, 0)
	start := f
	for g := f - 1; g >= lo && start-1-g <= gap; g-- {
		if !quiet[g] {
			start = g
		}
	}
	return start
}

// speechStart moves w's start to where its speech starts: the start of the
// stretch of speech (st) its start lies in, else of the first one that
// starts after it and before head(w); at most edgeOutReach before where the
// path put it. toF and toT convert between seconds and frames.
func speechStart(w *Word, st []stretch, toF func(float64) int, toT func(int) float64, head func(*Word) float64) {
	s0, lo, hi := toF(w.Start), toF(w.Start-edgeOutReach), toF(head(w))
	for _, s := range st {
		if s.a <= s0 && s0 < s.b {
			w.Start = toT(max(s.a, lo))
			return
		}
		if s.a > s0 && s.a < hi {
			w.Start = toT(s.a)
			return
		}
	}
}

// speechEnd moves w's end to where its speech ends: the end of the stretch
// of speech (st) its end lies in, else of the last one that ends before it
// and after tail(w); at most edgeOutReach after where the path put it.
func speechEnd(w *Word, st []stretch, toF func(float64) int, toT func(int) float64, tail func(*Word) float64) {
	e0, lo, hi := toF(w.End)-1, toF(tail(w)), toF(w.End+edgeOutReach)
	for k := len(st) - 1; k >= 0; k-- {
		s := st[k]
		if s.a <= e0 && e0 < s.b {
			w.End = toT(min(s.b, hi))
			return
		}
		if s.b-1 < e0 && s.b > lo {
			w.End = toT(s.b)
			return
		}
	}
}

// Noisy onsets (see noisyOnset).
const (
	// onsetPause is how long (frames, 150 ms) the stretch before the
	// path's start is whose noise a sentence starts out of, and how far
	// after the path's start its onset is searched: the path put noisy
	// sentences' starts 40-60 ms early (median) on the long recordings
	// at 10 dB SNR of bench/longreal.py, and a pause between sentences
	// lasts 300 ms or more there.
	onsetPause = 30
	// onsetRise is how far (dB) over the noise's median level the frames
	// of an onset lie: over the flicker of steady noise's 5 ms levels
	// (about 0.7 dB a standard deviation in white noise), under a weak
	// consonant's rise.
	onsetRise = 3
	// onsetFrames is the stretch (30 ms, coreSec) whose level (power
	// mean) must rise onsetRise over the noise: a shorter one may be a
	// click or the noise's flicker. Its level, not each of its frames':
	// a speech onset's frames flicker too, and six loud frames in a row
	// put noisy sentences' starts later (bench/longreal.py at 10 dB
	// SNR, sentence edges: Librispeech 95.8 ms against 91.1, VCTK 76.0
	// against 73.4).
	onsetFrames = 6
)

// noisyOnset returns the frame where speech starts out of noise (levels
// lv) after a pause that ends at frame f0, the path's start of the first
// word: in the first onsetFrames frames whose level (power mean) is
// onsetRise dB over the median of the onsetPause frames before f0 (digital
// silence left out), starting from f0 up to onsetPause frames after it and
// by frame latest, the first frame that is too, widened back over the
// frames before it that lie over that median (a weak onset), no further
// than the pause's start. It reports false when the pause holds fewer than
// minFloorFrames frames to measure (the audio starts within it) or no such
// stretch starts in the search.
func noisyOnset(lv []float64, f0, latest int) (int, bool) {
	lo := max(0, f0-onsetPause)
	var ns []float64
	for _, v := range lv[lo:min(f0, len(lv))] {
		if v >= digitalSilence {
			ns = append(ns, v)
		}
	}
	if len(ns) < minFloorFrames {
		return 0, false
	}
	slices.Sort(ns)
	med := percentile(ns, 0.5)
	thr := med + onsetRise
	for f := f0; f <= min(f0+onsetPause, latest) && f+onsetFrames <= len(lv); f++ {
		p := 0.0
		for _, v := range lv[f : f+onsetFrames] {
			p += math.Pow(10, v/10)
		}
		if 10*math.Log10(p/onsetFrames) < thr {
			continue
		}
		// The stretch's level rose over thr with its first frame that
		// did (a sharp onset raises the stretches that end in it).
		for lv[f] < thr && f+1 < len(lv) {
			f++
		}
		for f > lo && lv[f-1] > med {
			f--
		}
		return f, true
	}
	return 0, false
}

// Rumble: room tone whose sound lies mostly under rumbleCutoff Hz (air
// conditioning, handling noise, a breath's pop into the microphone) is as
// loud as a soft onset, and Refine took it for speech: in VCTK speaker
// p239's clips the tone before "people" lay at -40 dBFS, 22 dB of it
// under 100 Hz, and the word started 130 ms early on it. Where the quiet
// frames lose rumbleDB or more through a high-pass at rumbleCutoff, levels
// are measured above it. Voices keep their levels (their energy lies
// above 100 Hz); recordings without rumble are unchanged, as high-passing
// everything moved the onsets of clean speech (espeak-ng dev 9.2 → 9.6 ms,
// the FSDD strings 9.8 → 10.1).
const (
	rumbleCutoff = 100.0
	rumbleDB     = 6.0
)

// rumbles reports whether the sound of the quiet frames lies mostly under
// rumbleCutoff: over the frames that are not digital silence, the 10th
// percentile of lv, the frame levels, lies rumbleDB or more over that of
// hp, the same frames' levels above the cutoff.
func rumbles(lv, hp []float64) bool {
	var a, b []float64
	for i, v := range lv {
		if v >= digitalSilence {
			a, b = append(a, v), append(b, hp[i])
		}
	}
	if len(a) == 0 {
		return false
	}
	slices.Sort(a)
	slices.Sort(b)
	return percentile(a, 0.10)-percentile(b, 0.10) >= rumbleDB
}

// highPass returns x through a fourth-order Butterworth high-pass at fc Hz
// (24 dB an octave: 40 Hz loses 32 dB at fc = 100), two biquads of R.
// Bristow-Johnson's Audio EQ Cookbook with the Butterworth Qs. The filter
// first runs over 100 ms before x that continue it backwards (mirrored
// through its first sample, so that value and slope run on), so that x's
// first sample does not ring it as a step from silence would.
func highPass(x []float32, rate int, fc float64) []float32 {
	pad := min(len(x)-1, rate/10)
	if pad < 0 {
		return nil
	}
	y := make([]float32, pad+len(x))
	for i := range pad {
		y[i] = 2*x[0] - x[pad-i]
	}
	copy(y[pad:], x)
	w := 2 * math.Pi * fc / float64(rate)
	cw := math.Cos(w)
	for _, q := range []float64{0.5411961, 1.3065630} {
		alpha := math.Sin(w) / (2 * q)
		a0 := 1 + alpha
		b0, b1, b2 := (1+cw)/2/a0, -(1+cw)/a0, (1+cw)/2/a0
		a1, a2 := -2*cw/a0, (1-alpha)/a0
		var x1, x2, y1, y2 float64
		for i, v := range y {
			xv := float64(v)
			yv := b0*xv + b1*x1 + b2*x2 - a1*y1 - a2*y2
			x2, x1, y2, y1 = x1, xv, y1, yv
			y[i] = float32(yv)
		}
	}
	return y[pad:]
}
