// Package model is heed's neural network: a bidirectional-GRU encoder over
// stacked log-mel frames, a CTC head on the encoder outputs, and a
// location-aware attention decoder (Chorowski et al. 2015) with an optional
// local window around the median of the previous alignment (Bahdanau et al.
// 2016).
//
// Everything numeric is generic over kern.Float: float32 is the production
// type, float64 exists so that every backward pass can be checked against
// central finite differences. Each layer lives in its own file as an adjacent
// xxxForward/xxxBackward pair with a cache struct (llm.c style); backward
// passes add into gradients (+=).
//
// Parameters are one flat slice with named views in a fixed order (see
// NewParams); that order is the model-file tensor order. Gradients and Adam
// moments share the layout.
//
// Shapes are written (rows, cols), row-major. T is the number of encoder
// frames (stacked 10 ms frames, 30 ms each by default), H the encoder hidden
// size per direction, D the decoder hidden size, A the attention size, V the
// vocabulary size, N the number of decoder output steps.
package model

import (
	"errors"
	"fmt"
)

// Config holds the network's hyperparameters. It is stored in the model file
// as JSON.
type Config struct {
	NumMel      int `json:"num_mel"`      // log-mel bins per 10 ms input frame
	Stack       int `json:"stack"`        // consecutive input frames stacked into one encoder frame
	EncLayers   int `json:"enc_layers"`   // bidirectional GRU layers
	EncHidden   int `json:"enc_hidden"`   // GRU units per direction (encoder output is 2*EncHidden)
	EmbedDim    int `json:"embed_dim"`    // decoder character embedding size
	DecHidden   int `json:"dec_hidden"`   // decoder GRU and output-layer size
	AttDim      int `json:"att_dim"`      // attention MLP size
	ConvFilters int `json:"conv_filters"` // location-feature convolution filters
	ConvWidth   int `json:"conv_width"`   // location-feature convolution width in encoder frames (odd)

	// WindowLeft and WindowRight bound the local attention window in encoder
	// frames around the median m of the previous alignment: [m-WindowLeft,
	// m+WindowRight].
	WindowLeft  int  `json:"window_left"`
	WindowRight int  `json:"window_right"`
	TrainWindow bool `json:"train_window"` // use the window in training (default: full attention)
	// DecodeWindow uses the window in Step and Greedy (default on);
	// ForceAlign follows TrainWindow.
	DecodeWindow bool `json:"decode_window"`

	CTCWeight      float64 `json:"ctc_weight"`      // λ in (1-λ)·attention CE + λ·CTC
	LabelSmoothing float64 `json:"label_smoothing"` // ε of the attention cross-entropy
	Dropout        float64 `json:"dropout"`         // drop probability on encoder outputs between layers (training)

	Vocab []string `json:"vocab"` // output tokens; must equal DefaultVocab()
}

// DefaultConfig returns the configuration that trained well in the reference
// PyTorch experiment.
func DefaultConfig() Config {
	return Config{
		NumMel:         80,
		Stack:          3,
		EncLayers:      3,
		EncHidden:      128,
		EmbedDim:       64,
		DecHidden:      256,
		AttDim:         128,
		ConvFilters:    10,
		ConvWidth:      31,
		WindowLeft:     4,
		WindowRight:    24,
		TrainWindow:    false,
		DecodeWindow:   true,
		CTCWeight:      0.3,
		LabelSmoothing: 0.1,
		Dropout:        0.1,
		Vocab:          DefaultVocab(),
	}
}

// InputDim is the encoder input size Stack*NumMel.
func (c *Config) InputDim() int { return c.Stack * c.NumMel }

// EncDim is the encoder output size 2*EncHidden.
func (c *Config) EncDim() int { return 2 * c.EncHidden }

// V is the vocabulary size.
func (c *Config) V() int { return len(c.Vocab) }

// EncFrames is the number of encoder frames for frames input frames:
// ceil(frames/Stack).
func (c *Config) EncFrames(frames int) int { return (frames + c.Stack - 1) / c.Stack }

// Bounds on Config sizes: far above any model heed trains (256 units, 3
// layers), low enough that no valid config asks for absurd memory.
const (
	maxDim    = 4096 // any width: num_mel, hidden sizes, filters, conv width, window
	maxLayers = 32   // enc_layers and stack
)

// Validate reports the first invalid field.
func (c *Config) Validate() error {
	pos := []struct {
		name string
		v    int
	}{
		{"num_mel", c.NumMel}, {"stack", c.Stack}, {"enc_layers", c.EncLayers},
		{"enc_hidden", c.EncHidden}, {"embed_dim", c.EmbedDim}, {"dec_hidden", c.DecHidden},
		{"att_dim", c.AttDim}, {"conv_filters", c.ConvFilters}, {"conv_width", c.ConvWidth},
	}
	for _, p := range pos {
		if p.v <= 0 {
			return fmt.Errorf("model: config %s = %d, must be positive", p.name, p.v)
		}
		if p.v > maxDim {
			return fmt.Errorf("model: config %s = %d, at most %d", p.name, p.v, maxDim)
		}
	}
	if c.EncLayers > maxLayers || c.Stack > maxLayers {
		return fmt.Errorf("model: config enc_layers = %d and stack = %d, at most %d", c.EncLayers, c.Stack, maxLayers)
	}
	if c.WindowLeft > maxDim || c.WindowRight > maxDim {
		return fmt.Errorf("model: config window [%d, %d], at most %d", c.WindowLeft, c.WindowRight, maxDim)
	}
	if c.ConvWidth%2 == 0 {
		return fmt.Errorf("model: config conv_width = %d, must be odd", c.ConvWidth)
	}
	if c.WindowLeft < 0 || c.WindowRight < 0 {
		return fmt.Errorf("model: config window [%d, %d] must be non-negative", c.WindowLeft, c.WindowRight)
	}
	if (c.TrainWindow || c.DecodeWindow) && c.WindowLeft+c.WindowRight == 0 {
		return errors.New("model: config window enabled but window_left+window_right = 0")
	}
	if !(c.CTCWeight >= 0 && c.CTCWeight <= 1) {
		return fmt.Errorf("model: config ctc_weight = %g, must be in [0, 1]", c.CTCWeight)
	}
	if !(c.LabelSmoothing >= 0 && c.LabelSmoothing < 1) {
		return fmt.Errorf("model: config label_smoothing = %g, must be in [0, 1)", c.LabelSmoothing)
	}
	if !(c.Dropout >= 0 && c.Dropout < 1) {
		return fmt.Errorf("model: config dropout = %g, must be in [0, 1)", c.Dropout)
	}
	want := DefaultVocab()
	if len(c.Vocab) != len(want) {
		return fmt.Errorf("model: config vocab has %d tokens, want %d", len(c.Vocab), len(want))
	}
	for i, tok := range want {
		if c.Vocab[i] != tok {
			return fmt.Errorf("model: config vocab[%d] = %q, want %q", i, c.Vocab[i], tok)
		}
	}
	return nil
}
