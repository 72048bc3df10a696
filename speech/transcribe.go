package speech

import (
	"context"
	"math"
	"strings"
	"sync"

	"github.com/heed-asr/heed/align"
	"github.com/heed-asr/heed/model"
	"github.com/heed-asr/heed/model/train"
)

// Segments sends the segments of speech in samples (16 kHz mono, a whole
// recording) to out as the Endpointer finds them, with FileOptions, and
// closes out. Their Samples slice samples (no copies). Segments that a
// short pause separates are sent as one (see joinGap).
func Segments(b *model.Bundle, samples []float32, out chan<- Segment) {
	segments(b, samples, FileOptions(), out)
}

// segments is Segments with the endpointer's options opt.
func segments(b *model.Bundle, samples []float32, opt Options, out chan<- Segment) {
	defer close(out)
	e := NewEndpointer(b, opt)
	e.copyAudio = false
	var held *Segment // the last segment, until the next shows whether it joins
	emit := func() {
		if held != nil {
			held.Samples = samples[held.Start:held.End]
			out <- *held
		}
	}
	send := func(evs []Event) {
		for _, ev := range evs {
			if !ev.Final {
				continue
			}
			seg := ev.Segment
			if held != nil && seg.Start-held.End <= joinGap*Rate && seg.End-held.Start <= joinMax*Rate {
				held.End = seg.End
				held.Text = strings.TrimSpace(held.Text + " " + seg.Text)
				continue
			}
			emit()
			held = &seg
		}
	}
	const chunk = 10 * Rate
	for i := 0; i < len(samples); i += chunk {
		send(e.Push(samples[i:min(i+chunk, len(samples))]))
	}
	send(e.Flush())
	emit()
}

// A recording's segments (Segments) are decoded one by one, and a sentence
// cut at a pause inside it loses the context of its other part: readers
// pause 300-800 ms at commas. Two segments whose audio lies at most joinGap
// seconds apart (a pause of about joinGap plus the segments' head and tail
// margins, 0.35 s) are decoded as one, while the result stays within
// joinMax seconds. A segment still ends at FileOptions' MinPause, so that
// music or noise after a pause, which opens no segment, stays out of it.
const (
	joinGap = 0.85
	joinMax = 6.0
)

// Result is one decoded segment.
type Result struct {
	Segment
	Words []align.Word // times from the start of the stream; nil when not timed
}

// Decode recognises one segment with a and, when timed, times its words
// (in seconds from the start of the stream). The segment's Text becomes the
// decoder's transcript, "" when it heard nothing.
func Decode(a *align.Aligner, seg Segment, dec model.DecodeOptions, timed bool) (Result, error) {
	return DecodeContext(context.Background(), a, seg, dec, timed)
}

// DecodeContext is Decode that stops soon after ctx is done, returning
// ctx.Err().
func DecodeContext(ctx context.Context, a *align.Aligner, seg Segment, dec model.DecodeOptions, timed bool) (Result, error) {
	text, words, err := a.TranscribeContext(ctx, seg.Samples, dec, timed)
	if err != nil {
		return Result{}, err
	}
	if float64(train.EditDistance([]byte(text), []byte(seg.Text))) > maxDisagree*float64(len(text)) ||
		float64(letters(seg.Text)) < minHeard*float64(letters(text)) ||
		(len(seg.Samples) >= Rate && musical(seg.Samples)) {
		// The attention decoder wrote much that the CTC head did not
		// hear, or the segment holds notes: it is making up words for
		// what is not speech. (A segment under 1 s is not judged by its
		// notes: a single drawn-out word can hold its pitch as long.)
		text = ""
	}
	seg.Text = text
	r := Result{Segment: seg}
	if timed && text != "" {
		start, _ := seg.Seconds()
		r.Words = align.Stitch([]float64{start}, [][]align.Word{words})
	}
	return r, nil
}

// Transcribe finds the speech in samples (16 kHz mono, a whole recording),
// decodes each segment on its own, jobs segments at a time, and returns the
// transcript and, when timed, its words with times from the start of the
// recording. Audio without speech gives "" and no words.
func Transcribe(a *align.Aligner, samples []float32, dec model.DecodeOptions, timed bool, jobs int) (string, []align.Word, error) {
	return TranscribeContext(context.Background(), a, samples, dec, timed, jobs)
}

// TranscribeContext is Transcribe that stops soon (within a decoder step of
// each segment being decoded) after ctx is done, returning ctx.Err().
func TranscribeContext(ctx context.Context, a *align.Aligner, samples []float32, dec model.DecodeOptions, timed bool, jobs int) (string, []align.Word, error) {
	if len(samples) <= wholeMax*Rate {
		// A short recording is decoded whole when the endpointer found
		// any speech in it, or when its level rises and falls as speech
		// does and it holds no notes (voiced and not musical: a clip cut
		// tight around one short word, or a quiet voice, which the
		// endpointer can miss): the speech decision only says whether
		// there is something to decode, so that a quiet or unfamiliar
		// voice loses no words at the edges of a segment and nothing that
		// the CTC head heard poorly is thrown away. voiced costs a pass
		// over the samples and the endpointer an encoding of the whole
		// recording, so the endpointer runs only when the cheaper checks
		// leave the question open.
		if voiced(samples) && !musical(samples) {
			text, words, enc, err := a.TranscribeEncoded(ctx, samples, dec, timed)
			if err != nil || len(samples) <= voicedMax*Rate {
				return text, words, err
			}
			// Longer than a word or two: the CTC head must have heard a
			// good share of the transcript's letters somewhere in it,
			// or the endpointer must have found speech.
			if float64(letters(ctcBest(a.Model, samples, enc))) >= minHeardAlone*float64(letters(text)) || hasSpeech(a.Model, samples) {
				return text, words, nil
			}
			return "", nil, nil
		}
		if !hasSpeech(a.Model, samples) {
			if len(samples) <= tightMax*Rate && !musical(samples) {
				return tight(ctx, a, samples, dec, timed)
			}
			return "", nil, nil
		}
		return a.TranscribeContext(ctx, samples, dec, timed)
	}
	// A long recording is encoded with bfloat16 products, its segments
	// and the endpointer's windows alike: the encoder is most of the
	// endpointer's cost and a third of decoding's, and packing the
	// weights for it once costs what a few seconds of audio do.
	dec.BF16 = true
	opt := FileOptions()
	opt.BF16 = true
	segs := make(chan Segment, jobs)
	go segments(a.Model, samples, opt, segs)
	type job struct {
		i   int
		seg Segment
	}
	work := make(chan job)
	var (
		mu      sync.Mutex
		results []Result
		first   error
		wg      sync.WaitGroup
	)
	for w := 0; w < max(1, jobs); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				r, err := DecodeContext(ctx, a, j.seg, dec, timed)
				mu.Lock()
				if err != nil && first == nil {
					first = err
				}
				for len(results) <= j.i {
					results = append(results, Result{})
				}
				results[j.i] = r
				mu.Unlock()
			}
		}()
	}
	n := 0
	for seg := range segs {
		if ctx.Err() != nil {
			go func() { // let the segmenter finish in the background
				for range segs {
				}
			}()
			break
		}
		work <- job{n, seg}
		n++
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return "", nil, err
	}
	if first != nil {
		return "", nil, first
	}
	var (
		texts []string
		words []align.Word
	)
	for _, r := range results {
		if r.Text != "" {
			texts = append(texts, r.Text)
			words = append(words, r.Words...)
		}
	}
	return strings.Join(texts, " "), words, nil
}

// hasSpeech reports whether the endpointer finds any segment of speech in
// samples (16 kHz mono, a whole recording).
func hasSpeech(b *model.Bundle, samples []float32) bool {
	segs := make(chan Segment, 1)
	go Segments(b, samples, segs)
	found := false
	for range segs {
		found = true
	}
	return found
}

// maxDisagree is the largest share of a segment's transcript that may
// differ from the CTC head's best path (in characters) before the
// transcript is taken for an invention of the decoder.
const maxDisagree = 1.0

// minHeard is the smallest share of a segment's transcript's letters that
// the CTC head must have heard in the segment for the transcript to stand:
// on music the attention decoder writes whole sentences around a few
// letters that the CTC head took from a note.
const minHeard = 0.15

// letters counts the letters of s, spaces left out.
func letters(s string) int {
	return len(s) - strings.Count(s, " ")
}

// tightMax is the longest recording, in seconds, that tight may decode: a
// single word cut tight around its sound (the FSDD digits run from 0.14 s)
// holds no quiet frame for its level to rise from, so voiced does not call
// it speech, and it is too short for the endpointer to open a segment.
const tightMax = 0.5

// tight transcribes a recording of at most tightMax seconds that neither
// voiced nor the endpointer calls speech, and keeps the transcript only
// when the CTC head's best path over it holds at least minHeardAlone of its
// letters and its loudest frame is above digital silence. Before, such a
// clip gave nothing: 6 of the 250 FSDD test digits as recorded (8 kHz; 7
// of the corpus's 16 kHz copies), of which 4 (6) come out right when let
// through (TestTight). Short music that is not musical can pass
// too: of 141 clips of 0.25-0.5 s (slices of the test music tracks of
// bench/music.py, white, pink and brown noise, sine tones), 4 more give a
// word than before (a digit, "it"); no noise burst or tone does.
func tight(ctx context.Context, a *align.Aligner, samples []float32, dec model.DecodeOptions, timed bool) (string, []align.Word, error) {
	if peakLevel(samples) <= -70 {
		return "", nil, nil
	}
	text, words, enc, err := a.TranscribeEncoded(ctx, samples, dec, timed)
	if err != nil || text == "" {
		return "", nil, err
	}
	if float64(letters(ctcBest(a.Model, samples, enc))) < minHeardAlone*float64(letters(text)) {
		return "", nil, nil
	}
	return text, words, nil
}

// voicedMax is the longest recording, in seconds, that Transcribe decodes
// on the strength of voiced alone, when the Endpointer found no speech in
// it: a clip cut tight around a word or two. A longer one keeps its
// transcript only when the CTC head's best path over the whole recording
// has at least minHeardAlone of its letters (read speech that the
// Endpointer missed: 0.4 to 0.6; music: 0.25 on median).
const (
	voicedMax     = 2.5
	minHeardAlone = 0.35
)

// ctcBest returns the CTC head's best path over samples (16 kHz mono),
// encoded whole; enc, when not nil, is that encoding, made already.
func ctcBest(b *model.Bundle, samples []float32, enc *model.Encoded) string {
	if enc == nil {
		feats, n := b.Features(samples)
		if n == 0 {
			return ""
		}
		enc = b.Net.EncodeCTC(feats, n)
	}
	frames := make([]frameInfo, enc.T)
	for t, tok := range model.CTCBest(enc) {
		frames[t] = frameInfo{tok: tok}
	}
	return ctcText(frames)
}

// wholeMax is the longest recording, in seconds, that Transcribe decodes
// in one piece (when it holds any speech at all); the model was trained on
// utterances of up to about 20 s.
const wholeMax = 25

// minVoicedDB is how far the loudest 10 ms of a short recording must rise
// above its quietest 10 ms (pre-emphasised, as the model hears it) for
// voiced to call it speech. Steady noise stays within a few dB.
const minVoicedDB = 20

// voiced reports whether samples (16 kHz) have the level dynamics of
// speech: at least minVoicedDB from the quietest to the loudest 10 ms
// frame, and a loudest frame above digital silence.
func voiced(samples []float32) bool {
	lo, hi := levelRange(samples)
	return hi > -70 && hi-lo >= minVoicedDB
}

// peakLevel returns the level (dB) of the loudest 10 ms frame of samples,
// pre-emphasised as voiced measures it.
func peakLevel(samples []float32) float64 {
	_, hi := levelRange(samples)
	return hi
}

// levelRange returns the levels (dB) of the quietest and the loudest 10 ms
// frame of samples (16 kHz), pre-emphasised as the model hears them.
func levelRange(samples []float32) (lo, hi float64) {
	const frame = Rate / 100
	lo, hi = math.Inf(1), math.Inf(-1)
	prev := float32(0)
	for i := 0; i+frame <= len(samples); i += frame {
		sum := 0.0
		for _, v := range samples[i : i+frame] {
			d := float64(v) - 0.97*float64(prev)
			sum += d * d
			prev = v
		}
		db := 10 * math.Log10(sum/frame+1e-12)
		lo, hi = math.Min(lo, db), math.Max(hi, db)
	}
	return lo, hi
}
