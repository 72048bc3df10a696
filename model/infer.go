package model

import "github.com/heed-asr/heed/internal/kern"

// A frozen network (Freeze) keeps the weights of its one-row products (the
// encoder's recurrence and the decoder's step, matrix-vector products whose
// time is the time to read the matrix) as binary16 as well, half the bytes
// to read, when they are binary16 values (a model read from a float16
// file, whose stored bits are then used as they are). They are made once,
// on first use. Every product computes what it computed on the float32
// weights, to the last bit (see kern.Half).

// gruHalf holds a GRU's weights W_ih and W_hh as binary16, each nil when
// not binary16.
type gruHalf struct {
	wih, whh *kern.Half
}

// complete reports whether every encoder GRU matrix has its binary16 copy.
func (w *encWeights) complete() bool {
	for _, dir := range w.dir {
		for _, g := range dir {
			if g.wih == nil || g.whh == nil {
				return false
			}
		}
	}
	return true
}

// encWeights are the encoder's weights as binary16 (entries nil when not
// binary16): the GRUs' per layer and direction, the CTC head's and the
// attention keys' V.
type encWeights struct {
	dir        [][2]gruHalf
	ctcW, attV *kern.Half
}

// decWeights are the decoder step's weights as binary16, each nil when not
// binary16: the GRU's W_ih and W_hh, the attention's W, the output layer's
// W_o and W_out.
type decWeights struct {
	wih, whh, attW, outWo, outW *kern.Half
}

// encWeights returns the encoder's binary16 weights, nil when the network
// is not frozen.
func (m *Net[F]) encWeights() *encWeights {
	if !m.frozen {
		return nil
	}
	m.encOnce.Do(func() {
		cfg, p := &m.Cfg, m.P
		w := &encWeights{dir: make([][2]gruHalf, len(p.Enc))}
		for l := range p.Enc {
			for d := range 2 {
				g := &p.Enc[l][d]
				w.dir[l][d] = gruHalf{wih: m.half(g.WIh, 3*g.H, g.In), whh: m.half(g.WHh, 3*g.H, g.H)}
			}
		}
		w.ctcW = m.half(p.CTCW, cfg.V(), cfg.EncDim())
		w.attV = m.half(p.AttV, cfg.AttDim, cfg.EncDim())
		m.encW = w
	})
	return m.encW
}

// decWeights returns the decoder step's binary16 weights, nil when the
// network is not frozen.
func (m *Net[F]) decWeights() *decWeights {
	if !m.frozen {
		return nil
	}
	m.decOnce.Do(func() {
		cfg, p := &m.Cfg, m.P
		E, D, H2, A, V := cfg.EmbedDim, cfg.DecHidden, cfg.EncDim(), cfg.AttDim, cfg.V()
		m.decW = &decWeights{
			wih:   m.half(p.DecGRU.WIh, 3*D, E+H2),
			whh:   m.half(p.DecGRU.WHh, 3*D, D),
			attW:  m.half(p.AttW, A, D),
			outWo: m.half(p.OutWo, D, D+H2),
			outW:  m.half(p.OutW, V, D),
		}
	})
	return m.decW
}

// halfMatrices lists the matrices of p that frozen inference reads through
// binary16 copies (encWeights, decWeights), with their column counts.
func halfMatrices[F kern.Float](p *Params[F]) (ws [][]F, ks []int) {
	cfg := &p.Cfg
	add := func(w []F, k int) { ws, ks = append(ws, w), append(ks, k) }
	for l := range p.Enc {
		for d := range 2 {
			g := &p.Enc[l][d]
			add(g.WIh, g.In)
			add(g.WHh, g.H)
		}
	}
	add(p.CTCW, cfg.EncDim())
	add(p.AttV, cfg.EncDim())
	add(p.DecGRU.WIh, cfg.EmbedDim+cfg.EncDim())
	add(p.DecGRU.WHh, cfg.DecHidden)
	add(p.AttW, cfg.DecHidden)
	add(p.OutWo, cfg.DecHidden+cfg.EncDim())
	add(p.OutW, cfg.DecHidden)
	return ws, ks
}

// weight returns w, one of m.P's matrices, as float32: w itself when it
// holds its values, else (a matrix waiting for Materialize) its binary16
// copy h widened, made once and kept by h. h is w's binary16 copy or nil.
func (m *Net[F]) weight(w []F, h *kern.Half) []F {
	if h == nil {
		return w
	}
	if w32, ok := any(w).([]float32); ok && m.float32Of(w32) == nil {
		return any(h.Float32()).([]F)
	}
	return w
}

// encoderParams returns m.P, or for a network whose matrices wait for
// Materialize a copy of it whose encoder GRUs read float32 matrices
// widened from their binary16 copies (weight), for the batched encoder's
// packed products.
func (m *Net[F]) encoderParams() *Params[F] {
	iw := m.encWeights()
	if iw == nil || len(m.unwidened) == 0 || m.widened.Load() {
		return m.P
	}
	p := *m.P
	p.Enc = make([][2]GRUParams[F], len(m.P.Enc))
	for l := range p.Enc {
		for d := range 2 {
			g := m.P.Enc[l][d]
			g.WIh, g.WHh = m.weight(g.WIh, iw.dir[l][d].wih), m.weight(g.WHh, iw.dir[l][d].whh)
			p.Enc[l][d] = g
		}
	}
	return &p
}

// half returns the weight w (n×k), one of m.P's matrices, held as
// binary16: with the bits its model file stored when there are any (see
// float16; w itself may still wait for Materialize), else converted when
// all its values are binary16; nil when F is not float32 or w is not all
// binary16 values.
func (m *Net[F]) half(w []F, n, k int) *kern.Half {
	w32, ok := any(w).([]float32)
	if !ok {
		return nil
	}
	if m.float16 != nil {
		if h := m.float16(w32); h != nil {
			return kern.NewHalfBits(m.float32Of(w32), h, n, k)
		}
	}
	return kern.NewHalf(w32, n, k)
}

// linear sets y (m, out) = x (m, in) · wᵀ + b for w (out, in) and b (out)
// or nil, as linearForward does; h, when not nil, is w as binary16, read
// instead of w for the same result to the last bit.
func linear[F kern.Float](y, x, w, b []F, h *kern.Half, m, in, out int) {
	if h == nil {
		linearForward(y, x, w, b, m, in, out)
		return
	}
	kern.MatMulNTHalf(any(y).([]float32), any(x).([]float32), h, m, false)
	if b != nil {
		addRows(y, b, m, out)
	}
}
