package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"runtime"
	"sync"

	"github.com/heed-asr/heed/align"
	"github.com/heed-asr/heed/model"
	"github.com/heed-asr/heed/model/english"
)

func init() {
	register(&command{
		Name:  "transcribe",
		Usage: "heed transcribe [--model FILE] [--format text|json] [--jobs N] [--beam N] AUDIO...",
		Short: "write the words spoken in audio files",
		Long: `Transcribe recognizes the speech in each AUDIO file (WAV of any common
encoding, rate and channel count, or - for standard input) and prints the
transcript: one line per file, "FILE<TAB>TEXT" when there are several files.

With --format json it prints JSON Lines instead, one object per file:
  {"file": "x.wav", "duration": 2.31, "text": "...", "words": [...]}
where file is the path as given on the command line.

Files are decoded in parallel on --jobs goroutines. A file that fails is
reported on stderr and the others still run; the exit status is then 1.
Without --model, heed uses its embedded English model.`,
		Flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			modelPath := fs.String("model", "", "model file (default: the embedded English model)")
			format := fs.String("format", "text", "output format: text or json")
			jobs := fs.Int("jobs", runtime.NumCPU(), "files decoded in parallel")
			dec := model.DefaultDecodeOptions()
			fs.IntVar(&dec.Beam, "beam", dec.Beam, "beam width (1: greedy)")
			fs.Float64Var(&dec.CTCWeight, "ctc-weight", dec.CTCWeight, "weight of the CTC prefix score in the beam (0: attention only)")
			fs.Float64Var(&dec.LengthBonus, "length-bonus", dec.LengthBonus, "score bonus per output character")
			fs.Float64Var(&dec.LMWeight, "lm-weight", dec.LMWeight, "weight of the model's character language model in the beam (negative: the model's tuned weight, 0: off)")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) == 0 {
					return usagef("no AUDIO file given")
				}
				if *format != "text" && *format != "json" {
					return usagef("unknown --format %q (want text or json)", *format)
				}
				if *jobs < 1 {
					return usagef("--jobs must be at least 1")
				}
				if dec.Beam < 1 || dec.CTCWeight < 0 || dec.CTCWeight > 1 {
					return usagef("--beam must be >= 1 and --ctc-weight in [0, 1]")
				}
				b, err := loadModel(*modelPath, dec.LMWeight != 0)
				if err != nil {
					return err
				}
				return runTranscribe(ctx, e, b, args, *format, *jobs, dec)
			}
		},
	})
}

// loadModel reads the model at path, or the embedded one when path is "",
// and, when lm is set, its language model (which only recognition needs).
func loadModel(path string, lm bool) (*model.Bundle, error) {
	var b *model.Bundle
	var err error
	name := path
	if path == "" {
		name = "embedded model"
		if b, err = english.Load(); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	} else if b, err = model.LoadFile(path); err != nil {
		return nil, err // LoadFile names the file
	}
	if lm {
		if _, err := b.LanguageModel(); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return b, nil
}

// transcript is one file's result for output.
type transcript struct {
	File     string       `json:"file"`
	Duration float64      `json:"duration"`
	Text     string       `json:"text"`
	Words    []align.Word `json:"words"` // as in heed align's JSON
}

func runTranscribe(ctx context.Context, e *env, b *model.Bundle, files []string, format string, jobs int, dec model.DecodeOptions) error {
	type result struct {
		t    transcript
		err  error
		done chan struct{}
	}
	results := make([]*result, len(files))
	for i := range results {
		results[i] = &result{done: make(chan struct{})}
	}
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(jobs, len(files)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				r := results[i]
				r.t, r.err = transcribeOne(e, b, files[i], dec, format == "json")
				close(r.done)
			}
		}()
	}
	go func() {
		defer close(work)
		for i := range files {
			select {
			case work <- i:
			case <-ctx.Done():
				for j := i; j < len(files); j++ {
					results[j].err = ctx.Err()
					close(results[j].done)
				}
				return
			}
		}
	}()
	failed := false
	enc := json.NewEncoder(e.Stdout)
	for i, r := range results {
		<-r.done
		if r.err != nil {
			fmt.Fprintf(e.Stderr, "heed: %v\n", r.err)
			failed = true
			continue
		}
		switch {
		case format == "json":
			enc.Encode(r.t)
		case len(files) > 1:
			fmt.Fprintf(e.Stdout, "%s\t%s\n", files[i], r.t.Text)
		default:
			fmt.Fprintln(e.Stdout, r.t.Text)
		}
	}
	wg.Wait()
	if failed {
		return errReported
	}
	return nil
}

func transcribeOne(e *env, b *model.Bundle, path string, dec model.DecodeOptions, timed bool) (transcript, error) {
	c, err := readAudio16k(e, path)
	if err != nil {
		return transcript{}, err
	}
	text, words, err := align.NewAligner(b).Transcribe(c.Samples, dec, timed)
	if err != nil {
		return transcript{}, fmt.Errorf("%s: %w", path, err)
	}
	r := align.Result{File: path, Duration: float64(len(c.Samples)) / float64(c.Rate), Words: words}
	r = r.Rounded() // no words (untimed) become an empty list
	return transcript{File: path, Duration: r.Duration, Text: text, Words: r.Words}, nil
}
