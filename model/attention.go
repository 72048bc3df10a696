package model

import "github.com/heed-asr/heed/internal/kern"

// Location-aware attention (Chorowski et al. 2015), one decoder step i:
//
//	f_i  = Conv1D(a_{i-1})                       (T, F)
//	e_ij = w·tanh(W s_i + V h_j + b + U f_ij)     j in the window
//	a_i  = softmax_j(e_i)                        zero outside the window
//	c_i  = Σ_j a_ij h_j                          (2H)
//
// V h_j + b is precomputed once per utterance as vhb (T, A).
//
// Local window. When windowing is on, energies are computed only for
// j in [m-WindowLeft, m+WindowRight] (clipped to [0, T)), where m is the
// median frame of a_{i-1} (Bahdanau et al. 2016). The median is chosen
// because it is non-parametric (no extra weights to train, so a model
// trained with full attention can decode with the window), monotone in
// practice (it only moves when half the attention mass has moved, so a
// single stray peak cannot drag the window), and it makes the position an
// explicit integer in the decoder state: a streaming decoder knows exactly
// which encoder frames (up to m+WindowRight) the next step needs, and cost
// per step is O(window) instead of O(T).

// windowOf returns the attention window [lo, hi] for previous-alignment
// median pos, or the full range when window is false.
func windowOf(cfg *Config, T, pos int, window bool) (lo, hi int) {
	if !window {
		return 0, T - 1
	}
	lo = max(0, pos-cfg.WindowLeft)
	hi = min(T-1, pos+cfg.WindowRight)
	if lo > hi { // pos past the end: keep the last frames
		lo = max(0, T-1-cfg.WindowLeft-cfg.WindowRight)
		hi = T - 1
	}
	return lo, hi
}

// attStep caches one attention step.
type attStep[F kern.Float] struct {
	Lo, Hi int
	Fe     []F // (rows, F) location features of frames Lo..Hi, rows = Hi-Lo+1
	Th     []F // (rows, A) tanh(W s + V h_j + b + U f_j)
}

// attScratch is per-call scratch for attention forward and backward.
type attScratch[F kern.Float] struct {
	ws   []F // (A)
	wv   []F // (A) ws + one frame's key
	e    []F // (rows) energies / their gradient
	dpre []F // (rows, A)
	dFe  []F // (rows, F)
}

// attentionForward computes one attention step. s (D) is the decoder state,
// aPrev (T) the previous attention weights, vhb (T, A) the precomputed keys,
// h (T, 2H) the encoder output, [lo, hi] the window. It writes the weights
// a (T), zero outside the window, and the context ctx (2H). hW, when not
// nil, is the query weight W as binary16.
func attentionForward[F kern.Float](c *attStep[F], sc *attScratch[F], p *Params[F], hW *kern.Half, s, aPrev, vhb, h []F, T, lo, hi int, a, ctx []F) {
	cfg := &p.Cfg
	D, A, nf, K, H2 := cfg.DecHidden, cfg.AttDim, cfg.ConvFilters, cfg.ConvWidth, cfg.EncDim()
	rows := hi - lo + 1
	c.Lo, c.Hi = lo, hi
	c.Fe = grow(c.Fe, rows*nf)
	c.Th = grow(c.Th, rows*A)
	sc.ws = grow(sc.ws, A)
	sc.wv = grow(sc.wv, A)
	sc.e = grow(sc.e, rows)
	// ws = W s.
	linear(sc.ws, s, p.AttW, nil, hW, 1, D, A)
	// Location features and their projection U f_j.
	convForward(c.Fe, aPrev, p.AttConv, T, lo, hi, nf, K)
	linearForward(c.Th, c.Fe, p.AttU, nil, rows, nf, A)
	// pre_j = U f_j + W s + (V h_j + b); Th = tanh(pre).
	for j := 0; j < rows; j++ {
		row := c.Th[j*A : j*A+A]
		kern.Add(sc.wv, sc.ws, vhb[(lo+j)*A:(lo+j+1)*A])
		kern.Add(row, row, sc.wv)
	}
	kern.Tanh(c.Th, c.Th)
	// e_j = w · Th_j.
	kern.MatMulNT(sc.e, c.Th, p.AttVec, rows, A, 1, false)
	clear(a[:T])
	softmax(a[lo:hi+1], sc.e)
	// ctx = Σ_j a_j h_j.
	kern.MatMulNN(ctx, a[lo:hi+1], h[lo*H2:(hi+1)*H2], 1, rows, H2, false)
}

// attentionBackward back-propagates one attention step. dctx (2H) is the
// gradient at the context and da (T) the gradient at the weights from later
// steps; da is used as scratch. It adds into ds (D), daPrev (T) when not nil,
// dvhb (T, A), dh (T, 2H) and the gradients of att.u, att.vec and att.conv
// in g. The query gradient dws (A) = ∂/∂(W s) is written out instead of being
// added to att.w, so that the decoder can accumulate dW += dwsᵀ s over all
// steps in one product.
func attentionBackward[F kern.Float](c *attStep[F], sc *attScratch[F], p, g *Params[F], s, aPrev, a, h []F, T int, dctx, da, ds, daPrev, dvhb, dh, dws []F) {
	cfg := &p.Cfg
	D, A, nf, K, H2 := cfg.DecHidden, cfg.AttDim, cfg.ConvFilters, cfg.ConvWidth, cfg.EncDim()
	lo, hi := c.Lo, c.Hi
	rows := hi - lo + 1
	aw, daw := a[lo:hi+1], da[lo:hi+1]
	hw := h[lo*H2 : (hi+1)*H2]
	// Context: da_j += h_j·dctx, dh_j += a_j dctx.
	kern.MatMulNT(daw, dctx, hw, 1, H2, rows, true)
	kern.MatMulTN(dh[lo*H2:(hi+1)*H2], aw, dctx, rows, 1, H2, true)
	// Softmax.
	sc.e = grow(sc.e, rows)
	softmaxBackward(sc.e, daw, aw)
	// Energies: dw += Σ_j de_j Th_j, dpre_j = de_j w ⊙ (1 - Th_j²).
	kern.MatMulNN(g.AttVec, sc.e, c.Th, 1, rows, A, true)
	sc.dpre = grow(sc.dpre, rows*A)
	clear(dws[:A])
	for j := 0; j < rows; j++ {
		de := sc.e[j]
		th := c.Th[j*A : j*A+A]
		dp := sc.dpre[j*A : j*A+A]
		dv := dvhb[(lo+j)*A : (lo+j+1)*A]
		for k, t := range th {
			d := de * p.AttVec[k] * (1 - t*t)
			dp[k] = d
			dv[k] += d
			dws[k] += d
		}
	}
	// Location path: dU += dpreᵀ Fe, dFe = dpre U, then the convolution.
	sc.dFe = growZero(sc.dFe, rows*nf)
	linearBackward(sc.dFe, g.AttU, nil, sc.dpre, c.Fe, p.AttU, rows, nf, A)
	convBackward(g.AttConv, daPrev, sc.dFe, aPrev, p.AttConv, T, lo, hi, nf, K)
	// Query path: ds += Wᵀ dws.
	kern.MatMulNN(ds, dws, p.AttW, 1, A, D, true)
}
