package speech

import (
	"fmt"
	"math"
	"time"

	"github.com/heed-asr/heed/model"
)

// Rate is the sample rate of the audio an Endpointer reads, Hz.
const Rate = 16000

// Options configures an Endpointer. Durations are rounded down to whole
// encoder frames (30 ms for the shipped model).
type Options struct {
	// MinPause is the shortest pause in speech that ends a segment.
	MinPause time.Duration
	// MaxSegment is the longest segment: one that reaches it without a
	// pause is cut at its least speech-like frame in its second half.
	MaxSegment time.Duration
	// Hop is the audio classified per encoder window; Left and Right are
	// the context encoded before and after it. The encoder runs on
	// Left+Hop+Right for every Hop of audio, so Hop sets both the cost and
	// how often a stream's decisions are made, and Right adds to latency.
	Hop, Left, Right time.Duration
	// BF16 encodes the windows with the encoder's products in bfloat16
	// (model.Net.EncodeCTCBF16): for long recordings.
	BF16 bool
}

// StreamOptions are the options for live audio: a decision every 120 ms
// from a window of 1.2 s of context and none after (no look-ahead).
func StreamOptions() Options {
	return Options{MinPause: 300 * time.Millisecond, MaxSegment: 15 * time.Second,
		Hop: 120 * time.Millisecond, Left: 1200 * time.Millisecond}
}

// FileOptions are the options for a whole recording: windows of 3 s with
// 1 s of context on either side.
func FileOptions() Options {
	return Options{MinPause: 300 * time.Millisecond, MaxSegment: 15 * time.Second,
		Hop: 3 * time.Second, Left: time.Second, Right: time.Second}
}

// Thresholds of the speech decision.
const (
	speechProb   = 0.4 // a frame is speech when its best CTC token is a character this likely
	openScore    = 1.5 // summed probability of the speech frames within openSpan frames that opens a segment
	openSpan     = 10
	reviseFrames = 12   // frames before a window's new ones whose tokens it revises
	minConf      = 0.4  // mean probability of a speech segment's character frames
	minDynamics  = 6    // dB from a speech segment's quietest to its loudest 10 ms (pre-emphasised)
	headSec      = 0.2  // audio kept before a segment's first speech frame, seconds
	tailSec      = 0.15 // and after its last one (at most MinPause/2)
	silence      = 1e-4 // a window whose samples all stay under this needs no encoding
)

// Segment is a stretch of speech: samples [Start, End) of the stream.
type Segment struct {
	Start, End int64
	// Samples are the segment's audio; nil for segments from Segments.
	Samples []float32
	// Text is the CTC head's best path over the segment: what the
	// Endpointer heard so far, for a partial result.
	Text string
}

// Seconds returns the segment's start and end in seconds.
func (s Segment) Seconds() (start, end float64) {
	return float64(s.Start) / Rate, float64(s.End) / Rate
}

// Event is what Push reports: a partial result of the open segment, or a
// segment that has closed.
type Event struct {
	Final bool
	// Rejected marks a final whose segment turned out not to be speech
	// after partial results of it were reported: it has no text.
	Rejected bool
	Segment
}

// frameInfo is the CTC verdict on one encoder frame.
type frameInfo struct {
	tok    int     // most likely token
	speech bool    // tok is a character with probability >= speechProb
	score  float32 // probability mass on characters (not blank, not space)
	p      float32 // probability of tok
}

// Endpointer cuts a stream of 16 kHz mono audio into segments of speech as
// it arrives. It is not safe for concurrent use; the model may be shared.
type Endpointer struct {
	b                *model.Bundle
	step             int // samples per encoder frame
	hop, left, right int // samples, multiples of step
	minPause, maxSeg int // encoder frames
	head, tail       int // samples
	copyAudio        bool

	levels  []float32 // dBFS of 10 ms frames, a ring of levelRing indexed by frame
	nlevels int64     // 10 ms frames measured
	lvPart  []float32 // samples of the unfinished 10 ms frame
	prev    float32   // the sample before lvPart

	buf      []float32 // audio from bufStart
	bufStart int64
	total    int64 // samples pushed
	encoded  int64 // samples run through the encoder
	next     int64 // frame index of the next frame to classify

	open     bool
	segStart int64       // samples
	segFrame int64       // frame index of frames[0]
	frames   []frameInfo // frames of the open segment (or, when idle, the last openSpan)
	last     int64       // frame index of the open segment's last speech frame
	told     bool        // a partial result of the open segment was reported
	lastEnd  int64       // end of the previous segment, samples
	bf16     bool        // Options.BF16
}

// NewEndpointer returns an Endpointer for model b. It panics if Hop is
// shorter than one encoder frame or MinPause is not shorter than
// MaxSegment.
func NewEndpointer(b *model.Bundle, opt Options) *Endpointer {
	step := b.Net.Cfg.Stack * b.Meta.Features.FrameShift
	frames := func(d time.Duration) int { return int(d.Seconds() * Rate / float64(step)) }
	e := &Endpointer{b: b, step: step, copyAudio: true,
		hop: frames(opt.Hop) * step, left: frames(opt.Left) * step, right: frames(opt.Right) * step,
		minPause: max(1, frames(opt.MinPause)), maxSeg: frames(opt.MaxSegment), bf16: opt.BF16}
	if e.hop == 0 || e.minPause >= e.maxSeg {
		panic(fmt.Sprintf("speech: NewEndpointer: bad options %+v", opt))
	}
	e.head = int(headSec * Rate)
	e.tail = min(int(tailSec*Rate), e.minPause*step/2)
	return e
}

// Push appends samples to the stream and returns what they complete: a
// partial result after every Hop while a segment is open, and each segment
// that closed, oldest first.
func (e *Endpointer) Push(samples []float32) []Event {
	e.buf = append(e.buf, samples...)
	e.total += int64(len(samples))
	e.measure(samples)
	var out []Event
	// A window's last frame needs the fbank frames it stacks, which reach
	// FrameLength-FrameShift samples past it.
	look := int64(e.b.Meta.Features.FrameLength - e.b.Meta.Features.FrameShift)
	for e.next*int64(e.step)+int64(e.hop+e.right)+look <= e.total {
		out = e.classify(out, e.next+int64(e.hop/e.step), e.next*int64(e.step)+int64(e.hop+e.right)+look)
	}
	return out
}

// Flush classifies what is left of the stream and closes the open segment.
func (e *Endpointer) Flush() []Event {
	var out []Event
	if n := e.total / int64(e.step); n > e.next {
		out = e.classify(out, n, e.total)
	}
	if e.open {
		out = e.close(out, e.total) // the pause after its last speech is shorter than MinPause
	}
	e.trim()
	return out
}

// classify encodes the window that ends at sample wEnd and gives frames
// [e.next, upto) their verdicts, opening and closing segments.
func (e *Endpointer) classify(out []Event, upto, wEnd int64) []Event {
	wStart := max(0, e.next*int64(e.step)-int64(e.left))
	x := e.buf[wStart-e.bufStart : wEnd-e.bufStart]
	var enc *model.Encoded
	if loud(x) {
		e.encoded += int64(len(x))
		feats, n := e.b.Features(x)
		if e.bf16 { // only the CTC head is read
			enc = e.b.Net.EncodeCTCBF16(feats, n)
		} else {
			enc = e.b.Net.EncodeCTC(feats, n)
		}
	}
	first := wStart / int64(e.step)
	verdict := func(t int64) frameInfo {
		f := frameInfo{tok: model.EOS}
		j := int(t - first)
		if enc == nil || j >= enc.T {
			return f
		}
		V := e.b.Net.Cfg.V()
		row := enc.CTCLogProbs[j*V : (j+1)*V]
		for v := range row {
			if row[v] > row[f.tok] {
				f.tok = v
			}
		}
		f.score = float32(1 - math.Exp(float64(row[model.EOS])) - math.Exp(float64(row[1])))
		f.p = float32(math.Exp(float64(row[f.tok])))
		f.speech = f.tok > 1 && f.p >= speechProb
		return f
	}
	// The open segment's frames that were classified from the right edge
	// of an earlier window get their token again, now with more context:
	// the partial text reads better. Decisions already taken stand.
	if e.open {
		for t := max(e.segFrame, e.next-reviseFrames, first); t < e.next; t++ {
			e.frames[t-e.segFrame].tok = verdict(t).tok
		}
	}
	for ; e.next < upto; e.next++ {
		out = e.frame(out, verdict(e.next))
	}
	if e.open {
		if seg := e.current(e.next*int64(e.step), false); e.told || e.speech(seg) {
			out = append(out, Event{Segment: seg})
			e.told = true
		}
	}
	e.trim()
	return out
}

// loud reports whether any sample of x is above the silence threshold.
func loud(x []float32) bool {
	for _, v := range x {
		if v > silence || v < -silence {
			return true
		}
	}
	return false
}

// frame takes the verdict on frame e.next.
func (e *Endpointer) frame(out []Event, f frameInfo) []Event {
	step := int64(e.step)
	if !e.open {
		e.frames = append(e.frames, f)
		if len(e.frames) > openSpan {
			e.frames = e.frames[:copy(e.frames, e.frames[len(e.frames)-openSpan:])]
		}
		w, firstSpeech := 0.0, -1
		for i, g := range e.frames {
			if g.speech {
				w += float64(g.p)
				if firstSpeech < 0 {
					firstSpeech = i
				}
			}
		}
		if w < openScore {
			return out
		}
		e.open, e.last = true, e.next
		e.segFrame = e.next - int64(len(e.frames)-1) + int64(firstSpeech)
		e.frames = e.frames[:copy(e.frames, e.frames[firstSpeech:])]
		e.segStart = max(e.lastEnd, e.segFrame*step-int64(e.head), e.bufStart)
		return out
	}
	e.frames = append(e.frames, f)
	if f.speech {
		e.last = e.next
	}
	if e.next-e.last >= int64(e.minPause) {
		return e.close(out, (e.last+1)*step+int64(e.tail))
	}
	if len(e.frames) >= e.maxSeg {
		// Too long without a pause: cut at the least speech-like frame of
		// the second half and go on with the rest.
		cut := len(e.frames) / 2
		for i := cut; i < len(e.frames); i++ {
			if e.frames[i].score < e.frames[cut].score {
				cut = i
			}
		}
		end := (e.segFrame+int64(cut))*step + step/2
		out = e.final(out, e.current(end, true))
		e.frames = e.frames[:copy(e.frames, e.frames[cut+1:])]
		e.segFrame += int64(cut + 1)
		e.segStart, e.lastEnd = end, end
		if e.last < e.segFrame {
			e.last = e.segFrame
		}
	}
	return out
}

// Pending returns the open segment as it would close now if the pause that
// follows its last speech frame went on to MinPause: the same audio as that
// final, so a caller can start decoding it early. ok is false while no
// segment is open or it is not in a pause of at least the segment's tail.
func (e *Endpointer) Pending() (seg Segment, ok bool) {
	step := int64(e.step)
	end := (e.last+1)*step + int64(e.tail)
	if !e.open || e.next*step < end {
		return Segment{}, false
	}
	return e.current(end, true), true
}

// levelFrame is the frame of the energy measure, samples; levelRing how
// many are kept (the longest segment and 2 s before it).
const levelFrame = Rate / 100

func (e *Endpointer) levelRing() int { return e.maxSeg*e.step/levelFrame + 2*Rate/levelFrame + 10 }

// measure appends the levels of the 10 ms frames samples complete.
func (e *Endpointer) measure(samples []float32) {
	if e.levels == nil {
		e.levels = make([]float32, e.levelRing())
	}
	for len(samples) > 0 {
		k := min(levelFrame-len(e.lvPart), len(samples))
		e.lvPart = append(e.lvPart, samples[:k]...)
		samples = samples[k:]
		if len(e.lvPart) < levelFrame {
			return
		}
		// Pre-emphasis first, as in the features: the level of what the
		// model hears, so that the rumble of brown noise does not pass
		// for dynamics.
		sum := 0.0
		for _, v := range e.lvPart {
			d := float64(v) - 0.97*float64(e.prev)
			sum += d * d
			e.prev = v
		}
		e.levels[e.nlevels%int64(len(e.levels))] = float32(10 * math.Log10(sum/levelFrame+1e-12))
		e.nlevels++
		e.lvPart = e.lvPart[:0]
	}
}

// dynamics returns how far the loudest 10 ms frame of samples [start, end)
// rises above the quietest of it and the 2 s before it, dB.
func (e *Endpointer) dynamics(start, end int64) float64 {
	a, z := start/levelFrame, min(end/levelFrame, e.nlevels)
	lo := max(0, a-2*Rate/levelFrame, e.nlevels-int64(len(e.levels))+1)
	floor, peak := math.Inf(1), math.Inf(-1)
	for i := lo; i < z; i++ {
		v := float64(e.levels[i%int64(len(e.levels))])
		floor = math.Min(floor, v)
		if i >= a {
			peak = math.Max(peak, v)
		}
	}
	return peak - floor
}

// close ends the open segment at sample end and appends it as final.
func (e *Endpointer) close(out []Event, end int64) []Event {
	out = e.final(out, e.current(end, true))
	e.open, e.lastEnd = false, end
	e.frames = e.frames[:0]
	return out
}

// final appends seg as a final: as speech when it passes the speech test,
// as Rejected when it does not but partials of it were reported, and not
// at all otherwise.
func (e *Endpointer) final(out []Event, seg Segment) []Event {
	told := e.told
	e.told = false
	if e.speech(seg) {
		return append(out, Event{Final: true, Segment: seg})
	}
	if told {
		return append(out, Event{Final: true, Rejected: true, Segment: Segment{Start: seg.Start, End: seg.End}})
	}
	return out
}

// speech reports whether seg, a stretch of the open segment, is speech
// rather than noise or music that the CTC head took for characters: its
// character frames must be confident on average (at least minConf) and its
// loudest 10 ms must rise at least minDynamics above the quietest of it and
// the 2 s before (steady noise does not).
func (e *Endpointer) speech(seg Segment) bool {
	n, sum := 0, 0.0
	for _, f := range e.frames[:e.framesTo(seg.End)] {
		if f.tok > 1 {
			n++
			sum += float64(f.p)
		}
	}
	return n > 0 && sum/float64(n) >= minConf && e.dynamics(seg.Start, seg.End) >= minDynamics
}

// framesTo returns how many frames of the open segment end by sample end.
func (e *Endpointer) framesTo(end int64) int {
	step := int64(e.step)
	return max(0, min(len(e.frames), int((end-e.segFrame*step+step-1)/step)))
}

// current returns the open segment up to sample end, with its audio when
// withAudio is set.
func (e *Endpointer) current(end int64, withAudio bool) Segment {
	end = min(end, e.total)
	s := Segment{Start: e.segStart, End: end}
	s.Text = ctcText(e.frames[:e.framesTo(end)])
	if withAudio && e.copyAudio {
		s.Samples = append([]float32(nil), e.buf[e.segStart-e.bufStart:end-e.bufStart]...)
	}
	return s
}

// ctcText is the CTC best path through frames: repeats merged, blanks
// dropped, spaces trimmed.
func ctcText(frames []frameInfo) string {
	ids := make([]int, 0, len(frames))
	prev := -1
	for _, f := range frames {
		if f.tok != prev && f.tok != model.EOS && !(f.tok == 1 && (len(ids) == 0 || ids[len(ids)-1] == 1)) {
			ids = append(ids, f.tok)
		}
		prev = f.tok
	}
	for len(ids) > 0 && ids[len(ids)-1] == 1 {
		ids = ids[:len(ids)-1]
	}
	return model.Decode(ids)
}

// trim drops the audio that no later window or segment needs.
func (e *Endpointer) trim() {
	keep := e.next*int64(e.step) - int64(e.left) // the next window's start
	if e.open {
		keep = min(keep, e.segStart)
	} else {
		// A segment that opens later starts at most openSpan frames and
		// the head before the frame that opens it.
		keep = min(keep, max(e.lastEnd, (e.next-openSpan)*int64(e.step)-int64(e.head)))
	}
	keep = max(keep, e.bufStart)
	if d := int(keep - e.bufStart); d > 0 && d >= len(e.buf)/2 {
		e.buf = e.buf[:copy(e.buf, e.buf[d:])]
		e.bufStart = keep
	}
}
