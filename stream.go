package heed

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/heed-asr/heed/align"
	"github.com/heed-asr/heed/audio"
	"github.com/heed-asr/heed/model"
)

// StreamOptions configures Stream. The zero value reads a WAV stream, ends
// utterances at pauses of 300 ms or after 15 s, and sends final results
// only, each with timed words.
type StreamOptions struct {
	// Input is "wav" (or ""), whose header may give no length (MP3 and
	// FLAC are read too, told by their first bytes), "mp3" or "flac"
	// (only that format), or raw interleaved PCM: "s16le" or "f32le" at
	// Rate Hz (0: 16000) with Channels channels (0: 1), averaged to mono.
	Input          string
	Rate, Channels int
	// MaxSegment is the longest utterance before a forced cut at its
	// quietest point (0: 15 s); MinPause the shortest pause that ends one
	// (0: 300 ms). MaxSegment bounds the latency and the memory.
	MaxSegment, MinPause time.Duration
	// Partial, when positive, asks for a partial result of the utterance
	// in progress after every Partial of new audio, decoded greedily (fast,
	// rougher); the final result of each utterance uses the full search.
	Partial time.Duration
	// Decode chooses the search for final results, as for Transcribe;
	// Words is implied.
	Decode TranscribeOptions
}

// StreamResult is one result of Stream. Times are seconds from the start of
// the stream.
type StreamResult struct {
	// Final is true for an utterance that ended: its text will not change.
	// A partial result (Final false) is the best guess so far for the
	// utterance in progress, which later results replace. A final result
	// with no text closes an utterance whose partial results turned out
	// to hold no words.
	Final      bool
	Start, End float64
	Text       string
	Words      []Word // timed words of a final result; nil for a partial one
}

// Stream reads audio from r as it arrives, cuts it into utterances at
// pauses and calls fn with the result of each, in order, as soon as it
// ends (and, with Partial, with partial results in between). It returns
// when r ends (after the last utterance), when fn returns an error (which
// it returns) or when ctx is done (checked between reads and utterances;
// a blocked Read holds it up). It is what heed stream does.
func (m *Model) Stream(ctx context.Context, r io.Reader, opt StreamOptions, fn func(StreamResult) error) error {
	err := m.stream(ctx, r, opt, fn)
	var cb callbackErr
	switch {
	case err == nil:
		return nil
	case errors.As(err, &cb):
		return cb.err
	}
	return &Error{Op: "stream", Err: err}
}

// callbackErr marks an error returned by Stream's callback, passed through
// as it is.
type callbackErr struct{ err error }

func (e callbackErr) Error() string { return e.err.Error() }

func (m *Model) stream(ctx context.Context, r io.Reader, opt StreamOptions, fn func(StreamResult) error) error {
	rate := opt.Rate
	if rate == 0 {
		rate = SampleRate
	}
	maxSeg, minPause := opt.MaxSegment, opt.MinPause
	if maxSeg <= 0 {
		maxSeg = 15 * time.Second
	}
	if minPause <= 0 {
		minPause = 300 * time.Millisecond
	}
	if maxSeg < time.Second || minPause >= maxSeg {
		return errors.New("MaxSegment must be at least 1s and longer than MinPause")
	}
	s, err := audio.NewStream(r, "stream", audio.StreamOptions{Format: opt.Input, Rate: rate, Channels: opt.Channels})
	if err != nil {
		return err
	}
	dec := opt.Decode.decode()
	if dec.LMWeight != 0 {
		if _, err := m.b.LanguageModel(); err != nil {
			return err
		}
	}
	a := m.aligner(ctx)
	seg := &align.Segmenter{Rate: SampleRate, MaxSeg: samplesOf(maxSeg), MinPause: samplesOf(minPause)}
	p := partials{every: samplesOf(opt.Partial), keep: samplesOf(maxSeg)}
	final := func(segs []align.Segment) error {
		for _, g := range segs {
			told := p.done(g.Start + int64(len(g.Samples)))
			if err := ctx.Err(); err != nil {
				return err
			}
			text, words, err := a.Transcribe(g.Samples, dec, true)
			if err != nil {
				return err
			}
			if text == "" && !told {
				continue
			}
			off := float64(g.Start) / SampleRate
			res := StreamResult{Final: true, Start: off, End: off + seconds(len(g.Samples)), Text: text,
				Words: align.Stitch([]float64{off}, [][]align.Word{words})}
			if err := fn(res); err != nil {
				return callbackErr{err}
			}
		}
		return nil
	}
	buf := make([]float32, SampleRate/10) // 100 ms
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, rerr := s.Read(buf)
		if n > 0 {
			p.push(buf[:n])
			if err := final(seg.Push(buf[:n])); err != nil {
				return err
			}
			if res, ok := p.due(m.b); ok {
				if err := fn(res); err != nil {
					return callbackErr{err}
				}
			}
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return rerr
		}
	}
	return final(seg.Flush())
}

func samplesOf(d time.Duration) int { return int(d.Seconds() * SampleRate) }

// partials keeps the audio of the utterance in progress (at most keep
// samples since the last final result) and says when a partial result is
// due: after every samples of new audio.
type partials struct {
	every, keep int
	buf         []float32 // audio since the last final result
	start       int64     // stream position of buf[0]
	pos         int64     // stream position after the last sample pushed
	since       int       // samples since the last partial result
	last        string    // text of the last partial result
}

func (p *partials) push(x []float32) {
	p.pos += int64(len(x))
	if p.every <= 0 {
		return
	}
	p.since += len(x)
	p.buf = append(p.buf, x...)
	if over := len(p.buf) - p.keep; over > 0 {
		p.buf = append(p.buf[:0], p.buf[over:]...)
		p.start += int64(over)
	}
}

// done drops the audio up to stream position end, which a final result
// covers, and reports whether a partial result was sent for it.
func (p *partials) done(end int64) (told bool) {
	told, p.last = p.last != "", ""
	if p.every <= 0 || end <= p.start {
		return told
	}
	n := min(int(end-p.start), len(p.buf))
	p.buf = append(p.buf[:0], p.buf[n:]...)
	p.start += int64(n)
	return told
}

// due decodes the audio in progress greedily when a partial result is due
// and its text is new.
func (p *partials) due(b *model.Bundle) (StreamResult, bool) {
	if p.every <= 0 || p.since < p.every {
		return StreamResult{}, false
	}
	p.since = 0
	text := b.Recognize(p.buf, model.DecodeOptions{Beam: 1}).Text
	if text == "" || text == p.last {
		return StreamResult{}, false
	}
	p.last = text
	off := float64(p.start) / SampleRate
	return StreamResult{Start: off, End: off + seconds(len(p.buf)), Text: text}, true
}
