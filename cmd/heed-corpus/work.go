package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/heed-asr/heed/audio"
	"github.com/heed-asr/heed/corpus"
)

// espeakSynth is what a worker needs from the espeak-ng synthesizer.
type espeakSynth interface {
	SampleRate() int
	Synthesize(text string, v corpus.EspeakVoice) ([]float32, []corpus.Word, error)
}

// result is one worker answer, a JSON line on the worker's stdout.
type result struct {
	ID   int                `json:"id"`
	Utts []corpus.Utterance `json:"utts,omitempty"` // the job's set; for dev also the dev_noisy copy
	Err  string             `json:"err,omitempty"`
}

// worker holds what one worker process needs to do jobs.
type worker struct {
	o      *options
	p      *plan
	es     espeakSynth
	rs     *audio.Resampler // espeak rate -> 16 kHz
	babble [][]float32      // 16 kHz babble sources
	tmp    string           // scratch directory for flite
	out    string           // absolute output directory
}

// runWorker does jobs k, k+n, k+2n, ... of the plan and writes one JSON
// result per job to stdout.
func runWorker(ctx context.Context, o *options, k, n int, stdout io.Writer) error {
	p, err := makePlan(o)
	if err != nil {
		return err
	}
	es, err := newEspeak()
	if err != nil {
		return err
	}
	out, err := filepath.Abs(o.out)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(out, ".tmp-worker-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	w := &worker{o: o, p: p, es: es, rs: audio.NewResampler(es.SampleRate(), rate), tmp: tmp, out: out}
	for _, b := range p.babble {
		x, _, err := w.espeak(b)
		if err != nil {
			return fmt.Errorf("babble source: %w", err)
		}
		w.babble = append(w.babble, x)
	}
	for _, c := range p.fsddTrain {
		w.babble = append(w.babble, c.Samples)
	}
	bw := bufio.NewWriter(stdout)
	enc := json.NewEncoder(bw)
	for i := k; i < len(p.jobs); i += n {
		if err := ctx.Err(); err != nil {
			return err
		}
		res := result{ID: i}
		utts, err := w.do(ctx, p.jobs[i])
		if err != nil {
			res.Err = err.Error()
		}
		res.Utts = utts
		if err := enc.Encode(&res); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// espeak synthesizes j's text in j's voice at 16 kHz.
func (w *worker) espeak(j job) ([]float32, []corpus.Word, error) {
	x, words, err := w.es.Synthesize(j.Text, j.Voice)
	if err != nil {
		return nil, nil, err
	}
	w.rs.Reset()
	y := w.rs.Process(nil, x)
	y = w.rs.Flush(y)
	return y, words, nil
}

// do produces the utterances of job j: its audio written to WAV files and
// the manifest entries.
func (w *worker) do(ctx context.Context, j job) ([]corpus.Utterance, error) {
	var (
		x       []float32
		words   []corpus.Word
		speaker string
		err     error
	)
	switch j.Source {
	case srcEspeak:
		x, words, err = w.espeak(j)
		speaker = j.Voice.String()
	case srcFlite:
		var r int
		x, r, err = corpus.FliteSynthesize(ctx, w.o.flite, j.Text, j.Flite, w.tmp)
		if err == nil {
			x = audio.Resample(x, r, rate)
		}
		speaker = j.Flite.String()
	case srcFSDD:
		clips := w.p.fsddTrain
		if j.Set != setTrain {
			clips = w.p.fsddTest
		}
		speaker = "fsdd-" + clips[j.Clips[0]].Speaker
		if j.Single {
			c := clips[j.Clips[0]]
			x = c.Samples
			words = []corpus.Word{{Word: j.Text, Start: roundSec(float64(c.Start) / rate), End: roundSec(float64(c.End) / rate)}}
		} else {
			parts := make([]corpus.FSDDClip, len(j.Clips))
			for i, ci := range j.Clips {
				parts[i] = clips[ci]
			}
			var text string
			x, text, words = corpus.Glue(parts, glueConfig(), rand.New(rand.NewPCG(j.Seed, 1)))
			if text != j.Text {
				return nil, fmt.Errorf("job %d: glued text %q, planned %q", j.ID, text, j.Text)
			}
		}
	default:
		return nil, fmt.Errorf("job %d: unknown source %q", j.ID, j.Source)
	}
	if err != nil {
		return nil, fmt.Errorf("job %d (%s %q): %w", j.ID, j.Source, j.Text, err)
	}
	base := corpus.Utterance{Text: j.Text, Source: j.Source, Speaker: speaker}
	var utts []corpus.Utterance
	emit := func(set string, y []float32, ws []corpus.Word, a corpus.AugSpec) error {
		u := base
		u.Audio = filepath.Join(w.out, "wav", set, fmt.Sprintf("%06d.wav", j.ID))
		u.Words = ws
		u.Duration = roundSec(float64(len(y)) / rate)
		u.Aug = a.String()
		if err := writeWAV(u.Audio, y); err != nil {
			return err
		}
		utts = append(utts, u)
		return nil
	}
	if j.Aug != (corpus.AugSpec{}) {
		y, ws, a, err := j.Aug.Apply(x, rate, words, w.babble)
		if err != nil {
			return nil, fmt.Errorf("job %d: %w", j.ID, err)
		}
		err = emit(j.Set, y, ws, a)
		return utts, err
	}
	if err := emit(j.Set, x, words, corpus.AugSpec{}); err != nil {
		return nil, err
	}
	if j.Set == setDev {
		y, ws, a, err := j.Noisy.Apply(x, rate, words, w.babble)
		if err != nil {
			return nil, fmt.Errorf("job %d: %w", j.ID, err)
		}
		if err := emit(setDevNoisy, y, ws, a); err != nil {
			return nil, err
		}
	}
	return utts, nil
}

// roundSec rounds seconds to 0.1 ms.
func roundSec(t float64) float64 { return math.Round(t*1e4) / 1e4 }

// writeWAV writes x as a 16 kHz WAV file at path.
func writeWAV(path string, x []float32) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := audio.WriteWAV(f, x, rate); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}

// build plans the corpus, runs the workers and writes the manifests and
// the summary.
func build(ctx context.Context, o *options, args []string, stderr io.Writer) error {
	start := time.Now()
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	for _, s := range allSets {
		dir := filepath.Join(o.out, "wav", s)
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	p, err := makePlan(o)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "heed-corpus: %d jobs planned (%d training prompts, %d FSDD train / %d test takes) in %s\n",
		len(p.jobs), p.prompts, len(p.fsddTrain), len(p.fsddTest), time.Since(start).Round(time.Millisecond))

	exe, err := os.Executable()
	if err != nil {
		return err
	}
	results := make([]*result, len(p.jobs))
	var (
		mu   sync.Mutex
		done int
		secs float64
		wg   sync.WaitGroup
		errs = make([]error, o.jobs)
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	report := max(1, len(p.jobs)/20)
	for k := range o.jobs {
		wargs := append(append([]string(nil), args...), "-worker", fmt.Sprintf("%d/%d", k, o.jobs))
		cmd := exec.CommandContext(ctx, exe, wargs...)
		cmd.Stderr = stderr
		pipe, err := cmd.StdoutPipe()
		if err != nil {
			return err
		}
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("starting worker %d: %w", k, err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := bufio.NewScanner(pipe)
			sc.Buffer(make([]byte, 1<<20), 64<<20)
			for sc.Scan() {
				var r result
				if err := json.Unmarshal(sc.Bytes(), &r); err != nil || r.ID < 0 || r.ID >= len(results) {
					errs[k] = fmt.Errorf("worker %d: bad result line %.100q", k, sc.Text())
					cancel()
					break
				}
				mu.Lock()
				results[r.ID] = &r
				done++
				for _, u := range r.Utts {
					secs += u.Duration
				}
				if done%report == 0 {
					fmt.Fprintf(stderr, "heed-corpus: %d/%d jobs, %.2f h of audio, %s\n", done, len(p.jobs), secs/3600, time.Since(start).Round(time.Second))
				}
				mu.Unlock()
			}
			io.Copy(io.Discard, pipe)
			if err := cmd.Wait(); err != nil && errs[k] == nil {
				errs[k] = fmt.Errorf("worker %d: %w", k, err)
				cancel()
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}

	// Collect in plan order.
	sets := make(map[string][]corpus.Utterance)
	var failed []string
	trainJobs := 0
	for i, r := range results {
		j := p.jobs[i]
		if j.Set == setTrain {
			trainJobs++
		}
		if r == nil {
			return fmt.Errorf("job %d produced no result", i)
		}
		if r.Err != "" {
			failed = append(failed, r.Err)
			if j.Set != setTrain {
				return fmt.Errorf("%s job failed: %s", j.Set, r.Err)
			}
			continue
		}
		for k, u := range r.Utts {
			set := j.Set
			if k == 1 {
				set = setDevNoisy
			}
			sets[set] = append(sets[set], u)
		}
	}
	if len(failed) > 0 {
		for _, f := range failed[:min(5, len(failed))] {
			fmt.Fprintf(stderr, "heed-corpus: warning: skipped: %s\n", f)
		}
		if float64(len(failed)) > 0.01*float64(trainJobs) {
			return fmt.Errorf("%d of %d training jobs failed", len(failed), trainJobs)
		}
	}
	for _, s := range allSets {
		if len(sets[s]) == 0 {
			continue
		}
		if err := corpus.WriteManifest(filepath.Join(o.out, s+".jsonl"), sets[s]); err != nil {
			return err
		}
	}
	summarize(stderr, sets, len(failed), time.Since(start))
	return nil
}

// summarize prints hours and utterance counts per set and source.
func summarize(w io.Writer, sets map[string][]corpus.Utterance, failed int, took time.Duration) {
	fmt.Fprintf(w, "heed-corpus: done in %s (%d training jobs skipped)\n", took.Round(time.Second), failed)
	for _, s := range allSets {
		by := make(map[string][2]float64) // source -> (count, seconds)
		total := 0.0
		aug := 0
		for _, u := range sets[s] {
			key := u.Source
			v := by[key]
			by[key] = [2]float64{v[0] + 1, v[1] + u.Duration}
			total += u.Duration
			if u.Aug != "" {
				aug++
			}
		}
		fmt.Fprintf(w, "  %-18s %7d utts %8.3f h", s+".jsonl", len(sets[s]), total/3600)
		if aug > 0 {
			fmt.Fprintf(w, " (%d augmented)", aug)
		}
		var srcs []string
		for k := range by {
			srcs = append(srcs, k)
		}
		sort.Strings(srcs)
		var parts []string
		for _, k := range srcs {
			parts = append(parts, fmt.Sprintf("%s %.3f h", k, by[k][1]/3600))
		}
		fmt.Fprintf(w, "  [%s]\n", strings.Join(parts, ", "))
	}
}
