package model

import (
	"math/rand/v2"

	"github.com/heed-asr/heed/internal/kern"
)

// encCache holds the encoder's forward state for one utterance.
type encCache[F kern.Float] struct {
	Frames, T int
	L         int             // layers
	X0        []F             // (T, Stack*NumMel) stacked input
	Layers    []biGRUCache[F] // per layer
	Masks     [][]F           // (T, 2H) dropout mask applied after layer l (l < EncLayers-1), scale included
	In        [][]F           // (T, 2H) input to layer l+1 after dropout
	dropout   bool
	infer     bool // inference only: keep no per-step state for a backward pass

	dY, dIn []F // (T, 2H) backward scratch
	dX0     []F // (T, Stack*NumMel)
}

// encoderForward stacks feats (frames, NumMel) and runs the bidirectional GRU
// layers. When rng is not nil and cfg.Dropout > 0, dropout is applied to each
// layer's output that feeds another layer. iw, when not nil, holds weights
// as binary16 for inference (frozen networks). The output is c.Out()
// (T, 2H).
func encoderForward[F kern.Float](c *encCache[F], p *Params[F], iw *encWeights, feats []F, frames int, rng *rand.Rand, parallel bool) {
	cfg := &p.Cfg
	T := cfg.EncFrames(frames)
	c.Frames, c.T = frames, T
	c.X0 = grow(c.X0, T*cfg.InputDim())
	stackForward(c.X0, feats, frames, cfg.NumMel, cfg.Stack)
	L := cfg.EncLayers
	if len(c.Layers) < L {
		c.Layers = make([]biGRUCache[F], L)
		c.Masks = make([][]F, L)
		c.In = make([][]F, L)
	}
	c.L = L
	c.dropout = rng != nil && cfg.Dropout > 0
	x := c.X0
	for l := 0; l < L; l++ {
		var lw [2]gruHalf
		if iw != nil {
			lw = iw.dir[l]
		}
		c.Layers[l].Dir[0].infer, c.Layers[l].Dir[1].infer = c.infer, c.infer
		biGRUForward(&c.Layers[l], &p.Enc[l], lw, x, T, parallel)
		x = c.Layers[l].Y
		if l < L-1 && c.dropout {
			n := T * cfg.EncDim()
			c.Masks[l] = grow(c.Masks[l], n)
			c.In[l] = grow(c.In[l], n)
			dropoutForward(c.In[l], c.Masks[l], x, cfg.Dropout, rng)
			x = c.In[l]
		}
	}
}

// Out returns the encoder output (T, 2H).
func (c *encCache[F]) Out() []F { return c.Layers[c.L-1].Y }

// encoderBackward back-propagates dOut (T, 2H) through encoderForward, adding
// into g and, when dfeats (frames, NumMel) is not nil, into dfeats. dOut is
// not modified.
func encoderBackward[F kern.Float](c *encCache[F], p, g *Params[F], dOut, dfeats []F) {
	cfg := &p.Cfg
	T, L, n := c.T, cfg.EncLayers, c.T*cfg.EncDim()
	c.dY = grow(c.dY, n)
	copy(c.dY, dOut[:n])
	for l := L - 1; l >= 0; l-- {
		if l == 0 {
			if dfeats == nil {
				biGRUBackward(&c.Layers[0], &p.Enc[0], &g.Enc[0], nil, c.dY)
				break
			}
			c.dX0 = growZero(c.dX0, T*cfg.InputDim())
			biGRUBackward(&c.Layers[0], &p.Enc[0], &g.Enc[0], c.dX0, c.dY)
			stackBackward(dfeats, c.dX0, c.Frames, cfg.NumMel, cfg.Stack)
			break
		}
		c.dIn = growZero(c.dIn, n)
		biGRUBackward(&c.Layers[l], &p.Enc[l], &g.Enc[l], c.dIn, c.dY)
		if c.dropout {
			dropoutBackward(c.dY, c.dIn, c.Masks[l-1])
		} else {
			copy(c.dY, c.dIn)
		}
	}
}
