package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"time"

	"github.com/heed-asr/heed/align"
	"github.com/heed-asr/heed/audio"
	"github.com/heed-asr/heed/model"
	"github.com/heed-asr/heed/speech"
)

func init() {
	register(&command{
		Name:  "stream",
		Usage: "heed stream [--input wav|mp3|flac|s16le|f32le] [--rate HZ] [--channels N] [--format json|text] [--model FILE] < AUDIO",
		Short: "transcribe audio arriving on standard input, as it arrives",
		Long: `Stream reads audio from standard input while it arrives and prints JSON
lines as it hears speech. The input is WAV, whose header may give no
length, or MP3 or FLAC, told by their first bytes as for heed transcribe
and decoded a frame at a time as they arrive (curl -s URL | heed stream;
ffmpeg -i IN -f flac - | heed stream); --input mp3 or flac accepts only
that format, and --input mp3 also an MP3 stream joined in the middle of a
frame (an internet radio's), read from its next frame. Raw PCM needs
--input s16le or f32le, with --rate and --channels:

  {"type": "partial", "start": 1.23, "end": 2.10, "text": "..."}
  {"type": "final", "start": 1.23, "end": 3.45, "text": "...", "words": [...]}

Partial lines come at least every 300 ms of audio while someone speaks,
with what the model has heard of the utterance so far (its CTC head's best
guess); the final line closes the utterance with the full decoder's
transcript and its words, timed and scored as in heed transcribe --format
json. Times are seconds from the start of the stream. Every line is written
as soon as it is known. A final with an empty text withdraws partials of
what turned out not to be speech. With --format text only finals are
printed: "START<TAB>END<TAB>TEXT".

Speech is told from silence and noise by the model's own posteriors
(confident characters) and by the signal's dynamics, so a quiet or noisy
room yields no lines. An utterance ends at a pause in speech of at
least --min-pause, or after --max-segment of speech without one, which
bounds both the latency and the memory used. The end of the input, Ctrl-C
(SIGINT) and SIGTERM close the open utterance with a final line and exit 0.
A read error or MP3 or FLAC data that cannot be decoded closes it too, then
exits 1 with the error ("heed: -: corrupt FLAC data after ...").`,
		Flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			input := fs.String("input", "wav", "input format: wav (which reads MP3 and FLAC too, told by their first bytes), mp3, flac, s16le or f32le")
			rate := fs.Int("rate", 16000, "sample rate of raw input, Hz")
			channels := fs.Int("channels", 1, "channels of raw input (averaged to mono)")
			modelPath := fs.String("model", "", "model file (default: the embedded English model)")
			format := fs.String("format", "json", "output format: json (partials and finals) or text (finals)")
			opt := speech.StreamOptions()
			fs.DurationVar(&opt.MaxSegment, "max-segment", opt.MaxSegment, "longest utterance before a forced cut")
			fs.DurationVar(&opt.MinPause, "min-pause", opt.MinPause, "shortest pause that ends an utterance")
			dec := model.DefaultDecodeOptions()
			// Half of transcribe's beam: a final then costs about 0.14 s of
			// one core for a 3.4 s sentence instead of 0.29 s, which keeps
			// it within 500 ms of the end of speech, for 0.05 points of CER
			// (speech.BenchmarkDecode; README, model card).
			dec.Beam = 8
			fs.IntVar(&dec.Beam, "beam", dec.Beam, "beam width (1: greedy)")
			fs.Float64Var(&dec.ScoreBeam, "score-beam", dec.ScoreBeam, "drop hypotheses scoring more than this (log-probability) below the best of their step (0: keep the --beam best, the exact search)")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) > 0 {
					return usagef("stream reads standard input; unexpected argument %q", args[0])
				}
				switch *input {
				case "wav", "mp3", "flac", "s16le", "f32le":
				default:
					return usagef("unknown --input %q (want wav, mp3, flac, s16le or f32le)", *input)
				}
				if *format != "json" && *format != "text" {
					return usagef("unknown --format %q (want json or text)", *format)
				}
				if opt.MaxSegment < time.Second || opt.MinPause < 50*time.Millisecond || opt.MinPause >= opt.MaxSegment {
					return usagef("--max-segment must be at least 1s and --min-pause between 50ms and --max-segment")
				}
				if err := checkDecodeFlags(dec); err != nil {
					return err
				}
				if *channels < 1 || *channels > audio.MaxChannels || *rate < audio.MinRate || *rate > audio.MaxRate {
					return usagef("--channels must be in [1, %d] and --rate in [%d, %d]", audio.MaxChannels, audio.MinRate, audio.MaxRate)
				}
				b, err := loadModel(*modelPath, dec.LMWeight != 0)
				if err != nil {
					return err
				}
				s, err := audio.NewStream(e.Stdin, "-", audio.StreamOptions{Format: *input, Rate: *rate, Channels: *channels})
				if err != nil {
					return err
				}
				// A stream runs for long: its encoder windows and finals
				// are encoded with bfloat16 products (model.Net.EncodeBF16),
				// the weights packed once at the start.
				opt.BF16, dec.BF16 = true, true
				return runStream(ctx, e, b, s, opt, dec, *format == "text")
			}
		},
	})
}

// streamLine is one line of heed stream's output: a partial result (no
// words) or the final one of an utterance.
type streamLine struct {
	Type  string       `json:"type"` // "partial" or "final"
	Start float64      `json:"start"`
	End   float64      `json:"end"`
	Text  string       `json:"text"`
	Words []align.Word `json:"words,omitempty"`
}

// decoding is a final decoded in the background.
type decoding struct {
	start, end int64
	done       chan struct{}
	r          speech.Result
	err        error
}

func decodeAsync(a *align.Aligner, seg speech.Segment, dec model.DecodeOptions) *decoding {
	d := &decoding{start: seg.Start, end: seg.End, done: make(chan struct{})}
	go func() {
		defer close(d.done)
		d.r, d.err = speech.Decode(a, seg, dec, true)
	}()
	return d
}

// runStream reads s in a goroutine, so that a signal is seen while standard
// input is idle, and prints partials and finals as the Endpointer finds
// them. A final is decoded ahead, in the background, from the moment the
// pause that may end its utterance has begun (Endpointer.Pending); when the
// pause goes on to --min-pause, that decoding is the final.
func runStream(ctx context.Context, e *env, b *model.Bundle, s *audio.Stream, opt speech.Options, dec model.DecodeOptions, text bool) error {
	// A stream may run for hours: collect garbage when the heap has grown
	// by a quarter over what is live (mostly the model and its language
	// model, about 100 MB) rather than doubled, so the resident set stays
	// flat and under 200 MB. The live data hold few pointers; a collection
	// is cheap.
	defer debug.SetGCPercent(debug.SetGCPercent(25))
	type chunk struct {
		x   []float32
		err error
	}
	chunks := make(chan chunk, 4)
	go func() {
		for {
			buf := make([]float32, 1600) // 100 ms at 16 kHz
			n, err := s.Read(buf)
			if n > 0 || err != nil {
				select {
				case chunks <- chunk{buf[:n], err}:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	a := align.NewAligner(b)
	ep := speech.NewEndpointer(b, opt)
	enc := json.NewEncoder(e.Stdout)
	var ahead *decoding
	told := false // a partial of the open utterance was printed
	emit := func(evs []speech.Event) error {
		for _, ev := range evs {
			start, end := ev.Seconds()
			line := streamLine{Type: "partial", Start: round3(start), End: round3(end), Text: ev.Text}
			if ev.Final {
				line.Type, line.Text = "final", ""
				if !ev.Rejected {
					d := ahead
					if d == nil || d.start != ev.Start || d.end != ev.End {
						d = decodeAsync(a, ev.Segment, dec)
					}
					<-d.done
					if d.err != nil {
						return d.err
					}
					r := align.Result{Duration: end, Words: d.r.Words}
					r = r.Rounded()
					line.Text, line.Words = d.r.Text, r.Words
				}
				wasTold := told
				told = false
				if line.Text == "" && (text || !wasTold) {
					continue // nothing was said, and no partial needs closing
				}
			} else {
				told = true
			}
			if text {
				if ev.Final {
					fmt.Fprintf(e.Stdout, "%.3f\t%.3f\t%s\n", line.Start, line.End, line.Text)
				}
				continue
			}
			if err := enc.Encode(line); err != nil {
				return err
			}
		}
		if seg, ok := ep.Pending(); ok && (ahead == nil || ahead.start != seg.Start || ahead.end != seg.End) {
			ahead = decodeAsync(a, seg, dec)
		}
		return nil
	}
	for {
		select {
		case <-ctx.Done():
			return emit(ep.Flush())
		case c := <-chunks:
			if err := emit(ep.Push(c.x)); err != nil {
				return err
			}
			if c.err == nil {
				continue
			}
			for _, w := range s.Warnings() {
				fmt.Fprintf(e.Stderr, "heed: warning: %s\n", w)
			}
			if err := emit(ep.Flush()); err != nil || errors.Is(c.err, io.EOF) {
				return err
			}
			return c.err
		}
	}
}

// round3 rounds seconds to milliseconds.
func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
