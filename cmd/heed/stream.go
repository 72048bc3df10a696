package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/heed-asr/heed/align"
	"github.com/heed-asr/heed/audio"
	"github.com/heed-asr/heed/model"
)

func init() {
	register(&command{
		Name:  "stream",
		Usage: "heed stream [--input wav|s16le|f32le] [--rate HZ] [--channels N] [--model FILE] < AUDIO",
		Short: "transcribe audio arriving on standard input, as it arrives",
		Long: `Stream reads audio from standard input while it arrives (a WAV stream, whose
header may give no length, or raw PCM with --input s16le or f32le at --rate
and --channels) and prints one JSON line per utterance as soon as it ends:

  {"start": 1.23, "end": 3.45, "text": "...", "words": [...]}

with times in seconds from the start of the stream and words as in heed
transcribe --format json. An utterance ends at a pause of at least
--min-pause, or after --max-segment of speech without one, which bounds both
the latency and the memory used. Ctrl-C or the end of the input flushes what
is left.`,
		Flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			input := fs.String("input", "wav", "input encoding: wav, s16le or f32le")
			rate := fs.Int("rate", 16000, "sample rate of raw input, Hz")
			channels := fs.Int("channels", 1, "channels of raw input (averaged to mono)")
			modelPath := fs.String("model", "", "model file (default: the embedded English model)")
			maxSeg := fs.Duration("max-segment", 15*time.Second, "longest utterance before a forced cut")
			minPause := fs.Duration("min-pause", 300*time.Millisecond, "shortest pause that ends an utterance")
			dec := model.DefaultDecodeOptions()
			fs.IntVar(&dec.Beam, "beam", dec.Beam, "beam width (1: greedy)")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) > 0 {
					return usagef("stream reads standard input; unexpected argument %q", args[0])
				}
				switch *input {
				case "wav", "s16le", "f32le":
				default:
					return usagef("unknown --input %q (want wav, s16le or f32le)", *input)
				}
				if *maxSeg < time.Second || *minPause < 50*time.Millisecond || *minPause >= *maxSeg {
					return usagef("--max-segment must be at least 1s and --min-pause between 50ms and --max-segment")
				}
				if dec.Beam < 1 {
					return usagef("--beam must be at least 1")
				}
				b, err := loadModel(*modelPath, dec.LMWeight != 0)
				if err != nil {
					return err
				}
				s, err := audio.NewStream(e.Stdin, "-", audio.StreamOptions{Format: *input, Rate: *rate, Channels: *channels})
				if err != nil {
					return err
				}
				const hz = 16000
				seg := &align.Segmenter{Rate: hz, MaxSeg: int(maxSeg.Seconds() * hz), MinPause: int(minPause.Seconds() * hz)}
				return runStream(ctx, e, b, s, seg, dec)
			}
		},
	})
}

// streamLine is one utterance of heed stream's output.
type streamLine struct {
	Start float64      `json:"start"`
	End   float64      `json:"end"`
	Text  string       `json:"text"`
	Words []align.Word `json:"words"`
}

func runStream(ctx context.Context, e *env, b *model.Bundle, s *audio.Stream, seg *align.Segmenter, dec model.DecodeOptions) error {
	a := align.NewAligner(b)
	enc := json.NewEncoder(e.Stdout)
	emit := func(segs []align.Segment) error {
		for _, g := range segs {
			text, words, err := a.Transcribe(g.Samples, dec, true)
			if err != nil {
				return err
			}
			if text == "" {
				continue
			}
			off := float64(g.Start) / 16000
			r := align.Result{
				Duration: off + float64(len(g.Samples))/16000,
				Words:    align.Stitch([]float64{off}, [][]align.Word{words}),
			}
			r = r.Rounded()
			line := streamLine{Start: math.Round(off*1000) / 1000, End: r.Duration, Text: text, Words: r.Words}
			if err := enc.Encode(line); err != nil {
				return err
			}
		}
		return nil
	}
	buf := make([]float32, 1600) // 100 ms at 16 kHz
	for ctx.Err() == nil {
		n, err := s.Read(buf)
		if n > 0 {
			if err := emit(seg.Push(buf[:n])); err != nil {
				return err
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
	}
	for _, w := range s.Warnings() {
		fmt.Fprintf(e.Stderr, "heed: warning: %s\n", w)
	}
	return emit(seg.Flush())
}
