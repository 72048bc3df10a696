package model

import "github.com/heed-asr/heed/internal/kern"

// Batched location-aware attention: the equations of attention.go for all
// utterances of one decoder step at once. The frames attended at the step,
// utterance after utterance, form one set of rows, so that the location
// features and energies of the whole step are a few matrix products. The
// convolution and its projection are folded into one (A, K) filter bank,
//
//	U f_j = Σ_k U[:,k] Σ_w conv[k][w] a[j+w-K/2] = Σ_w (U·conv)[:,w] a[j+w-K/2],
//
// applied as a product with the windows of a_{i-1} laid out one per frame
// (im2col): the scalar convolution of the per-utterance path was the most
// expensive part of its attention.

// attBatch holds the batched attention of every decoder step of a batch.
type attBatch[F kern.Float] struct {
	Lo, Hi []int // (rows) window of each decoder row
	FR     []int // (rows+1) first attended frame row of each decoder row
	Col    []F   // (frame rows, K) a_{i-1} around each attended frame
	Th     []F   // (frame rows, A) tanh(W s + V h_j + b + U f_j)
	Q      []F   // (rows, A) queries W s_i
	UC     []F   // (A, K) U·conv

	e    []F // (step frame rows) energies, then their gradient
	dpre []F // (step frame rows, A)
	dCol []F // (step frame rows, K)
	dUC  []F // (A, K)
}

// reserve sizes the arrays for R decoder rows attending to at most frames
// frame rows in all, and computes the folded filters from p.
func (c *attBatch[F]) reserve(p *Params[F], R, frames int) {
	cfg := &p.Cfg
	A, K := cfg.AttDim, cfg.ConvWidth
	c.Lo, c.Hi, c.FR = grow(c.Lo, R), grow(c.Hi, R), grow(c.FR, R+1)
	c.Col = grow(c.Col, frames*K)
	c.Th = grow(c.Th, frames*A)
	c.Q = grow(c.Q, R*A)
	c.UC = grow(c.UC, A*K)
	kern.MatMulNN(c.UC, p.AttU, p.AttConv, A, cfg.ConvFilters, K, false)
}

// attBatchForward computes the attention of decoder rows o..o+n-1 (one
// step), whose windows c.Lo, c.Hi and frame rows c.FR are set. For row
// o+b, prev(b) and next(b) are the previous weights a_{i-1} and the output
// weights a_i (T frames, zero outside the window), h(b) and vhb(b) the
// utterance's encoder output (T, 2H) and keys (T, A), s the decoder states
// (n, D) and ctx the contexts (n, 2H) to write.
func attBatchForward[F kern.Float](c *attBatch[F], p *Params[F], o, n int, s, ctx []F,
	prev, next, h, vhb func(b int) []F) {
	cfg := &p.Cfg
	D, A, K, H2 := cfg.DecHidden, cfg.AttDim, cfg.ConvWidth, cfg.EncDim()
	half := K / 2
	f0, f1 := c.FR[o], c.FR[o+n]
	M := f1 - f0
	for b := 0; b < n; b++ {
		r := o + b
		aPrev := prev(b)
		T := len(aPrev)
		for j := c.Lo[r]; j <= c.Hi[r]; j++ {
			col := c.Col[(c.FR[r]+j-c.Lo[r])*K:][:K]
			w0, w1 := max(0, half-j), min(K, T-j+half)
			clear(col[:w0])
			copy(col[w0:w1], aPrev[j+w0-half:j+w1-half])
			clear(col[w1:])
		}
	}
	q := c.Q[o*A : (o+n)*A]
	linearForward(q, s[:n*D], p.AttW, nil, n, D, A)
	// pre_j = (W s + V h_j + b) + UC·col_j, Th = tanh(pre).
	th := c.Th[f0*A : f1*A]
	for b := 0; b < n; b++ {
		r := o + b
		qb, v := q[b*A:(b+1)*A], vhb(b)
		for j := c.Lo[r]; j <= c.Hi[r]; j++ {
			kern.Add(c.Th[(c.FR[r]+j-c.Lo[r])*A:][:A], qb, v[j*A:(j+1)*A])
		}
	}
	kern.MatMulNT(th, c.Col[f0*K:f1*K], c.UC, M, K, A, true)
	kern.Tanh(th, th)
	c.e = grow(c.e, M)
	kern.MatMulNT(c.e, th, p.AttVec, M, A, 1, false)
	for b := 0; b < n; b++ {
		r := o + b
		lo, hi := c.Lo[r], c.Hi[r]
		a := next(b)
		clear(a)
		softmax(a[lo:hi+1], c.e[c.FR[r]-f0:c.FR[r+1]-f0])
		kern.MatMulNN(ctx[b*H2:(b+1)*H2], a[lo:hi+1], h(b)[lo*H2:(hi+1)*H2], 1, hi-lo+1, H2, false)
	}
}

// attBatchBackward back-propagates rows o..o+n-1 of attBatchForward. For
// row o+b, dctx (n, 2H) holds the gradient at the context and dnext(b) that
// at the output weights (used as scratch); it adds into dprev(b), dvhb(b),
// ds (n, D), the queries' gradient dq (n, A) (written, for the caller's
// dW = dqᵀ s), and into g's att.vec and c.dUC. attBatchGrads turns c.dUC
// into the gradients of att.u and att.conv after the last step. The
// gradient at the encoder output through the context, dh += a_iᵀ dctx_i, is
// left to the caller, which adds it for all steps of an utterance in one
// product.
func attBatchBackward[F kern.Float](c *attBatch[F], p, g *Params[F], o, n int, dctx, ds, dq []F,
	prev, next, h, dprev, dnext, dvhb func(b int) []F) {
	cfg := &p.Cfg
	D, A, K, H2 := cfg.DecHidden, cfg.AttDim, cfg.ConvWidth, cfg.EncDim()
	half := K / 2
	f0, f1 := c.FR[o], c.FR[o+n]
	M := f1 - f0
	c.e = grow(c.e, M)
	for b := 0; b < n; b++ {
		r := o + b
		lo, hi := c.Lo[r], c.Hi[r]
		rows := hi - lo + 1
		aw, daw := next(b)[lo:hi+1], dnext(b)[lo:hi+1]
		dc := dctx[b*H2 : (b+1)*H2]
		// Context: da_j += h_j·dctx; then the softmax.
		kern.MatMulNT(daw, dc, h(b)[lo*H2:(hi+1)*H2], 1, H2, rows, true)
		softmaxBackward(c.e[c.FR[r]-f0:c.FR[r+1]-f0], daw, aw)
	}
	// Energies: dw += Σ_j de_j Th_j, dpre_j = de_j w ⊙ (1 - Th_j²), which
	// is also the gradient at V h_j + b and, summed, at the query.
	th := c.Th[f0*A : f1*A]
	kern.MatMulNN(g.AttVec, c.e, th, 1, M, A, true)
	c.dpre = grow(c.dpre, M*A)
	for b := 0; b < n; b++ {
		r := o + b
		dv := dvhb(b)
		for j := c.Lo[r]; j <= c.Hi[r]; j++ {
			q := c.FR[r] + j - c.Lo[r]
			dp := c.dpre[(q-f0)*A:][:A]
			kern.TanhGrad(dp, c.Th[q*A:][:A], p.AttVec, c.e[q-f0])
			addTo(dv[j*A:(j+1)*A], dp)
		}
		dqb := dq[b*A : (b+1)*A]
		clear(dqb)
		sumRows(dqb, c.dpre[(c.FR[r]-f0)*A:(c.FR[r+1]-f0)*A], c.FR[r+1]-c.FR[r], A)
	}
	// Location path: dUC += dpreᵀ Col, dCol = dpre UC, back to a_{i-1}.
	c.dpre = c.dpre[:M*A]
	kern.MatMulTN(c.dUC, c.dpre, c.Col[f0*K:f1*K], A, M, K, true)
	c.dCol = grow(c.dCol, M*K)
	kern.MatMulNN(c.dCol, c.dpre, c.UC, M, A, K, false)
	for b := 0; b < n; b++ {
		r := o + b
		da := dprev(b)
		T := len(da)
		for j := c.Lo[r]; j <= c.Hi[r]; j++ {
			col := c.dCol[(c.FR[r]+j-c.Lo[r]-f0)*K:][:K]
			w0, w1 := max(0, half-j), min(K, T-j+half)
			addTo(da[j+w0-half:j+w1-half], col[w0:w1])
		}
	}
	// Query path: ds += dq·W.
	kern.MatMulNN(ds[:n*D], dq[:n*A], p.AttW, n, A, D, true)
}

// attBatchGrads adds the gradients of att.u and att.conv from c.dUC:
// dU += dUC·convᵀ, dconv += Uᵀ·dUC.
func attBatchGrads[F kern.Float](c *attBatch[F], p, g *Params[F]) {
	cfg := &p.Cfg
	A, nf, K := cfg.AttDim, cfg.ConvFilters, cfg.ConvWidth
	kern.MatMulNT(g.AttU, c.dUC, p.AttConv, A, K, nf, true)
	kern.MatMulTN(g.AttConv, p.AttU, c.dUC, nf, A, K, true)
}
