package main

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heed-asr/heed/features"
	"github.com/heed-asr/heed/model"
	"github.com/heed-asr/heed/model/modelfile"
)

// TestAverage averages a model file and a checkpoint (its network tensors
// beside Adam's moments, the model header inside the checkpoint's) with
// weights 1 and 3, and checks every weight of the result against the mean
// and the header against the first input's.
func TestAverage(t *testing.T) {
	dir := t.TempDir()
	cfg := model.DefaultConfig()
	cfg.EncHidden, cfg.DecHidden, cfg.AttDim, cfg.EmbedDim = 8, 8, 8, 4
	cmvn := features.CMVN{Mean: make([]float32, cfg.NumMel), Std: make([]float32, cfg.NumMel)}
	for i := range cmvn.Std {
		cmvn.Mean[i], cmvn.Std[i] = float32(i), 1
	}
	meta := model.Meta{Config: cfg, Features: features.DefaultConfig(), CMVN: cmvn, Training: model.TrainingInfo{Steps: 7}}
	a := model.InitParams[float32](cfg, 1)
	b := model.InitParams[float32](cfg, 2)
	pa := filepath.Join(dir, "a.heed")
	if err := (&model.Bundle{Meta: meta, Net: model.NewNet(a)}).Save(pa, modelfile.F32); err != nil {
		t.Fatal(err)
	}
	meta.Format = model.FileFormat
	var ts []modelfile.Tensor
	for _, tn := range b.Tensors() {
		ts = append(ts, modelfile.Tensor{Name: tn.Name, Shape: tn.Shape, Data: tn.Data})
	}
	ts = append(ts, modelfile.Tensor{Name: "adam.m", Shape: []int{len(b.Data)}, Data: make([]float32, len(b.Data))})
	ck := struct {
		Format string     `json:"format"`
		Model  model.Meta `json:"model"`
	}{"heed-checkpoint", meta}
	pb := filepath.Join(dir, "checkpoint.heed")
	if err := modelfile.WriteFile(pb, ck, ts, modelfile.F32); err != nil {
		t.Fatal(err)
	}
	w, err := parseWeights("1,3", 2)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "avg.heed")
	if err := average(out, []string{pa, pb}, w); err != nil {
		t.Fatal(err)
	}
	got, err := model.LoadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got.Net.Materialize()
	for i, v := range got.Net.P.Data {
		want := 0.25*float64(a.Data[i]) + 0.75*float64(b.Data[i])
		if math.Abs(float64(v)-want) > 1e-6 {
			t.Fatalf("weight %d = %g, want %g", i, v, want)
		}
	}
	if got.Meta.Training.Steps != 7 || !strings.Contains(got.Meta.Training.Comments, "checkpoint.heed (0.75)") {
		t.Errorf("header training %+v, want the first input's with the inputs named", got.Meta.Training)
	}
	if got.LM != nil || got.Meta.LM != nil {
		t.Error("the average has a language model")
	}
}

func TestAverageRejects(t *testing.T) {
	if _, err := parseWeights("1,x", 2); err == nil {
		t.Error("parseWeights accepted x")
	}
	if _, err := parseWeights("1", 2); err == nil {
		t.Error("parseWeights accepted one weight for two inputs")
	}
	if _, err := parseWeights("0,0", 2); err == nil {
		t.Error("parseWeights accepted weights summing to 0")
	}
	dir := t.TempDir()
	if err := average(filepath.Join(dir, "o.heed"), []string{filepath.Join(dir, "missing.heed")}, []float64{1}); err == nil {
		t.Error("average of a missing file succeeded")
	}
}
