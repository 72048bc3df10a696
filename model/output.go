package model

import (
	"math"

	"github.com/heed-asr/heed/internal/kern"
)

// Output layer, per decoder step: o = tanh(W_o [s; c] + b_o) (D),
// logits = W_out o + b_out (V), log-softmax over V.

// outCache holds the output layer over N steps.
type outCache[F kern.Float] struct {
	N    int
	Z    []F // (N, D+2H) input, borrowed
	O    []F // (N, D)
	LogP []F // (N, V)

	dLogits []F // (N, V)
	dO      []F // (N, D)
}

// outputForward computes c.LogP (N, V) from z (N, D+2H).
func outputForward[F kern.Float](c *outCache[F], p *Params[F], z []F, N int) {
	cfg := &p.Cfg
	D, DZ, V := cfg.DecHidden, cfg.DecHidden+cfg.EncDim(), cfg.V()
	c.N, c.Z = N, z[:N*DZ]
	c.O = grow(c.O, N*D)
	c.LogP = grow(c.LogP, N*V)
	linearForward(c.O, c.Z, p.OutWo, p.OutBo, N, DZ, D)
	kern.Tanh(c.O, c.O)
	linearForward(c.LogP, c.O, p.OutW, p.OutB, N, D, V)
	for i := 0; i < N; i++ {
		logSoftmax(c.LogP[i*V:(i+1)*V], c.LogP[i*V:(i+1)*V])
	}
}

// outputBackward back-propagates dLogP (N, V) through outputForward, adding
// into g and into dz (N, D+2H).
func outputBackward[F kern.Float](c *outCache[F], p, g *Params[F], dLogP, dz []F) {
	cfg := &p.Cfg
	D, DZ, V, N := cfg.DecHidden, cfg.DecHidden+cfg.EncDim(), cfg.V(), c.N
	c.dLogits = grow(c.dLogits, N*V)
	for i := 0; i < N; i++ {
		logSoftmaxBackward(c.dLogits[i*V:(i+1)*V], dLogP[i*V:(i+1)*V], c.LogP[i*V:(i+1)*V])
	}
	c.dO = growZero(c.dO, N*D)
	linearBackward(c.dO, g.OutW, g.OutB, c.dLogits, c.O, p.OutW, N, D, V)
	for k, o := range c.O {
		c.dO[k] *= 1 - o*o
	}
	linearBackward(dz, g.OutWo, g.OutBo, c.dO, c.Z, p.OutWo, N, DZ, D)
}

// outputLoss runs the output layer over the decoder rows z (len(tgt),
// D+2H) and returns their label-smoothed attention cross-entropy against
// tgt. When g is not nil it back-propagates (1-CTCWeight) times the loss
// through the output layer, adding into g and into *dZ, which it sizes to
// (len(tgt), D+2H) and clears; *dlp is scratch.
func outputLoss[F kern.Float](c *outCache[F], p, g *Params[F], z []F, tgt []int, dlp, dZ *[]F) float64 {
	cfg := &p.Cfg
	n, V := len(tgt), cfg.V()
	outputForward(c, p, z, n)
	var d []F
	if g != nil {
		*dlp = growZero(*dlp, n*V)
		d = *dlp
	}
	loss := smoothedCE(d, c.LogP, tgt, V, cfg.LabelSmoothing, 1-cfg.CTCWeight)
	if g != nil {
		*dZ = growZero(*dZ, n*(cfg.DecHidden+cfg.EncDim()))
		outputBackward(c, p, g, d, *dZ)
	}
	return loss
}

// smoothedCE returns the label-smoothed cross-entropy Σ_i -Σ_k q_ik logp_ik
// over the rows of logp (N, V), with q_i = (1-eps)·onehot(targets[i]) +
// eps/V. When dlogp (N, V) is not nil it adds scale·∂/∂logp into it.
func smoothedCE[F kern.Float](dlogp, logp []F, targets []int, V int, eps, scale float64) float64 {
	var loss float64
	u := eps / float64(V)
	for i, y := range targets {
		row := logp[i*V : (i+1)*V]
		var sum float64
		for _, v := range row {
			sum += float64(v)
		}
		loss -= (1-eps)*float64(row[y]) + u*sum
		if dlogp != nil {
			d := dlogp[i*V : (i+1)*V]
			for k := range d {
				d[k] -= F(scale * u)
			}
			d[y] -= F(scale * (1 - eps))
		}
	}
	if math.IsNaN(loss) {
		return math.Inf(1)
	}
	return loss
}
