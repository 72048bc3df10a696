package corpus

import (
	"fmt"
	"math"
	"strings"
)

// synthEvent is the part of a synthesizer event (espeak_EVENT) that word
// timing needs.
type synthEvent struct {
	phoneme bool   // a phoneme event; otherwise the start of a word
	pos     int    // 1-based character (= byte, text is ASCII) position in the text
	length  int    // word length in characters (word events)
	sample  int    // sample index at which the event happens
	name    string // phoneme name (phoneme events)
}

// isPause reports whether an espeak phoneme name is a pause rather than a
// speech sound ("_", "_:", "_!" and the ";" linking pause).
func isPause(name string) bool {
	return name == "" || name[0] == '_' || name[0] == ';'
}

// wordGroup is one word event of the synthesizer with the phonemes it
// owns. espeak-ng 1.51 sometimes gives one word event for two short words
// ("in the", "of a"): such a group covers the words first..last.
type wordGroup struct {
	first, last int   // word indexes covered
	start       int   // sample of the word event
	phones      []int // indexes into the phoneme list
}

// timeWords finds the time span in seconds of every word of text from the
// synthesizer's events, and refines it with the signal energy:
//
//  1. Each word event is matched to the word of text holding its character
//     position. Words without an event of their own belong to the group of
//     the word before them; phonemes before the first word event belong to
//     the first word.
//  2. A word runs from the start of its first phoneme to the start of the
//     event after its last phoneme (the next phoneme or pause), so pauses
//     between words are not part of either word.
//  3. A group of several words is split at phoneme boundaries: by counts
//     (phoneme counts of each word spoken alone) when they add up to the
//     group's phonemes, else proportionally to counts or character lengths.
//  4. Leading and trailing 5 ms frames whose energy is more than 50 dB
//     below the loudest frame are trimmed off each word (stop closures,
//     fade-outs).
//
// counts holds one phoneme count per word of text (0 = unknown).
func timeWords(text string, counts []int, events []synthEvent, samples []float32, rate int) ([]Word, error) {
	fields := strings.Fields(text)
	if len(counts) != len(fields) {
		panic("corpus: timeWords: counts and text differ in length")
	}
	starts := make([]int, len(fields)) // byte offset of each word
	off := 0
	for i, f := range fields {
		off += strings.Index(text[off:], f)
		starts[i] = off
		off += len(f)
	}
	wordAt := func(pos int) int { // word holding 1-based position pos, or -1
		p := pos - 1
		for i := range fields {
			if p >= starts[i] && p < starts[i]+len(fields[i]) {
				return i
			}
		}
		return -1
	}

	// Phoneme list with sample spans; pauses are kept as boundaries.
	type phone struct {
		start, end int
		pause      bool
	}
	var phones []phone
	var groups []wordGroup
	for _, ev := range events {
		if !ev.phoneme {
			w := wordAt(ev.pos)
			if w < 0 || (len(groups) > 0 && w <= groups[len(groups)-1].first) {
				continue // not a word of text, or a second event inside one word
			}
			groups = append(groups, wordGroup{first: w, last: w, start: ev.sample})
			continue
		}
		if n := len(phones); n > 0 && phones[n-1].end < 0 {
			phones[n-1].end = ev.sample
		}
		pause := isPause(ev.name)
		phones = append(phones, phone{start: ev.sample, end: -1, pause: pause})
		if !pause && len(groups) == 0 {
			// espeak-ng 1.51 sometimes sends no word (or sentence) event
			// for the first word (en-us-nyc "human ..."): speech before
			// any word event belongs to the first word.
			groups = append(groups, wordGroup{first: 0, last: 0, start: ev.sample})
		}
		if !pause {
			g := &groups[len(groups)-1]
			g.phones = append(g.phones, len(phones)-1)
		}
	}
	if n := len(phones); n > 0 && phones[n-1].end < 0 {
		phones[n-1].end = len(samples)
	}
	if len(groups) == 0 || groups[0].first != 0 {
		return nil, fmt.Errorf("no word event for the first word %q", fields[0])
	}
	for i := range groups {
		if i+1 < len(groups) {
			groups[i].last = groups[i+1].first - 1
		} else {
			groups[i].last = len(fields) - 1
		}
	}

	spans := make([][2]int, len(fields)) // sample spans [start, end)
	for gi, g := range groups {
		k := g.last - g.first + 1
		// The group's extent, for groups without phonemes.
		gStart, gEnd := g.start, len(samples)
		if gi+1 < len(groups) {
			gEnd = groups[gi+1].start
		}
		if len(g.phones) > 0 {
			gStart = phones[g.phones[0]].start
			gEnd = phones[g.phones[len(g.phones)-1]].end
		}
		if k == 1 {
			spans[g.first] = [2]int{gStart, gEnd}
			continue
		}
		weights := make([]float64, k)
		exact, sum := true, 0
		for j := range k {
			c := counts[g.first+j]
			if c <= 0 {
				exact = false
			}
			sum += c
		}
		exact = exact && sum == len(g.phones)
		useCounts := true
		for j := range k {
			if counts[g.first+j] <= 0 {
				useCounts = false
			}
		}
		for j := range k {
			if useCounts {
				weights[j] = float64(counts[g.first+j])
			} else {
				weights[j] = float64(len(fields[g.first+j]))
			}
		}
		if len(g.phones) < k {
			// Too few phonemes to give each word one: split time by weight.
			total := 0.0
			for _, w := range weights {
				total += w
			}
			acc := 0.0
			for j := range k {
				a := gStart + int(math.Round(float64(gEnd-gStart)*acc/total))
				acc += weights[j]
				b := gStart + int(math.Round(float64(gEnd-gStart)*acc/total))
				spans[g.first+j] = [2]int{a, b}
			}
			continue
		}
		cuts := splitCounts(len(g.phones), weights, exact)
		for j := range k {
			first, last := g.phones[cuts[j]], g.phones[cuts[j+1]-1]
			spans[g.first+j] = [2]int{phones[first].start, phones[last].end}
		}
	}

	thr := silenceThreshold(samples, rate)
	frame := max(1, rate/200)
	words := make([]Word, len(fields))
	for i, sp := range spans {
		a, b := trimSilence(samples, sp[0], sp[1], frame, thr)
		words[i] = Word{Word: fields[i], Start: roundTime(float64(a) / float64(rate)), End: roundTime(float64(b) / float64(rate))}
		if i > 0 && words[i].Start < words[i-1].End {
			// Cannot happen with disjoint phoneme spans; guard against
			// odd event orders all the same.
			words[i].Start = words[i-1].End
			words[i].End = max(words[i].End, words[i].Start)
		}
	}
	return words, nil
}

// splitCounts cuts n items into len(weights) consecutive non-empty runs.
// With exact the weights are integer counts summing to n and are used as
// they are; otherwise the runs are proportional to the weights. The result
// holds len(weights)+1 cut indexes from 0 to n. It requires n >=
// len(weights).
func splitCounts(n int, weights []float64, exact bool) []int {
	k := len(weights)
	cuts := make([]int, k+1)
	total := 0.0
	for _, w := range weights {
		total += w
	}
	acc := 0.0
	for j := 1; j < k; j++ {
		acc += weights[j-1]
		c := int(math.Round(float64(n) * acc / total))
		if exact {
			c = int(acc)
		}
		// Leave at least one item for each run on either side.
		c = max(c, cuts[j-1]+1)
		c = min(c, n-(k-j))
		cuts[j] = c
	}
	cuts[k] = n
	return cuts
}

// silenceThreshold is the mean square below which a frame counts as
// silence: 50 dB below the loudest 5 ms frame, and at least 1e-9 (-90 dBFS).
func silenceThreshold(x []float32, rate int) float64 {
	frame := max(1, rate/200)
	peak := 0.0
	for i := 0; i < len(x); i += frame {
		peak = max(peak, MeanSquare(x[i:min(len(x), i+frame)]))
	}
	return max(peak*1e-5, 1e-9)
}

// trimSilence moves a forward and b backward, a frame at a time, past
// frames of x whose mean square is below thr. If all of [a, b) is silent
// it is returned unchanged.
func trimSilence(x []float32, a, b, frame int, thr float64) (int, int) {
	a0, b0 := a, b
	for a+frame <= b && MeanSquare(x[a:a+frame]) < thr {
		a += frame
	}
	for b-frame >= a && MeanSquare(x[b-frame:b]) < thr {
		b -= frame
	}
	if b <= a {
		return a0, b0
	}
	return a, b
}

// MeanSquare is the mean of v² over x (0 for an empty x).
func MeanSquare(x []float32) float64 {
	if len(x) == 0 {
		return 0
	}
	s := 0.0
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	return s / float64(len(x))
}

// roundTime rounds seconds to 0.1 ms, enough for 16 kHz audio and short in
// JSON.
func roundTime(t float64) float64 { return math.Round(t*1e4) / 1e4 }
