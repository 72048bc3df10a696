package model

import (
	"math"
	"slices"

	"github.com/heed-asr/heed/internal/kern"
)

// CTC (Graves et al. 2006) with blank = token 0 (<eos>). The extended label
// sequence l' interleaves blanks: [∅, l1, ∅, l2, ..., lU, ∅], S = 2U+1.
// Forward variables α_t(s) include the emission at t, backward variables
// β_t(s) exclude it, so occupancy γ_t(s) = α_t(s)·β_t(s) / P.
//
// ctcLoss runs in float64 in the probability domain with every frame's
// variables rescaled to sum 1 (Rabiner's scaling; log P is the sum of the
// logs of the scales): one exp per frame and label instead of a log-add per
// transition. Where that underflows (a frame whose reachable labels all lie
// more than about 700 nats below its best one) it falls back to the same
// recursions in log space (ctcLossLog).

// ctcScratch holds the forward-backward tables.
type ctcScratch struct {
	alpha, beta []float64 // (T, S)
	y           []float64 // (T, S) emission probabilities, each frame divided by its largest
	z           []float64 // (T) Σ_s α_t(s)·β_t(s) of the rescaled variables
	ext         []int     // (S)
}

// ctcHeadForward computes the CTC log-probs clp (T, V) =
// log-softmax(h W_ctcᵀ + b) of the encoder output h (T, 2H).
func ctcHeadForward[F kern.Float](clp, h []F, p *Params[F], T int) {
	V := p.Cfg.V()
	linearForward(clp, h, p.CTCW, p.CTCB, T, p.Cfg.EncDim(), V)
	for t := 0; t < T; t++ {
		logSoftmax(clp[t*V:(t+1)*V], clp[t*V:(t+1)*V])
	}
}

// ctcHeadBackward back-propagates dclp (T, V), the gradient at the
// log-probs (overwritten), through ctcHeadForward, adding into g and dh
// (T, 2H).
func ctcHeadBackward[F kern.Float](dh, dclp, clp, h []F, p, g *Params[F], T int) {
	V := p.Cfg.V()
	for t := 0; t < T; t++ {
		logSoftmaxBackward(dclp[t*V:(t+1)*V], dclp[t*V:(t+1)*V], clp[t*V:(t+1)*V])
	}
	linearBackward(dh, g.CTCW, g.CTCB, dclp, h, p.CTCW, T, p.Cfg.EncDim(), V)
}

// ctcFeasible reports whether labels (no blanks) fit in T frames: CTC needs
// one frame per label plus one blank between equal neighbours.
func ctcFeasible(labels []int, T int) bool {
	need := len(labels)
	for i := 1; i < len(labels); i++ {
		if labels[i] == labels[i-1] {
			need++
		}
	}
	return need <= T
}

func logAdd(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(b, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// ctcLoss returns -log P(labels | logp) for per-frame log-probabilities
// logp (T, V) and labels (U) without blanks. When dlogp (T, V) is not nil it
// adds scale·∂loss/∂logp = -scale·(occupancy of each token) into it. The
// loss is +Inf (and nothing is added) when the labels cannot fit in T frames.
func ctcLoss[F kern.Float](sc *ctcScratch, dlogp, logp []F, T, V int, labels []int, scale float64) float64 {
	U := len(labels)
	S := 2*U + 1
	if T == 0 || !ctcFeasible(labels, T) {
		return math.Inf(1)
	}
	sc.ext = grow(sc.ext, S)
	for s := range sc.ext {
		if s%2 == 0 {
			sc.ext[s] = 0
		} else {
			sc.ext[s] = labels[s/2]
		}
	}
	if l, ok := ctcLossScaled(sc, dlogp, logp, T, V, scale); ok {
		return l
	}
	return ctcLossLog(sc, dlogp, logp, T, V, scale)
}

// ctcLossScaled is ctcLoss in the probability domain, over the extended
// labels in sc.ext. It reports false, having added nothing, where a
// frame's scale underflows to zero.
func ctcLossScaled[F kern.Float](sc *ctcScratch, dlogp, logp []F, T, V int, scale float64) (float64, bool) {
	ext := sc.ext
	S := len(ext)
	sc.y = grow(sc.y, T*S)
	sc.alpha = grow(sc.alpha, T*S)
	sc.beta = grow(sc.beta, T*S)
	y, al, be := sc.y, sc.alpha, sc.beta
	// skip reports whether s may be entered from s-2.
	skip := func(s int) bool { return s >= 2 && ext[s] != 0 && ext[s] != ext[s-2] }

	// y_t(s) = exp(logp_t(l'_s) - m_t), m_t the frame's largest; log P
	// collects the m_t and the logs of the scales.
	var logP float64
	for t := 0; t < T; t++ {
		row, yt := logp[t*V:(t+1)*V], y[t*S:(t+1)*S]
		m := math.Inf(-1)
		for _, k := range ext {
			m = max(m, float64(row[k]))
		}
		blank := math.Exp(float64(row[0]) - m)
		for s, k := range ext {
			if k == 0 {
				yt[s] = blank
			} else {
				yt[s] = math.Exp(float64(row[k]) - m)
			}
		}
		logP += m
	}
	// normalize divides α_t by its sum, adds the sum's log to logP, and
	// reports whether the sum was positive and finite.
	normalize := func(v []float64) bool {
		c, ok := rescale(v)
		logP += math.Log(c)
		return ok
	}

	clear(al[:S])
	al[0] = y[0]
	if S > 1 {
		al[1] = y[1]
	}
	if !normalize(al[:S]) {
		return 0, false
	}
	for t := 1; t < T; t++ {
		prev, cur, yt := al[(t-1)*S:t*S], al[t*S:(t+1)*S], y[t*S:(t+1)*S]
		for s := 0; s < S; s++ {
			v := prev[s]
			if s >= 1 {
				v += prev[s-1]
			}
			if skip(s) {
				v += prev[s-2]
			}
			cur[s] = v * yt[s]
		}
		if !normalize(cur) {
			return 0, false
		}
	}
	last := al[(T-1)*S : T*S]
	pEnd := last[S-1]
	if S > 1 {
		pEnd += last[S-2]
	}
	if !(pEnd > 0) {
		return 0, false
	}
	logP += math.Log(pEnd)
	if dlogp == nil {
		return -logP, true
	}

	// β rescaled per frame too; only the ratios within a frame matter for
	// the occupancy, γ_t(s) = α_t(s)·β_t(s) / Σ_s α_t(s)·β_t(s).
	clear(be[(T-1)*S : T*S])
	be[(T-1)*S+S-1] = 1
	if S > 1 {
		be[(T-1)*S+S-2] = 1
	}
	sc.z = grow(sc.z, T)
	for t := T - 1; t >= 0; t-- {
		cur := be[t*S : (t+1)*S]
		if t < T-1 {
			next, yn := be[(t+1)*S:(t+2)*S], y[(t+1)*S:(t+2)*S]
			for s := 0; s < S; s++ {
				v := next[s] * yn[s]
				if s+1 < S {
					v += next[s+1] * yn[s+1]
				}
				if s+2 < S && skip(s+2) {
					v += next[s+2] * yn[s+2]
				}
				cur[s] = v
			}
			if _, ok := rescale(cur); !ok {
				return 0, false
			}
		}
		var z float64
		for s, a := range al[t*S : (t+1)*S] {
			z += a * cur[s]
		}
		if !(z > 0) {
			return 0, false
		}
		sc.z[t] = z
	}
	for t := 0; t < T; t++ {
		d := dlogp[t*V : (t+1)*V]
		k := scale / sc.z[t]
		for s, a := range al[t*S : (t+1)*S] {
			if g := a * be[t*S+s]; g != 0 {
				d[ext[s]] -= F(k * g)
			}
		}
	}
	return -logP, true
}

// rescale divides v by its sum c and reports whether c was positive and
// finite (v is left as it was otherwise).
func rescale(v []float64) (c float64, ok bool) {
	for _, x := range v {
		c += x
	}
	if !(c > 0) || math.IsInf(c, 0) {
		return c, false
	}
	inv := 1 / c
	for s := range v {
		v[s] *= inv
	}
	return c, true
}

// ctcLossLog is ctcLoss in log space, over the extended labels in sc.ext.
func ctcLossLog[F kern.Float](sc *ctcScratch, dlogp, logp []F, T, V int, scale float64) float64 {
	ext := sc.ext
	S := len(ext)
	sc.alpha = grow(sc.alpha, T*S)
	sc.beta = grow(sc.beta, T*S)
	ninf := math.Inf(-1)
	al, be := sc.alpha, sc.beta
	lp := func(t, s int) float64 { return float64(logp[t*V+ext[s]]) }
	// skip reports whether s may be entered from s-2.
	skip := func(s int) bool { return s >= 2 && ext[s] != 0 && ext[s] != ext[s-2] }

	for s := 0; s < S; s++ {
		al[s] = ninf
	}
	al[0] = lp(0, 0)
	if S > 1 {
		al[1] = lp(0, 1)
	}
	for t := 1; t < T; t++ {
		prev, cur := al[(t-1)*S:t*S], al[t*S:(t+1)*S]
		for s := 0; s < S; s++ {
			v := prev[s]
			if s >= 1 {
				v = logAdd(v, prev[s-1])
			}
			if skip(s) {
				v = logAdd(v, prev[s-2])
			}
			if math.IsInf(v, -1) {
				cur[s] = ninf
			} else {
				cur[s] = v + lp(t, s)
			}
		}
	}
	last := al[(T-1)*S : T*S]
	logP := last[S-1]
	if S > 1 {
		logP = logAdd(logP, last[S-2])
	}
	if dlogp == nil {
		return -logP
	}

	for s := 0; s < S; s++ {
		be[(T-1)*S+s] = ninf
	}
	be[(T-1)*S+S-1] = 0
	if S > 1 {
		be[(T-1)*S+S-2] = 0
	}
	for t := T - 2; t >= 0; t-- {
		next, cur := be[(t+1)*S:(t+2)*S], be[t*S:(t+1)*S]
		for s := 0; s < S; s++ {
			v := next[s] + lp(t+1, s)
			if s+1 < S {
				v = logAdd(v, next[s+1]+lp(t+1, s+1))
			}
			if s+2 < S && skip(s+2) {
				v = logAdd(v, next[s+2]+lp(t+1, s+2))
			}
			cur[s] = v
		}
	}
	for t := 0; t < T; t++ {
		d := dlogp[t*V : (t+1)*V]
		for s := 0; s < S; s++ {
			g := al[t*S+s] + be[t*S+s] - logP
			if g > -745 {
				d[ext[s]] -= F(scale * math.Exp(g))
			}
		}
	}
	return -logP
}

// CTCPrefixScores returns, for u = 0..len(labels), the CTC log-probability
// log P(labels[:u] | logp) that exactly the first u labels are emitted over
// all T frames of logp (T, V) (blank = token 0). With reverse set it returns
// the scores of the suffixes instead: element u is log P(labels[u:] | logp).
// One forward pass gives all of them, in O(T·len(labels)) time and
// O(len(labels)) memory. Scores of label sequences that cannot fit are -Inf.
func CTCPrefixScores(logp []float32, T, V int, labels []int, reverse bool) []float64 {
	U := len(labels)
	S := 2*U + 1
	label := func(s int) int { // the token of extended position s
		if s%2 == 0 {
			return 0
		}
		if reverse {
			return labels[U-1-s/2]
		}
		return labels[s/2]
	}
	frame := func(t int) []float32 {
		if reverse {
			t = T - 1 - t
		}
		return logp[t*V : (t+1)*V]
	}
	ninf := math.Inf(-1)
	out := make([]float64, U+1)
	for u := range out {
		out[u] = ninf
	}
	if T == 0 {
		out[0] = 0
		if reverse {
			slices.Reverse(out)
		}
		return out
	}
	prev, cur := make([]float64, S), make([]float64, S)
	for s := range prev {
		prev[s] = ninf
	}
	f := frame(0)
	prev[0] = float64(f[0])
	if S > 1 {
		prev[1] = float64(f[label(1)])
	}
	for t := 1; t < T; t++ {
		f = frame(t)
		for s := 0; s < S; s++ {
			v := prev[s]
			if s >= 1 {
				v = logAdd(v, prev[s-1])
			}
			if s >= 2 && s%2 == 1 && label(s) != label(s-2) {
				v = logAdd(v, prev[s-2])
			}
			if math.IsInf(v, -1) {
				cur[s] = ninf
			} else {
				cur[s] = v + float64(f[label(s)])
			}
		}
		prev, cur = cur, prev
	}
	out[0] = prev[0]
	for u := 1; u <= U; u++ {
		out[u] = logAdd(prev[2*u], prev[2*u-1])
	}
	if reverse {
		slices.Reverse(out)
	}
	return out
}
