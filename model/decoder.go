package model

import "github.com/heed-asr/heed/internal/kern"

// Decoder, one output step i = 1..N (Chorowski et al. 2015):
//
//	x_i = [Emb(y_{i-1}); c_{i-1}]                 (E+2H)   y_0 = <eos>, c_0 = 0
//	s_i = GRU(s_{i-1}, x_i)                       (D)      s_0 = 0
//	a_i, c_i = attention(s_i, a_{i-1}, h)         (T), (2H) a_0 = one-hot on frame 0
//
// The output layer (output.go) reads z_i = [s_i; c_i]; no output feeds back,
// so training runs it over all steps at once.

// decStepForward computes one decoder step from sPrev (D), cPrev (2H), aPrev
// (T) and token prev with the attention window [lo, hi]. It writes the GRU
// input x (E+2H), the gate caches rzn (3D) and ghn (D), the new state s (D),
// the weights a (T) and the context ctx (2H). gx, gh, pre (3D) are scratch.
// dw, when not nil, holds weights as binary16 for the one-row products.
func decStepForward[F kern.Float](p *Params[F], dw *decWeights, ac *attStep[F], sc *attScratch[F], vhb, h []F, T, prev int,
	sPrev, cPrev, aPrev []F, lo, hi int, x, gx, gh, pre, rzn, ghn, s, ctx, a []F) {
	cfg := &p.Cfg
	E, D, H2 := cfg.EmbedDim, cfg.DecHidden, cfg.EncDim()
	copy(x[:E], p.Embed[prev*E:(prev+1)*E]) // Emb(y_{i-1})
	copy(x[E:E+H2], cPrev)
	g := &p.DecGRU
	var hih, hhh, hatt *kern.Half
	if dw != nil {
		hih, hhh, hatt = dw.wih, dw.whh, dw.attW
	}
	linear(gx, x, g.WIh, g.BIh, hih, 1, E+H2, 3*D)
	linear(gh, sPrev, g.WHh, g.BHh, hhh, 1, D, 3*D)
	gruCellForward(s, rzn, ghn, pre, gx, gh, sPrev, D)
	attentionForward(ac, sc, p, hatt, s, aPrev, vhb, h, T, lo, hi, a, ctx)
}

// decCache holds the teacher-forced decoder for one utterance.
type decCache[F kern.Float] struct {
	T, N   int
	window bool
	H      []F          // (T, 2H) encoder output, borrowed
	Vhb    []F          // (T, A) V h_j + b
	Ys     []int        // (N) inputs y_0..y_{N-1}
	X      []F          // (N, E+2H) GRU inputs
	RZN    []F          // (N, 3D) GRU gates
	Ghn    []F          // (N, D)
	S      []F          // (N+1, D) s_0..s_N
	C      []F          // (N+1, 2H) c_0..c_N
	A      []F          // (N+1, T) a_0..a_N
	Pos    []int        // (N) median of a_{i-1}, the window centre of step i
	Att    []attStep[F] // (N)
	Z      []F          // (N, D+2H) rows [s_i; c_i], i = 1..N

	gx, gh, pre []F // (3D) scratch
	sc          attScratch[F]

	dS, dC, dA []F // (N+1, D), (N+1, 2H), (N+1, T)
	dX         []F // (E+2H)
	dGX, dGH   []F // (N, 3D) gradients at the GRU's affine parts
	dWs        []F // (N, A) gradients at the attention queries W s_i
	dVhb       []F // (T, A)
}

// decoderForward runs the decoder teacher-forced on inputs ys (N) over the
// encoder output h (T, 2H), with or without the local window. The rows
// [s_i; c_i] are in c.Z (N, D+2H).
func decoderForward[F kern.Float](c *decCache[F], p *Params[F], h []F, T int, ys []int, window bool) {
	cfg := &p.Cfg
	E, D, H2, A := cfg.EmbedDim, cfg.DecHidden, cfg.EncDim(), cfg.AttDim
	N := len(ys)
	c.T, c.N, c.window, c.H = T, N, window, h[:T*H2]
	c.Ys = append(c.Ys[:0], ys...)
	c.Vhb = grow(c.Vhb, T*A)
	c.X = grow(c.X, N*(E+H2))
	c.RZN = grow(c.RZN, N*3*D)
	c.Ghn = grow(c.Ghn, N*D)
	c.S = grow(c.S, (N+1)*D)
	c.C = grow(c.C, (N+1)*H2)
	c.A = grow(c.A, (N+1)*T)
	c.Pos = grow(c.Pos, N)
	if len(c.Att) < N {
		c.Att = append(c.Att, make([]attStep[F], N-len(c.Att))...)
	}
	c.Z = grow(c.Z, N*(D+H2))
	c.gx, c.gh, c.pre = grow(c.gx, 3*D), grow(c.gh, 3*D), grow(c.pre, 3*D)
	// Keys for all frames: Vhb (T, A) = h Vᵀ + b.
	linearForward(c.Vhb, c.H, p.AttV, p.AttB, T, H2, A)
	clear(c.S[:D])
	clear(c.C[:H2])
	clear(c.A[:T])
	c.A[0] = 1
	for i := 1; i <= N; i++ {
		aPrev := c.A[(i-1)*T : i*T]
		pos := 0
		if window {
			pos = median(aPrev)
		}
		c.Pos[i-1] = pos
		lo, hi := windowOf(cfg, T, pos, window)
		s, ctx := c.S[i*D:(i+1)*D], c.C[i*H2:(i+1)*H2]
		decStepForward(p, nil, &c.Att[i-1], &c.sc, c.Vhb, c.H, T, ys[i-1],
			c.S[(i-1)*D:i*D], c.C[(i-1)*H2:i*H2], aPrev, lo, hi,
			c.X[(i-1)*(E+H2):i*(E+H2)], c.gx, c.gh, c.pre, c.RZN[(i-1)*3*D:i*3*D], c.Ghn[(i-1)*D:i*D],
			s, ctx, c.A[i*T:(i+1)*T])
		z := c.Z[(i-1)*(D+H2) : i*(D+H2)]
		copy(z[:D], s)
		copy(z[D:], ctx)
	}
}

// decoderBackward back-propagates dZ (N, D+2H) through decoderForward,
// adding into g and into dh (T, 2H).
func decoderBackward[F kern.Float](c *decCache[F], p, g *Params[F], dZ, dh []F) {
	cfg := &p.Cfg
	E, D, H2, A := cfg.EmbedDim, cfg.DecHidden, cfg.EncDim(), cfg.AttDim
	T, N := c.T, c.N
	c.dS = growZero(c.dS, (N+1)*D)
	c.dC = growZero(c.dC, (N+1)*H2)
	c.dA = growZero(c.dA, (N+1)*T)
	c.dVhb = growZero(c.dVhb, T*A)
	c.dX = grow(c.dX, E+H2)
	c.dGX, c.dGH, c.dWs = grow(c.dGX, N*3*D), grow(c.dGH, N*3*D), grow(c.dWs, N*A)
	for i := 1; i <= N; i++ {
		z := dZ[(i-1)*(D+H2) : i*(D+H2)]
		copy(c.dS[i*D:(i+1)*D], z[:D])
		copy(c.dC[i*H2:(i+1)*H2], z[D:])
	}
	gp, gg := &p.DecGRU, &g.DecGRU
	for i := N; i >= 1; i-- {
		s, sPrev := c.S[i*D:(i+1)*D], c.S[(i-1)*D:i*D]
		ds, dsPrev := c.dS[i*D:(i+1)*D], c.dS[(i-1)*D:i*D]
		dgx, dgh := c.dGX[(i-1)*3*D:i*3*D], c.dGH[(i-1)*3*D:i*3*D]
		attentionBackward(&c.Att[i-1], &c.sc, p, g, s, c.A[(i-1)*T:i*T], c.A[i*T:(i+1)*T], c.H, T,
			c.dC[i*H2:(i+1)*H2], c.dA[i*T:(i+1)*T], ds, c.dA[(i-1)*T:i*T], c.dVhb, dh, c.dWs[(i-1)*A:i*A])
		gruCellBackward(dgx, dgh, dsPrev, ds, c.RZN[(i-1)*3*D:i*3*D], c.Ghn[(i-1)*D:i*D], sPrev, D)
		// Recurrent and input paths; the weight gradients follow after the loop.
		kern.MatMulNN(dsPrev, dgh, gp.WHh, 1, 3*D, D, true)
		kern.MatMulNN(c.dX, dgx, gp.WIh, 1, 3*D, E+H2, false)
		embedBackward(g.Embed, c.dX[:E], c.Ys[i-1:i], E)
		addTo(c.dC[(i-1)*H2:i*H2], c.dX[E:])
	}
	// Weight gradients of all steps at once: dW_hh += dGHᵀ S_{0..N-1},
	// dW_ih += dGXᵀ X, att dW += dWsᵀ S_{1..N}.
	kern.MatMulTN(gg.WHh, c.dGH, c.S[:N*D], 3*D, N, D, true)
	sumRows(gg.BHh, c.dGH, N, 3*D)
	kern.MatMulTN(gg.WIh, c.dGX, c.X[:N*(E+H2)], 3*D, N, E+H2, true)
	sumRows(gg.BIh, c.dGX, N, 3*D)
	kern.MatMulTN(g.AttW, c.dWs, c.S[D:(N+1)*D], A, N, D, true)
	// Keys: dV += dVhbᵀ h, db += Σ dVhb, dh += dVhb V.
	linearBackward(dh, g.AttV, g.AttB, c.dVhb, c.H, p.AttV, T, H2, A)
}
