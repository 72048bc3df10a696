package train

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heed-asr/heed/audio"
	"github.com/heed-asr/heed/model"
	"github.com/heed-asr/heed/model/modelfile"
)

// tinyManifest writes three short tone-and-noise utterances and their
// manifest into dir and returns the manifest's path.
func tinyManifest(t *testing.T, dir string) string {
	t.Helper()
	var lines string
	for i, text := range []string{"a", "b c", "d"} {
		x := make([]float32, 8000+2400*i)
		seed := uint32(i + 1)
		for k := range x {
			seed = seed*1664525 + 1013904223
			x[k] = float32(0.1*math.Sin(float64(k)*float64(i+3)/50) + 0.01*(float64(seed>>8)/(1<<24)-0.5))
		}
		var b bytes.Buffer
		if err := audio.WriteWAV(&b, x, 16000); err != nil {
			t.Fatal(err)
		}
		name := string(rune('a'+i)) + ".wav"
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		lines += `{"audio":"` + name + `","text":"` + text + `"}` + "\n"
	}
	man := filepath.Join(dir, "m.jsonl")
	if err := os.WriteFile(man, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	return man
}

// logRecords reads dir's train.jsonl records of kind.
func logRecords(t *testing.T, dir, kind string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "train.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		if r["kind"] == kind {
			recs = append(recs, r)
		}
	}
	return recs
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// closeRel reports whether float32 sums a and b agree to 1e-6 relatively.
func closeRel(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(a)) }

// TestResumeWiden trains two updates, then resumes twice from that
// checkpoint: once widening the encoder from 8 to 12 units, once not. The
// widened run's dev loss before any update, and its training loss at the
// first update after widening, equal the unwidened run's; its checkpoint
// has the new shape, Adam moments widened with zeros, and the same update
// counter, and resumes again.
func TestResumeWiden(t *testing.T) {
	root := t.TempDir()
	man := tinyManifest(t, root)
	cfg := model.DefaultConfig()
	cfg.EncLayers, cfg.EncHidden, cfg.EmbedDim, cfg.DecHidden, cfg.AttDim = 2, 8, 8, 16, 16
	cfg.Dropout = 0 // dropout masks are drawn per encoder unit, so they change with the width
	opt := Options{
		Train: []string{man}, Dev: man, OutDir: filepath.Join(root, "wide"),
		Model: cfg,
		Run: model.TrainConfig{Workers: 1, Seed: 1, Adam: model.DefaultAdam(), ClipNorm: 5,
			Schedule: model.Schedule{Peak: 1e-3, Warmup: 2, Decay: "inv_sqrt"}},
		BatchFrames: 2000, MaxSteps: 2, CheckpointEvery: time.Hour, LogEvery: 1, Jobs: 1,
	}
	run := func(o Options) {
		t.Helper()
		if err := Run(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
	run(opt)
	narrow := opt
	narrow.OutDir = filepath.Join(root, "narrow")
	copyDir(t, opt.OutDir, narrow.OutDir)
	old, err := modelfile.ReadFile(filepath.Join(opt.OutDir, "checkpoint.heed"))
	if err != nil {
		t.Fatal(err)
	}

	// Resume at update 2 and stop there: the dev set is evaluated before
	// any update, and a checkpoint is written.
	wide := opt
	wide.Resume, wide.WidenEnc = true, 12
	run(wide)
	narrow.Resume = true
	run(narrow)
	wd, nd := logRecords(t, wide.OutDir, "dev"), logRecords(t, narrow.OutDir, "dev")
	if len(wd) != 2 || len(nd) != 2 || wd[1]["step"] != 2.0 {
		t.Fatalf("dev records %v and %v, want two at update 2", wd, nd)
	}
	for _, k := range []string{"dev_loss", "dev_cer", "sharpness"} {
		w, n := wd[1][k].(float64), nd[1][k].(float64)
		if !closeRel(w, n) || !closeRel(w, wd[0][k].(float64)) {
			t.Errorf("%s right after widening %.9g, unwidened %.9g, before %.9g", k, w, n, wd[0][k])
		}
	}

	ck, err := modelfile.ReadFile(filepath.Join(wide.OutDir, "checkpoint.heed"))
	if err != nil {
		t.Fatal(err)
	}
	var meta checkpointMeta
	if err := json.Unmarshal(ck.Header, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Step != 2 || meta.Model.Config.EncHidden != 12 {
		t.Fatalf("widened checkpoint at update %d with %d units, want 2 and 12", meta.Step, meta.Model.Config.EncHidden)
	}
	wcfg := meta.Model.Config
	for _, name := range []string{"adam.m", "adam.v"} {
		before, err := old.Tensor(name, model.NumParams(cfg))
		if err != nil {
			t.Fatal(err)
		}
		p, err := model.ParamsFromData(cfg, before)
		if err != nil {
			t.Fatal(err)
		}
		want, err := model.Widen(p, 12, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ck.Tensor(name, model.NumParams(wcfg))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want.Data) {
			t.Errorf("%s is not the old moment widened with zeros", name)
		}
	}

	// One update more on each: the same batch gives the same loss.
	wide.WidenEnc, wide.MaxSteps, narrow.MaxSteps = 0, 3, 3
	run(wide)
	run(narrow)
	wt, nt := logRecords(t, wide.OutDir, "train"), logRecords(t, narrow.OutDir, "train")
	if len(wt) != 3 || len(nt) != 3 || wt[2]["step"] != 3.0 {
		t.Fatalf("train records %v and %v, want updates 1-3", wt, nt)
	}
	if w, n := wt[2]["loss"].(float64), nt[2]["loss"].(float64); !closeRel(w, n) {
		t.Errorf("loss at the first update after widening %.9g, unwidened %.9g", w, n)
	}
	b, err := model.LoadFile(filepath.Join(wide.OutDir, "model.heed"))
	if err != nil {
		t.Fatal(err)
	}
	if b.Net.Cfg.EncHidden != 12 || b.Meta.Training.Steps != 3 {
		t.Fatalf("model.heed has %d units after %d updates, want 12 and 3", b.Net.Cfg.EncHidden, b.Meta.Training.Steps)
	}
	// The update reached the weights that read the new units.
	moved := false
	for v := 0; v < wcfg.V(); v++ {
		for u := 8; u < 12; u++ {
			moved = moved || b.Net.P.CTCW[v*24+u] != 0 || b.Net.P.CTCW[v*24+12+u] != 0
		}
	}
	if !moved {
		t.Error("the CTC weights reading the new units did not move")
	}

	// Widening to the width it has is a no-op; fewer units and a widening
	// with nothing to widen are errors.
	wide.WidenEnc, wide.MaxSteps = 12, 3
	run(wide)
	wide.WidenEnc = 10
	if err := Run(context.Background(), wide); err == nil || !strings.Contains(err.Error(), "cannot remove") {
		t.Errorf("narrowing: err %v", err)
	}
	fresh := opt
	fresh.OutDir, fresh.WidenEnc = filepath.Join(root, "fresh"), 12
	if err := Run(context.Background(), fresh); err == nil || !strings.Contains(err.Error(), "--resume or --init") {
		t.Errorf("widening without a model: err %v", err)
	}
}

// TestListedTwiceShares trains three updates on a manifest listed twice,
// once as the same path (its features loaded once and shared) and once as
// a copy under another name (loaded twice), with VTLP on: the losses and
// the weights must be the same to the bit, which they are not if the
// shared features were normalised or warped twice.
func TestListedTwiceShares(t *testing.T) {
	root := t.TempDir()
	man := tinyManifest(t, root)
	// Mark every clip augmented, so that VTLP warps it in place.
	b, err := os.ReadFile(man)
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.ReplaceAll(b, []byte(`"}`), []byte(`","aug":"speed"}`))
	if err := os.WriteFile(man, b, 0o644); err != nil {
		t.Fatal(err)
	}
	dup := filepath.Join(root, "copy.jsonl")
	if err := os.WriteFile(dup, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := model.DefaultConfig()
	cfg.EncLayers, cfg.EncHidden, cfg.EmbedDim, cfg.DecHidden, cfg.AttDim = 1, 8, 8, 16, 16
	opt := Options{
		Model: cfg, VTLP: 0.1,
		Run: model.TrainConfig{Workers: 1, Seed: 1, Adam: model.DefaultAdam(), ClipNorm: 5,
			Schedule: model.Schedule{Peak: 1e-3, Warmup: 2, Decay: "inv_sqrt"}},
		BatchFrames: 2000, MaxSteps: 3, CheckpointEvery: time.Hour, LogEvery: 1, Jobs: 1,
	}
	shared, copied := opt, opt
	shared.Train, shared.OutDir = []string{man, man}, filepath.Join(root, "shared")
	copied.Train, copied.OutDir = []string{man, dup}, filepath.Join(root, "copied")
	for _, o := range []Options{shared, copied} {
		if err := Run(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
	st, ct := logRecords(t, shared.OutDir, "train"), logRecords(t, copied.OutDir, "train")
	if len(st) != 3 || len(ct) != 3 {
		t.Fatalf("train records: %d shared, %d copied, want 3 each", len(st), len(ct))
	}
	for i := range st {
		if st[i]["loss"] != ct[i]["loss"] {
			t.Errorf("update %d: loss %v shared, %v copied", i+1, st[i]["loss"], ct[i]["loss"])
		}
	}
	sm, err := model.LoadFile(filepath.Join(shared.OutDir, "model.heed"))
	if err != nil {
		t.Fatal(err)
	}
	cm, err := model.LoadFile(filepath.Join(copied.OutDir, "model.heed"))
	if err != nil {
		t.Fatal(err)
	}
	sm.Net.Materialize()
	cm.Net.Materialize()
	if !slices.Equal(sm.Net.P.Data, cm.Net.P.Data) {
		t.Error("the weights differ between the shared and the copied listing")
	}
	if sm.Meta.CMVN.Mean[0] != cm.Meta.CMVN.Mean[0] {
		t.Errorf("CMVN mean %v shared, %v copied", sm.Meta.CMVN.Mean[0], cm.Meta.CMVN.Mean[0])
	}
}
