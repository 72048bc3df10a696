package model

import (
	"sync"

	"github.com/heed-asr/heed/internal/kern"
)

// GRU equations (PyTorch), gates ordered r, z, n:
//
//	r  = σ(W_ir x + b_ir + W_hr h + b_hr)
//	z  = σ(W_iz x + b_iz + W_hz h + b_hz)
//	n  = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn))
//	h' = (1-z) ⊙ n + z ⊙ h
//
// The cell functions take the two affine parts precomputed: gx = W_ih x + b_ih
// and gh = W_hh h + b_hh, both (3H).

// gruCellForward computes h (H) from gx (3H), gh (3H) and hprev (H), saving
// the gate activations rzn (3H) = [r; z; n] and ghn (H) = W_hn h + b_hn for
// the backward pass. pre (3H) is scratch. The element-wise work is
// kern.GRUCellForward (vector kernels for float32).
func gruCellForward[F kern.Float](h, rzn, ghn, pre, gx, gh, hprev []F, H int) {
	kern.GRUCellForward(h, rzn, ghn, pre, gx, gh, hprev, H)
}

// gruCellBackward takes dh (H), the gradient at the cell output, and writes
// the gradients at the cell's affine inputs dgx (3H) and dgh (3H). It adds
// the direct path z ⊙ dh into dhprev (H); the caller adds W_hhᵀ·dgh. With
// d = dh:
//
//	dn = d ⊙ (1-z), dz = d ⊙ (hprev-n), dhprev += d ⊙ z
//	dgx_n = dn ⊙ (1-n²),      dgh_n = dgx_n ⊙ r
//	dgx_r = dgh_r = dgx_n ⊙ gh_n ⊙ r ⊙ (1-r)
//	dgx_z = dgh_z = dz ⊙ z ⊙ (1-z)
//
// (kern.GRUCellBackward).
func gruCellBackward[F kern.Float](dgx, dgh, dhprev, dh, rzn, ghn, hprev []F, H int) {
	kern.GRUCellBackward(dgx, dgh, dhprev, dh, rzn, ghn, hprev, H)
}

// gruDirCache holds one direction of one encoder layer over a sequence.
// With infer set (inference, no backward pass) RZN, Ghn and Hprev hold one
// step only, reused at every step.
type gruDirCache[F kern.Float] struct {
	T     int
	infer bool
	X     []F // (T, In) input, borrowed from the caller
	Gx    []F // (T, 3H) input projections W_ih x_t + b_ih
	RZN   []F // (T, 3H) gate activations
	Ghn   []F // (T, H) W_hn h + b_hn
	Hprev []F // (T, H) hidden state entering the step at time t
	Hs    []F // (T, H) output at time t

	gh, pre []F // (3H) scratch
	dGx     []F // (T, 3H) backward scratch
	dGh     []F // (T, 3H)
	dh      []F // (H) running gradient
	dhCur   []F // (H) gradient at the current step's output
}

func (c *gruDirCache[F]) reserve(T, in, H int) {
	c.T = T
	c.Gx = grow(c.Gx, T*3*H)
	steps := T
	if c.infer {
		steps = 1
	}
	c.RZN = grow(c.RZN, steps*3*H)
	c.Ghn = grow(c.Ghn, steps*H)
	c.Hprev = grow(c.Hprev, steps*H)
	c.Hs = grow(c.Hs, T*H)
	c.gh = grow(c.gh, 3*H)
	c.pre = grow(c.pre, 3*H)
}

// gruDirForward runs one GRU direction over x (T, In). With reverse it runs
// from t = T-1 down to 0. h0 (H) is the initial state (nil means zeros) and,
// when hT (H) is not nil, the final state is copied into it: chunk-wise
// (latency-controlled) processing carries hT into the next chunk's h0.
// Outputs are in c.Hs (T, H), indexed by time. hw holds W_ih and W_hh as
// binary16 where they are (frozen networks).
func gruDirForward[F kern.Float](c *gruDirCache[F], p *GRUParams[F], hw gruHalf, x []F, T int, h0 []F, reverse bool, hT []F) {
	H, in := p.H, p.In
	c.reserve(T, in, H)
	c.X = x[:T*in]
	// All input projections in one product: Gx (T, 3H) = X · W_ihᵀ + b_ih.
	linear(c.Gx, c.X, p.WIh, p.BIh, hw.wih, T, in, 3*H)
	var prev []F
	if h0 != nil {
		prev = h0[:H]
	}
	for s := 0; s < T; s++ {
		t := s
		if reverse {
			t = T - 1 - s
		}
		st := t // where this step's state for the backward pass goes
		if c.infer {
			st = 0
		}
		hp := c.Hprev[st*H : st*H+H]
		if prev == nil {
			clear(hp)
		} else {
			copy(hp, prev)
		}
		// gh = W_hh h + b_hh.
		linear(c.gh, hp, p.WHh, p.BHh, hw.whh, 1, H, 3*H)
		h := c.Hs[t*H : t*H+H]
		gruCellForward(h, c.RZN[st*3*H:(st+1)*3*H], c.Ghn[st*H:st*H+H], c.pre, c.Gx[t*3*H:(t+1)*3*H], c.gh, hp, H)
		prev = h
	}
	if hT != nil {
		if prev == nil {
			clear(hT[:H])
		} else {
			copy(hT[:H], prev)
		}
	}
}

// gruDirBackward back-propagates dHs (T, H), the gradient at c.Hs, through
// gruDirForward. It adds into the gradient views g, into dx (T, In) when dx
// is not nil, and into dh0 (H) when dh0 is not nil.
func gruDirBackward[F kern.Float](c *gruDirCache[F], p, g *GRUParams[F], dx, dHs []F, reverse bool, dh0 []F) {
	T, H, in := c.T, p.H, p.In
	c.dGx = grow(c.dGx, T*3*H)
	c.dGh = grow(c.dGh, T*3*H)
	c.dh = growZero(c.dh, H)
	carry := c.dh
	c.dhCur = grow(c.dhCur, H)
	dh := c.dhCur
	for s := T - 1; s >= 0; s-- {
		t := s
		if reverse {
			t = T - 1 - s
		}
		for k := range dh {
			dh[k] = dHs[t*H+k] + carry[k]
		}
		clear(carry)
		dgh := c.dGh[t*3*H : (t+1)*3*H]
		gruCellBackward(c.dGx[t*3*H:(t+1)*3*H], dgh, carry, dh, c.RZN[t*3*H:(t+1)*3*H], c.Ghn[t*H:t*H+H], c.Hprev[t*H:t*H+H], H)
		// carry += W_hhᵀ dgh.
		kern.MatMulNN(carry, dgh, p.WHh, 1, 3*H, H, true)
	}
	if dh0 != nil {
		addTo(dh0[:H], carry)
	}
	linearBackward(nil, g.WHh, g.BHh, c.dGh, c.Hprev, p.WHh, T, H, 3*H)
	linearBackward(dx, g.WIh, g.BIh, c.dGx, c.X, p.WIh, T, in, 3*H)
}

// biGRUCache holds one bidirectional encoder layer.
type biGRUCache[F kern.Float] struct {
	T        int
	Dir      [2]gruDirCache[F]
	Y        []F // (T, 2H) [forward; backward] outputs
	dHs      [2][]F
	dxb      []F // (T, In) backward-direction input gradient when parallel
	parallel bool
}

// biGRUForward runs both directions over x (T, In) (on two goroutines when
// parallel) and concatenates their outputs into c.Y (T, 2H). hw holds
// the directions' weights as binary16 where they are (frozen networks).
func biGRUForward[F kern.Float](c *biGRUCache[F], p *[2]GRUParams[F], hw [2]gruHalf, x []F, T int, parallel bool) {
	w0, w1 := hw[0], hw[1]
	H := p[0].H
	c.T = T
	c.parallel = parallel
	if parallel {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			gruDirForward(&c.Dir[1], &p[1], w1, x, T, nil, true, nil)
		}()
		gruDirForward(&c.Dir[0], &p[0], w0, x, T, nil, false, nil)
		wg.Wait()
	} else {
		gruDirForward(&c.Dir[0], &p[0], w0, x, T, nil, false, nil)
		gruDirForward(&c.Dir[1], &p[1], w1, x, T, nil, true, nil)
	}
	c.Y = grow(c.Y, T*2*H)
	for t := 0; t < T; t++ {
		copy(c.Y[t*2*H:t*2*H+H], c.Dir[0].Hs[t*H:t*H+H])
		copy(c.Y[t*2*H+H:t*2*H+2*H], c.Dir[1].Hs[t*H:t*H+H])
	}
}

// biGRUBackward back-propagates dY (T, 2H) through biGRUForward, adding into
// the gradient views g and into dx (T, In) when dx is not nil.
func biGRUBackward[F kern.Float](c *biGRUCache[F], p, g *[2]GRUParams[F], dx, dY []F) {
	T, H, in := c.T, p[0].H, p[0].In
	for d := range 2 {
		c.dHs[d] = grow(c.dHs[d], T*H)
		for t := 0; t < T; t++ {
			copy(c.dHs[d][t*H:t*H+H], dY[t*2*H+d*H:t*2*H+d*H+H])
		}
	}
	if c.parallel {
		var dxb []F
		if dx != nil {
			c.dxb = growZero(c.dxb, T*in)
			dxb = c.dxb
		}
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			gruDirBackward(&c.Dir[1], &p[1], &g[1], dxb, c.dHs[1], true, nil)
		}()
		gruDirBackward(&c.Dir[0], &p[0], &g[0], dx, c.dHs[0], false, nil)
		wg.Wait()
		if dx != nil {
			addTo(dx[:T*in], dxb)
		}
	} else {
		gruDirBackward(&c.Dir[0], &p[0], &g[0], dx, c.dHs[0], false, nil)
		gruDirBackward(&c.Dir[1], &p[1], &g[1], dx, c.dHs[1], true, nil)
	}
}
