package beam

import (
	"cmp"
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"slices"
	"testing"
)

// markovDec is a first-order toy decoder: the next-token distribution
// depends only on the previous token.
type markovDec struct{ table [][]float32 } // (V, V) log-probs, row = prev

func (d markovDec) Step(prev int, logp []float32) Decoder {
	copy(logp, d.table[prev])
	return d
}

// histDec is a toy decoder whose distribution depends on the whole history
// through a hash; eosBias is added to the EOS logit.
type histDec struct {
	h       uint64
	v       int
	eos     int
	eosBias float64
	temp    float64
}

func (d histDec) Step(prev int, logp []float32) Decoder {
	next := d
	next.h = (d.h ^ uint64(prev+1)) * 0x9E3779B97F4A7C15
	rng := rand.New(rand.NewSource(int64(next.h >> 1)))
	logits := make([]float64, d.v)
	for i := range logits {
		logits[i] = rng.NormFloat64() * d.temp
	}
	logits[d.eos] += d.eosBias
	logSoftmax(logp, logits)
	return next
}

func logSoftmax(dst []float32, x []float64) {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, v)
	}
	s := 0.0
	for _, v := range x {
		s += math.Exp(v - m)
	}
	lse := m + math.Log(s)
	for i, v := range x {
		dst[i] = float32(v - lse)
	}
}

func randTable(rng *rand.Rand, rows, v int, temp float64) [][]float32 {
	t := make([][]float32, rows)
	for i := range t {
		logits := make([]float64, v)
		for j := range logits {
			logits[j] = rng.NormFloat64() * temp
		}
		t[i] = make([]float32, v)
		logSoftmax(t[i], logits)
	}
	return t
}

// randCTC returns (T, V) log-softmax frames.
func randCTC(rng *rand.Rand, T, V int, temp float64) []float32 {
	out := make([]float32, 0, T*V)
	for _, row := range randTable(rng, T, V, temp) {
		out = append(out, row...)
	}
	return out
}

// bigramLM is a toy LM: the state is the previous token.
type bigramLM struct {
	table [][]float32
	eos   int
}

func (m bigramLM) Start() LMState { return LMState(m.eos) }
func (m bigramLM) Score(st LMState, tok int) (float32, LMState) {
	return m.table[st][tok], LMState(tok)
}

// refGreedy is an independent greedy decoder for the equivalence test.
func refGreedy(dec Decoder, V, eos, maxLen int) ([]int, float64) {
	logp := make([]float32, V)
	var toks []int
	score := 0.0
	prev := eos
	for {
		dec = dec.Step(prev, logp)
		best := 0
		for i := 1; i < V; i++ {
			if logp[i] > logp[best] {
				best = i
			}
		}
		if len(toks) == maxLen {
			best = eos
		}
		score += float64(logp[best])
		if best == eos {
			return toks, score
		}
		toks = append(toks, best)
		prev = best
	}
}

func TestGreedyEquivalence(t *testing.T) {
	const tol = 1e-9
	rng := rand.New(rand.NewSource(7))
	cases := []struct {
		name   string
		dec    Decoder
		v, eos int
		maxLen int
	}{
		{"markov V5", markovDec{randTable(rng, 5, 5, 2)}, 5, 0, 30},
		{"markov V29", markovDec{randTable(rng, 29, 29, 3)}, 29, 0, 50},
		{"markov eos 3", markovDec{randTable(rng, 6, 6, 2)}, 6, 3, 30},
		{"history V8", histDec{v: 8, eos: 0, eosBias: 0.5, temp: 2}, 8, 0, 40},
		{"history never ends", histDec{v: 8, eos: 0, eosBias: -50, temp: 1}, 8, 0, 12},
		{"history maxLen 0", histDec{v: 8, eos: 0, temp: 1}, 8, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantToks, wantScore := refGreedy(c.dec, c.v, c.eos, c.maxLen)
			g := Greedy(c.dec, c.v, c.eos, c.maxLen)
			if key(g.Tokens) != key(wantToks) || math.Abs(g.Score-wantScore) > tol {
				t.Errorf("Greedy = %v %.6f, want %v %.6f", g.Tokens, g.Score, wantToks, wantScore)
			}
			if c.maxLen == 0 {
				return // Search reads MaxLen 0 as "T labels"
			}
			hs := Search(c.dec, nil, 0, c.v, nil, Options{Beam: 1, EOS: c.eos, MaxLen: c.maxLen})
			if len(hs) != 1 {
				t.Fatalf("Search returned %d hypotheses, want 1", len(hs))
			}
			if key(hs[0].Tokens) != key(g.Tokens) {
				t.Errorf("Search tokens %v, greedy %v", hs[0].Tokens, g.Tokens)
			}
			if math.Abs(hs[0].Score-wantScore) > tol || math.Abs(hs[0].AttScore-wantScore) > tol {
				t.Errorf("Search score %.9f att %.9f, want %.9f", hs[0].Score, hs[0].AttScore, wantScore)
			}
		})
	}
}

// ctcBrute enumerates all V^T CTC paths and returns, keyed by label
// sequence, the probability that the collapsed output equals it (final) and
// that it starts with it (prefix).
func ctcBrute(logp []float32, T, V, blank int) (final, prefix map[string]float64) {
	final, prefix = map[string]float64{}, map[string]float64{}
	path := make([]int, T)
	var rec func(t int, lp float64)
	rec = func(t int, lp float64) {
		if t == T {
			var labels []int
			prev := -1
			for _, s := range path {
				if s != blank && s != prev {
					labels = append(labels, s)
				}
				prev = s
			}
			p := math.Exp(lp)
			final[key(labels)] += p
			for n := 0; n <= len(labels); n++ {
				prefix[key(labels[:n])] += p
			}
			return
		}
		for s := 0; s < V; s++ {
			path[t] = s
			rec(t+1, lp+float64(logp[t*V+s]))
		}
	}
	rec(0, 0)
	return final, prefix
}

func key(labels []int) string { return fmt.Sprint(labels) }

// allSeqs returns every sequence of length 0..maxLen over labels.
func allSeqs(labels []int, maxLen int) [][]int {
	out := [][]int{{}}
	frontier := [][]int{{}}
	for n := 0; n < maxLen; n++ {
		var next [][]int
		for _, s := range frontier {
			for _, l := range labels {
				next = append(next, append(append([]int{}, s...), l))
			}
		}
		out = append(out, next...)
		frontier = next
	}
	return out
}

func TestCTCPrefixScorerBruteForce(t *testing.T) {
	const tol = 1e-6 // relative; float32 frames sum to 1 only within ~1e-7
	cases := []struct {
		name     string
		T, V     int
		blank    int
		temp     float64
		seed     int64
		maxLabel int
	}{
		{"T4 V3", 4, 3, 0, 1, 1, 5},
		{"T5 V4", 5, 4, 0, 2, 2, 6},
		{"T6 V3 peaked", 6, 3, 0, 4, 3, 7},
		{"T5 V4 blank 2", 5, 4, 2, 1.5, 4, 6},
		{"T1 V3", 1, 3, 0, 1, 5, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewSource(c.seed))
			x := randCTC(rng, c.T, c.V, c.temp)
			final, prefix := ctcBrute(x, c.T, c.V, c.blank)
			s := NewCTCPrefixScorer(x, c.T, c.V, c.blank)
			var labels []int
			for l := 0; l < c.V; l++ {
				if l != c.blank {
					labels = append(labels, l)
				}
			}
			// Sequences up to T+1 labels: the longer ones must be
			// impossible.
			for _, seq := range allSeqs(labels, c.T+1) {
				st := s.Initial()
				for _, l := range seq {
					st = s.Extend(nil, st, l)
				}
				k := key(seq)
				check := func(what string, got, want float64) {
					t.Helper()
					if math.Abs(got-want) > tol*math.Max(want, 1e-300) {
						t.Fatalf("%s%s: got %.12g, want %.12g", what, k, got, want)
					}
				}
				check("prefix", math.Exp(st.Score), prefix[k])
				check("final", math.Exp(s.Final(st)), final[k])
				if len(seq) > c.T && (st.Score != math.Inf(-1) || s.Final(st) != math.Inf(-1)) {
					t.Fatalf("%s longer than T=%d scored %g / %g, want -Inf", k, c.T, st.Score, s.Final(st))
				}
			}
			// The empty prefix is certain; its final is all blanks.
			if st := s.Initial(); st.Score != 0 || math.Abs(math.Exp(s.Final(st))-final["[]"]) > tol {
				t.Errorf("empty prefix: score %g final %g", st.Score, s.Final(s.Initial()))
			}
		})
	}
}

// TestCTCExtendReuse checks that recycled destination states give the same
// scores as fresh ones (stale frames must be overwritten).
func TestCTCExtendReuse(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	const T, V = 12, 5
	s := NewCTCPrefixScorer(randCTC(rng, T, V, 1), T, V, 0)
	long := s.Initial()
	for _, l := range []int{1, 2, 3, 4, 1, 2, 3} {
		long = s.Extend(nil, long, l)
	}
	s.Extend(nil, long, 2) // fills long's φ cache
	root := s.Initial()
	a1 := s.Extend(nil, root, 2)
	fresh := s.Extend(nil, a1, 3)
	reused := s.Extend(long, a1, 3) // long's buffer is dirty
	if fresh.Score != reused.Score || s.Final(fresh) != s.Final(reused) {
		t.Errorf("reused state: %g/%g, fresh %g/%g", reused.Score, s.Final(reused), fresh.Score, s.Final(fresh))
	}
	// long's cached φ must not leak into the reused state's children.
	for _, c := range []int{1, 3, 4} {
		a, b := s.Extend(nil, fresh, c), s.Extend(nil, reused, c)
		if a.Score != b.Score {
			t.Errorf("child %d of reused state: %g, fresh %g", c, b.Score, a.Score)
		}
	}
}

// bruteScore is the search objective of one complete sequence.
func bruteScore(dec Decoder, lm LM, x []float32, final map[string]float64, seq []int, V, eos int, opt Options) (score float64, ok bool) {
	logp := make([]float32, V)
	att, lmScore := 0.0, 0.0
	prev := eos
	var st LMState
	if lm != nil {
		st = lm.Start()
	}
	for _, tok := range append(append([]int{}, seq...), eos) {
		if dec != nil {
			dec = dec.Step(prev, logp)
			att += float64(logp[tok])
		}
		if lm != nil {
			var lp float32
			lp, st = lm.Score(st, tok)
			lmScore += float64(lp)
		}
		prev = tok
	}
	ctc := 0.0
	if opt.CTCWeight > 0 {
		p := final[key(seq)]
		if p == 0 {
			return 0, false
		}
		ctc = math.Log(p)
	}
	mu := opt.LMWeight
	if lm == nil {
		mu = 0
	}
	return (1-opt.CTCWeight)*att + opt.CTCWeight*ctc + mu*lmScore + opt.LengthBonus*float64(len(seq)), true
}

// TestSearchExhaustive makes the beam wide enough to hold every hypothesis
// and checks the best result against brute-force enumeration of all outputs
// up to MaxLen.
func TestSearchExhaustive(t *testing.T) {
	const (
		tol      = 1e-4 // float32 inputs summed over a few steps
		T, V     = 5, 4
		eos      = 0
		maxLen   = 4
		wideBeam = 1000
	)
	rng := rand.New(rand.NewSource(11))
	x := randCTC(rng, T, V, 2)
	final, _ := ctcBrute(x, T, V, eos)
	lm := bigramLM{table: randTable(rng, V, V, 1.5), eos: eos}
	dec := histDec{v: V, eos: eos, eosBias: -0.5, temp: 1.5}
	cases := []struct {
		name   string
		dec    Decoder
		lm     LM
		lambda float64
		mu     float64
		beta   float64
	}{
		{"att only", dec, nil, 0, 0, 0},
		{"att + bonus", dec, nil, 0, 0, 1.2},
		{"att + ctc", dec, nil, 0.3, 0, 0},
		{"att + ctc + lm", dec, lm, 0.5, 0.4, 0},
		{"att + ctc + lm + bonus", dec, lm, 0.7, 0.3, 0.8},
		{"ctc only", nil, nil, 1, 0, 0},
		{"ctc + lm", nil, lm, 1, 0.5, 0.3},
		{"att + lm", dec, lm, 0, 1, 0.2},
	}
	labels := []int{1, 2, 3}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opt := Options{Beam: wideBeam, PreBeam: V, MaxLen: maxLen, EOS: eos,
				CTCWeight: c.lambda, LMWeight: c.mu, LengthBonus: c.beta}
			best, bestScore := []int(nil), math.Inf(-1)
			for _, seq := range allSeqs(labels, maxLen) {
				s, ok := bruteScore(c.dec, c.lm, x, final, seq, V, eos, opt)
				if ok && s > bestScore {
					best, bestScore = seq, s
				}
			}
			hs := Search(c.dec, x, T, V, c.lm, opt)
			if len(hs) == 0 {
				t.Fatal("no hypotheses")
			}
			h := hs[0]
			if key(h.Tokens) != key(best) || math.Abs(h.Score-bestScore) > tol {
				t.Fatalf("Search best %v %.6f, brute force %v %.6f", h.Tokens, h.Score, best, bestScore)
			}
			mu := c.mu
			if c.lm == nil {
				mu = 0
			}
			recomb := (1-c.lambda)*h.AttScore + c.lambda*h.CTCScore + mu*h.LMScore + c.beta*float64(len(h.Tokens))
			if math.Abs(recomb-h.Score) > tol {
				t.Errorf("components recombine to %.6f, Score %.6f", recomb, h.Score)
			}
			for i := 1; i < len(hs); i++ {
				if hs[i].Score > hs[i-1].Score {
					t.Fatalf("results not sorted: %g then %g", hs[i-1].Score, hs[i].Score)
				}
			}
			// Every returned hypothesis must carry its true score.
			for _, h := range hs {
				want, ok := bruteScore(c.dec, c.lm, x, final, h.Tokens, V, eos, opt)
				if !ok || math.Abs(want-h.Score) > tol {
					t.Fatalf("%v: score %.6f, brute force %.6f", h.Tokens, h.Score, want)
				}
			}
		})
	}
}

// peakedCTC builds (T, V) log-probs whose best path spells target, with
// blanks between labels and noise elsewhere.
func peakedCTC(rng *rand.Rand, target []int, T, V, blank int, peak float64) []float32 {
	x := make([]float32, T*V)
	per := T / (2*len(target) + 1)
	for t := 0; t < T; t++ {
		slot := t / per
		want := blank
		if slot%2 == 1 && slot/2 < len(target) {
			want = target[slot/2]
		}
		logits := make([]float64, V)
		for v := range logits {
			logits[v] = rng.NormFloat64() * 0.5
		}
		logits[want] += peak
		logSoftmax(x[t*V:(t+1)*V], logits)
	}
	return x
}

// oracleDec is a noisy attention decoder that knows the target: while the
// history matches the target it boosts the right next token (or EOS) by
// boost over Gaussian logits, and once off track it is pure noise.
type oracleDec struct {
	target  []int
	pos     int
	off     bool
	h       uint64
	v       int
	boost   float64
	started bool
}

func (d oracleDec) Step(prev int, logp []float32) Decoder {
	next := d
	if d.started {
		if !d.off && (d.pos >= len(d.target) || prev != d.target[d.pos]) {
			next.off = true
		}
		next.pos++
	}
	next.started = true
	next.h = (d.h ^ uint64(prev+1)) * 0x9E3779B97F4A7C15
	rng := rand.New(rand.NewSource(int64(next.h >> 1)))
	logits := make([]float64, d.v)
	for i := range logits {
		logits[i] = rng.NormFloat64()
	}
	if !next.off {
		want := 0
		if next.pos < len(d.target) {
			want = d.target[next.pos]
		}
		logits[want] += d.boost
	}
	logSoftmax(logp, logits)
	return next
}

// TestJointDecodingRecoversTarget checks that CTC corrects a noisy attention
// decoder that alone decodes the target wrongly.
func TestJointDecodingRecoversTarget(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	const T, V = 120, 29
	target := []int{20, 8, 5, 1, 3, 1, 20, 28, 2, 19, 1, 1, 4}
	x := peakedCTC(rng, target, T, V, 0, 10)
	noisy := oracleDec{target: target, v: V, boost: 2.5}
	cases := []struct {
		name   string
		dec    Decoder
		beam   int
		lambda float64
	}{
		{"pure ctc beam 1", nil, 1, 1},
		{"pure ctc beam 4", nil, 4, 1},
		{"joint beam 4", noisy, 4, 0.5},
		{"joint beam 10", noisy, 10, 0.3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hs := Search(c.dec, x, T, V, nil, Options{Beam: c.beam, EOS: 0, CTCWeight: c.lambda})
			if len(hs) == 0 || key(hs[0].Tokens) != key(target) {
				t.Fatalf("got %v, want %v", hs, target)
			}
		})
	}
	// The noisy decoder alone must not find it, or the test proves nothing.
	for _, b := range []int{1, 4} {
		if hs := Search(noisy, nil, 0, V, nil, Options{Beam: b, EOS: 0, MaxLen: 40}); key(hs[0].Tokens) == key(target) {
			t.Errorf("attention alone with beam %d recovered the target", b)
		}
	}
}

func TestMaxLenForcesEOS(t *testing.T) {
	dec := histDec{v: 6, eos: 0, eosBias: -40, temp: 1}
	for _, maxLen := range []int{1, 3, 7} {
		t.Run(fmt.Sprint(maxLen), func(t *testing.T) {
			hs := Search(dec, nil, 0, 6, nil, Options{Beam: 3, MaxLen: maxLen, EOS: 0})
			if len(hs) == 0 {
				t.Fatal("no hypotheses")
			}
			for _, h := range hs {
				if len(h.Tokens) != maxLen {
					t.Errorf("%v has %d tokens, want %d", h.Tokens, len(h.Tokens), maxLen)
				}
			}
		})
	}
}

func TestSearchPanics(t *testing.T) {
	dec := markovDec{randTable(rand.New(rand.NewSource(1)), 4, 4, 1)}
	x := make([]float32, 3*4)
	cases := []struct {
		name string
		dec  Decoder
		x    []float32
		T, V int
		opt  Options
	}{
		{"beam 0", dec, nil, 0, 4, Options{MaxLen: 3}},
		{"eos out of range", dec, nil, 0, 4, Options{Beam: 1, MaxLen: 3, EOS: 4}},
		{"ctc weight > 1", dec, x, 3, 4, Options{Beam: 1, CTCWeight: 1.5}},
		{"ctc without frames", dec, nil, 0, 4, Options{Beam: 1, MaxLen: 3, CTCWeight: 0.5}},
		{"short frames", dec, x[:5], 3, 4, Options{Beam: 1, CTCWeight: 0.5}},
		{"negative lm weight", dec, nil, 0, 4, Options{Beam: 1, MaxLen: 3, LMWeight: -1}},
		{"nil decoder", nil, x, 3, 4, Options{Beam: 1, CTCWeight: 0.5}},
		{"no maxlen no frames", dec, nil, 0, 4, Options{Beam: 1}},
		{"V 1", dec, nil, 0, 1, Options{Beam: 1, MaxLen: 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || len(s) < 6 || s[:6] != "beam: " {
					t.Fatalf("recovered %v, want a beam: panic", r)
				}
			}()
			Search(c.dec, c.x, c.T, c.V, nil, c.opt)
		})
	}
}

func TestTopK(t *testing.T) {
	cases := []struct {
		s    []float64
		k    int
		want []int
	}{
		{[]float64{1, 3, 2}, 2, []int{1, 2}},
		{[]float64{1, 1, 1}, 2, []int{0, 1}},
		{[]float64{-1, 5, 5, 0}, 3, []int{1, 2, 3}},
		{[]float64{4}, 1, []int{0}},
		{[]float64{0, 1, 2, 3, 4}, 5, []int{4, 3, 2, 1, 0}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.s, c.k), func(t *testing.T) {
			if got := topK(nil, c.s, c.k); !reflect.DeepEqual(got, c.want) {
				t.Errorf("topK = %v, want %v", got, c.want)
			}
		})
	}
}

// BenchmarkSearch decodes 60 labels from 400 CTC frames (V = 29) with a
// noisy oracle decoder, joint CTC weight 0.3 and a weak bigram LM.
func BenchmarkSearch(b *testing.B) {
	rng := rand.New(rand.NewSource(3))
	const T, V = 400, 29
	target := make([]int, 60)
	for i := range target {
		target[i] = 1 + rng.Intn(V-1)
	}
	x := peakedCTC(rng, target, T, V, 0, 10)
	dec := oracleDec{target: target, v: V, boost: 4}
	lm := bigramLM{table: randTable(rng, V, V, 1), eos: 0}
	for _, beamSize := range []int{1, 4, 10} {
		b.Run(fmt.Sprintf("beam%d", beamSize), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				hs := Search(dec, x, T, V, lm, Options{Beam: beamSize, EOS: 0, CTCWeight: 0.3, LMWeight: 0.1})
				if key(hs[0].Tokens) != key(target) {
					b.Fatalf("beam %d decoded %v", beamSize, hs[0].Tokens)
				}
			}
		})
	}
}

// BenchmarkCTCExtend measures one prefix extension over T = 400 frames.
func BenchmarkCTCExtend(b *testing.B) {
	rng := rand.New(rand.NewSource(4))
	const T, V = 400, 29
	s := NewCTCPrefixScorer(randCTC(rng, T, V, 3), T, V, 0)
	g := s.Extend(nil, s.Initial(), 5)
	dst := s.Extend(nil, g, 6)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s.Extend(dst, g, 1+i%(V-1))
	}
}

func TestLogAdd(t *testing.T) {
	buildSoftplus() // as NewCTCPrefixScorer does
	const tol = 1e-10
	inf := math.Inf(-1)
	cases := []struct {
		a, b, want float64
	}{
		{inf, inf, inf},
		{inf, -3, -3},
		{2, inf, 2},
		{0, 0, math.Ln2},
		{-1000, -1000, -1000 + math.Ln2},
		{5, -100, 5},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.a, c.b), func(t *testing.T) {
			got := logAdd(c.a, c.b)
			if !(got == c.want || math.Abs(got-c.want) < tol) {
				t.Errorf("logAdd(%g, %g) = %g, want %g", c.a, c.b, got, c.want)
			}
		})
	}
	// Dense sweep of the interpolated range against the exact formula.
	worst := 0.0
	for d := spMin - 1; d <= 0; d += 1.0 / 997 {
		exact := math.Log1p(math.Exp(d))
		worst = math.Max(worst, math.Abs(logAdd(0, d)-exact))
	}
	if worst > tol {
		t.Errorf("max softplus error %g > %g", worst, tol)
	}
}

// randomSearchCTC returns T frames of CTC log-posteriors over V tokens for
// trial: peaked around a random target on even trials, random on odd ones.
func randomSearchCTC(rng *rand.Rand, trial, T, V int) []float32 {
	target := make([]int, 3+rng.Intn(8))
	for i := range target {
		target[i] = 1 + rng.Intn(V-1)
	}
	if trial%2 == 0 {
		return peakedCTC(rng, target, T, V, 0, 1+4*rng.Float64())
	}
	return randCTC(rng, T, V, 1+rng.Float64())
}

// TestLazyCTCEqualsEager checks that extending CTC prefixes only for the
// candidates that can still reach the beam returns exactly what extending
// every pre-beam candidate returns.
func TestLazyCTCEqualsEager(t *testing.T) {
	rng := rand.New(rand.NewSource(21))
	const T, V = 60, 12
	for trial := 0; trial < 40; trial++ {
		x := randomSearchCTC(rng, trial, T, V)
		dec := histDec{h: uint64(trial), v: V, eos: 0, eosBias: -1, temp: 1 + rng.Float64()}
		lm := bigramLM{table: randTable(rng, V, V, 1), eos: 0}
		opt := Options{Beam: 1 + rng.Intn(10), PreBeam: rng.Intn(V + 1), MaxLen: 12, EOS: 0,
			CTCWeight: []float64{0.1, 0.3, 0.7, 1}[rng.Intn(4)], LMWeight: rng.Float64(), LengthBonus: rng.Float64()}
		lazyCTC = false
		want := Search(dec, x, T, V, lm, opt)
		lazyCTC = true
		got := Search(dec, x, T, V, lm, opt)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d %+v:\nlazy  %+v\neager %+v", trial, opt, got, want)
		}
	}
}

// batchDec is histDec with StepBatch, counting the batched calls.
type batchDec struct {
	histDec
	calls *int
}

func (d batchDec) Step(prev int, logp []float32) Decoder {
	return batchDec{d.histDec.Step(prev, logp).(histDec), d.calls}
}

func (d batchDec) StepBatch(ds []Decoder, prev []int, logp []float32, next []Decoder) {
	*d.calls++
	for i, s := range ds {
		next[i] = s.(batchDec).Step(prev[i], logp[i*d.v:(i+1)*d.v])
	}
}

// TestBatchDecoder checks that Search steps a BatchDecoder once per output
// step and finds what it finds with the plain decoder.
func TestBatchDecoder(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	const T, V = 40, 10
	x := randCTC(rng, T, V, 2)
	h := histDec{v: V, eos: 0, eosBias: -1, temp: 1.5}
	calls := 0
	opt := Options{Beam: 5, MaxLen: 8, EOS: 0, CTCWeight: 0.3, LengthBonus: 0.5}
	want := Search(h, x, T, V, nil, opt)
	got := Search(batchDec{h, &calls}, x, T, V, nil, opt)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("batched %+v, plain %+v", got, want)
	}
	if calls == 0 || calls > opt.MaxLen+1 {
		t.Errorf("StepBatch called %d times for at most %d steps", calls, opt.MaxLen+1)
	}
}

// TestDropHopelessKeepsBest checks on random searches that dropping the
// live hypotheses that cannot beat the best finished one changes neither
// the best hypothesis nor its scores, and that it saves decoder steps.
func TestDropHopelessKeepsBest(t *testing.T) {
	defer func() { pruneHopeless = true }()
	rng := rand.New(rand.NewSource(22))
	const T, V = 60, 12
	var stepsAll, stepsPruned int
	for trial := 0; trial < 60; trial++ {
		x := randomSearchCTC(rng, trial, T, V)
		h := histDec{h: uint64(trial), v: V, eos: 0, eosBias: -1, temp: 1 + rng.Float64()}
		lm := bigramLM{table: randTable(rng, V, V, 1), eos: 0}
		opt := Options{Beam: 1 + rng.Intn(12), MaxLen: 4 + rng.Intn(12), EOS: 0,
			CTCWeight: []float64{0, 0.2, 0.5, 1}[rng.Intn(4)], LMWeight: rng.Float64(), LengthBonus: []float64{0, 0.2, 0.5, 2}[rng.Intn(4)]}
		var calls int
		pruneHopeless = false
		want := Search(hypCountDec{h, &calls}, x, T, V, lm, opt)
		stepsAll += calls
		calls = 0
		pruneHopeless = true
		got := Search(hypCountDec{h, &calls}, x, T, V, lm, opt)
		stepsPruned += calls
		if len(got) == 0 || len(want) == 0 {
			if len(got) != len(want) {
				t.Fatalf("trial %d %+v: %d hypotheses pruned, %d not", trial, opt, len(got), len(want))
			}
			continue
		}
		if !reflect.DeepEqual(got[0], want[0]) {
			t.Fatalf("trial %d %+v:\npruned %+v\nall    %+v", trial, opt, got[0], want[0])
		}
	}
	t.Logf("hypotheses stepped: %d pruned, %d without", stepsPruned, stepsAll)
	if stepsPruned >= stepsAll {
		t.Errorf("pruning stepped %d hypotheses, %d without", stepsPruned, stepsAll)
	}
}

// hypCountDec is histDec that counts the hypotheses stepped.
type hypCountDec struct {
	histDec
	n *int
}

func (d hypCountDec) Step(prev int, logp []float32) Decoder {
	*d.n++
	return hypCountDec{d.histDec.Step(prev, logp).(histDec), d.n}
}

// TestBestFirst: bestFirst hands out indices in the order of a stable sort
// by descending score, ties (many here) by index.
func TestBestFirst(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	var b bestFirst
	for trial := range 200 {
		n := r.Intn(60)
		scores := make([]float64, n)
		for i := range scores {
			scores[i] = float64(r.Intn(1 + trial%10)) // ties
			if trial%3 == 0 {
				scores[i] = r.NormFloat64()
			}
		}
		want := make([]int, n)
		for i := range want {
			want[i] = i
		}
		slices.SortStableFunc(want, func(i, j int) int { return cmp.Compare(scores[j], scores[i]) })
		b.init(n, func(i int) float64 { return scores[i] })
		for k, w := range want {
			if got := b.pop(); got != w {
				t.Fatalf("trial %d: position %d is index %d, want %d", trial, k, got, w)
			}
		}
		if b.len() != 0 {
			t.Fatalf("trial %d: %d left", trial, b.len())
		}
	}
}
