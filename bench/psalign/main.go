// Command psalign measures pocketsphinx as a forced aligner on heed's
// evaluation manifests, so that its word boundaries can be set beside those
// of "heed eval align".
//
// Usage:
//
//	go run ./bench/psalign [-jobs 2] [-limit N] [-json] [-v] MANIFEST...
//
// Each utterance of a manifest (JSON Lines, see package corpus) that has
// gold word times is aligned by pocketsphinx_continuous (Debian packages
// pocketsphinx and pocketsphinx-en-us, 0.8+5prealpha) with a JSGF grammar
// holding exactly its transcript, one process per utterance, -jobs at a
// time. The audio is decoded by heed's audio package, resampled to 16 kHz
// mono and handed over as raw 16-bit PCM. The search beams default to
// 1e-300, which with a one-sentence grammar is in effect an unpruned
// Viterbi alignment: pocketsphinx's own defaults (-beam 0) fail on about a
// third of the espeak utterances, and the wide beam aligns the same ones
// that default beams plus a wide retry (-retry-beam) do, in less time.
//
// The word-boundary errors (start and end of every word, absolute) are
// summarized per source with align.BoundaryErrors and align.Summarize and
// printed in the columns of "heed eval align", plus the number of
// utterances pocketsphinx could not align ("failed": words missing from its
// dictionary, counted as "oov", or no complete alignment).
// Failed utterances are left out of the statistics. Below the table comes
// the time taken: wall-clock seconds for the manifest and the real-time
// factor (wall time / seconds of audio given to pocketsphinx, model loading
// included, since every utterance starts a process).
//
// With -json, one JSON object per manifest and source is printed instead,
// with the fields of "heed eval align --json" plus "failed", "oov",
// "retried", "nonfinal" and the timing of the whole manifest (repeated on
// each of its rows): "jobs", "audio_s", "run_audio_s", "wall_s", "cpu_s"
// and "rtf".
//
// With -aligned FILE (one MANIFEST only), the utterances pocketsphinx
// aligned are written to FILE as a manifest, so that another aligner can be
// measured on the same utterances (bench/peers.sh does this for heed).
//
// Exit status: 0 on success, 1 on failure, 2 on a usage error.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/heed-asr/heed/align"
	"github.com/heed-asr/heed/audio"
	"github.com/heed-asr/heed/corpus"
	"github.com/heed-asr/heed/internal/par"
)

const (
	defaultModel = "/usr/share/pocketsphinx/model/en-us/en-us"
	defaultDict  = "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict"
)

// errUsage marks a usage error (exit status 2).
var errUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Stdout, os.Stderr, os.Args[1:])
	stop()
	switch {
	case errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errUsage):
		fmt.Fprintln(os.Stderr, "psalign:", err)
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "psalign:", err)
		os.Exit(1)
	}
}

// config holds the command-line options, each with its default.
type config struct {
	jobs      int           // utterances aligned in parallel
	limit     int           // utterances per manifest, 0 for all
	asJSON    bool          // JSON Lines instead of a table
	verbose   bool          // list failed utterances on stderr
	aligned   string        // manifest of the aligned utterances, "" for none
	bin       string        // pocketsphinx_continuous
	hmm       string        // acoustic model directory
	dict      string        // pronunciation dictionary
	beam      float64       // beam of the first try, 0 for pocketsphinx's defaults
	retryBeam float64       // beam of the second try, 0 for none
	timeout   time.Duration // per pocketsphinx run
}

// run parses args (without the program name), aligns every manifest and
// prints the report to stdout; -v lists failed utterances on stderr.
func run(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("psalign", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	fs.IntVar(&c.jobs, "jobs", 2, "utterances aligned in parallel")
	fs.IntVar(&c.limit, "limit", 0, "align at most this many utterances per manifest (0: all)")
	fs.BoolVar(&c.asJSON, "json", false, "print JSON Lines instead of a table")
	fs.BoolVar(&c.verbose, "v", false, "list the utterances that failed, with the reason, on stderr")
	fs.StringVar(&c.aligned, "aligned", "", "write the utterances pocketsphinx aligned to this manifest (one MANIFEST only)")
	fs.StringVar(&c.bin, "bin", "pocketsphinx_continuous", "pocketsphinx_continuous executable")
	fs.StringVar(&c.hmm, "hmm", defaultModel, "pocketsphinx acoustic model directory")
	fs.StringVar(&c.dict, "dict", defaultDict, "pocketsphinx pronunciation dictionary")
	fs.Float64Var(&c.beam, "beam", 1e-300, "beam (-beam, -pbeam, -wbeam) of the first try (0: pocketsphinx's defaults, 1e-48, 1e-48 and 7e-29)")
	fs.Float64Var(&c.retryBeam, "retry-beam", 0, "beam (-beam, -pbeam, -wbeam) for a second try when the first finds no alignment (0: no retry)")
	fs.DurationVar(&c.timeout, "timeout", time.Minute, "time limit of one pocketsphinx run (0: none)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: psalign [flags] MANIFEST...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	switch {
	case fs.NArg() == 0:
		return fmt.Errorf("%w: want at least one MANIFEST", errUsage)
	case c.jobs < 1:
		return fmt.Errorf("%w: -jobs must be at least 1", errUsage)
	case c.aligned != "" && fs.NArg() != 1:
		return fmt.Errorf("%w: -aligned wants exactly one MANIFEST", errUsage)
	case c.limit < 0:
		return fmt.Errorf("%w: -limit must not be negative", errUsage)
	case c.beam < 0 || c.beam >= 1 || c.retryBeam < 0 || c.retryBeam >= 1:
		return fmt.Errorf("%w: -beam and -retry-beam must lie in [0, 1)", errUsage)
	}

	p, cleanup, err := newPeer(c)
	if err != nil {
		return err
	}
	defer cleanup()
	var rows []row
	for _, path := range fs.Args() {
		utts, err := corpus.ReadManifest(path)
		if err != nil {
			return err
		}
		if c.limit > 0 && len(utts) > c.limit {
			utts = utts[:c.limit]
		}
		ev, err := evaluate(ctx, p, path, utts, c.jobs)
		if err != nil {
			return err
		}
		if c.verbose {
			for _, f := range ev.fails {
				fmt.Fprintln(stderr, f)
			}
		}
		if c.aligned != "" {
			if err := corpus.WriteManifest(c.aligned, ev.aligned); err != nil {
				return err
			}
		}
		rows = append(rows, ev.rows...)
	}
	return printRows(stdout, rows, c.asJSON)
}

// newPeer checks that pocketsphinx and its model are there, reads the
// dictionary and makes the temporary directory that cleanup removes.
func newPeer(c config) (p *peer, cleanup func(), err error) {
	bin, err := exec.LookPath(c.bin)
	if err != nil {
		return nil, nil, fmt.Errorf("pocketsphinx (apt-get install pocketsphinx pocketsphinx-en-us): %w", err)
	}
	if st, err := os.Stat(c.hmm); err != nil || !st.IsDir() {
		return nil, nil, fmt.Errorf("acoustic model directory %s not found (apt-get install pocketsphinx-en-us)", c.hmm)
	}
	lex, err := readLexicon(c.dict)
	if err != nil {
		return nil, nil, err
	}
	tmp, err := os.MkdirTemp("", "psalign-")
	if err != nil {
		return nil, nil, fmt.Errorf("psalign: %w", err)
	}
	p = &peer{bin: bin, hmm: c.hmm, dict: c.dict, lex: lex, beam: c.beam, retryBeam: c.retryBeam, timeout: c.timeout, tmp: tmp}
	return p, func() { os.RemoveAll(tmp) }, nil
}

// row is one line of the report: a manifest and a source ("all" for the
// whole manifest when it holds several).
type row struct {
	Manifest string `json:"manifest"`
	Source   string `json:"source"`
	Utts     int    `json:"utts"`     // utterances aligned and scored
	Failed   int    `json:"failed"`   // utterances pocketsphinx could not align, OOV included
	OOV      int    `json:"oov"`      // of Failed: words missing from the dictionary
	Retried  int    `json:"retried"`  // of Utts and Failed: the retry beam was tried
	Nonfinal int    `json:"nonfinal"` // of Utts: aligned, but the final grammar state was not reached
	// Boundaries summarizes the boundary errors in seconds; nil when no
	// utterance of the source was aligned.
	Boundaries *align.BoundaryStats `json:"boundaries,omitempty"`

	// Timing of the whole manifest, the same on each of its rows.
	Jobs        int     `json:"jobs"`        // pocketsphinx processes at a time
	AudioSec    float64 `json:"audio_s"`     // seconds of audio of all utterances with gold times
	RunAudioSec float64 `json:"run_audio_s"` // seconds of audio given to pocketsphinx (OOV ones are not)
	WallSec     float64 `json:"wall_s"`      // wall-clock seconds for the manifest
	CPUSec      float64 `json:"cpu_s"`       // user+system seconds of the pocketsphinx processes
	RTF         float64 `json:"rtf"`         // WallSec / RunAudioSec
}

// evaluation is what evaluate found for one manifest.
type evaluation struct {
	rows    []row              // one per source, "all" first
	fails   []string           // one line per failed utterance: path, kind, detail
	aligned []corpus.Utterance // the utterances pocketsphinx aligned, in manifest order
}

// evaluate aligns utts (from the manifest at path) on jobs goroutines.
// Utterances without gold word times are skipped.
func evaluate(ctx context.Context, p *peer, path string, utts []corpus.Utterance, jobs int) (evaluation, error) {
	res := make([]uttResult, len(utts))
	durs := make([]float64, len(utts))
	start := time.Now()
	err := par.ForEach(ctx, len(utts), jobs, func(i int) error {
		u := utts[i]
		if len(u.Words) == 0 {
			return nil
		}
		clip, err := audio.Load16k(u.Audio)
		if err != nil {
			return err
		}
		durs[i] = float64(len(clip.Samples)) / float64(clip.Rate)
		r, err := p.align(ctx, strconv.Itoa(i), clip.Samples, strings.Fields(u.Text))
		if err != nil {
			return fmt.Errorf("%s: %w", u.Audio, err)
		}
		if r.words != nil && len(r.words) != len(u.Words) {
			return fmt.Errorf("%s: %d gold words but the transcript has %d", u.Audio, len(u.Words), len(r.words))
		}
		res[i] = r
		return nil
	})
	if err != nil {
		return evaluation{}, err
	}
	wall := time.Since(start).Seconds()

	type acc struct {
		row
		errs []float64
	}
	by := map[string]*acc{}
	var ev evaluation
	var audioSec, runSec, cpuSec float64
	for i, u := range utts {
		if len(u.Words) == 0 {
			continue
		}
		r := res[i]
		audioSec += durs[i]
		if r.ran {
			runSec += durs[i]
		}
		cpuSec += r.cpu.Seconds()
		var errs []float64
		if r.words != nil {
			gold := make([]align.Word, len(u.Words))
			for j, w := range u.Words {
				gold[j] = align.Word{Word: w.Word, Start: w.Start, End: w.End}
			}
			errs = align.BoundaryErrors(gold, r.words)
			ev.aligned = append(ev.aligned, u)
		} else {
			ev.fails = append(ev.fails, fmt.Sprintf("%s: %s: %s", u.Audio, r.fail, r.detail))
		}
		for _, k := range []string{"all", u.Source} {
			a := by[k]
			if a == nil {
				a = &acc{}
				by[k] = a
			}
			if r.words != nil {
				a.Utts++
				a.errs = append(a.errs, errs...)
			} else {
				a.Failed++
			}
			if r.fail == failOOV {
				a.OOV++
			}
			if r.retried {
				a.Retried++
			}
			if r.nonfinal {
				a.Nonfinal++
			}
		}
	}
	if len(by) == 0 {
		return evaluation{}, fmt.Errorf("%s: no utterance has gold word times", path)
	}
	for _, src := range align.ReportSources(by) {
		a := by[src]
		r := a.row
		r.Manifest, r.Source = path, src
		if len(a.errs) > 0 {
			st := align.Summarize(a.errs)
			r.Boundaries = &st
		}
		r.Jobs, r.AudioSec, r.RunAudioSec, r.WallSec, r.CPUSec = jobs, audioSec, runSec, wall, cpuSec
		if runSec > 0 {
			r.RTF = wall / runSec
		}
		ev.rows = append(ev.rows, r)
	}
	return ev, nil
}

// printRows writes rows as JSON Lines or as a table in the columns of
// "heed eval align" plus "failed", followed by one timing line per
// manifest.
func printRows(w io.Writer, rows []row, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		for _, r := range rows {
			if err := enc.Encode(r); err != nil {
				return fmt.Errorf("psalign: %w", err)
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "manifest\tsource\tutts\tboundaries\tmean ms\tmedian ms\tp90 ms\t<=20ms %%\t<=50ms %%\t<=100ms %%\tfailed\t\n")
	for _, r := range rows {
		s := r.Boundaries
		if s == nil {
			fmt.Fprintf(tw, "%s\t%s\t%d\t0\t-\t-\t-\t-\t-\t-\t%d\t\n", r.Manifest, r.Source, r.Utts, r.Failed)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%d\t\n", r.Manifest, r.Source, r.Utts, s.N,
			1000*s.Mean, 1000*s.Median, 1000*s.P90, 100*s.Within20, 100*s.Within50, 100*s.Within100, r.Failed)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("psalign: %w", err)
	}
	seen := map[string]bool{}
	for _, r := range rows {
		if seen[r.Manifest] {
			continue
		}
		seen[r.Manifest] = true
		_, err := fmt.Fprintf(w, "%s: pocketsphinx, %d jobs: %.1f s of audio in %.1f s wall, RTF %.3f (CPU %.1f s, %.3f x real time); failed %d (OOV %d), retried %d, final state not reached %d\n",
			r.Manifest, r.Jobs, r.RunAudioSec, r.WallSec, r.RTF, r.CPUSec, r.CPUSec/max(r.RunAudioSec, 1e-9), r.Failed, r.OOV, r.Retried, r.Nonfinal)
		if err != nil {
			return fmt.Errorf("psalign: %w", err)
		}
	}
	return nil
}
