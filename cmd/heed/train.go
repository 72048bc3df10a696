package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"runtime"
	"strings"
	"time"

	"github.com/heed-asr/heed/model"
	"github.com/heed-asr/heed/model/train"
)

func init() {
	register(&command{
		Name:  "train",
		Usage: "heed train --train train.jsonl [--dev dev.jsonl] --out DIR [--resume] [flags]",
		Short: "train a model on manifests of utterances",
		Long: `Train trains a recognizer on the utterances listed in one or more manifests
(JSON Lines: {"audio": "x.wav", "text": "spoken words", ...}; see the README).
It uses all cores, sorts and batches utterances by length, and writes to DIR:

  checkpoint.heed  resume state (weights, optimizer, data position)
  model.heed       the latest model, usable with heed transcribe --model
  train.jsonl      loss, dev CER/WER and attention sharpness as JSON Lines
  curves.png       the curves drawn

A checkpoint is written every --checkpoint-every, at the end, and on Ctrl-C.
--resume continues exactly where the last checkpoint stopped: the network
and training settings are taken from the checkpoint, except that --lr,
--warmup, --decay, --clip, --specaug (with its --specaug-* settings), --warp
and --per-utterance, when given, replace the checkpoint's (the optimizer
state is kept). With --new-data, --resume
accepts training manifests other than the checkpoint's (say, more noisy
speech added late): weights, optimizer and schedule carry on, and a new
pass begins over the new data. --widen-enc N, with --resume or --init, gives
the encoder N GRU units per direction instead of its current number: the
wider network computes exactly what the narrower one did (each old weight
keeps its value, nothing reads the new units yet), the new units start
silent and learn from there, and the next checkpoint has the new shape.`,
		Flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			var trainList, dev, out string
			var resume bool
			cfg := model.DefaultConfig()
			o := train.Options{}
			fs.StringVar(&trainList, "train", "", "training manifest(s), comma-separated")
			fs.StringVar(&dev, "dev", "", "dev manifest for CER/WER during training")
			fs.StringVar(&out, "out", "", "output directory (created if missing)")
			fs.BoolVar(&resume, "resume", false, "continue from DIR/checkpoint.heed")
			fs.BoolVar(&o.NewData, "new-data", false, "with --resume: train on the --train manifests even though they differ from the checkpoint's")
			fs.StringVar(&o.Init, "init", "", "start from this model file's weights (fine-tuning) instead of random ones")
			fs.IntVar(&o.WidenEnc, "widen-enc", 0, "with --resume (or --init): widen the encoder to `N` units per direction, keeping what it computes; new units start silent and learn")
			steps := fs.Int("steps", 0, "stop after this many updates in all (0: no limit)")
			dur := fs.Duration("time", 0, "stop after this much training time in this run, e.g. 2h (0: no limit)")
			fs.IntVar(&o.BatchFrames, "batch-frames", 6000, "10 ms frames per batch (60 s of audio)")
			fs.Float64Var(&o.VTLP, "vtlp", 0, "vocal-tract-length perturbation: warp the mel axis of augmented training utterances (manifest \"aug\" set) by up to this share (0.1: factors 0.9-1.1)")
			warp := fs.Float64("warp", 0, "vocal-tract-length perturbation drawn anew at every update: warp the mel axis of every training utterance by a random factor within this share (0.1: 0.9-1.1), a new speaker each time it is seen")
			fs.DurationVar(&o.CheckpointEvery, "checkpoint-every", 5*time.Minute, "checkpoint interval")
			fs.IntVar(&o.LogEvery, "log-every", 10, "updates per log line")
			fs.IntVar(&o.EvalEvery, "eval-every", 500, "updates between dev evaluations (0: only at the end)")
			fs.IntVar(&o.DevMax, "dev-max", 200, "dev utterances per evaluation (0: all)")
			workers := fs.Int("workers", runtime.NumCPU(), "data-parallel worker goroutines")
			seed := fs.Uint64("seed", 1, "random seed (initialisation, data order, augmentation)")
			lr := fs.Float64("lr", 1e-3, "peak learning rate (Adam)")
			warmup := fs.Int("warmup", 500, "learning-rate warm-up updates")
			decay := fs.String("decay", "inv_sqrt", "learning-rate decay after warm-up: inv_sqrt, cosine or constant")
			clip := fs.Float64("clip", 5, "global gradient-norm clip")
			specaug := fs.Bool("specaug", true, "SpecAugment time and frequency masks")
			saFreqWidth := fs.Int("specaug-freq-width", model.DefaultSpecAugment().FreqWidth, "SpecAugment: widest frequency mask, in mel bins (two masks)")
			saPerSec := fs.Float64("specaug-masks-per-s", 0, "SpecAugment: time masks per second of audio, two at least (0: always two); each up to 0.4 s and a fifth of the utterance")
			perUtt := fs.Bool("per-utterance", false, "run each worker's utterances one at a time instead of as one batch (the slower pre-batching path; same gradient up to rounding)")
			fs.IntVar(&cfg.EncLayers, "enc-layers", cfg.EncLayers, "encoder BiGRU layers")
			fs.IntVar(&cfg.EncHidden, "enc-hidden", cfg.EncHidden, "encoder GRU units per direction")
			fs.IntVar(&cfg.DecHidden, "dec-hidden", cfg.DecHidden, "decoder GRU units")
			fs.Float64Var(&cfg.Dropout, "dropout", cfg.Dropout, "dropout between encoder layers")
			fs.Float64Var(&cfg.CTCWeight, "ctc-weight", cfg.CTCWeight, "weight of the CTC loss (rest: attention)")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) > 0 {
					return usagef("unexpected argument %q", args[0])
				}
				if out == "" {
					return usagef("--out is required")
				}
				if trainList == "" && !resume {
					return usagef("--train is required")
				}
				if trainList != "" {
					o.Train = strings.Split(trainList, ",")
				}
				if err := cfg.Validate(); err != nil {
					return usagef("%v", err)
				}
				if o.NewData && (!resume || trainList == "") {
					return usagef("--new-data needs --resume and --train")
				}
				if !(o.VTLP >= 0 && o.VTLP < 0.5) {
					return usagef("--vtlp %v: want a share in [0, 0.5)", o.VTLP)
				}
				if *saFreqWidth < 0 || *saFreqWidth > cfg.NumMel || !(*saPerSec >= 0 && *saPerSec <= 20) {
					return usagef("--specaug-freq-width %d or --specaug-masks-per-s %g out of range ([0, %d] bins, [0, 20] masks a second)", *saFreqWidth, *saPerSec, cfg.NumMel)
				}
				if !(*warp >= 0 && *warp < 0.5) {
					return usagef("--warp %v: want a share in [0, 0.5)", *warp)
				}
				if resume && o.Init != "" {
					return usagef("--resume and --init exclude each other")
				}
				if o.WidenEnc < 0 || (o.WidenEnc > 0 && !resume && o.Init == "") {
					return usagef("--widen-enc needs --resume or --init and a positive number of units")
				}
				o.Dev, o.OutDir, o.Resume = dev, out, resume
				o.Model = cfg
				o.MaxSteps, o.MaxTime = *steps, *dur
				o.Progress = e.Stderr
				o.Run = model.TrainConfig{
					Workers:  *workers,
					Seed:     *seed,
					Adam:     model.DefaultAdam(),
					Schedule: model.Schedule{Peak: *lr, Warmup: *warmup, Decay: *decay},
					ClipNorm: *clip,
				}
				o.Run.PerUtterance = *perUtt
				o.Run.Warp = *warp
				if *specaug {
					o.Run.SpecAug = model.DefaultSpecAugment()
					o.Run.SpecAug.FreqWidth = *saFreqWidth
					o.Run.SpecAug.TimeMasksPerSec = *saPerSec
				}
				if resume {
					set := map[string]bool{}
					fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
					given := o.Run
					o.Override = func(r *model.TrainConfig) {
						if set["lr"] {
							r.Schedule.Peak = given.Schedule.Peak
						}
						if set["warmup"] {
							r.Schedule.Warmup = given.Schedule.Warmup
						}
						if set["decay"] {
							// o.Run, not given: the cosine total is set below.
							r.Schedule.Decay = o.Run.Schedule.Decay
							r.Schedule.Total, r.Schedule.Final = o.Run.Schedule.Total, o.Run.Schedule.Final
						}
						if set["clip"] {
							r.ClipNorm = given.ClipNorm
						}
						if set["specaug"] || set["specaug-freq-width"] || set["specaug-masks-per-s"] {
							r.SpecAug = given.SpecAug
						}
						if set["warp"] {
							r.Warp = given.Warp
						}
						if set["per-utterance"] {
							r.PerUtterance = given.PerUtterance
						}
					}
				}
				if err := o.Run.Schedule.Validate(); err != nil && *decay != "cosine" {
					return usagef("%v", err)
				}
				if *decay == "cosine" {
					if *steps <= *warmup {
						return usagef("--decay cosine needs --steps above --warmup")
					}
					o.Run.Schedule.Total, o.Run.Schedule.Final = *steps, *lr/20
				}
				if o.LogEvery < 1 || o.BatchFrames < 100 {
					return usagef("--log-every must be >= 1 and --batch-frames >= 100")
				}
				switch {
				case *workers < 1:
					return usagef("--workers must be at least 1")
				case *steps < 0 || *dur < 0 || *warmup < 0 || o.EvalEvery < 0 || o.DevMax < 0:
					return usagef("--steps, --time, --warmup, --eval-every and --dev-max must not be negative")
				case o.CheckpointEvery <= 0:
					return usagef("--checkpoint-every must be positive")
				case !(*lr > 0 && *lr <= 1):
					return usagef("--lr %g out of range (0, 1]", *lr)
				case !(*clip >= 0) || math.IsInf(*clip, 0):
					return usagef("--clip %g must be finite and not negative", *clip)
				}
				err := train.Run(ctx, o)
				if err != nil {
					return fmt.Errorf("train: %w", err)
				}
				return nil
			}
		},
	})
}
