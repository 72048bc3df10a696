package model

import "github.com/heed-asr/heed/internal/kern"

// decBatch holds the teacher-forced decoder over a batch of utterances. Its
// steps are laid out by sb over the utterances ordered by non-increasing
// output steps N; utterance b of that order is sequence Utt[b] of the
// encoder outputs. Row r of step i-1 holds step i of one utterance.
type decBatch[F kern.Float] struct {
	sb     seqBatch
	window bool
	Utt    []int // (B) encoder-output index of each decoder sequence
	Ys     []int // (rows) input token y_{i-1}
	Tgt    []int // (rows) target token y_i
	X      []F   // (rows, E+2H) GRU inputs [Emb(y_{i-1}); c_{i-1}]
	RZN    []F   // (rows, 3D)
	Ghn    []F   // (rows, D)
	Sprev  []F   // (rows, D) s_{i-1}
	S      []F   // (rows, D) s_i
	C      []F   // (rows, 2H) c_i
	Z      []F   // (rows, D+2H) [s_i; c_i]
	A      []F   // per sequence b, (N_b+1, T) weights a_0..a_N at AOff[b]
	AOff   []int // (B)
	att    attBatch[F]
	ih, hh gruPacked[F] // dec.gru.w_ih and w_hh packed

	gx, gh, pre []F // (B, 3D), (B, 3D), (3D)

	dA         []F // like A
	dS, dC     []F // (B, D), (B, 2H) gradients at the step's s_i and c_i
	dCtx       []F // per sequence b, (N_b, 2H) gradients at c_1..c_N at COff[b]
	COff       []int
	carS, carC []F // (B, D), (B, 2H) their parts from the next step
	dX         []F // (B, E+2H)
	dGX, dGH   []F // (rows, 3D)
	dWs        []F // (rows, A)
}

// decoderBatchForward runs the decoder teacher-forced. Sequence j of the
// encoder outputs has Ts[j] frames; its encoder output h (Ts[j], 2H) and
// keys vhb (Ts[j], A) start at row HOff[j] of hs and vhbs, and its inputs
// are ys[j] = [<eos>, ids...] and targets tgts[j] = [ids..., <eos>]. order
// lists the sequences by non-increasing len(ys). The rows [s_i; c_i] are in
// c.Z (rows, D+2H) and their targets in c.Tgt (rows).
func decoderBatchForward[F kern.Float](c *decBatch[F], p *Params[F], hs, vhbs []F, Ts, HOff, order []int, ys, tgts [][]int, window bool) {
	cfg := &p.Cfg
	E, D, H2, A := cfg.EmbedDim, cfg.DecHidden, cfg.EncDim(), cfg.AttDim
	EH := E + H2
	B := len(order)
	c.window = window
	c.Utt = append(c.Utt[:0], order...)
	lens := make([]int, B)
	for b, j := range order {
		lens[b] = len(ys[j])
	}
	c.sb.init(lens)
	sb := &c.sb
	R := sb.rows()
	c.Ys = grow(c.Ys, R)
	c.Tgt = grow(c.Tgt, R)
	c.X = grow(c.X, R*EH)
	c.RZN = grow(c.RZN, R*3*D)
	c.Ghn = grow(c.Ghn, R*D)
	c.Sprev = grow(c.Sprev, R*D)
	c.S = grow(c.S, R*D)
	c.C = grow(c.C, R*H2)
	c.Z = grow(c.Z, R*(D+H2))
	c.AOff = grow(c.AOff, B)
	na, frames := 0, 0
	for b, j := range order {
		c.AOff[b] = na
		na += (lens[b] + 1) * Ts[j]
		frames += lens[b] * Ts[j] // at most, without the window
	}
	c.att.reserve(p, R, frames)
	c.att.FR[0] = 0
	c.A = grow(c.A, na)
	for b, j := range order {
		a0 := c.A[c.AOff[b] : c.AOff[b]+Ts[j]]
		clear(a0)
		a0[0] = 1
	}
	c.gx, c.gh, c.pre = grow(c.gx, B*3*D), grow(c.gh, B*3*D), grow(c.pre, 3*D)
	g := &p.DecGRU
	c.ih.pack(g.WIh, 3*D, EH)
	c.hh.pack(g.WHh, 3*D, D)
	for k := 0; k < sb.steps(); k++ {
		n, o := sb.Act[k], sb.Off[k]
		for b := 0; b < n; b++ {
			r, j := o+b, order[b]
			c.Ys[r], c.Tgt[r] = ys[j][k], tgts[j][k]
			x := c.X[r*EH : (r+1)*EH]
			copy(x[:E], p.Embed[c.Ys[r]*E:(c.Ys[r]+1)*E])
			sp := c.Sprev[r*D : (r+1)*D]
			if k == 0 {
				clear(x[E:])
				clear(sp)
			} else {
				rp := sb.Off[k-1] + b
				copy(x[E:], c.C[rp*H2:(rp+1)*H2])
				copy(sp, c.S[rp*D:(rp+1)*D])
			}
		}
		gx, gh := c.gx[:n*3*D], c.gh[:n*3*D]
		kern.MatMulPacked(gx, c.X[o*EH:(o+n)*EH], &c.ih.fwd, n, false)
		addRows(gx, g.BIh, n, 3*D)
		kern.MatMulPacked(gh, c.Sprev[o*D:(o+n)*D], &c.hh.fwd, n, false)
		addRows(gh, g.BHh, n, 3*D)
		for b := 0; b < n; b++ {
			r, j := o+b, order[b]
			T := Ts[j]
			gruCellForward(c.S[r*D:(r+1)*D], c.RZN[r*3*D:(r+1)*3*D], c.Ghn[r*D:(r+1)*D], c.pre,
				gx[b*3*D:(b+1)*3*D], gh[b*3*D:(b+1)*3*D], c.Sprev[r*D:(r+1)*D], D)
			pos := 0
			if window {
				pos = median(c.A[c.AOff[b]+k*T : c.AOff[b]+(k+1)*T])
			}
			lo, hi := windowOf(cfg, T, pos, window)
			c.att.Lo[r], c.att.Hi[r] = lo, hi
			c.att.FR[r+1] = c.att.FR[r] + hi - lo + 1
		}
		attBatchForward(&c.att, p, o, n, c.S[o*D:], c.C[o*H2:],
			c.weights(Ts, k), c.weights(Ts, k+1), c.rowsOf(hs, Ts, HOff, H2), c.rowsOf(vhbs, Ts, HOff, A))
		for b := 0; b < n; b++ {
			r := o + b
			z := c.Z[r*(D+H2) : (r+1)*(D+H2)]
			copy(z[:D], c.S[r*D:(r+1)*D])
			copy(z[D:], c.C[r*H2:(r+1)*H2])
		}
	}
}

// weights returns the view of the attention weights a_i of decoder
// sequence b.
func (c *decBatch[F]) weights(Ts []int, i int) func(b int) []F {
	return func(b int) []F {
		T := Ts[c.Utt[b]]
		return c.A[c.AOff[b]+i*T : c.AOff[b]+(i+1)*T]
	}
}

// dweights is weights for the gradient c.dA.
func (c *decBatch[F]) dweights(Ts []int, i int) func(b int) []F {
	return func(b int) []F {
		T := Ts[c.Utt[b]]
		return c.dA[c.AOff[b]+i*T : c.AOff[b]+(i+1)*T]
	}
}

// rowsOf returns the view of the rows (Ts[j], w) of x that belong to the
// encoder sequence of decoder sequence b.
func (c *decBatch[F]) rowsOf(x []F, Ts, HOff []int, w int) func(b int) []F {
	return func(b int) []F {
		j := c.Utt[b]
		return x[HOff[j]*w : (HOff[j]+Ts[j])*w]
	}
}

// decoderBatchBackward back-propagates dZ (rows, D+2H) through
// decoderBatchForward, adding into g, into dhs (rows of hs) and into dvhbs
// (rows of vhbs); the caller back-propagates dvhbs through the keys.
func decoderBatchBackward[F kern.Float](c *decBatch[F], p, g *Params[F], hs []F, Ts, HOff []int, dZ, dhs, dvhbs []F) {
	cfg := &p.Cfg
	E, D, H2, A := cfg.EmbedDim, cfg.DecHidden, cfg.EncDim(), cfg.AttDim
	EH, DZ := E+H2, D+H2
	sb := &c.sb
	B, R := len(sb.Lens), sb.rows()
	c.dA = growZero(c.dA, len(c.A))
	c.dS, c.dC = grow(c.dS, B*D), grow(c.dC, B*H2)
	c.COff = grow(c.COff, B)
	for b, nc := 0, 0; b < B; b++ {
		c.COff[b] = nc
		nc += sb.Lens[b]
	}
	c.dCtx = grow(c.dCtx, R*H2)
	c.carS, c.carC = growZero(c.carS, B*D), growZero(c.carC, B*H2)
	c.dX = grow(c.dX, B*EH)
	c.dGX, c.dGH, c.dWs = grow(c.dGX, R*3*D), grow(c.dGH, R*3*D), grow(c.dWs, R*A)
	c.att.dUC = growZero(c.att.dUC, A*cfg.ConvWidth)
	for k := sb.steps() - 1; k >= 0; k-- {
		// Rows of the carries beyond the sequences of step k+1 are zero.
		n, o := sb.Act[k], sb.Off[k]
		for b := 0; b < n; b++ {
			z := dZ[(o+b)*DZ : (o+b+1)*DZ]
			ds, dc := c.dS[b*D:(b+1)*D], c.dC[b*H2:(b+1)*H2]
			copy(ds, z[:D])
			addTo(ds, c.carS[b*D:(b+1)*D])
			copy(dc, z[D:])
			addTo(dc, c.carC[b*H2:(b+1)*H2])
		}
		clear(c.carS[:n*D])
		clear(c.carC[:n*H2])
		attBatchBackward(&c.att, p, g, o, n, c.dC, c.dS, c.dWs[o*A:(o+n)*A],
			c.weights(Ts, k), c.weights(Ts, k+1), c.rowsOf(hs, Ts, HOff, H2),
			c.dweights(Ts, k), c.dweights(Ts, k+1), c.rowsOf(dvhbs, Ts, HOff, A))
		for b := 0; b < n; b++ {
			copy(c.dCtx[(c.COff[b]+k)*H2:(c.COff[b]+k+1)*H2], c.dC[b*H2:(b+1)*H2])
		}
		for b := 0; b < n; b++ {
			r := o + b
			gruCellBackward(c.dGX[r*3*D:(r+1)*3*D], c.dGH[r*3*D:(r+1)*3*D], c.carS[b*D:(b+1)*D], c.dS[b*D:(b+1)*D],
				c.RZN[r*3*D:(r+1)*3*D], c.Ghn[r*D:(r+1)*D], c.Sprev[r*D:(r+1)*D], D)
		}
		// Recurrent and input paths; the weight gradients follow after the
		// loop.
		kern.MatMulPacked(c.carS[:n*D], c.dGH[o*3*D:(o+n)*3*D], &c.hh.bwd, n, true)
		dX := c.dX[:n*EH]
		kern.MatMulPacked(dX, c.dGX[o*3*D:(o+n)*3*D], &c.ih.bwd, n, false)
		for b := 0; b < n; b++ {
			embedBackward(g.Embed, dX[b*EH:b*EH+E], c.Ys[o+b:o+b+1], E)
			addTo(c.carC[b*H2:(b+1)*H2], dX[b*EH+E:(b+1)*EH])
		}
	}
	// Encoder outputs through the contexts, all steps of an utterance at
	// once: dh += Σ_i a_iᵀ dctx_i.
	for b, j := range c.Utt {
		T, N := Ts[j], sb.Lens[b]
		kern.MatMulTN(dhs[HOff[j]*H2:(HOff[j]+T)*H2], c.A[c.AOff[b]+T:c.AOff[b]+(N+1)*T], c.dCtx[c.COff[b]*H2:], T, N, H2, true)
	}
	gg := &g.DecGRU
	kern.MatMulTN(gg.WHh, c.dGH, c.Sprev[:R*D], 3*D, R, D, true)
	sumRows(gg.BHh, c.dGH, R, 3*D)
	kern.MatMulTN(gg.WIh, c.dGX, c.X[:R*EH], 3*D, R, EH, true)
	sumRows(gg.BIh, c.dGX, R, 3*D)
	kern.MatMulTN(g.AttW, c.dWs, c.S[:R*D], A, R, D, true)
	attBatchGrads(&c.att, p, g)
}
