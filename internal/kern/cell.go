package kern

import "math"

// Element-wise kernels of training: the GRU cell (gates r, z, n, as in
// PyTorch) and the Adam update. The float32 versions in assembly perform the
// same IEEE operations in the same order as the Go loops here (no fused
// multiply-adds), so every implementation gives the same bits; float64 runs
// the Go loops.

// GRUCellForward computes one GRU cell from its two affine parts, gx =
// W_ih x + b_ih (3H) and gh = W_hh h + b_hh (3H), and the previous state
// hprev (H):
//
//	r  = σ(gx_r + gh_r)
//	z  = σ(gx_z + gh_z)
//	n  = tanh(gx_n + r ⊙ gh_n)
//	h  = (1-z) ⊙ n + z ⊙ hprev
//
// It writes h (H), the activations rzn (3H) = [r; z; n] and ghn (H) = gh_n
// for the backward pass; pre (3H) is scratch. It panics if a slice is
// shorter than its shape.
func GRUCellForward[F Float](h, rzn, ghn, pre, gx, gh, hprev []F, H int) {
	checkLen("GRUCellForward h", min(len(h), len(ghn), len(hprev)), H)
	checkLen("GRUCellForward rzn", min(len(rzn), len(pre), len(gx), len(gh)), 3*H)
	if h32, ok := any(h).([]float32); ok {
		gruForward32(active, h32, any(rzn).([]float32), any(ghn).([]float32), any(pre).([]float32),
			any(gx).([]float32), any(gh).([]float32), any(hprev).([]float32), H)
		return
	}
	addRef(pre[:2*H], gx[:2*H], gh[:2*H])
	Sigmoid(rzn[:2*H], pre[:2*H])
	copy(ghn[:H], gh[2*H:3*H])
	gruGateRef(pre[2*H:3*H], gx[2*H:3*H], rzn[:H], ghn[:H])
	Tanh(rzn[2*H:3*H], pre[2*H:3*H])
	gruOutRef(h[:H], rzn[H:2*H], rzn[2*H:3*H], hprev[:H])
}

func gruForward32(im *impl32, h, rzn, ghn, pre, gx, gh, hprev []float32, H int) {
	im.add(pre[:2*H], gx[:2*H], gh[:2*H])
	im.sigmoid(rzn[:2*H], pre[:2*H])
	copy(ghn[:H], gh[2*H:3*H])
	im.gruGate(pre[2*H:3*H], gx[2*H:3*H], rzn[:H], ghn[:H])
	im.tanh(rzn[2*H:3*H], pre[2*H:3*H])
	im.gruOut(h[:H], rzn[H:2*H], rzn[2*H:3*H], hprev[:H])
}

// GRUCellBackward takes dh (H), the gradient at the output of
// GRUCellForward, and writes the gradients at the cell's affine inputs
// dgx (3H) and dgh (3H). It adds the direct path z ⊙ dh into dhprev (H);
// the caller adds W_hhᵀ·dgh. rzn, ghn and hprev are those of the forward
// pass. It panics if a slice is shorter than its shape.
func GRUCellBackward[F Float](dgx, dgh, dhprev, dh, rzn, ghn, hprev []F, H int) {
	checkLen("GRUCellBackward dh", min(len(dhprev), len(dh), len(ghn), len(hprev)), H)
	checkLen("GRUCellBackward dgx", min(len(dgx), len(dgh), len(rzn)), 3*H)
	if d32, ok := any(dgx).([]float32); ok {
		active.gruBack(d32, any(dgh).([]float32), any(dhprev).([]float32), any(dh).([]float32),
			any(rzn).([]float32), any(ghn).([]float32), any(hprev).([]float32), H)
		return
	}
	gruBackRef(dgx, dgh, dhprev, dh, rzn, ghn, hprev, 0, H)
}

// gruBackRef is GRUCellBackward for the elements k0 <= k < H.
func gruBackRef[F Float](dgx, dgh, dhprev, dh, rzn, ghn, hprev []F, k0, H int) {
	for k := k0; k < H; k++ {
		r, z, n := rzn[k], rzn[H+k], rzn[2*H+k]
		d := dh[k]
		dn := d * (1 - z)
		dz := d * (hprev[k] - n)
		dhprev[k] += d * z
		dan := dn * (1 - n*n)
		dar := dan * ghn[k] * r * (1 - r)
		daz := dz * z * (1 - z)
		dgx[k], dgx[H+k], dgx[2*H+k] = dar, daz, dan
		dgh[k], dgh[H+k], dgh[2*H+k] = dar, daz, dan*r
	}
}

// TanhGrad sets dst[k] = (s·w[k])·(1 - t[k]²): the gradient at the input
// of t = tanh(x) when the gradient at t is s·w. It panics if t or w is
// shorter than dst.
func TanhGrad[F Float](dst, t, w []F, s F) {
	checkLen("TanhGrad", min(len(t), len(w)), len(dst))
	if d32, ok := any(dst).([]float32); ok {
		active.tanhGrad(d32, any(t).([]float32), any(w).([]float32), float32(s))
		return
	}
	tanhGradRef(dst, t, w, s)
}

// AdamCoef holds the per-step constants of one Adam update (see AdamUpdate).
type AdamCoef struct {
	B1, B2 float64 // moment decays β1, β2
	C2     float64 // bias correction of the second moment, 1 - β2^t
	Step   float64 // learning rate over the first moment's bias correction, lr / (1 - β1^t)
	Decay  float64 // decoupled weight decay factor, 1 - lr·w
	Eps    float64
}

// AdamUpdate applies one Adam step to every element i, in float64:
//
//	m = β1·m_i + (1-β1)·g_i
//	v = β2·v_i + (1-β2)·g_i·g_i
//	p_i = p_i·Decay - Step·m / (√(v/C2) + Eps)
//
// storing m and v back into ms and vs. It panics if grads, ms or vs is
// shorter than params.
func AdamUpdate[F Float](params, grads, ms, vs []F, c AdamCoef) {
	n := len(params)
	checkLen("AdamUpdate grads", len(grads), n)
	checkLen("AdamUpdate ms", min(len(ms), len(vs)), n)
	if p32, ok := any(params).([]float32); ok {
		active.adam(p32, any(grads).([]float32)[:n], any(ms).([]float32)[:n], any(vs).([]float32)[:n], &c)
		return
	}
	adamRef(params, grads, ms, vs, &c)
}

func adamRef[F Float](params, grads, ms, vs []F, c *AdamCoef) {
	b1, b2, c2, step, decay, eps := c.B1, c.B2, c.C2, c.Step, c.Decay, c.Eps
	grads, ms, vs = grads[:len(params)], ms[:len(params)], vs[:len(params)]
	for i, g64 := range grads {
		g := float64(g64)
		m := b1*float64(ms[i]) + (1-b1)*g
		v := b2*float64(vs[i]) + (1-b2)*g*g
		ms[i], vs[i] = F(m), F(v)
		p := float64(params[i]) * decay
		params[i] = F(p - step*m/(math.Sqrt(v/c2)+eps))
	}
}

// The portable versions: the float64 path, and for float32 the fallback and
// the tails of the assembly kernels.

func addRef[F Float](dst, a, b []F) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = a[i] + b[i]
	}
}

func mulRef[F Float](dst, a, b []F) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = a[i] * b[i]
	}
}

func tanhGradRef[F Float](dst, t, w []F, s F) {
	t, w = t[:len(dst)], w[:len(dst)]
	for k, v := range t {
		dst[k] = s * w[k] * (1 - v*v)
	}
}

// gruGateRef sets dst = gx + r ⊙ gh.
func gruGateRef[F Float](dst, gx, r, gh []F) {
	gx, r, gh = gx[:len(dst)], r[:len(dst)], gh[:len(dst)]
	for k := range dst {
		dst[k] = gx[k] + r[k]*gh[k]
	}
}

// gruOutRef sets h = (1-z) ⊙ n + z ⊙ hprev.
func gruOutRef[F Float](h, z, n, hprev []F) {
	z, n, hprev = z[:len(h)], n[:len(h)], hprev[:len(h)]
	for k := range h {
		h[k] = (1-z[k])*n[k] + z[k]*hprev[k]
	}
}

// The float32 instances in the impl32 tables.
var (
	addGo      = addRef[float32]
	mulGo      = mulRef[float32]
	tanhGradGo = tanhGradRef[float32]
	gruGateGo  = gruGateRef[float32]
	gruOutGo   = gruOutRef[float32]
)

func gruBackGo(dgx, dgh, dhprev, dh, rzn, ghn, hprev []float32, H int) {
	gruBackRef(dgx, dgh, dhprev, dh, rzn, ghn, hprev, 0, H)
}

func adamGo(params, grads, ms, vs []float32, c *AdamCoef) { adamRef(params, grads, ms, vs, c) }
