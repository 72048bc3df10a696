package model

import (
	"bytes"
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"

	"github.com/heed-asr/heed/model/modelfile"
)

// FuzzLoadBytes feeds LoadBytes model files whose container is valid (the
// fuzzer mutates the header JSON and tensors, and the checksum is repaired)
// as well as raw bytes. It must never panic, nor must reading the language
// model of what loads; whatever loads must be consistent.
func FuzzLoadBytes(f *testing.F) {
	b := testBundle(f)
	var buf bytes.Buffer
	ts := b.Net.P.Tensors()
	out := make([]modelfile.Tensor, len(ts))
	for i, t := range ts {
		out[i] = modelfile.Tensor{Name: t.Name, Shape: t.Shape, Data: t.Data}
	}
	b.Meta.Format = FileFormat
	if err := modelfile.Write(&buf, b.Meta, out, modelfile.F16); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte("HEEDMDL\x00"))
	// The catalogue's checksum-valid model files with a header field out
	// of bounds (testdata/bad/models, see its README).
	hostile, err := filepath.Glob(filepath.Join("..", "testdata", "bad", "models", "*.heed"))
	if err != nil || len(hostile) < 30 {
		f.Fatalf("hostile models: %d files, %v", len(hostile), err)
	}
	for _, path := range hostile {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, in := range [][]byte{data, repairChecksum(data)} {
			got, err := LoadBytes(in)
			if err != nil {
				continue
			}
			if err := got.Meta.Config.Validate(); err != nil {
				t.Fatalf("loaded a model with an invalid config: %v", err)
			}
			if got.Meta.CMVN.Dim() != got.Net.Cfg.NumMel {
				t.Fatalf("loaded CMVN of %d dims for %d mel bins", got.Meta.CMVN.Dim(), got.Net.Cfg.NumMel)
			}
			got.LanguageModel() // read on first use: an error, never a panic
		}
	})
}

// repairChecksum recomputes the SHA-256 trailer of a model file so that
// mutations reach the checks behind it.
func repairChecksum(data []byte) []byte {
	if len(data) < 32 {
		return data
	}
	body := data[:len(data)-32]
	sum := sha256.Sum256(body)
	return append(append([]byte(nil), body...), sum[:]...)
}
