package model

import "github.com/heed-asr/heed/internal/kern"

// decBatch holds the teacher-forced decoder over a batch of utterances. Its
// steps are laid out by sb over the utterances ordered by non-increasing
// output steps N; utterance b of that order is sequence Utt[b] of the
// encoder outputs. Row r of step i-1 holds step i of one utterance.
type decBatch[F kern.Float] struct {
	sb     seqBatch
	window bool
	Utt    []int        // (B) encoder-output index of each decoder sequence
	Ys     []int        // (rows) input token y_{i-1}
	Tgt    []int        // (rows) target token y_i
	X      []F          // (rows, E+2H) GRU inputs [Emb(y_{i-1}); c_{i-1}]
	RZN    []F          // (rows, 3D)
	Ghn    []F          // (rows, D)
	Sprev  []F          // (rows, D) s_{i-1}
	S      []F          // (rows, D) s_i
	C      []F          // (rows, 2H) c_i
	Z      []F          // (rows, D+2H) [s_i; c_i]
	A      []F          // per sequence b, (N_b+1, T) weights a_0..a_N at AOff[b]
	AOff   []int        // (B)
	Att    []attStep[F] // (rows)
	ih, hh gruPacked[F] // dec.gru.w_ih and w_hh packed

	gx, gh, pre []F // (B, 3D), (B, 3D), (3D)
	sc          attScratch[F]

	dA         []F // like A
	dS, dC     []F // (B, D), (B, 2H) gradients at the step's s_i and c_i
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
	if len(c.Att) < R {
		c.Att = append(c.Att, make([]attStep[F], R-len(c.Att))...)
	}
	c.AOff = grow(c.AOff, B)
	na := 0
	for b, j := range order {
		c.AOff[b] = na
		na += (lens[b] + 1) * Ts[j]
	}
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
			s := c.S[r*D : (r+1)*D]
			gruCellForward(s, c.RZN[r*3*D:(r+1)*3*D], c.Ghn[r*D:(r+1)*D], c.pre,
				gx[b*3*D:(b+1)*3*D], gh[b*3*D:(b+1)*3*D], c.Sprev[r*D:(r+1)*D], D)
			ab := c.A[c.AOff[b]:]
			aPrev := ab[k*T : (k+1)*T]
			pos := 0
			if window {
				pos = median(aPrev)
			}
			lo, hi := windowOf(cfg, T, pos, window)
			ctx := c.C[r*H2 : (r+1)*H2]
			attentionForward(&c.Att[r], &c.sc, p, s, aPrev, vhbs[HOff[j]*A:(HOff[j]+T)*A], hs[HOff[j]*H2:(HOff[j]+T)*H2],
				T, lo, hi, ab[(k+1)*T:(k+2)*T], ctx)
			z := c.Z[r*(D+H2) : (r+1)*(D+H2)]
			copy(z[:D], s)
			copy(z[D:], ctx)
		}
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
	c.carS, c.carC = growZero(c.carS, B*D), growZero(c.carC, B*H2)
	c.dX = grow(c.dX, B*EH)
	c.dGX, c.dGH, c.dWs = grow(c.dGX, R*3*D), grow(c.dGH, R*3*D), grow(c.dWs, R*A)
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
		for b := 0; b < n; b++ {
			r, j := o+b, c.Utt[b]
			T := Ts[j]
			ab, dab := c.A[c.AOff[b]:], c.dA[c.AOff[b]:]
			ds := c.dS[b*D : (b+1)*D]
			attentionBackward(&c.Att[r], &c.sc, p, g, c.S[r*D:(r+1)*D], ab[k*T:(k+1)*T], ab[(k+1)*T:(k+2)*T],
				hs[HOff[j]*H2:(HOff[j]+T)*H2], T, c.dC[b*H2:(b+1)*H2], dab[(k+1)*T:(k+2)*T], ds, dab[k*T:(k+1)*T],
				dvhbs[HOff[j]*A:(HOff[j]+T)*A], dhs[HOff[j]*H2:(HOff[j]+T)*H2], c.dWs[r*A:(r+1)*A])
			gruCellBackward(c.dGX[r*3*D:(r+1)*3*D], c.dGH[r*3*D:(r+1)*3*D], c.carS[b*D:(b+1)*D], ds,
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
	gg := &g.DecGRU
	kern.MatMulTN(gg.WHh, c.dGH, c.Sprev[:R*D], 3*D, R, D, true)
	sumRows(gg.BHh, c.dGH, R, 3*D)
	kern.MatMulTN(gg.WIh, c.dGX, c.X[:R*EH], 3*D, R, EH, true)
	sumRows(gg.BIh, c.dGX, R, 3*D)
	kern.MatMulTN(g.AttW, c.dWs, c.S[:R*D], A, R, D, true)
}
