// Command resign rewrites fields of a heed model file's JSON header and
// signs the result again (SHA-256 trailer), so that tests can hold model
// files that pass the checksum but lie in their header.
//
// Usage:
//
//	go run ./testdata/bad/resign -tiny OUT              # write the untrained tiny base model
//	go run ./testdata/bad/resign -set PATH=JSON... IN OUT
//
// PATH is a dotted path into the header object ({"meta": ..., "payload_bytes":
// ..., "tensors": [...]}), e.g. meta.features.fft_size or tensors.0.shape;
// JSON is the new value, e.g. 1099511627776 or "f64" or [1,2]. The payload
// is copied unchanged; the header is padded with spaces so that the payload
// stays 8-byte aligned, and the header length and checksum are rewritten.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/heed-asr/heed/features"
	"github.com/heed-asr/heed/model"
	"github.com/heed-asr/heed/model/modelfile"
)

type sets []string

func (s *sets) String() string     { return strings.Join(*s, " ") }
func (s *sets) Set(v string) error { *s = append(*s, v); return nil }

func main() {
	var edits sets
	flag.Var(&edits, "set", "PATH=JSON: set a header field (repeatable)")
	tiny := flag.Bool("tiny", false, "write the untrained tiny base model to OUT")
	flag.Parse()
	var err error
	switch {
	case *tiny && flag.NArg() == 1:
		err = writeTiny(flag.Arg(0))
	case !*tiny && flag.NArg() == 2:
		err = resign(flag.Arg(0), flag.Arg(1), edits)
	default:
		flag.Usage()
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "resign: %v\n", err)
		os.Exit(1)
	}
}

// writeTiny saves a working but untrained model of a few kilobytes: 20 mel
// bins, no frame stacking, 8 GRU units (seed 1, identity CMVN), in f16.
func writeTiny(path string) error {
	cfg := model.DefaultConfig()
	cfg.NumMel, cfg.Stack = 20, 1
	cfg.EncLayers, cfg.EncHidden = 1, 8
	cfg.EmbedDim, cfg.DecHidden, cfg.AttDim = 4, 8, 8
	cfg.ConvFilters, cfg.ConvWidth = 2, 5
	fc := features.DefaultConfig()
	fc.NumMel = cfg.NumMel
	cmvn := features.CMVN{Mean: make([]float32, cfg.NumMel), Std: make([]float32, cfg.NumMel)}
	for i := range cmvn.Std {
		cmvn.Std[i] = 1
	}
	b := &model.Bundle{
		Net:  model.NewNet(model.InitParams[float32](cfg, 1)),
		Meta: model.Meta{Features: fc, CMVN: cmvn},
	}
	return b.Save(path, modelfile.F16)
}

func resign(in, out string, edits []string) error {
	data, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	if len(data) < 16+sha256.Size || string(data[:8]) != modelfile.Magic {
		return errors.New(in + ": not a heed model file")
	}
	hlen := int(binary.LittleEndian.Uint32(data[12:]))
	if 16+hlen > len(data)-sha256.Size {
		return errors.New(in + ": header length beyond the file")
	}
	var hdr any
	dec := json.NewDecoder(bytes.NewReader(data[16 : 16+hlen]))
	dec.UseNumber()
	if err := dec.Decode(&hdr); err != nil {
		return fmt.Errorf("%s: header: %w", in, err)
	}
	for _, e := range edits {
		path, val, ok := strings.Cut(e, "=")
		if !ok {
			return fmt.Errorf("-set %q: want PATH=JSON", e)
		}
		var v any
		d := json.NewDecoder(strings.NewReader(val))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			return fmt.Errorf("-set %q: value: %w", e, err)
		}
		if err := set(hdr, strings.Split(path, "."), v); err != nil {
			return fmt.Errorf("-set %q: %w", e, err)
		}
	}
	js, err := json.Marshal(hdr)
	if err != nil {
		return err
	}
	if pad := (16 + len(js)) % 8; pad != 0 {
		js = append(js, bytes.Repeat([]byte{' '}, 8-pad)...)
	}
	payload := data[16+hlen : len(data)-sha256.Size]
	var buf bytes.Buffer
	buf.Write(data[:12])
	binary.Write(&buf, binary.LittleEndian, uint32(len(js)))
	buf.Write(js)
	buf.Write(payload)
	sum := sha256.Sum256(buf.Bytes())
	buf.Write(sum[:])
	return os.WriteFile(out, buf.Bytes(), 0o644)
}

// set stores v at path inside the decoded JSON value x.
func set(x any, path []string, v any) error {
	for i, key := range path {
		last := i == len(path)-1
		switch c := x.(type) {
		case map[string]any:
			if last {
				c[key] = v
				return nil
			}
			x = c[key]
		case []any:
			n, err := strconv.Atoi(key)
			if err != nil || n < 0 || n >= len(c) {
				return fmt.Errorf("index %q out of range", key)
			}
			if last {
				c[n] = v
				return nil
			}
			x = c[n]
		default:
			return fmt.Errorf("%q: not an object or array", strings.Join(path[:i+1], "."))
		}
	}
	return errors.New("empty path")
}
