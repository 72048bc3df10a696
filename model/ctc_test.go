package model

import (
	"math"
	"math/rand/v2"
	"testing"
)

// bruteCTC sums the probability of every path of length T over V tokens
// that collapses (merge repeats, drop blanks) to labels.
func bruteCTC(logp []float64, T, V int, labels []int) float64 {
	path := make([]int, T)
	var total float64
	var rec func(t int)
	rec = func(t int) {
		if t == T {
			var out []int
			prev := -1
			for _, k := range path {
				if k != prev && k != 0 {
					out = append(out, k)
				}
				prev = k
			}
			if len(out) != len(labels) {
				return
			}
			for i := range out {
				if out[i] != labels[i] {
					return
				}
			}
			lp := 0.0
			for tt, k := range path {
				lp += logp[tt*V+k]
			}
			total += math.Exp(lp)
			return
		}
		for k := 0; k < V; k++ {
			path[t] = k
			rec(t + 1)
		}
	}
	rec(0)
	return -math.Log(total)
}

func TestCTCBruteForce(t *testing.T) {
	const tol = 1e-12
	const V = 4
	tests := []struct {
		T      int
		labels []int
	}{
		{4, []int{1}}, {4, []int{1, 2}}, {4, []int{1, 1}}, {5, []int{2, 1, 2}},
		{3, []int{3, 3}}, {5, []int{}}, {1, []int{2}}, {4, []int{1, 2, 3, 1}},
	}
	for _, tc := range tests {
		t.Run("", func(t *testing.T) {
			rng := rand.New(rand.NewPCG(30, uint64(tc.T)))
			logp := randVec(rng, tc.T*V, 2)
			for i := 0; i < tc.T; i++ {
				logSoftmax(logp[i*V:(i+1)*V], logp[i*V:(i+1)*V])
			}
			var sc ctcScratch
			got := ctcLoss(&sc, nil, logp, tc.T, V, tc.labels, 1)
			want := bruteCTC(logp, tc.T, V, tc.labels)
			if math.Abs(got-want) > tol*math.Max(1, math.Abs(want)) {
				t.Errorf("T=%d labels=%v: ctc %.15g, brute force %.15g", tc.T, tc.labels, got, want)
			}
		})
	}
}

func TestCTCInfeasible(t *testing.T) {
	tests := []struct {
		T      int
		labels []int
		ok     bool
	}{{2, []int{1, 1}, false}, {3, []int{1, 1}, true}, {2, []int{1, 2}, true}, {1, []int{1, 2}, false}, {0, nil, false}}
	for _, tc := range tests {
		logp := make([]float64, tc.T*3)
		var sc ctcScratch
		l := ctcLoss(&sc, nil, logp, tc.T, 3, tc.labels, 1)
		if tc.ok == math.IsInf(l, 1) {
			t.Errorf("T=%d labels=%v: loss %g, feasible %v", tc.T, tc.labels, l, tc.ok)
		}
	}
}

func TestCTCGrad(t *testing.T) {
	const T, V = 6, 5
	tests := [][]int{{1, 2}, {3, 3, 1}, {}, {4, 2, 4, 1}}
	for _, labels := range tests {
		t.Run("", func(t *testing.T) {
			rng := rand.New(rand.NewPCG(31, uint64(len(labels))))
			logits := randVec(rng, T*V, 2)
			logp := make([]float64, T*V)
			var sc ctcScratch
			const scale = 0.3
			f := func() float64 {
				for i := 0; i < T; i++ {
					logSoftmax(logp[i*V:(i+1)*V], logits[i*V:(i+1)*V])
				}
				return scale * ctcLoss(&sc, nil, logp, T, V, labels, 0)
			}
			f()
			d := make([]float64, T*V)
			ctcLoss(&sc, d, logp, T, V, labels, scale)
			// Each frame's occupancies sum to 1: the gradient row sums to -scale.
			for i := 0; i < T; i++ {
				var s float64
				for _, v := range d[i*V : (i+1)*V] {
					s += v
				}
				if math.Abs(s+scale) > 1e-12 {
					t.Fatalf("frame %d occupancy sums to %g, want %g", i, -s, scale)
				}
			}
			for i := 0; i < T; i++ {
				logSoftmaxBackward(d[i*V:(i+1)*V], d[i*V:(i+1)*V], logp[i*V:(i+1)*V])
			}
			checkGrad(t, "logits", logits, d, f)
		})
	}
}

// TestCTCPrefixScores checks every prefix and suffix score against the
// brute-force sum over paths.
func TestCTCPrefixScores(t *testing.T) {
	const V = 4
	tests := []struct {
		T      int
		labels []int
	}{
		{5, []int{1, 2, 3}}, {5, []int{1, 1, 2}}, {4, []int{2, 2, 2}}, {3, []int{}}, {0, []int{1}}, {6, []int{3, 1, 3, 2}},
	}
	for _, tc := range tests {
		rng := rand.New(rand.NewPCG(uint64(tc.T), uint64(len(tc.labels))))
		logp := make([]float64, tc.T*V)
		for i := 0; i < tc.T; i++ {
			row := logp[i*V : (i+1)*V]
			for k := range row {
				row[k] = rng.NormFloat64()
			}
			logSoftmaxF64(row)
		}
		lp32 := make([]float32, len(logp))
		for i, v := range logp {
			lp32[i] = float32(v)
		}
		for _, reverse := range []bool{false, true} {
			got := CTCPrefixScores(lp32, tc.T, V, tc.labels, reverse)
			if len(got) != len(tc.labels)+1 {
				t.Fatalf("T=%d %v reverse=%v: %d scores, want %d", tc.T, tc.labels, reverse, len(got), len(tc.labels)+1)
			}
			for u := range got {
				part := tc.labels[:u]
				if reverse {
					part = tc.labels[u:]
				}
				want := math.Inf(-1)
				if tc.T == 0 && len(part) == 0 {
					want = 0
				} else if tc.T > 0 {
					want = -bruteCTC(logp, tc.T, V, part)
				}
				if math.IsInf(want, -1) != math.IsInf(got[u], -1) || (!math.IsInf(want, -1) && math.Abs(got[u]-want) > 1e-5) {
					t.Errorf("T=%d %v reverse=%v u=%d: got %v, want %v", tc.T, tc.labels, reverse, u, got[u], want)
				}
			}
		}
	}
}

// logSoftmaxF64 normalises x in place to log-probabilities.
func logSoftmaxF64(x []float64) {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, v)
	}
	var s float64
	for _, v := range x {
		s += math.Exp(v - m)
	}
	l := m + math.Log(s)
	for i := range x {
		x[i] -= l
	}
}

// TestCTCScaledMatchesLog checks the probability-domain recursions against
// the log-space ones (loss and occupancies) on long random utterances, and
// that a frame whose reachable labels lie 1,000 nats below another label of
// the transcript falls back to log space instead of losing the utterance.
func TestCTCScaledMatchesLog(t *testing.T) {
	const V = 30
	rng := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct {
		T, U      int
		underflow bool
	}{{300, 40, false}, {120, 60, false}, {50, 0, false}, {80, 20, true}} {
		logp := make([]float64, tc.T*V)
		for i := 0; i < tc.T; i++ {
			row := logp[i*V : (i+1)*V]
			for k := range row {
				row[k] = 4 * rng.NormFloat64()
			}
			logSoftmaxF64(row)
		}
		labels := make([]int, tc.U)
		for i := range labels {
			labels[i] = 1 + rng.IntN(V-2) // never V-1: the underflow case's loud token
		}
		if tc.underflow {
			// The first frame can only hold a blank or the first label;
			// the sixth label, V-1, is the frame's best.
			labels[5] = V - 1
			row := logp[:V]
			for k := range row {
				row[k] = -1000
			}
			row[V-1] = 0
		}
		var sc ctcScratch
		dWant := make([]float64, tc.T*V)
		want := ctcLoss(&sc, nil, logp, tc.T, V, labels, 1) // fills sc.ext
		want = ctcLossLog(&sc, dWant, logp, tc.T, V, 0.5)
		_, ok := ctcLossScaled(&sc, make([]float64, tc.T*V), logp, tc.T, V, 0.5)
		if ok == tc.underflow {
			t.Fatalf("T=%d U=%d: scaled path ok=%v, want %v", tc.T, tc.U, ok, !tc.underflow)
		}
		d := make([]float64, tc.T*V)
		got := ctcLoss(&sc, d, logp, tc.T, V, labels, 0.5)
		if math.IsInf(want, 0) || math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Fatalf("T=%d U=%d: loss %.12g, log space %.12g", tc.T, tc.U, got, want)
		}
		for i := range d {
			if math.Abs(d[i]-dWant[i]) > 1e-9 {
				t.Fatalf("T=%d U=%d: gradient[%d] %.12g, log space %.12g", tc.T, tc.U, i, d[i], dWant[i])
			}
		}
	}
}
