package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/heed-asr/heed/align"
	"github.com/heed-asr/heed/audio"
	"github.com/heed-asr/heed/corpus"
	"github.com/heed-asr/heed/model"
	"github.com/heed-asr/heed/model/modelfile"
	"github.com/heed-asr/heed/model/train"
)

func init() {
	register(&command{
		Name:  "adapt",
		Usage: "heed adapt [--model FILE] --out FILE [--force] [--epochs N] [--hold N] [--blend B] DIR|MANIFEST...",
		Short: "fit the model to one voice from minutes of its transcribed speech",
		Long: `Adapt fine-tunes the model on recordings of one voice (a narrator, a
speaker of your interviews, a dialect) with their transcripts, and writes
the adapted model to --out, with the language model of the one it started
from. Use it with heed transcribe --model FILE (or align, stream). A voice
the shipped model hears poorly gains most: on VCTK speaker p239 (a voice
from England that no heed model trained on), 12.8 minutes of her speech
took the CER of 251 other sentences of hers from 42.1% to 27.5%, and 3
minutes to 34.1% (README: "Adapting to a voice"). Under a minute helps
little or not at all. The adapted model is for that voice: on other
speakers it errs more than the model it started from. --blend 0.7 writes
0.7 of the adapted weights plus 0.3 of the original ones: on p239 it kept
29.7% (85% of the gain) and halved the loss on other voices (Kathleen
12.6% -> 15.3% instead of 17.9%).

Inputs are directories and manifests:
  DIR        every WAV file under DIR (recursively) with its transcript
             beside it, the same name with .txt (talk.wav, talk.txt); the
             text is written as people write (numbers, punctuation, case)
             and normalised as heed align does
  MANIFEST   a .jsonl file as heed train reads it ("audio", "text")

A recording longer than 30 s (a chapter with its text, a transcribed
interview) is aligned to its transcript first and cut at pauses into
clips of 3-20 s; a clip with a word the aligner could not place is left
out, and heed says how many minutes it kept.

Give at least 3 minutes of speech; 10-20 minutes gains more. Each
short utterance should be a sentence or a few. --hold N keeps N
utterances out of the training (by default a tenth, at most 50, when there
are 20 or more) and reports the error rates on them before and after, so
that you see what adaptation bought; --hold 0 trains on everything. Time
on 2 cores: 66 s for 12.8 minutes of speech at the default 20 epochs with
--hold 0. Ctrl-C stops it within seconds and writes nothing; --out is
written atomically and never overwritten unless --force is given.`,
		Flags: func(fl *flag.FlagSet) func(context.Context, *env, []string) error {
			modelPath := fl.String("model", "", "model file to start from (default: the embedded English model)")
			out := fl.String("out", "", "adapted model file to write (required)")
			force := fl.Bool("force", false, "overwrite --out if it exists")
			epochs := fl.Float64("epochs", 20, "passes over the adaptation speech")
			hold := fl.Int("hold", -1, "utterances held out to measure the gain (-1: a tenth, at most 50, from 20 utterances up; 0: none)")
			lr := fl.Float64("lr", 1e-4, "learning rate (Adam, constant after a short warm-up)")
			dtype := fl.String("dtype", "f16", "storage of the written model: f16 (half the size) or f32")
			seed := fl.Uint64("seed", 1, "random seed (data order, SpecAugment)")
			jobs := fl.Int("jobs", runtime.NumCPU(), "worker goroutines")
			blend := fl.Float64("blend", 1, "share of the adaptation written: weights blend·adapted + (1-blend)·start; below 1 other voices lose less and this one gains less")
			return func(ctx context.Context, e *env, args []string) error {
				switch {
				case *out == "":
					return usagef("--out is required")
				case len(args) == 0:
					return usagef("give at least one directory of WAV files with .txt transcripts, or a manifest")
				case !(*epochs > 0 && *epochs <= 1000):
					return usagef("--epochs %g out of range (0, 1000]", *epochs)
				case !(*lr > 0 && *lr <= 0.01):
					return usagef("--lr %g out of range (0, 0.01]", *lr)
				case !(*blend > 0 && *blend <= 1):
					return usagef("--blend %g out of range (0, 1]", *blend)
				case *hold < -1:
					return usagef("--hold %d: want -1, 0 or a number of utterances", *hold)
				case *jobs < 1:
					return usagef("--jobs must be at least 1")
				}
				dt := modelfile.F16
				switch *dtype {
				case "f16":
				case "f32":
					dt = modelfile.F32
				default:
					return usagef("--dtype must be f16 or f32")
				}
				if !*force {
					if _, err := os.Stat(*out); err == nil {
						return fmt.Errorf("%s exists; --force overwrites it", *out)
					}
				}
				base, err := loadModel(*modelPath, true)
				if err != nil {
					return err
				}
				tmp, err := os.MkdirTemp("", "heed-adapt-*")
				if err != nil {
					return err
				}
				defer os.RemoveAll(tmp)
				utts, err := adaptInputs(ctx, e, base, args, tmp)
				if err != nil {
					return err
				}
				fit, held := splitHeld(utts, *hold)
				if len(fit) == 0 {
					return fmt.Errorf("adapt: no utterance left to train on (%d held out)", len(held))
				}
				return runAdapt(ctx, e, base, fit, held, tmp, adaptOptions{
					out: *out, epochs: *epochs, lr: *lr, blend: *blend, seed: *seed, jobs: *jobs, dtype: dt, from: orDefault(*modelPath, "the embedded model"),
				})
			}
		},
	})
}

// orDefault returns s, or def when s is empty.
func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// adaptOptions are heed adapt's settings past its inputs.
type adaptOptions struct {
	out        string
	epochs, lr float64
	blend      float64 // share of the adapted weights against the base's (--blend)
	seed       uint64
	jobs       int
	dtype      modelfile.DType
	from       string // the base model's name, for the model's provenance
}

// adaptInputs reads heed adapt's inputs: manifests, and directories of
// WAV files with same-named .txt transcripts (normalised to the model's
// alphabet by corpus.SpokenText). A recording longer than adaptMaxClip is
// aligned to its transcript with base and cut into sentences (cutAligned),
// written as WAV files into tmp. Audio paths come back absolute. A WAV
// without its transcript, a transcript that cannot be spoken or an
// unreadable audio file is an error naming the file.
func adaptInputs(ctx context.Context, e *env, base *model.Bundle, args []string, tmp string) ([]corpus.Utterance, error) {
	type pair struct{ wav, written string }
	var utts []corpus.Utterance
	var pairs []pair
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, openErr(a, err)
		}
		if !st.IsDir() {
			us, err := corpus.ReadManifest(a)
			if err != nil {
				return nil, err
			}
			utts = append(utts, us...)
			continue
		}
		found := 0
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || !isAudioName(d.Name()) {
				return nil
			}
			tp := strings.TrimSuffix(p, filepath.Ext(p)) + ".txt"
			b, err := os.ReadFile(tp)
			if errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("%s: no transcript %s beside it", p, filepath.Base(tp))
			}
			if err != nil {
				return openErr(tp, err)
			}
			if _, err := corpus.SpokenText(string(b)); err != nil {
				return fmt.Errorf("%s: %w", tp, err)
			}
			pairs = append(pairs, pair{p, string(b)})
			found++
			return nil
		})
		if err != nil {
			return nil, err
		}
		if found == 0 {
			return nil, fmt.Errorf("%s: no .wav, .mp3 or .flac file in it", a)
		}
	}
	for i := range utts {
		secs, err := wavSeconds(utts[i].Audio)
		if err != nil {
			return nil, err
		}
		utts[i].Duration = secs
	}
	for i, p := range pairs {
		secs, err := wavSeconds(p.wav)
		if err != nil {
			return nil, err
		}
		if secs <= adaptMaxClip {
			text, _ := corpus.SpokenText(p.written) // checked above
			utts = append(utts, corpus.Utterance{Audio: p.wav, Text: text, Duration: secs})
			continue
		}
		c, err := audio.Load16k(p.wav)
		if err != nil {
			return nil, err // names the file
		}
		words, _, err := align.NewAligner(base).AlignContext(ctx, c.Samples, p.written)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.wav, err)
		}
		cut, err := cutAligned(c.Samples, words, filepath.Join(tmp, fmt.Sprintf("long%03d", i)))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.wav, err)
		}
		kept := 0.0
		for _, u := range cut {
			kept += u.Duration
		}
		fmt.Fprintf(e.Stderr, "heed: adapt: %s: aligned and cut into %d clips, %.1f of %.1f min kept (the rest: pauses, and words the aligner could not place)\n",
			p.wav, len(cut), kept/60, float64(len(c.Samples))/16000/60)
		utts = append(utts, cut...)
	}
	for i := range utts {
		abs, err := filepath.Abs(utts[i].Audio)
		if err != nil {
			return nil, err
		}
		utts[i].Audio = abs
		utts[i].Duration = math.Round(utts[i].Duration*1000) / 1000
	}
	return utts, nil
}

// wavSeconds returns the duration of the WAV file at path from its header
// (training reads the samples later), or from its samples when the header
// does not say (a stream's). Errors name the file.
func wavSeconds(path string) (float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, openErr(path, err)
	}
	info, err := audio.DecodeInfo(f, path)
	f.Close()
	if err != nil {
		return 0, err
	}
	if d := info.Duration(); d > 0 {
		return d.Seconds(), nil
	}
	c, err := audio.Load16k(path)
	if err != nil {
		return 0, err
	}
	return float64(len(c.Samples)) / audio.TargetRate, nil
}

// Clips cut from a long recording (cutAligned): a recording longer than
// adaptMaxClip seconds is cut at pauses of cutPause seconds or more once a
// clip holds cutMin seconds, and a clip is closed at cutMax seconds
// whatever follows; each keeps up to cutMargin seconds of the pause on
// either side.
const (
	adaptMaxClip = 30.0
	cutPause     = 0.3
	cutMin       = 3.0
	cutMax       = 20.0
	cutMargin    = 0.15
)

// cutAligned cuts an aligned recording into clips of whole words at
// pauses, writes each as prefix-NNN.wav, and returns them with their
// spoken text. A clip with a word the aligner could not place
// (StatusInterpolated: text the audio may not hold) is left out. Clips with
// uncertain words are kept: on VCTK p239 (a 14-minute recording of 174
// sentences, README "Adapting to a voice") keeping only clips whose words
// are all aligned left 6.9 minutes and gave 33.8% CER on her other
// sentences, keeping the uncertain ones 9.5 minutes and 32.3%.
func cutAligned(samples []float32, words []align.Word, prefix string) ([]corpus.Utterance, error) {
	type sw struct {
		start, end float64
		text       string
		ok         bool
	}
	var ws []sw
	for _, w := range words {
		if len(w.Chars) == 0 {
			continue // punctuation, no sound
		}
		sp := w.Spoken
		if sp == "" {
			var err error
			if sp, err = corpus.SpokenText(w.Word); err != nil {
				return nil, err
			}
		}
		ws = append(ws, sw{w.Start, w.End, sp, w.Status != align.StatusInterpolated})
	}
	total := float64(len(samples)) / 16000
	var out []corpus.Utterance
	for i := 0; i < len(ws); {
		j := i + 1 // the clip is ws[i:j]
		for j < len(ws) {
			long := ws[j-1].end - ws[i].start
			if long >= cutMax || long >= cutMin && ws[j].start-ws[j-1].end >= cutPause {
				break
			}
			j++
		}
		clip := ws[i:j]
		keep := true
		texts := make([]string, len(clip))
		for k, w := range clip {
			keep = keep && w.ok
			texts[k] = w.text
		}
		before, after := 0.0, total
		if i > 0 {
			before = ws[i-1].end
		}
		if j < len(ws) {
			after = ws[j].start
		}
		a := max(before, clip[0].start-cutMargin)
		b := min(after, clip[len(clip)-1].end+cutMargin)
		if keep && b > a {
			path := fmt.Sprintf("%s-%03d.wav", prefix, len(out))
			if err := writeClip(path, samples[int(a*16000):min(len(samples), int(b*16000))]); err != nil {
				return nil, err
			}
			out = append(out, corpus.Utterance{Audio: path, Text: strings.Join(texts, " "), Duration: b - a})
		}
		i = j
	}
	return out, nil
}

// writeClip writes 16 kHz samples as a WAV file.
func writeClip(path string, samples []float32) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := audio.WriteWAV(f, samples, 16000); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// splitHeld keeps hold utterances out of utts, spread evenly over them (a
// recording's utterances in order often change topic or tone); hold -1
// means a tenth, at most 50, when there are 20 or more.
func splitHeld(utts []corpus.Utterance, hold int) (fit, held []corpus.Utterance) {
	if hold < 0 {
		hold = 0
		if len(utts) >= 20 {
			hold = min(50, len(utts)/10)
		}
	}
	hold = min(hold, len(utts))
	if hold == 0 {
		return utts, nil
	}
	step := float64(len(utts)) / float64(hold)
	next := step / 2
	for i, u := range utts {
		if len(held) < hold && float64(i)+0.5 >= next {
			held = append(held, u)
			next += step
			continue
		}
		fit = append(fit, u)
	}
	return fit, held
}

// runAdapt fine-tunes base on fit (in the temporary directory tmp),
// measures base and the adapted model on held when there are any, and
// writes the adapted model with base's language model to o.out.
func runAdapt(ctx context.Context, e *env, base *model.Bundle, fit, held []corpus.Utterance, tmp string, o adaptOptions) error {
	secs := 0.0
	for _, u := range fit {
		secs += u.Duration
	}
	// One update is a batch of at most 60 s of audio (batch-frames 6000).
	steps := max(20, int(math.Ceil(o.epochs*secs/60)))
	fmt.Fprintf(e.Stderr, "heed: adapt: %d utterances (%.1f min) to train on, %d held out; %d updates\n",
		len(fit), secs/60, len(held), steps)
	if secs < 180 {
		fmt.Fprintf(e.Stderr, "heed: adapt: warning: %.1f minutes of speech is little; under a minute seldom helps, 3 or more do\n", secs/60)
	}
	dec := model.DefaultDecodeOptions()
	var before []evalRow
	if len(held) > 0 {
		var err error
		if before, err = evalASR(ctx, base, "held out", held, o.jobs, dec); err != nil {
			return err
		}
	}
	man := filepath.Join(tmp, "adapt.jsonl")
	if err := corpus.WriteManifest(man, fit); err != nil {
		return err
	}
	run := filepath.Join(tmp, "run")
	started := time.Now()
	err := train.Run(ctx, train.Options{
		Train: []string{man}, OutDir: run, InitBundle: base,
		Run: model.TrainConfig{
			Workers: o.jobs, Seed: o.seed, Adam: model.DefaultAdam(),
			Schedule: model.Schedule{Peak: o.lr, Warmup: min(10, steps/2), Decay: "constant"},
			ClipNorm: 5, SpecAug: model.DefaultSpecAugment(),
		},
		BatchFrames: 6000, MaxSteps: steps, CheckpointEvery: 24 * time.Hour, // one checkpoint, at the end
		LogEvery: 10, Jobs: o.jobs,
		Progress: e.Stderr,
	})
	if err != nil {
		return fmt.Errorf("adapt: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("adapt: interrupted; %s not written", o.out)
	}
	adapted, err := model.LoadFile(filepath.Join(run, "model.heed"))
	if err != nil {
		return fmt.Errorf("adapt: %w", err)
	}
	lm, err := base.LanguageModel()
	if err != nil {
		return err
	}
	adapted.LM, adapted.Meta.LMWeight = lm, base.Meta.LMWeight
	if o.blend < 1 {
		adapted.Net = model.Blend(adapted.Net, base.Net, o.blend)
	}
	tr := &adapted.Meta.Training
	tr.Data = nil
	tr.Comments = fmt.Sprintf("adapted by heed adapt from %s (update %d) on %d utterances (%.1f min), %d updates at %g",
		o.from, base.Meta.Training.Steps, len(fit), secs/60, steps, o.lr)
	if o.blend < 1 {
		tr.Comments += fmt.Sprintf(", blended %g with the model it started from", o.blend)
	}
	if len(held) > 0 {
		after, err := evalASR(ctx, adapted, "held out", held, o.jobs, dec)
		if err != nil {
			return err
		}
		b, a := before[0], after[0]
		fmt.Fprintf(e.Stderr, "heed: adapt: %d held-out utterances: CER %.1f%% → %.1f%%, WER %.1f%% → %.1f%%\n",
			len(held), 100*b.CER, 100*a.CER, 100*b.WER, 100*a.WER)
		if a.CER > b.CER {
			fmt.Fprintf(e.Stderr, "heed: adapt: warning: the adapted model errs more on the held-out utterances than the one it started from\n")
		}
		tr.DevCER = a.CER
	}
	if err := adapted.Save(o.out, o.dtype); err != nil {
		return err
	}
	fmt.Fprintf(e.Stderr, "heed: adapt: wrote %s in %s\n", o.out, time.Since(started).Round(time.Second))
	return nil
}
