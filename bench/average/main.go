// Command average writes a model whose every network weight is the mean of
// the same weight in several models or training checkpoints of one
// configuration: the ends of successive cosine cycles of one training run
// (snapshot averaging, as in Izmailov et al. 2018, "Averaging weights leads
// to wider optima and better generalization").
//
//	go run ./bench/average -out avg.heed run20/model.heed run21/checkpoint.heed
//
// Each input is a model file (heed train's model.heed, a shipped model) or
// a checkpoint (checkpoint.heed: the same network tensors beside Adam's
// moments). The output takes the header of the first input (features,
// normalisation, provenance, with the inputs named in its comments) and no
// language model: add one with heed lm. It is written in float32,
// atomically. -weights gives one weight per input (normalised to sum 1);
// by default they weigh the same.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"github.com/heed-asr/heed/model"
	"github.com/heed-asr/heed/model/modelfile"
)

func main() {
	out := flag.String("out", "", "output model file (required)")
	weights := flag.String("weights", "", "comma-separated weight per input (default: equal)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: average -out OUT [-weights W,...] MODEL_OR_CHECKPOINT...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *out == "" || flag.NArg() < 1 {
		flag.Usage()
		os.Exit(2)
	}
	w, err := parseWeights(*weights, flag.NArg())
	if err == nil {
		err = average(*out, flag.Args(), w)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "average:", err)
		os.Exit(1)
	}
}

// parseWeights returns n weights summing to 1: s's, or equal ones when s
// is empty.
func parseWeights(s string, n int) ([]float64, error) {
	w := make([]float64, n)
	if s == "" {
		for i := range w {
			w[i] = 1 / float64(n)
		}
		return w, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) != n {
		return nil, fmt.Errorf("-weights has %d values for %d inputs", len(parts), n)
	}
	sum := 0.0
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || !(v >= 0) {
			return nil, fmt.Errorf("-weights: %q is not a weight (a number at least 0)", p)
		}
		w[i] = v
		sum += v
	}
	if !(sum > 0) {
		return nil, errors.New("-weights sum to 0")
	}
	for i := range w {
		w[i] /= sum
	}
	return w, nil
}

// average writes to out the weighted mean of the networks in paths.
func average(out string, paths []string, w []float64) error {
	var meta model.Meta
	var sum []float64
	var p *model.Params[float32]
	for i, path := range paths {
		m, net, err := readNet(path)
		if err != nil {
			return err
		}
		if i == 0 {
			meta = m
			p = net
			sum = make([]float64, len(net.Data))
		} else if !reflect.DeepEqual(m.Config, meta.Config) {
			return fmt.Errorf("%s: configuration differs from %s's", path, paths[0])
		}
		for j, v := range net.Data {
			sum[j] += w[i] * float64(v)
		}
	}
	for j, v := range sum {
		p.Data[j] = float32(v)
	}
	names := make([]string, len(paths))
	for i, path := range paths {
		names[i] = fmt.Sprintf("%s (%.3g)", filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), w[i])
	}
	meta.LM, meta.LMWeight = nil, 0
	meta.Training.Comments = strings.TrimSpace(meta.Training.Comments + " weights averaged over " + strings.Join(names, ", "))
	b := &model.Bundle{Meta: meta, Net: model.NewNet(p)}
	return b.Save(out, modelfile.F32)
}

// readNet reads the header and network weights of a model file or a
// training checkpoint.
func readNet(path string) (model.Meta, *model.Params[float32], error) {
	var meta model.Meta
	f, err := modelfile.OpenFile(path)
	if err != nil {
		return meta, nil, err
	}
	var hdr struct {
		Format string          `json:"format"`
		Model  json.RawMessage `json:"model"` // a checkpoint's model header
	}
	if err := json.Unmarshal(f.Header, &hdr); err != nil {
		return meta, nil, fmt.Errorf("%s: header: %w", path, err)
	}
	raw := json.RawMessage(f.Header)
	if hdr.Format != model.FileFormat && len(hdr.Model) > 0 {
		raw = hdr.Model
	}
	if err := json.Unmarshal(raw, &meta); err != nil || meta.Format != model.FileFormat {
		return meta, nil, fmt.Errorf("%s: neither a heed model nor a checkpoint", path)
	}
	p := model.NewParams[float32](meta.Config)
	for _, t := range p.Tensors() {
		if err := f.TensorInto(t.Data, t.Name, t.Shape...); err != nil {
			return meta, nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return meta, p, nil
}
