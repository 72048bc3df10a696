package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime/debug"
	"strings"

	"github.com/heed-asr/heed/align"
	"github.com/heed-asr/heed/audio"
	"github.com/heed-asr/heed/internal/thp"
)

func init() {
	register(&command{
		Name:  "align",
		Usage: "heed align [--format F] [-o FILE] [--plot PNG] [--model FILE] AUDIO TRANSCRIPT",
		Short: "time every word of a transcript against its audio",
		Long: `Align places every whitespace-separated token of TRANSCRIPT (a text file, or
- for standard input) in AUDIO (a WAV, MP3 or FLAC file, or - for standard
input) and prints one entry per token, in order and spelled exactly as
given, with its start, end, confidence and status ("aligned": confidence 0.5 or more;
"uncertain" where a path placed it with confidence under 0.5; or
"interpolated" where the model could not place it and its times were
interpolated between its neighbours), and the times of its characters.
The confidence is calibrated on dev sets with gold times: under 0.5 says
the word is likely more than 100 ms off (README: "Word confidence"). When fewer than half of the
words could be aligned, a warning on standard error names the file and the
share placed (also in the JSON as "aligned_share"); another says so when no
word of the transcript has a letter the model spells (a-z and '). Audio
with no level contrast (digital silence, a steady tone) holds no speech:
every word placed in it gets confidence 0.

Ordinary written text is fine: numbers, currency, ordinals, years, times,
percentages and common abbreviations are read as spoken words for the
model and mapped back to the tokens you wrote. Where a token can be said in
more than one way ("2019": "twenty nineteen" or "two thousand nineteen";
"$42.50"; "St." saint or street), the audio chooses the reading aligned
(--variants=false: always the most common one), and the JSON gives it as
"spoken", as it does for every token not read as written. Long recordings
are split at silences and aligned piece by piece in bounded memory. Keep
the text's sentence ends (a period, ?, !, ; or :, or one sentence a line):
the aligner expects long pauses between sentences rather than inside
them, which keeps a sentence's first words out of the pause or music
before it.

Formats (--format):
  json      {"file", "duration", "words": [{"word", "spoken", "start", "end",
            "confidence", "status", "chars": [{"char", "start", "end"}]}],
            "aligned_share"}
  ctm       NIST CTM, one word a line (for sclite)
  textgrid  Praat long TextGrid with a words tier and a chars tier
  srt, vtt  captions of at most 42 characters and 7 seconds
  audacity  Audacity label track
  tsv       word, start, end, confidence, status
Times are in seconds. -o and --plot write their files atomically (temp file,
then rename): a new file gets the mode the umask gives, a replaced one keeps
its mode. --plot draws the first piece aligned; for audio split into pieces
(over 12 s) a note on stderr says which seconds it shows.

A transcript longer than the audio can hold (over 60 spoken characters a
second, plus 200) is refused. Ctrl-C or SIGTERM stops the alignment within
a second, exit status 1, and leaves -o and --plot files as they were.`,
		Flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			format := fs.String("format", "json", "output format: "+strings.Join(align.FormatNames(), ", "))
			out := fs.String("o", "", "write to this file instead of standard output")
			plot := fs.String("plot", "", "also draw the spectrogram, attention, path and words to this PNG")
			modelPath := fs.String("model", "", "model file (default: the embedded English model)")
			ctcWeight := fs.Float64("ctc-weight", 0.5, "weight of the CTC posteriors in the path score")
			variants := fs.Bool("variants", true, "let the audio choose among a token's readings (\"2019\": twenty nineteen, two thousand nineteen)")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) != 2 {
					return usagef("want AUDIO and TRANSCRIPT, got %d arguments", len(args))
				}
				if _, ok := align.Formats[*format]; !ok {
					return usagef("unknown --format %q (want one of %s)", *format, strings.Join(align.FormatNames(), ", "))
				}
				if args[0] == "-" && args[1] == "-" {
					return usagef("AUDIO and TRANSCRIPT cannot both be standard input")
				}
				if !(*ctcWeight >= 0 && *ctcWeight <= 1) {
					return usagef("--ctc-weight %g out of range [0, 1]", *ctcWeight)
				}
				b, err := loadModel(*modelPath, false)
				if err != nil {
					return err
				}
				text, err := readText(e, args[1])
				if err != nil {
					return err
				}
				samples, offHeap, err := readAudioStream(ctx, e, args[0])
				if err != nil {
					return err
				}
				a := align.NewAligner(b)
				// Keep the heap near what long audio needs (the samples, the
				// encodings kept and one piece's work), not twice that as the
				// GC would by default.
				heapSamples := int64(len(samples)) * 4
				if offHeap {
					heapSamples = 0
				}
				debug.SetMemoryLimit(heapSamples + a.KeptBytes(len(samples)) + 80<<20)
				a.CTCWeight = *ctcWeight
				a.Variants = *variants
				words, det, err := a.AlignContext(ctx, samples, text)
				if err != nil {
					return fmt.Errorf("%s: %w", args[1], err)
				}
				if err := ctx.Err(); err != nil {
					return fmt.Errorf("%s: %w", args[0], err)
				}
				res := &align.Result{File: args[0], Duration: float64(len(samples)) / 16000, Words: words}
				placed, spoken := align.AlignedShare(words)
				share := 1.0
				if spoken > 0 {
					share = float64(placed) / float64(spoken)
				}
				res.AlignedShare = &share
				if spoken == 0 && len(words) > 0 {
					fmt.Fprintf(e.Stderr, "heed: warning: %s: none of its %d words has a letter the model spells (a-z and '); all were interpolated, not aligned to %s\n",
						args[1], len(words), args[0])
				} else if share < minAlignedShare {
					fmt.Fprintf(e.Stderr, "heed: warning: %s: only %d of %d words (%.0f%%) could be placed in %s; the transcript may not match the audio, or the audio may hold no speech\n",
						args[1], placed, spoken, 100*share, args[0])
				}
				if *plot != "" {
					if det == nil {
						return fmt.Errorf("%s: nothing to plot (no audio frames)", args[0])
					}
					if err := align.Plot(*plot, det.Feats, det.Frames, b.Net.Cfg.NumMel, det.Att, det.L, det.T, a.Options.Path.Upsample, det.Spans, words); err != nil {
						return fileErr(*plot, err)
					}
					if drawn := float64(det.Frames) * align.FeatureFrameSec; det.Start > 0 || drawn+0.05 < res.Duration {
						fmt.Fprintf(e.Stderr, "heed: %s: note: the plot shows the first piece aligned, %.2f-%.2f s of %.2f s\n",
							*plot, det.Start, det.Start+drawn, res.Duration)
					}
				}
				if *out != "" {
					return fileErr(*out, align.WriteFile(*out, *format, res))
				}
				return align.Formats[*format].Write(e.Stdout, res)
			}
		},
	})
}

// minAlignedShare is the share of aligned words below which heed align
// warns that the transcript and the audio may not match.
const minAlignedShare = 0.5

// readText reads a whole transcript from path, or standard input for "-".
func readText(e *env, path string) (string, error) {
	var r io.Reader = e.Stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return "", openErr(path, err)
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, 64<<20))
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return string(b), nil
}

// hugeSamples is the length (4.4 minutes at 16 kHz) from which
// readAudioStream holds the samples apart from the Go heap, on huge pages
// (thp.Floats): an hour's 230 MB then cost about 110 page faults, not
// 56,000 and a clearing pass.
const hugeSamples = 4 << 20

// readAudioStream decodes path (or standard input for "-") chunk by chunk
// straight to 16 kHz mono, so that a long recording never exists in memory
// at its original rate and channel count. The bool says the samples are
// held apart from the Go heap (hugeSamples).
func readAudioStream(ctx context.Context, e *env, path string) ([]float32, bool, error) {
	var r io.Reader = e.Stdin
	// The header's frame count sizes the buffer only up to what the file
	// can hold (a WAV file a byte a frame at least, MP3 an eighth: 8
	// kbit/s at 8 kHz), or 10 minutes from a pipe: a header may lie.
	maxFrames, size := int64(10*60*audio.MaxRate), int64(-1)
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, false, openErr(path, err)
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
		r = f
	}
	s, err := audio.NewStream(bufio.NewReaderSize(r, 1<<16), path, audio.StreamOptions{})
	if err != nil {
		return nil, false, err
	}
	switch c := s.Info().Container; {
	case size >= 0 && (c == "mp3" || c == "flac"):
		maxFrames = 8 * size
	case size >= 0:
		maxFrames = size
	}
	var out []float32
	mapped := 0 // capacity of the thp.Floats buffer, if any
	if in := s.Info(); in.Frames > 0 && in.SampleRate > 0 {
		n := int(min(in.Frames, maxFrames)*16000/int64(in.SampleRate) + 16000)
		if n >= hugeSamples { // on huge pages, kept until the command ends
			out, mapped = thp.Floats(n)[:0], n
		} else {
			out = make([]float32, 0, n)
		}
	}
	buf := make([]float32, 1<<15)
	for {
		if err := ctx.Err(); err != nil {
			return nil, false, fmt.Errorf("%s: %w", path, err)
		}
		n, err := s.Read(buf)
		out = append(out, buf[:n]...)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, false, fileErr(path, err)
		}
	}
	for _, w := range s.Warnings() {
		fmt.Fprintf(e.Stderr, "heed: warning: %s\n", w)
	}
	// An append past a lying header's length moved the samples to the heap.
	return out, mapped > 0 && cap(out) == mapped, nil
}

// openErr is os.Open's error as "FILE: problem" (without "open FILE:").
func openErr(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", path, pe.Err)
	}
	return fileErr(path, err)
}
