package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/heed-asr/heed/align"
	"github.com/heed-asr/heed/model"
	"github.com/heed-asr/heed/model/english"
	"github.com/heed-asr/heed/speech"
)

func init() {
	register(&command{
		Name:  "transcribe",
		Usage: "heed transcribe [--model FILE] [--format F] [--jobs N] [--beam N] [-o DIR [--force]] [--list FILE] [--shard K/N] AUDIO|DIR...",
		Short: "write the words spoken in audio files",
		Long: `Transcribe recognizes the speech in each AUDIO file (WAV of any common
encoding, rate and channel count, MP3 or FLAC, or - for standard input)
and prints the transcript: one line per file, "FILE<TAB>TEXT" when there
are several files.

With --format json it prints JSON Lines instead, one object per file:
  {"file": "x.wav", "duration": 2.31, "text": "...", "words": [...]}
where file is the path as given on the command line.

Inputs: files (WAV, MP3 or FLAC, told by their first bytes); directories,
walked for .wav, .mp3 and .flac files (hidden ones left out) in lexical order; and with --list FILE the paths in FILE, one a line (blank
lines ignored, relative to the working directory; - reads the list from
standard input), after those on the command line. --shard K/N keeps every
Nth input starting from the Kth (K counts from 0) in that order, so N
machines or jobs, each given its own K, share a batch with no coordinator.

With -o DIR each input gets its own file in DIR, named after it (talk.wav
becomes DIR/talk.json, DIR/talk.txt, DIR/talk.srt, ... by format), and
nothing is printed on standard output. Inputs from different directories
keep their paths below the deepest directory that holds them all
(a/talk.wav and b/talk.wav become DIR/a/talk.json and DIR/b/talk.json).
Every file is written atomically (a hidden temporary file in the same
directory, synced, then renamed), so a crash, Ctrl-C or kill -9 never
leaves a partial one, and an input whose output already exists is skipped
unless --force is given: running the same command again resumes a batch.

Formats (--format):
  text      the words
  json      {"file", "duration", "text", "words"}, the words as in heed align
  srt, vtt  captions from the recognized, timed words (as heed align)
  ctm, textgrid, tsv, audacity
            as heed align, from the recognized words
Without -o, srt, vtt, textgrid, tsv and audacity take a single input.

Files are decoded in parallel on --jobs goroutines, one file each. A file
that fails is reported on stderr and the others still run; the exit status
is then 1. When there are several inputs or -o is given, a summary line
ends the run on stderr; when stderr is a terminal a status line shows files
and hours of audio done, speed and the time left. Ctrl-C or SIGTERM stops
within a second: results already printed or written stay whole, one line
on stderr says how many inputs were not transcribed, and the exit status
is 1.
Without --model, heed uses its embedded English model.`,
		Flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			modelPath := fs.String("model", "", "model file (default: the embedded English model)")
			format := fs.String("format", "text", "output format: "+strings.Join(transcribeFormats(), ", "))
			jobs := fs.Int("jobs", runtime.NumCPU(), "files decoded in parallel")
			outDir := fs.String("o", "", "write one file per input into this directory instead of standard output")
			force := fs.Bool("force", false, "with -o, transcribe inputs whose output file exists (default: skip them)")
			list := fs.String("list", "", "also transcribe the paths listed in this file, one a line (- for standard input)")
			shard := fs.String("shard", "", "K/N: transcribe only every Nth input, starting from the Kth (from 0)")
			dec := model.DefaultDecodeOptions()
			fs.IntVar(&dec.Beam, "beam", dec.Beam, "beam width (1: greedy)")
			fs.Float64Var(&dec.CTCWeight, "ctc-weight", dec.CTCWeight, "weight of the CTC prefix score in the beam (0: attention only)")
			fs.Float64Var(&dec.LengthBonus, "length-bonus", dec.LengthBonus, "score bonus per output character")
			fs.Float64Var(&dec.LMWeight, "lm-weight", dec.LMWeight, "weight of the model's character language model in the beam (negative: the model's tuned weight, 0: off)")
			fs.Float64Var(&dec.ScoreBeam, "score-beam", dec.ScoreBeam, "drop hypotheses scoring more than this (log-probability) below the best of their step (0: keep the --beam best, the exact search)")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) == 0 && *list == "" {
					return usagef("no AUDIO file given")
				}
				if !slices.Contains(transcribeFormats(), *format) {
					return usagef("unknown --format %q (want one of %s)", *format, strings.Join(transcribeFormats(), ", "))
				}
				if *jobs < 1 {
					return usagef("--jobs must be at least 1")
				}
				if err := checkDecodeFlags(dec); err != nil {
					return err
				}
				if *force && *outDir == "" {
					return usagef("--force needs -o DIR")
				}
				if *list == "-" && slices.Contains(args, "-") {
					return usagef("the list and an AUDIO file cannot both be standard input")
				}
				k, n := 0, 1
				if *shard != "" {
					var err error
					if k, n, err = parseShard(*shard); err != nil {
						return usagef("%v", err)
					}
				}
				ins, err := gatherInputs(e, args, *list)
				if err != nil {
					return err
				}
				if *outDir != "" {
					if err := nameOutputs(ins, *outDir, outputExt(*format)); err != nil {
						return err
					}
				}
				// Name files in the output when there may be several.
				named := len(ins) > 1 || *list != "" || len(args) != 1 || len(ins) == 1 && ins[0].path != args[0]
				ins = shardOf(ins, k, n)
				if *outDir == "" && len(ins) > 1 && *format != "text" && *format != "json" && *format != "ctm" {
					return usagef("--format %s writes one file per input: give -o DIR for %d inputs", *format, len(ins))
				}
				b, err := loadModel(*modelPath, dec.LMWeight != 0)
				if err != nil {
					return err
				}
				bt := batch{format: *format, outDir: *outDir, force: *force, named: named, jobs: *jobs, dec: dec}
				return bt.run(ctx, e, b, ins)
			}
		},
	})
}

// transcribeFormats are the names --format takes: text, json (a
// transcript) and the heed align formats other than its own json.
func transcribeFormats() []string {
	names := []string{"text", "json"}
	for _, f := range align.FormatNames() {
		if f != "json" {
			names = append(names, f)
		}
	}
	return names
}

// outputExt is the extension of the files format writes under -o.
func outputExt(format string) string {
	switch format {
	case "text":
		return ".txt"
	case "json":
		return ".json"
	}
	return align.Formats[format].Ext
}

// loadModel reads the model at path, or the embedded one when path is "",
// and, when lm is set, its language model (which only recognition needs).
//
// It also asks for huge pages for the heap that follows (hugePages). For the
// embedded model that comes after loading it: its float32 parameters are
// then fresh memory, which the runtime hands out without clearing, so that
// the 23 MB of them that stay unread (the matrices the products read as
// binary16, model.LoadFile) cost nothing; on memory Heap has given back
// the runtime would clear them all, the largest single cost of a 3-s
// alignment in its profile. A model file's bytes are read into the huge
// pages, before the parameters. The collection hugePages makes is the
// only one until then.
func loadModel(path string, lm bool) (*model.Bundle, error) {
	var b *model.Bundle
	var err error
	name := path
	if path == "" {
		name = "embedded model"
		gc := debug.SetGCPercent(-1) // hugePages collects next
		b, err = english.Load()
		hugePages()
		debug.SetGCPercent(gc)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	} else {
		hugePages()
		if b, err = model.LoadFile(path); err != nil {
			return nil, openErr(path, err) // LoadFile names the file
		}
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

// batch is one run of heed transcribe over its inputs.
type batch struct {
	format  string
	outDir  string // "" for standard output
	force   bool
	named   bool // several inputs: name each file in text output, and sum up
	jobs    int
	segJobs int // segments of one file decoded in parallel
	dec     model.DecodeOptions
}

// run transcribes ins on bt.jobs goroutines. Results go to standard output
// in input order, or each to its own file under bt.outDir as soon as it is
// decoded. Failures are reported in input order; when any input failed (or
// the context ended before all were decoded) it returns errReported.
func (bt *batch) run(ctx context.Context, e *env, b *model.Bundle, ins []input) error {
	if bt.outDir != "" {
		if err := os.MkdirAll(bt.outDir, 0o755); err != nil {
			return err
		}
		removeStaleTemps(ins)
	}
	var todo []input
	var size []int64 // of each todo input, for the ETA
	var totalBytes int64
	skipped := 0
	for _, in := range ins {
		if in.out != "" && !bt.force && in.err == nil {
			if _, err := os.Stat(in.out); err == nil {
				skipped++
				continue
			}
		}
		var sz int64
		if fi, err := os.Stat(in.path); err == nil {
			sz = fi.Size()
		}
		todo = append(todo, in)
		size = append(size, sz)
		totalBytes += sz
	}
	prog := newProgress(e.Stderr, isTerminal(e.Stderr) && len(todo) > 0, len(todo), totalBytes)
	prog.skipped = skipped
	// Workers write their warnings through prog, below its status line.
	we := &env{Stdin: e.Stdin, Stdout: e.Stdout, Stderr: prog}

	type result struct {
		t    transcript
		err  error
		done chan struct{}
	}
	results := make([]*result, len(todo))
	for i := range results {
		results[i] = &result{done: make(chan struct{})}
	}
	workers := min(bt.jobs, len(todo))
	// Cores left over by fewer files than jobs decode a file's segments
	// of speech in parallel: one long file uses them all.
	bt.segJobs = max(1, bt.jobs/max(1, workers))
	// One core per file: the encoder's two directions share a goroutine
	// unless there are cores to spare for them.
	b.Net.SerialEncoder = bt.jobs < 2*workers
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				r := results[i]
				r.t, r.err = bt.one(ctx, we, b, todo[i])
				prog.Finished(size[i], r.t.Duration, r.err != nil)
				close(r.done)
			}
		}()
	}
	go func() {
		defer close(work)
		for i := range todo {
			select {
			case work <- i:
			case <-ctx.Done():
				for j := i; j < len(todo); j++ {
					results[j].err = ctx.Err()
					close(results[j].done)
				}
				return
			}
		}
	}()
	failed := false
	notDone := 0 // inputs not started, or stopped, because of an interrupt
	// After an interrupt the inputs in flight get stopGrace to stop (the
	// decoder looks at ctx every step, but an encoder or an alignment
	// under way finishes first); those that have not stopped by then are
	// abandoned, so that heed exits promptly however loaded the machine.
	// Outputs are written whole (one line at a time here, temporary file
	// and rename under --out-dir), so abandoning one leaves nothing half
	// written.
	var abandon <-chan time.Time
	abandoned := false
	enc := json.NewEncoder(e.Stdout)
	for i, r := range results {
		if abandoned {
			notDone++
			continue
		}
		select {
		case <-r.done:
		case <-ctx.Done():
			if abandon == nil {
				abandon = time.After(stopGrace)
			}
			select {
			case <-r.done:
			case <-abandon:
				abandoned, failed = true, true
				notDone++
				continue
			}
		}
		switch {
		case r.err != nil && ctx.Err() != nil && errors.Is(r.err, ctx.Err()):
			failed = true
			notDone++
		case r.err != nil:
			fmt.Fprintf(prog, "heed: %v\n", fileErr(todo[i].path, r.err))
			failed = true
		case bt.outDir != "":
		case bt.format == "json":
			enc.Encode(r.t)
		case bt.format != "text":
			if err := writeTranscript(e.Stdout, bt.format, &r.t); err != nil {
				fmt.Fprintf(prog, "heed: %s: %v\n", todo[i].path, err)
				failed = true
			}
		case bt.named:
			fmt.Fprintf(e.Stdout, "%s\t%s\n", todo[i].path, r.t.Text)
		default:
			fmt.Fprintln(e.Stdout, r.t.Text)
		}
		r.t = transcript{}
	}
	if !abandoned {
		wg.Wait()
	}
	prog.Close()
	if notDone > 0 {
		fmt.Fprintf(e.Stderr, "heed: interrupted: %d inputs not transcribed", notDone)
		if bt.outDir != "" {
			fmt.Fprintf(e.Stderr, " (the same command resumes)")
		}
		fmt.Fprintln(e.Stderr)
	}
	if bt.outDir != "" || bt.named {
		fmt.Fprintln(e.Stderr, prog.Summary())
	}
	if failed {
		return errReported
	}
	return nil
}

// removeStaleTemps removes the temporary files that a killed run left
// next to the outputs of ins (".NAME.tmp-*", see align.WriteAtomic). Only
// this batch's (or shard's) own outputs are concerned, so shards sharing a
// directory never remove each other's files in progress. Each directory is
// read once.
func removeStaleTemps(ins []input) {
	ours := make(map[string]map[string]bool) // directory -> output base names
	for _, in := range ins {
		if in.out == "" {
			continue
		}
		dir, base := filepath.Split(in.out)
		if ours[dir] == nil {
			ours[dir] = make(map[string]bool)
		}
		ours[dir][base] = true
	}
	for dir, bases := range ours {
		ents, _ := os.ReadDir(filepath.Clean(dir)) // a directory not made yet has none
		for _, e := range ents {
			name, ok := strings.CutPrefix(e.Name(), ".")
			if i := strings.LastIndex(name, ".tmp-"); ok && i > 0 && bases[name[:i]] {
				os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
}

// one transcribes in and, under -o, writes its output file.
func (bt *batch) one(ctx context.Context, e *env, b *model.Bundle, in input) (transcript, error) {
	if in.err != nil {
		return transcript{}, in.err
	}
	t, err := transcribeOne(ctx, e, b, in.path, bt.dec, bt.format != "text", bt.segJobs)
	if err != nil || in.out == "" {
		return t, err
	}
	if err := os.MkdirAll(filepath.Dir(in.out), 0o755); err != nil {
		return t, err
	}
	if err := align.WriteAtomic(in.out, func(w io.Writer) error { return writeTranscript(w, bt.format, &t) }); err != nil {
		return t, fmt.Errorf("%s: %w", in.path, err)
	}
	return t, nil
}

// writeTranscript writes t in format: its text as one line, its JSON line,
// or a heed align format of its words.
func writeTranscript(w io.Writer, format string, t *transcript) error {
	switch format {
	case "text":
		_, err := fmt.Fprintln(w, t.Text)
		return err
	case "json":
		return json.NewEncoder(w).Encode(t)
	}
	return align.Formats[format].Write(w, &align.Result{File: t.File, Duration: t.Duration, Words: t.Words})
}

// transcribeOne transcribes one file, decoding up to jobs of its segments
// of speech in parallel.
func transcribeOne(ctx context.Context, e *env, b *model.Bundle, path string, dec model.DecodeOptions, timed bool, jobs int) (transcript, error) {
	if err := ctx.Err(); err != nil {
		return transcript{}, err
	}
	c, err := readAudio16k(e, path)
	if err != nil {
		return transcript{}, err
	}
	text, words, err := speech.TranscribeContext(ctx, align.NewAligner(b), c.Samples, dec, timed, jobs)
	if err != nil {
		return transcript{}, fmt.Errorf("%s: %w", path, err)
	}
	r := align.Result{File: path, Duration: float64(len(c.Samples)) / float64(c.Rate), Words: words}
	r = r.Rounded() // no words (untimed) become an empty list
	return transcript{File: path, Duration: r.Duration, Text: text, Words: r.Words}, nil
}

// checkDecodeFlags checks the beam search flags (--beam, --ctc-weight,
// --length-bonus, --lm-weight, --score-beam) as a usage error.
func checkDecodeFlags(dec model.DecodeOptions) error {
	if dec.Beam < 1 {
		return usagef("--beam must be at least 1")
	}
	if err := dec.Validate(); err != nil {
		return usagef("bad --beam, --ctc-weight, --length-bonus, --lm-weight or --score-beam: %v", err)
	}
	return nil
}
