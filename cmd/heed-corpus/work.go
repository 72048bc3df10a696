package main

import (
	"bufio"
	"bytes"
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

// chunk is the input of one worker process, JSON on its stdin.
type chunk struct {
	Babble []job // espeak utterances to build babble noise from
	Jobs   []job
}

// chunkSize is the number of jobs per worker process. espeak-ng keeps
// waveform-generator state (the pitch-flutter phase, automatic gain)
// across utterances in a process, so each chunk runs in a fresh process:
// the audio then depends on the fixed chunking, never on -jobs. (A
// variable only so that tests can use small chunks.)
var chunkSize = 200

// worker holds what one worker process needs to do jobs.
type worker struct {
	o      *options
	es     espeakSynth
	rs     *audio.Resampler // espeak rate -> 16 kHz
	babble [][]float32      // 16 kHz babble sources
	tmp    string           // scratch directory for flite
	out    string           // absolute output directory
	clips  map[string]corpus.FSDDClip
}

// runWorker reads a chunk from stdin, does its jobs in order and writes one
// JSON result per job to stdout.
func runWorker(ctx context.Context, o *options, stdin io.Reader, stdout io.Writer) error {
	var c chunk
	if err := json.NewDecoder(stdin).Decode(&c); err != nil {
		return fmt.Errorf("reading the chunk: %w", err)
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
	w := &worker{o: o, es: es, rs: audio.NewResampler(es.SampleRate(), rate), tmp: tmp, out: out, clips: make(map[string]corpus.FSDDClip)}
	for _, b := range c.Babble {
		x, _, err := w.espeak(b)
		if err != nil {
			return fmt.Errorf("babble source: %w", err)
		}
		w.babble = append(w.babble, x)
	}
	bw := bufio.NewWriter(stdout)
	enc := json.NewEncoder(bw)
	for _, j := range c.Jobs {
		if err := ctx.Err(); err != nil {
			return err
		}
		res := result{ID: j.ID}
		utts, err := w.do(ctx, j)
		if err != nil {
			res.Err = err.Error()
		}
		res.Utts = utts
		if err := enc.Encode(&res); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// clip reads an FSDD clip, once per worker.
func (w *worker) clip(path string) (corpus.FSDDClip, error) {
	if c, ok := w.clips[path]; ok {
		return c, nil
	}
	c, err := corpus.ReadFSDDClip(path, rate)
	if err != nil {
		return c, err
	}
	w.clips[path] = c
	return c, nil
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
		parts := make([]corpus.FSDDClip, len(j.Clips))
		for i, path := range j.Clips {
			if parts[i], err = w.clip(path); err != nil {
				return nil, fmt.Errorf("job %d: %w", j.ID, err)
			}
		}
		speaker = "fsdd-" + parts[0].Speaker
		if j.Single {
			c := parts[0]
			x = c.Samples
			words = []corpus.Word{{Word: j.Text, Start: roundSec(float64(c.WordStart) / rate), End: roundSec(float64(c.WordEnd) / rate)}}
		} else {
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
	chunks := make(chan []job)
	go func() {
		defer close(chunks)
		for i := 0; i < len(p.jobs); i += chunkSize {
			select {
			case chunks <- p.jobs[i:min(len(p.jobs), i+chunkSize)]:
			case <-ctx.Done():
				return
			}
		}
	}()
	wargs := append(append([]string(nil), args...), "-worker")
	report := max(1, len(p.jobs)/20)
	for k := range o.jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for jobs := range chunks {
				err := runChunk(ctx, exe, wargs, chunk{Babble: p.babble, Jobs: jobs}, stderr, func(r *result) {
					mu.Lock()
					defer mu.Unlock()
					results[r.ID] = r
					done++
					for _, u := range r.Utts {
						secs += u.Duration
					}
					if done%report == 0 {
						fmt.Fprintf(stderr, "heed-corpus: %d/%d jobs, %.2f h of audio, %s\n", done, len(p.jobs), secs/3600, time.Since(start).Round(time.Second))
					}
				})
				if err != nil {
					errs[k] = fmt.Errorf("chunk at job %d: %w", jobs[0].ID, err)
					cancel()
					return
				}
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
		if j.Set == setTrain || j.Set == setTrainNoisy {
			trainJobs++
		}
		if r == nil || r.ID != i {
			return fmt.Errorf("job %d produced no result", i)
		}
		if r.Err != "" {
			failed = append(failed, r.Err)
			if j.Set != setTrain && j.Set != setTrainNoisy {
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
	if err := os.WriteFile(filepath.Join(o.out, "NOTICE.md"), []byte(notice(args)), 0o644); err != nil {
		return err
	}
	summarize(stderr, sets, len(failed), time.Since(start))
	return nil
}

// notice is the NOTICE.md written next to the manifests: how the corpus
// was made and what it owes to whom.
func notice(args []string) string {
	return `# heed training corpus

Built by heed-corpus (github.com/heed-asr/heed/cmd/heed-corpus) with the
arguments: ` + "`" + strings.Join(args, " ") + "`" + `

Manifests: train.jsonl, train_noisy.jsonl, dev.jsonl, dev_noisy.jsonl, fsdd_test.jsonl,
fsdd_test_strings.jsonl (format: package github.com/heed-asr/heed/corpus).

Sources:

- Synthetic speech made with espeak-ng ("source": "espeak") and flite
  ("source": "flite") from sentences of the Debian fortunes packages,
  words of the Debian wamerican word list, digit strings and numbers.
- Utterances with "source": "fsdd" are derived from the Free Spoken Digit
  Dataset (Zohar Jackson et al., https://github.com/Jakobovski/free-spoken-digit-dataset,
  tag v1.0.9), licensed under Creative Commons Attribution-ShareAlike 4.0
  International (CC BY-SA 4.0): resampled from 8 to 16 kHz, glued into
  digit strings and, in training, augmented. Takes 0-4 are only in the
  fsdd_test sets, takes 5-49 only in training. Credit the dataset in
  anything trained on this corpus, and keep its license in mind for what
  you distribute.
`
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

// runChunk runs one worker process (exe with args) on c and hands each
// result to got.
func runChunk(ctx context.Context, exe string, args []string, c chunk, stderr io.Writer, got func(*result)) error {
	in, err := json.Marshal(&c)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Stdin = bytes.NewReader(in)
	cmd.Stderr = stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting a worker: %w", err)
	}
	want := make(map[int]bool, len(c.Jobs))
	for _, j := range c.Jobs {
		want[j.ID] = true
	}
	sc := bufio.NewScanner(pipe)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var bad error
	for sc.Scan() {
		var r result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil || !want[r.ID] {
			bad = fmt.Errorf("bad result line %.100q", sc.Text())
			break
		}
		delete(want, r.ID)
		got(&r)
	}
	io.Copy(io.Discard, pipe)
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	if bad != nil {
		return bad
	}
	if len(want) > 0 {
		return fmt.Errorf("worker left %d jobs undone", len(want))
	}
	return nil
}
