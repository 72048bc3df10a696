// Package train is heed's training loop: it reads manifests, computes
// features, batches utterances by length, runs data-parallel Adam steps on
// model.Trainer, evaluates on a dev set, logs JSON Lines and draws the
// curves, and checkpoints so that a run can be stopped and resumed exactly.
//
// Files in the output directory:
//
//	checkpoint.heed  resume state: weights, Adam moments, step, data position
//	model.heed       the latest inference model (float32), loadable by heed
//	train.jsonl      one JSON object per log interval and per dev evaluation
//	curves.png       training loss and dev CER against updates
package train

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/heed-asr/heed/features"
	"github.com/heed-asr/heed/model"
	"github.com/heed-asr/heed/model/modelfile"
)

// Options configures a training run.
type Options struct {
	Train  []string // training manifests
	Dev    string   // dev manifest ("" for none)
	OutDir string
	Resume bool // continue from OutDir/checkpoint.heed
	// Override, when not nil, changes the checkpoint's training settings
	// on resume (such as a new learning-rate schedule); the optimizer
	// state is kept.
	Override func(*model.TrainConfig)
	Init     string // start from this model file's weights and CMVN (fine-tuning); "" for random
	// InitBundle, when not nil, is a loaded model to start from instead of
	// Init's file (heed adapt's embedded model). Its weights are copied:
	// the bundle itself is left as it was.
	InitBundle *model.Bundle
	// NewData lets a resumed run train on manifests other than the
	// checkpoint's: the weights, optimizer and schedule carry on and a new
	// pass (epoch) begins over the new data.
	NewData bool
	// WidenEnc, when above the resumed (or --init) model's EncHidden,
	// widens its encoder to WidenEnc units per direction with model.Widen
	// before training goes on: the network computes what it did, the new
	// units start silent and learn, Adam's moments are widened with zeros,
	// and the update counter and data position carry on. Equal is a no-op;
	// fewer is an error, and so is WidenEnc without Resume or Init.
	WidenEnc int

	Model model.Config      // network shape (ignored on resume)
	Run   model.TrainConfig // optimizer, schedule, workers, seed

	// VTLP, when > 0, warps the mel axis of every augmented training
	// utterance by a factor in [1-VTLP, 1+VTLP] (WarpAugmented).
	VTLP float64

	BatchFrames     int           // max 10 ms frames per batch
	MaxSteps        int           // stop after this many updates in all (0: no limit)
	MaxTime         time.Duration // stop after this much wall time in this run (0: no limit)
	CheckpointEvery time.Duration // checkpoint interval
	LogEvery        int           // updates per train log line
	EvalEvery       int           // updates between dev evaluations
	DevMax          int           // dev utterances evaluated (0: all)
	Jobs            int           // feature-extraction goroutines

	Progress io.Writer // human-readable progress (stderr); may be nil
}

// checkpointMeta is the JSON header of checkpoint.heed.
type checkpointMeta struct {
	Format    string            `json:"format"` // "heed-checkpoint"
	Model     model.Meta        `json:"model"`
	Run       model.TrainConfig `json:"run"`
	Step      int               `json:"step"`       // Adam updates taken
	Epoch     int               `json:"epoch"`      // current epoch (0-based)
	BatchPos  int               `json:"batch_pos"`  // batches of Epoch already used
	Elapsed   float64           `json:"elapsed"`    // training seconds so far, all runs
	AudioSecs float64           `json:"audio_secs"` // audio seconds processed so far
	Train     []string          `json:"train"`
	NumUtts   int               `json:"num_utts"` // training utterances (checked on resume)
}

const checkpointFormat = "heed-checkpoint"

// maxNotFinite is how many batches in a row training leaves out because
// their loss or gradient is not finite before it stops with the error.
const maxNotFinite = 5

// widenScale is the scale of the new units' incoming weights when the
// encoder is widened, relative to the GRU initialisation (model.Widen).
const widenScale = 0.01

// state is a run in progress.
type state struct {
	opt     Options
	meta    checkpointMeta
	bundle  *model.Bundle
	trainer *model.Trainer
	utts    []*model.Utterance
	secs    []float64
	audio   []string // each utterance's audio file, as its manifest names it
	dev     []devUtt
	log     *os.File
	started time.Time
	// lastEval is the update of the last dev evaluation.
	lastEval int
}

type devUtt struct {
	u    model.Utterance
	text string
}

func (s *state) printf(format string, args ...any) {
	if s.opt.Progress != nil {
		fmt.Fprintf(s.opt.Progress, format, args...)
	}
}

// Run trains until ctx is cancelled, MaxSteps or MaxTime is reached, and
// leaves a checkpoint and a model in OutDir. Cancellation is not an error.
func Run(ctx context.Context, opt Options) error {
	if err := os.MkdirAll(opt.OutDir, 0o755); err != nil {
		return err
	}
	s := &state{opt: opt, started: time.Now()}
	if err := s.load(); err != nil {
		return err
	}
	lf, err := os.OpenFile(filepath.Join(opt.OutDir, "train.jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	s.log = lf
	defer lf.Close()
	return s.loop(ctx)
}

// load reads the data, and the checkpoint when resuming.
func (s *state) load() error {
	opt := s.opt
	if opt.WidenEnc > 0 && !opt.Resume && opt.Init == "" && opt.InitBundle == nil {
		return errors.New("widening the encoder needs a model to widen: --resume or --init")
	}
	var ck *checkpointMeta
	var ckFile *modelfile.File
	if opt.Resume {
		path := filepath.Join(opt.OutDir, "checkpoint.heed")
		f, err := modelfile.ReadFile(path)
		if err != nil {
			return fmt.Errorf("resume: %w", err)
		}
		var m checkpointMeta
		if err := json.Unmarshal(f.Header, &m); err != nil || m.Format != checkpointFormat {
			return fmt.Errorf("resume: %s is not a heed checkpoint", path)
		}
		ck, ckFile = &m, f
		if len(opt.Train) == 0 {
			opt.Train = m.Train
			s.opt.Train = m.Train
		}
	}
	if len(opt.Train) == 0 {
		return errors.New("no training manifest")
	}
	// A manifest listed more than once (to weigh it) is read once: its
	// listings share the same utterances, and so the same features in
	// memory. The in-place steps below (VTLP, CMVN) run once per distinct
	// utterance.
	var all []*Utt
	loaded := map[string][]*Utt{}
	for _, path := range opt.Train {
		if utts, ok := loaded[filepath.Clean(path)]; ok {
			s.printf("listed again %s: %d utterances (features shared with its first listing)\n", path, len(utts))
			all = append(all, utts...)
			continue
		}
		t0 := time.Now()
		utts, skipped, err := LoadManifest(path, opt.Jobs, func(done, total int) {
			if done%500 == 0 || done == total {
				s.printf("\rloading %s: %d/%d", path, done, total)
			}
		})
		if err != nil {
			return err
		}
		s.printf("\rloaded %s: %d utterances (%d skipped) in %.0fs\n", path, len(utts), skipped, time.Since(t0).Seconds())
		loaded[filepath.Clean(path)] = utts
		all = append(all, utts...)
	}
	distinct := make([]*Utt, 0, len(all))
	seen := make(map[*Utt]bool, len(all))
	for _, u := range all {
		if !seen[u] {
			seen[u] = true
			distinct = append(distinct, u)
		}
	}
	if opt.VTLP > 0 {
		n := WarpAugmented(distinct, features.DefaultConfig(), opt.VTLP, 1)
		s.printf("vocal-tract-length perturbation (up to %.0f%%) on %d augmented utterances\n", 100*opt.VTLP, n)
	}
	var cmvn features.CMVN
	var cfg model.Config
	var p *model.Params[float32]
	if ck != nil {
		cmvn, cfg = ck.Model.CMVN, ck.Model.Config
		p = model.NewParams[float32](cfg)
		for _, t := range p.Tensors() {
			d, err := ckFile.Tensor(t.Name, t.Shape...)
			if err != nil {
				return fmt.Errorf("resume: %w", err)
			}
			copy(t.Data, d)
		}
		if !opt.NewData && ck.NumUtts != len(all) {
			return fmt.Errorf("resume: the training data has %d utterances, the checkpoint was made with %d (--new-data to train on other data)", len(all), ck.NumUtts)
		}
	} else if opt.Init != "" || opt.InitBundle != nil {
		b, name := opt.InitBundle, "the given model"
		if b == nil {
			var err error
			if b, err = model.LoadFile(opt.Init); err != nil {
				return fmt.Errorf("--init: %w", err)
			}
			name = opt.Init
		}
		b.Net.Materialize()
		q, err := model.ParamsFromData(b.Net.Cfg, slices.Clone(b.Net.P.Data)) // b stays as it was
		if err != nil {
			return err
		}
		cmvn, cfg, p = b.Meta.CMVN, b.Net.Cfg, q
		s.printf("starting from the weights of %s (%d updates)\n", name, b.Meta.Training.Steps)
	} else {
		cfg = opt.Model
		cmvn = CMVNOf(all, cfg.NumMel)
		p = model.InitParams[float32](cfg, opt.Run.Seed)
	}
	run := opt.Run
	if ck != nil {
		run = ck.Run
		run.Workers = opt.Run.Workers
		if opt.Override != nil {
			opt.Override(&run)
		}
	}
	if run.Warp > 0 {
		s.printf("vocal-tract-length perturbation drawn at every update (up to %.0f%%) on every utterance\n", 100*run.Warp)
	}
	if sa := run.SpecAug; sa != model.DefaultSpecAugment() && sa != (model.SpecAugment{}) {
		s.printf("SpecAugment: %d frequency masks of up to %d bins, %d time masks of up to %d frames (%g a second at least)\n",
			sa.FreqMasks, sa.FreqWidth, sa.TimeMasks, sa.TimeWidth, sa.TimeMasksPerSec)
	}
	ckCfg := cfg // the checkpoint's shape, which its Adam moments have
	if opt.WidenEnc > 0 && opt.WidenEnc != cfg.EncHidden {
		if opt.WidenEnc < cfg.EncHidden {
			return fmt.Errorf("--widen-enc %d: the encoder has %d units per direction, and widening cannot remove units", opt.WidenEnc, cfg.EncHidden)
		}
		step := 0
		if ck != nil {
			step = ck.Step
		}
		n := len(p.Data)
		var err error
		p, err = model.Widen(p, opt.WidenEnc, rand.New(rand.NewPCG(run.Seed, uint64(step))), widenScale)
		if err != nil {
			return err
		}
		cfg = p.Cfg
		s.printf("widened the encoder from %d to %d units per direction (%d to %d parameters); the new units start silent\n",
			ckCfg.EncHidden, cfg.EncHidden, n, len(p.Data))
	}
	for _, u := range distinct {
		cmvn.Apply(u.Feats)
	}
	hours := 0.0
	s.utts = make([]*model.Utterance, 0, len(all))
	for _, u := range all {
		ids, err := model.Encode(u.Text)
		if err != nil {
			return fmt.Errorf("%s: %w", u.Audio, err)
		}
		s.utts = append(s.utts, &model.Utterance{Feats: u.Feats, Frames: u.Frames, IDs: ids})
		s.secs = append(s.secs, u.Seconds())
		s.audio = append(s.audio, u.Audio)
		hours += u.Seconds() / 3600
	}
	if opt.Dev != "" {
		dev, _, err := LoadManifest(opt.Dev, opt.Jobs, nil)
		if err != nil {
			return err
		}
		r := rand.New(rand.NewPCG(7, 7))
		r.Shuffle(len(dev), func(i, j int) { dev[i], dev[j] = dev[j], dev[i] })
		if opt.DevMax > 0 && len(dev) > opt.DevMax {
			dev = dev[:opt.DevMax]
		}
		for _, u := range dev {
			ids, err := model.Encode(u.Text)
			if err != nil {
				return fmt.Errorf("%s: %w", u.Audio, err)
			}
			cmvn.Apply(u.Feats)
			s.dev = append(s.dev, devUtt{u: model.Utterance{Feats: u.Feats, Frames: u.Frames, IDs: ids}, text: u.Text})
		}
	}
	net := model.NewNet(p)
	tr, err := model.NewTrainer(net, run)
	if err != nil {
		return err
	}
	tr.CMVN, tr.Features = cmvn, features.DefaultConfig()
	s.trainer = tr
	s.bundle = &model.Bundle{Net: net, Meta: model.Meta{Config: cfg, Features: features.DefaultConfig(), CMVN: cmvn}}
	if ck != nil {
		s.meta = *ck
		s.meta.Run = run // with any overrides, so that the next resume keeps them
		if err := loadMoment(tr.Opt.M, ckFile, "adam.m", ckCfg, cfg); err != nil {
			return fmt.Errorf("resume: %w", err)
		}
		if err := loadMoment(tr.Opt.V, ckFile, "adam.v", ckCfg, cfg); err != nil {
			return fmt.Errorf("resume: %w", err)
		}
		tr.Opt.Step = ck.Step
		s.printf("resumed at update %d (epoch %d, batch %d), %.1f h trained before\n", ck.Step, ck.Epoch, ck.BatchPos, ck.Elapsed/3600)
		if opt.NewData {
			s.meta.Train, s.meta.NumUtts = opt.Train, len(all)
			s.meta.Epoch, s.meta.BatchPos = s.meta.Epoch+1, 0
			s.printf("new training data: starting pass %d over it\n", s.meta.Epoch)
		}
	} else {
		s.meta = checkpointMeta{Format: checkpointFormat, Run: run, Train: opt.Train, NumUtts: len(all)}
	}
	s.meta.Model.Training.Data = opt.Train
	s.meta.Model.Training.Hours = math.Round(hours*100) / 100
	s.printf("training on %.2f h (%d utterances), %d dev utterances, %d parameters\n", hours, len(s.utts), len(s.dev), len(p.Data))
	return nil
}

// loadMoment copies the checkpoint's Adam moment name, laid out for the
// checkpoint's config from, into dst, laid out for cfg: with zeros at the
// new units' places when the encoder has been widened.
func loadMoment(dst []float32, f *modelfile.File, name string, from, cfg model.Config) error {
	d, err := f.Tensor(name, model.NumParams(from))
	if err != nil {
		return err
	}
	if from.EncHidden != cfg.EncHidden {
		p, err := model.ParamsFromData(from, d)
		if err != nil {
			return err
		}
		if p, err = model.Widen(p, cfg.EncHidden, nil, 0); err != nil {
			return err
		}
		d = p.Data
	}
	copy(dst, d)
	return nil
}

// epochBatches returns the batches of epoch e: the same for a given seed and
// epoch, so that a resumed run continues with the same order.
func (s *state) epochBatches(e int) [][]int {
	rng := rand.New(rand.NewPCG(s.meta.Run.Seed, uint64(e)+1))
	tmp := make([]*Utt, len(s.utts))
	for i, u := range s.utts {
		tmp[i] = &Utt{Frames: u.Frames}
	}
	return Batches(tmp, s.opt.BatchFrames, rng)
}

func (s *state) loop(ctx context.Context) error {
	opt := s.opt
	lastCk := time.Now()
	runStart := time.Now()
	elapsed0 := s.meta.Elapsed
	var acc model.Loss
	var accAudio, accTime float64
	accSteps := 0
	notFinite := 0 // batches left out in a row (model.ErrNotFinite)
	batches := s.epochBatches(s.meta.Epoch)
	for {
		if s.meta.BatchPos >= len(batches) {
			s.meta.Epoch++
			s.meta.BatchPos = 0
			batches = s.epochBatches(s.meta.Epoch)
		}
		stop := ""
		switch {
		case ctx.Err() != nil:
			stop = "interrupted"
		case opt.MaxSteps > 0 && s.meta.Step >= opt.MaxSteps:
			stop = "reached --steps"
		case opt.MaxTime > 0 && time.Since(runStart) >= opt.MaxTime:
			stop = "reached --time"
		}
		if stop != "" {
			s.meta.Elapsed = elapsed0 + time.Since(runStart).Seconds()
			s.printf("\nstopping (%s) at update %d; writing checkpoint\n", stop, s.meta.Step)
			if len(s.dev) > 0 && s.lastEval != s.meta.Step {
				s.evaluate()
			}
			return s.checkpoint()
		}
		b := batches[s.meta.BatchPos]
		batch := make([]model.Utterance, len(b))
		audioSecs := 0.0
		for i, j := range b {
			batch[i] = *s.utts[j]
			audioSecs += s.secs[j]
		}
		t0 := time.Now()
		st, err := s.trainer.TrainStep(batch)
		if errors.Is(err, model.ErrNotFinite) && notFinite < maxNotFinite {
			// One batch whose loss or gradient overflowed is left out, and
			// named, rather than ending hours of training; several in a row
			// mean the weights themselves went wrong.
			notFinite++
			names := make([]string, len(b))
			for i, j := range b {
				names[i] = s.audio[j]
			}
			s.printf("\nwarning: %v; batch %d of epoch %d left out (%d of %d in a row allowed): %s\n",
				err, s.meta.BatchPos, s.meta.Epoch, notFinite, maxNotFinite, strings.Join(names, " "))
			s.writeLog(map[string]any{"kind": "skipped", "step": s.meta.Step, "epoch": s.meta.Epoch,
				"batch": s.meta.BatchPos, "error": err.Error(), "audio": names, "time": time.Now().UTC().Format(time.RFC3339)})
			s.meta.BatchPos++
			continue
		}
		if err != nil {
			return err
		}
		notFinite = 0
		dt := time.Since(t0).Seconds()
		s.meta.BatchPos++
		s.meta.Step = s.trainer.Opt.Step
		s.meta.AudioSecs += audioSecs
		acc.Add(st.Loss)
		accAudio += audioSecs
		accTime += dt
		accSteps++
		if s.meta.Step%opt.LogEvery == 0 {
			chars := math.Max(1, float64(acc.Chars))
			rec := map[string]any{
				"kind": "train", "step": s.meta.Step, "epoch": float64(s.meta.Epoch) + float64(s.meta.BatchPos)/float64(len(batches)),
				"loss": acc.Total / chars, "att": acc.Att / chars, "ctc": acc.CTC / chars,
				"grad_norm": st.GradNorm, "lr": st.LR, "audio_per_s": accAudio / accTime,
				"elapsed": elapsed0 + time.Since(runStart).Seconds(), "time": time.Now().UTC().Format(time.RFC3339),
			}
			s.writeLog(rec)
			s.printf("\rupdate %d  epoch %.2f  loss %.3f (att %.3f ctc %.3f)  lr %.2g  %.0fx real time   ",
				s.meta.Step, rec["epoch"], rec["loss"], rec["att"], rec["ctc"], st.LR, accAudio/accTime)
			acc, accAudio, accTime, accSteps = model.Loss{}, 0, 0, 0
		}
		if opt.EvalEvery > 0 && s.meta.Step%opt.EvalEvery == 0 && len(s.dev) > 0 {
			s.evaluate()
		}
		if time.Since(lastCk) >= opt.CheckpointEvery {
			s.meta.Elapsed = elapsed0 + time.Since(runStart).Seconds()
			if err := s.checkpoint(); err != nil {
				return err
			}
			lastCk = time.Now()
		}
	}
}

func (s *state) writeLog(rec map[string]any) {
	b, _ := json.Marshal(rec)
	s.log.Write(append(b, '\n'))
}

// evaluate decodes the dev set greedily and logs CER, WER, the dev loss and
// the attention sharpness (mean of each step's largest attention weight).
func (s *state) evaluate() {
	t0 := time.Now()
	net := s.bundle.Net
	ws := model.NewWorkspace[float32]()
	var charErr, chars, wordErr, words int
	var loss model.Loss
	sharp, steps := 0.0, 0
	for _, d := range s.dev {
		enc := net.Encode(d.u.Feats, d.u.Frames)
		ids, att := net.Greedy(enc, model.MaxDecodeLen(enc))
		hyp := model.Decode(ids)
		charErr += EditDistance([]rune(d.text), []rune(hyp))
		chars += len([]rune(d.text))
		wordErr += EditDistance(splitWords(d.text), splitWords(hyp))
		words += len(splitWords(d.text))
		for _, row := range att {
			m := float32(0)
			for _, v := range row {
				m = max(m, v)
			}
			sharp += float64(m)
			steps++
		}
		if l, err := ws.ForwardBackward(net.P, d.u.Feats, d.u.Frames, d.u.IDs, nil, nil, false); err == nil {
			loss.Add(l)
		}
	}
	cer := float64(charErr) / math.Max(1, float64(chars))
	wer := float64(wordErr) / math.Max(1, float64(words))
	rec := map[string]any{
		"kind": "dev", "step": s.meta.Step, "dev_cer": cer, "dev_wer": wer,
		"dev_loss":  loss.Total / math.Max(1, float64(loss.Chars)),
		"sharpness": sharp / math.Max(1, float64(steps)), "utts": len(s.dev),
		"seconds": time.Since(t0).Seconds(), "time": time.Now().UTC().Format(time.RFC3339),
	}
	s.meta.Model.Training.DevCER = cer
	s.lastEval = s.meta.Step
	s.writeLog(rec)
	s.printf("\ndev at update %d: CER %.2f%%  WER %.2f%%  loss %.3f  sharpness %.2f (%.0fs)\n",
		s.meta.Step, 100*cer, 100*wer, rec["dev_loss"], rec["sharpness"], time.Since(t0).Seconds())
}

// checkpoint writes checkpoint.heed, model.heed and curves.png, each
// atomically.
func (s *state) checkpoint() error {
	p := s.bundle.Net.P
	s.meta.Model.Training.Steps = s.meta.Step
	s.meta.Model.Training.Seconds = math.Round(s.meta.Elapsed)
	s.meta.Model.Training.Epochs = float64(s.meta.Epoch) + float64(s.meta.BatchPos)/float64(max(1, len(s.epochBatches(s.meta.Epoch))))
	s.meta.Model.Training.Date = time.Now().UTC().Format(time.RFC3339)
	s.bundle.Meta.Training = s.meta.Model.Training
	s.meta.Model = s.bundle.Meta
	s.meta.Model.Format = model.FileFormat
	s.meta.Model.Config = s.bundle.Net.Cfg
	var ts []modelfile.Tensor
	for _, t := range p.Tensors() {
		ts = append(ts, modelfile.Tensor{Name: t.Name, Shape: t.Shape, Data: t.Data})
	}
	ts = append(ts,
		modelfile.Tensor{Name: "adam.m", Shape: []int{len(p.Data)}, Data: s.trainer.Opt.M},
		modelfile.Tensor{Name: "adam.v", Shape: []int{len(p.Data)}, Data: s.trainer.Opt.V})
	if err := modelfile.WriteFile(filepath.Join(s.opt.OutDir, "checkpoint.heed"), s.meta, ts, modelfile.F32); err != nil {
		return err
	}
	if err := s.bundle.Save(filepath.Join(s.opt.OutDir, "model.heed"), modelfile.F32); err != nil {
		return err
	}
	if err := PlotLog(filepath.Join(s.opt.OutDir, "train.jsonl"), filepath.Join(s.opt.OutDir, "curves.png")); err != nil {
		s.printf("\nwarning: plotting curves: %v\n", err)
	}
	s.printf("\ncheckpoint at update %d written to %s\n", s.meta.Step, s.opt.OutDir)
	return nil
}
