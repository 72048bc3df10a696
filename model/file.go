package model

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/heed-asr/heed/features"
	"github.com/heed-asr/heed/internal/kern"
	"github.com/heed-asr/heed/internal/thp"
	"github.com/heed-asr/heed/model/charlm"
	"github.com/heed-asr/heed/model/modelfile"
)

// FileFormat names heed's recognizer models in the model-file header.
const FileFormat = "heed-model"

// Meta is the JSON header of a heed model file: everything besides the
// weights that is needed to run the model, and what it was trained on.
type Meta struct {
	Format   string          `json:"format"`   // FileFormat
	Config   Config          `json:"config"`   // network hyperparameters and vocabulary
	Features features.Config `json:"features"` // filterbank settings the model was trained with
	CMVN     features.CMVN   `json:"cmvn"`     // per-dimension feature normalisation
	Training TrainingInfo    `json:"training"` // provenance
	// LM describes the optional character language model whose tensors
	// are stored with the prefix "lm."; LMWeight is its fusion weight in
	// beam search, tuned on a dev set.
	LM       *charlm.Header `json:"lm,omitempty"`
	LMWeight float64        `json:"lm_weight,omitempty"`
}

// TrainingInfo records how a model was made.
type TrainingInfo struct {
	Data     []string `json:"data,omitempty"`     // training manifests
	Hours    float64  `json:"hours,omitempty"`    // hours of training audio
	Steps    int      `json:"steps"`              // optimizer updates
	Epochs   float64  `json:"epochs,omitempty"`   // passes over the training data
	Seconds  float64  `json:"seconds,omitempty"`  // wall-clock training time
	Date     string   `json:"date,omitempty"`     // RFC 3339 date of the last update
	DevCER   float64  `json:"dev_cer,omitempty"`  // character error rate on the dev set when saved
	Comments string   `json:"comments,omitempty"` // free text
}

// Bundle is a loaded model file: the network and its metadata.
type Bundle struct {
	Meta Meta
	Net  *Model
	// LM is the character language model: nil when there is none or, for
	// a bundle read from a file, until LanguageModel has read it.
	LM *charlm.Model

	lmOnce sync.Once
	lmLoad func() (*charlm.Model, error) // reads the file's LM; nil: none
	lmErr  error

	fbanks sync.Pool // *features.Fbank for Meta.Features, reused by Features
}

// LanguageModel returns the bundle's character language model, nil when it
// has none. A model file's language model is read on first use, not by
// LoadFile: only decoding with it needs it, and building its tables is most
// of a model's loading time. It is safe for concurrent use.
func (b *Bundle) LanguageModel() (*charlm.Model, error) {
	b.lmOnce.Do(func() {
		if b.LM == nil && b.lmLoad != nil {
			b.LM, b.lmErr = b.lmLoad()
		}
	})
	return b.LM, b.lmErr
}

// lmPrefix prefixes the language model's tensor names in a model file.
const lmPrefix = "lm."

// isLM reports whether a model file's tensor is the language model's.
func isLM(name string) bool { return strings.HasPrefix(name, lmPrefix) }

// Save writes b to path atomically (a temp file renamed into place) with the
// given tensor storage type.
func (b *Bundle) Save(path string, dtype modelfile.DType) error {
	b.Meta.Format = FileFormat
	b.Meta.Config = b.Net.Cfg
	b.Net.Materialize()
	ts := b.Net.P.Tensors()
	out := make([]modelfile.Tensor, len(ts))
	for i, t := range ts {
		out[i] = modelfile.Tensor{Name: t.Name, Shape: t.Shape, Data: t.Data}
	}
	b.Meta.LM = nil
	lm, err := b.LanguageModel()
	if err != nil {
		return err
	}
	if lm != nil {
		h, lts := lm.Export(lmPrefix) // small integers and probabilities: f16 is fine
		b.Meta.LM = &h
		out = append(out, lts...)
	}
	return modelfile.WriteFile(path, b.Meta, out, dtype)
}

// LoadFile reads a model file from path and checks it completely (SHA-256
// included) before using any of it. Tensors are converted from the file's
// storage type as they are needed: the language model's only when
// LanguageModel is first called.
func LoadFile(path string) (*Bundle, error) {
	f, err := modelfile.OpenFile(path)
	if err != nil {
		return nil, err
	}
	b, err := fromFile(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

// LoadBytes reads a model file held in memory, checked as by LoadFile.
func LoadBytes(data []byte) (*Bundle, error) {
	f, err := modelfile.OpenBytes(data)
	if err != nil {
		return nil, err
	}
	return fromFile(f)
}

// LoadTrusted is LoadBytes without the SHA-256 of the data, for a model
// whose integrity is assured otherwise: one embedded in the executable,
// whose tests check it completely. Every other check stays. Hashing the
// shipped model's 25 MB would cost more than aligning a short file.
func LoadTrusted(data []byte) (*Bundle, error) {
	f, err := modelfile.OpenTrusted(data)
	if err != nil {
		return nil, err
	}
	return fromFile(f)
}

func fromFile(f *modelfile.Lazy) (*Bundle, error) {
	var meta Meta
	if err := json.Unmarshal(f.Header, &meta); err != nil {
		return nil, fmt.Errorf("model header: %w", err)
	}
	if err := validateMeta(&meta, f); err != nil {
		return nil, err
	}
	p := NewParams[float32](meta.Config)
	ts := p.Tensors()
	var lmLoad func() (*charlm.Model, error)
	lmTensors := 0
	if meta.LM != nil {
		h := *meta.LM
		lmLoad = func() (*charlm.Model, error) {
			thp.Populate(f.Span(isLM))
			lm, err := charlm.ImportFloat16(h, lmPrefix, f.Tensor, f.Float16)
			if err != nil {
				return nil, fmt.Errorf("model language model: %w", err)
			}
			if lm.Alphabet() != lmAlphabet() {
				return nil, fmt.Errorf("model language model alphabet %q, want %q", lm.Alphabet(), lmAlphabet())
			}
			return lm, nil
		}
	}
	stored := f.Tensors()
	for _, t := range stored {
		if meta.LM != nil && isLM(t.Name) {
			lmTensors++
		}
	}
	if len(stored)-lmTensors != len(ts) {
		return nil, fmt.Errorf("model has %d network tensors, config %+v needs %d", len(stored)-lmTensors, meta.Config, len(ts))
	}
	// The network's tensors are read next (the small ones now, the
	// matrices by every product): map their pages in one call rather than
	// by a fault per 64 KiB read of a model embedded in the executable.
	thp.Populate(f.Span(func(name string) bool { return !isLM(name) }))
	// The network's binary16 copies of its matrices are the file's own
	// bits: no conversion, and for a model in memory no copy.
	names := make(map[*float32]string, len(ts))
	for _, t := range ts {
		if len(t.Data) > 0 {
			names[&t.Data[0]] = t.Name
		}
	}
	float16 := func(w []float32) []uint16 {
		if len(w) == 0 || len(names[&w[0]]) == 0 {
			return nil
		}
		if h := f.Float16(names[&w[0]]); len(h) == len(w) {
			return h
		}
		return nil
	}
	// The matrices that inference reads as binary16 (the encoder's and
	// decoder's, most of the network) stay unconverted until something
	// reads them as float32 (Net.Materialize): converting them would be
	// most of a short command's start-up, and their float32 copies are
	// never read by the products.
	unwidened := map[*float32]bool{}
	ws, ks := halfMatrices(p)
	for i, w := range ws {
		if kern.HalfDirect(ks[i]) && float16(w) != nil {
			unwidened[&w[0]] = true
		}
	}
	var lazy []Tensor[float32]
	for _, t := range ts {
		if len(t.Data) > 0 && unwidened[&t.Data[0]] {
			lazy = append(lazy, t)
			if poisonUnwidened {
				for i := range t.Data {
					t.Data[i] = float32(math.NaN())
				}
			}
			continue
		}
		if err := f.TensorInto(t.Data, t.Name, t.Shape...); err != nil {
			return nil, err
		}
	}
	net := NewNet(p)
	net.Freeze()
	net.float16 = float16
	if len(lazy) > 0 {
		net.unwidened = unwidened
		net.widen = func() {
			for _, t := range lazy {
				kern.HalfToFloat(t.Data, float16(t.Data))
			}
		}
	}
	return &Bundle{Meta: meta, Net: net, lmLoad: lmLoad}, nil
}

// poisonUnwidened, set by tests, fills the matrices a load leaves
// unconverted with NaN, so that any product that reads them as float32
// before Materialize shows.
var poisonUnwidened bool

// validateMeta checks every field of a model file's header against sane
// bounds and the network's tensor shapes against the file's tensors, before
// anything is allocated from the header: a file whose checksum is valid can
// still claim sizes (an FFT of 2^40 points, 100,000 GRU units) that would
// exhaust memory.
func validateMeta(meta *Meta, f *modelfile.Lazy) error {
	if meta.Format != FileFormat {
		return fmt.Errorf("not a heed recognizer model (format %q, want %q)", meta.Format, FileFormat)
	}
	if err := meta.Config.Validate(); err != nil {
		return err
	}
	// heed feeds every model 16 kHz audio; the filterbank bounds come
	// before Features.Validate, which builds the mel triangles.
	fc := meta.Features
	switch {
	case fc.SampleRate != 16000:
		return fmt.Errorf("model features: sample rate %d Hz, heed feeds 16000", fc.SampleRate)
	case fc.FrameLength < 2 || fc.FrameLength > maxFFT:
		return fmt.Errorf("model features: frame length %d samples outside [2, %d]", fc.FrameLength, maxFFT)
	case fc.FFTSize < 2 || fc.FFTSize > maxFFT:
		return fmt.Errorf("model features: FFT size %d outside [2, %d]", fc.FFTSize, maxFFT)
	case fc.FrameShift < 1 || fc.FrameShift > maxFFT:
		return fmt.Errorf("model features: frame shift %d samples outside [1, %d]", fc.FrameShift, maxFFT)
	}
	if fc.NumMel != meta.Config.NumMel {
		return fmt.Errorf("model features have %d mel bins, network expects %d", fc.NumMel, meta.Config.NumMel)
	}
	if err := fc.Validate(); err != nil {
		return fmt.Errorf("model features: %w", err)
	}
	if err := meta.CMVN.Validate(); err != nil {
		return fmt.Errorf("model cmvn: %w", err)
	}
	if meta.CMVN.Dim() != meta.Config.NumMel {
		return fmt.Errorf("model cmvn has %d dimensions, network expects %d", meta.CMVN.Dim(), meta.Config.NumMel)
	}
	if !(meta.LMWeight >= 0 && meta.LMWeight <= 100) {
		return fmt.Errorf("model lm_weight %g outside [0, 100]", meta.LMWeight)
	}
	// The network's tensors, in order, must be the file's first ones with
	// exactly the config's shapes.
	want := TensorShapes(meta.Config)
	tensors := f.Tensors()
	if len(tensors) < len(want) {
		return fmt.Errorf("model has %d tensors, config needs %d for the network", len(tensors), len(want))
	}
	for i, w := range want {
		if got := tensors[i]; got.Name != w.Name || !slices.Equal(got.Shape, w.Shape) {
			return fmt.Errorf("model tensor %d is %q %v, config needs %q %v", i, got.Name, got.Shape, w.Name, w.Shape)
		}
	}
	if h := meta.LM; h != nil {
		stored := 0
		for _, t := range tensors {
			stored += max(1, prod(t.Shape))
		}
		if h.Order < 1 || h.Order > 16 || len(h.NGrams) != h.Order || len(h.Contexts) != h.Order {
			return fmt.Errorf("model language model: order %d with %d and %d counts, want 1..16", h.Order, len(h.NGrams), len(h.Contexts))
		}
		for n := range h.Order {
			if h.NGrams[n] < 0 || h.NGrams[n] > stored || h.Contexts[n] < 0 || h.Contexts[n] > stored {
				return fmt.Errorf("model language model: order %d claims %d n-grams and %d contexts, the file holds %d values", n+1, h.NGrams[n], h.Contexts[n], stored)
			}
		}
	}
	return nil
}

// maxFFT bounds a model's FFT size, frame length and shift in samples
// (4 s at 16 kHz; heed's models use 512, 400 and 160).
const maxFFT = 1 << 16

// lmAlphabet is the runes of tokens 1..V-1 of the vocabulary, the alphabet
// a character language model for this network must use.
func lmAlphabet() string {
	var sb strings.Builder
	for _, t := range DefaultVocab()[1:] {
		sb.WriteString(t)
	}
	return sb.String()
}

// TrainLM trains a character n-gram language model of the given order on
// lines of spoken-form text, over the network's alphabet, for shallow
// fusion in beam search. N-grams longer than 3 characters seen fewer than
// minCount times are pruned (minCount ≤ 1 keeps all).
func TrainLM(lines []string, order, minCount int) (*charlm.Model, error) {
	return charlm.TrainConfig(lines, charlm.Config{Alphabet: lmAlphabet(), Order: order, PruneAbove: 3, MinCount: minCount})
}
