package beam

import (
	"math"
	"sync"
)

var negInf = math.Inf(-1)

// logAdd returns log(exp(a) + exp(b)) without overflow, as
// max(a, b) + softplus(−|a − b|). softplus comes from a table with cubic
// Hermite interpolation (absolute error below 1e-10 nats, see the tests),
// which is several times faster than math.Exp plus math.Log1p; the CTC
// recursion spends nearly all its time here.
func logAdd(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	d := b - a
	if !(d > spMin) { // also catches NaN, which only −Inf − −Inf gives
		return a
	}
	return a + softplus(d)
}

// softplus table: f(d) = log(1 + e^d) on [spMin, 0], spSteps knots per nat,
// with the derivative f'(d) = 1/(1 + e^−d) for Hermite interpolation. Below
// spMin, f(d) < 1e-16 and is dropped.
const (
	spMin   = -37.0
	spSteps = 64
	spN     = int(-spMin*spSteps) + 2
)

// The table is built by buildSoftplus, which NewCTCPrefixScorer calls (every
// logAdd runs in a scorer's methods), not at start-up: a command that never
// searches (heed align) does not pay for its 4,740 exponentials and its
// 38 KB of fresh memory.
var (
	spOnce   sync.Once
	spF, spD []float64 // (spN)
)

// buildSoftplus builds the softplus table, once.
func buildSoftplus() {
	spOnce.Do(func() {
		f, df := make([]float64, spN), make([]float64, spN)
		for i := range f {
			d := spMin + float64(i)/spSteps
			f[i] = math.Log1p(math.Exp(d))
			df[i] = 1 / (1 + math.Exp(-d)) / spSteps // scaled to a unit step
		}
		spF, spD = f, df
	})
}

// softplus returns log(1 + e^d) for d in (spMin, 0].
func softplus(d float64) float64 {
	x := (d - spMin) * spSteps
	i := int(x)
	u := x - float64(i)
	f0, f1, m0, m1 := spF[i], spF[i+1], spD[i], spD[i+1]
	// Cubic Hermite basis on the unit interval.
	u2 := u * u
	u3 := u2 * u
	return (2*u3-3*u2+1)*f0 + (u3-2*u2+u)*m0 + (-2*u3+3*u2)*f1 + (u3-u2)*m1
}

// CTCPrefixScorer computes CTC prefix probabilities (Watanabe et al. 2017,
// "Hybrid CTC/Attention Architecture for End-to-End Speech Recognition",
// Algorithm 2): for a label prefix h, the probability that the CTC output
// for the utterance starts with h, summed over every continuation, and, when
// the sequence is complete, the probability that it is exactly h.
//
// A prefix carries two forward variables per frame, in log space: rⁿₜ(h),
// the probability of emitting h over frames 0..t with frame t on a label
// (non-blank), and rᵇₜ(h), the same with frame t on a blank. Extending a
// prefix by one label costs O(T − len(h)) time; the final probability of a
// prefix is O(1).
//
// The scorer only reads the log-probabilities. Extend caches data in the
// parent state, so one state must not be extended from several goroutines
// at once.
type CTCPrefixScorer struct {
	x     []float32 // (T, V) CTC log-probabilities
	t, v  int
	blank int
}

// CTCState is the forward state of one label prefix.
type CTCState struct {
	r     []float64 // (T, 2): r[2t] = log rⁿₜ, r[2t+1] = log rᵇₜ
	phi   []float64 // (T) log(rⁿₜ + rᵇₜ), filled on first use by Extend
	phiOK bool      // phi holds this prefix's values
	last  int       // last label of the prefix; -1 for the empty prefix
	n     int       // prefix length in labels
	Score float64   // natural-log prefix probability ψ(h)
}

// Len returns the prefix length in labels.
func (s *CTCState) Len() int { return s.n }

// NewCTCPrefixScorer returns a scorer over logp, which holds T frames of V
// natural-log probabilities each (row-major, (T, V)); blank is the blank
// label's index. It panics if T < 1, V < 2, len(logp) < T·V, or blank is
// out of range. The scorer keeps logp without copying it.
func NewCTCPrefixScorer(logp []float32, T, V, blank int) *CTCPrefixScorer {
	if T < 1 || V < 2 {
		panic("beam: CTC scorer needs T >= 1 and V >= 2")
	}
	if len(logp) < T*V {
		panic("beam: CTC log-probabilities shorter than T*V")
	}
	if blank < 0 || blank >= V {
		panic("beam: CTC blank index out of range")
	}
	buildSoftplus()
	return &CTCPrefixScorer{x: logp[:T*V], t: T, v: V, blank: blank}
}

// Initial returns the state of the empty prefix, whose prefix probability is
// 1 (Score 0).
func (s *CTCPrefixScorer) Initial() *CTCState {
	st := &CTCState{r: make([]float64, 2*s.t), last: -1}
	acc := 0.0
	for t := 0; t < s.t; t++ {
		acc += float64(s.x[t*s.v+s.blank])
		st.r[2*t] = negInf
		st.r[2*t+1] = acc
	}
	return st
}

// Extend computes the state of the prefix g followed by label c into dst and
// returns dst; dst.Score is then the log prefix probability of g+c, which is
// −Inf when g+c has more labels than there are frames. A nil dst, or one
// made for a different T, is replaced by a new state. dst must not be g.
// Extend panics if c is the blank or out of range.
func (s *CTCPrefixScorer) Extend(dst, g *CTCState, c int) *CTCState {
	if c < 0 || c >= s.v || c == s.blank {
		panic("beam: CTC Extend with blank or out-of-range label")
	}
	if dst == g {
		panic("beam: CTC Extend into its own parent")
	}
	if dst == nil || len(dst.r) != 2*s.t {
		dst = &CTCState{r: make([]float64, 2*s.t)}
	}
	dst.last, dst.n, dst.phiOK = c, g.n+1, false
	r, gr, x, v := dst.r, g.r, s.x, s.v

	// g+c needs at least n+1 frames: frames before g.n are impossible
	// (the empty prefix may start emitting c at frame 0).
	start := g.n
	psi := negInf
	if g.n == 0 {
		r[0], r[1] = float64(x[c]), negInf
		psi = r[0]
		start = 1
	}
	if start > s.t {
		start = s.t
	}
	for t := 0; t < start && g.n > 0; t++ {
		r[2*t], r[2*t+1] = negInf, negInf
	}
	// φₜ₋₁: probability of g ending at t−1 such that c may start at t:
	// blank-ending only for a repeated label, otherwise either ending,
	// which is shared by all extensions of g and computed once.
	repeat := c == g.last
	var gphi []float64
	if !repeat && start < s.t {
		gphi = s.phi(g)
	}
	xb := s.blank
	for t := start; t < s.t; t++ {
		var phi float64
		if repeat {
			phi = gr[2*(t-1)+1]
		} else {
			phi = gphi[t-1]
		}
		xc := float64(x[t*v+c])
		r[2*t] = logAdd(r[2*(t-1)], phi) + xc
		r[2*t+1] = logAdd(r[2*(t-1)+1], r[2*(t-1)]) + float64(x[t*v+xb])
		psi = logAdd(psi, phi+xc)
	}
	dst.Score = psi
	return dst
}

// phi returns g's φ = log(rⁿₜ + rᵇₜ) for all frames, computing it on the
// first call. Frames before g.n−1 cannot end g and stay −Inf.
func (s *CTCPrefixScorer) phi(g *CTCState) []float64 {
	if g.phiOK {
		return g.phi
	}
	if len(g.phi) != s.t {
		g.phi = make([]float64, s.t)
	}
	for t := range g.phi {
		g.phi[t] = logAdd(g.r[2*t], g.r[2*t+1])
	}
	g.phiOK = true
	return g.phi
}

// Final returns the natural-log probability that the complete CTC label
// sequence is exactly the prefix of g (the score of g followed by <eos>).
func (s *CTCPrefixScorer) Final(g *CTCState) float64 {
	T := s.t - 1
	return logAdd(g.r[2*T], g.r[2*T+1])
}
