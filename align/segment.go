package align

import (
	"math"
	"sort"
)

// Segmenter cuts a stream of 16 kHz mono samples into utterances at pauses,
// as the samples arrive: a segment ends in the middle of the first pause of
// at least MinPause after some speech, or at MaxSeg samples at the quietest
// 10 ms frame of its second half. Memory and latency are bounded by MaxSeg
// plus one pause. Silence alone is dropped, never emitted.
type Segmenter struct {
	Rate     int // samples per second
	MaxSeg   int // longest segment in samples
	MinPause int // shortest pause that ends a segment, samples

	buf   []float32 // samples not yet emitted
	start int64     // stream position of buf[0], samples
}

// minSpeech is the fewest loud 10 ms frames that make a segment speech.
const minSpeech = 5

// Segment is one utterance cut from the stream.
type Segment struct {
	Start   int64 // stream position of the first sample
	Samples []float32
}

// frame is 10 ms of samples.
func (s *Segmenter) frame() int { return s.Rate / 100 }

// Push appends samples to the stream and returns the segments completed by
// them, oldest first.
func (s *Segmenter) Push(samples []float32) []Segment {
	s.buf = append(s.buf, samples...)
	var out []Segment
	for {
		cut, ok := s.findCut()
		if !ok {
			return out
		}
		out = s.emit(out, cut)
	}
}

// Flush returns what remains of the stream as a last segment, unless it is
// silence.
func (s *Segmenter) Flush() []Segment {
	out := s.emit(nil, len(s.buf))
	s.buf = s.buf[:0]
	return out
}

// emit cuts buf at cut, appending the part before it to out unless it holds
// no speech.
func (s *Segmenter) emit(out []Segment, cut int) []Segment {
	seg := append([]float32(nil), s.buf[:cut]...)
	if s.speechFrames(frameLevels(seg, s.frame())) >= minSpeech {
		out = append(out, Segment{Start: s.start, Samples: seg})
	}
	s.start += int64(cut)
	s.buf = append(s.buf[:0], s.buf[cut:]...)
	return out
}

// findCut returns where the buffer should be cut, if it should be now.
func (s *Segmenter) findCut() (int, bool) {
	fl := s.frame()
	lv := frameLevels(s.buf, fl)
	silent := silentFrames(lv)
	pause := max(1, s.MinPause/fl)
	// The first run of pause silent frames after speech ends a segment.
	speech, run := 0, 0
	for i, q := range silent {
		if !q {
			speech++
			run = 0
			continue
		}
		run++
		if run == pause && speech >= minSpeech {
			mid := i + 1 - pause/2
			return mid * fl, true
		}
	}
	if speech < minSpeech && len(s.buf) > s.MaxSeg/2 {
		// Only silence so far: drop all but the last pause.
		return len(s.buf) - pause*fl, true
	}
	if len(s.buf) < s.MaxSeg {
		return 0, false
	}
	// Too long without a pause: cut at the quietest frame of the second
	// half of the first MaxSeg samples.
	end := min(len(lv), s.MaxSeg/fl)
	best := end / 2
	for i := end / 2; i < end; i++ {
		if lv[i] < lv[best] {
			best = i
		}
	}
	return max(fl, best*fl), true
}

// speechFrames counts the frames of lv that are not silent.
func (s *Segmenter) speechFrames(lv []float64) int {
	n := 0
	for _, q := range silentFrames(lv) {
		if !q {
			n++
		}
	}
	return n
}

// frameLevels returns the level in dBFS of each whole frame of x.
func frameLevels(x []float32, frame int) []float64 {
	n := len(x) / frame
	lv := make([]float64, n)
	for i := range lv {
		e := 0.0
		for _, v := range x[i*frame : (i+1)*frame] {
			e += float64(v) * float64(v)
		}
		lv[i] = 10 * math.Log10(e/float64(frame)+1e-12)
	}
	return lv
}

// silentFrames marks the frames of lv below -55 dBFS or more than 30 dB
// under the loud frames (the 95th percentile level).
func silentFrames(lv []float64) []bool {
	out := make([]bool, len(lv))
	if len(lv) == 0 {
		return out
	}
	sorted := append([]float64(nil), lv...)
	sort.Float64s(sorted)
	loud := sorted[int(0.95*float64(len(sorted)-1))]
	thr := math.Max(-55, loud-30)
	for i, v := range lv {
		out[i] = v < thr
	}
	return out
}
