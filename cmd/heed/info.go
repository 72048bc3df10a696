package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"strconv"

	"github.com/heed-asr/heed/audio"
	"github.com/heed-asr/heed/features"
)

func init() {
	register(&command{
		Name:  "info",
		Usage: "heed info AUDIO...",
		Short: "describe audio files (container, encoding, rate, channels, duration)",
		Long: `Info reads each AUDIO file (a WAV, MP3 or FLAC file, or - for standard
input) and prints its container, sample encoding, sample rate, channel
count and duration.`,
		Flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			return runInfo
		},
	})
	register(&command{
		Name:  "features",
		Usage: "heed features [--format tsv|text] AUDIO",
		Short: "print the 80-dim log-mel filterbank features of an audio file",
		Long: `Features decodes AUDIO (a WAV, MP3 or FLAC file, or - for standard
input), resamples it to 16 kHz mono and prints its Kaldi-compatible log-mel
filterbank: one line per 10 ms frame, 80 numbers per line. Lines starting
with # are comments.`,
		Flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			format := fs.String("format", "tsv", "number separator: tsv (tabs) or text (spaces)")
			return func(ctx context.Context, e *env, args []string) error {
				return runFeatures(e, args, *format)
			}
		},
	})
}

// readAudio decodes the file at path, or standard input when path is "-".
func readAudio(e *env, path string) (*audio.Clip, error) {
	if path == "-" {
		return audio.Decode(e.Stdin, "-")
	}
	return audio.ReadFile(path)
}

// readAudio16k decodes path and resamples it to 16 kHz mono, printing any
// decoder warnings to stderr.
func readAudio16k(e *env, path string) (*audio.Clip, error) {
	c, err := readAudio(e, path)
	if err != nil {
		return nil, err
	}
	for _, w := range c.Warnings {
		fmt.Fprintf(e.Stderr, "heed: warning: %s\n", w)
	}
	if c.Rate != 16000 {
		c.Samples = audio.Resample(c.Samples, c.Rate, 16000)
		c.Rate = 16000
	}
	return c, nil
}

func runInfo(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 {
		return usagef("no AUDIO file given")
	}
	failed := false
	for _, path := range args {
		c, err := readAudio(e, path)
		if err != nil {
			fmt.Fprintf(e.Stderr, "heed: %v\n", err)
			failed = true
			continue
		}
		for _, w := range c.Warnings {
			fmt.Fprintf(e.Stderr, "heed: warning: %s\n", w)
		}
		in := c.Info
		frames := int64(len(c.Samples))
		fmt.Fprintf(e.Stdout, "%s: container=%s encoding=%s bits=%d rate=%d channels=%d frames=%d duration=%.3fs\n",
			path, in.Container, in.Encoding, in.BitsPerSample, in.SampleRate, in.Channels,
			frames, float64(frames)/float64(c.Rate))
	}
	if failed {
		return errReported
	}
	return nil
}

func runFeatures(e *env, args []string, format string) error {
	sep := byte('\t')
	switch format {
	case "tsv":
	case "text":
		sep = ' '
	default:
		return usagef("unknown --format %q (want tsv or text)", format)
	}
	if len(args) != 1 {
		return usagef("want exactly one AUDIO file, got %d", len(args))
	}
	c, err := readAudio16k(e, args[0])
	if err != nil {
		return err
	}
	cfg := features.DefaultConfig()
	feats, frames := features.NewFbank(cfg).Compute(nil, c.Samples)
	w := bufio.NewWriter(e.Stdout)
	fmt.Fprintf(w, "# heed features: %s: %d frames x %d log-mel bins, 10 ms shift, 25 ms window, Kaldi fbank definition\n", args[0], frames, cfg.NumMel)
	buf := make([]byte, 0, 16)
	for t := 0; t < frames; t++ {
		row := feats[t*cfg.NumMel : (t+1)*cfg.NumMel]
		for j, v := range row {
			if j > 0 {
				w.WriteByte(sep)
			}
			buf = strconv.AppendFloat(buf[:0], float64(v), 'f', 5, 32)
			w.Write(buf)
		}
		w.WriteByte('\n')
	}
	return w.Flush()
}
