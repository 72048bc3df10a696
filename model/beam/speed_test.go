package beam

import (
	"math"
	"math/rand"
	"reflect"
	"sort"
	"testing"
)

// refSearch is the search as it was before the speed work of the score
// beam, label trees and recycled states (with dropHopeless and every
// pre-beam candidate CTC-scored at once), plus the score beam in its plain
// form: live candidates more than scoreBeam below the step's best are
// removed before the Beam best are taken. Search must return exactly what
// it returns.
func refSearch(start Decoder, x []float32, T, V int, lm LM, opt Options, scoreBeam float64) []Hypothesis {
	type rhyp struct {
		tokens          []int
		dec             Decoder
		last            int
		att, ctc, lm, s float64
		ctcSt           *CTCState
		lmSt            LMState
	}
	type rcand struct {
		parent, tok     int
		att, ctc, lm, s float64
		ctcSt           *CTCState
		lmSt            LMState
	}
	lambda, mu, beta, eos := opt.CTCWeight, opt.LMWeight, opt.LengthBonus, opt.EOS
	useLM, useCTC, useAtt := lm != nil && mu != 0, lambda > 0, start != nil
	maxLen := opt.MaxLen
	if maxLen <= 0 {
		maxLen = T
	}
	K := opt.Beam
	if useCTC {
		if K = opt.PreBeam; K <= 0 {
			K = int(math.Ceil(1.5 * float64(opt.Beam)))
		}
		if lambda == 1 {
			K = V
		}
	}
	K = min(K, V)
	var scorer *CTCPrefixScorer
	root := &rhyp{dec: start, last: eos}
	if useCTC {
		scorer = NewCTCPrefixScorer(x, T, V, eos)
		root.ctcSt = scorer.Initial()
		root.ctc = root.ctcSt.Score
	}
	if useLM {
		root.lmSt = lm.Start()
	}
	live, finished := []*rhyp{root}, []*rhyp(nil)
	logp, lmLogp, lmNext, pre := make([]float32, V), make([]float64, V), make([]LMState, V), make([]float64, V)
	for n := 0; len(live) > 0; n++ {
		var cands []rcand
		nexts := make([]Decoder, len(live))
		for hi, h := range live {
			if useAtt {
				nexts[hi] = h.dec.Step(h.last, logp)
			}
			if useLM {
				for tok := range V {
					lp, nx := lm.Score(h.lmSt, tok)
					lmLogp[tok], lmNext[tok] = float64(lp), nx
				}
			}
			var top []int
			if n < maxLen {
				for tok := range V {
					pre[tok] = 0
					if useAtt {
						pre[tok] = (1 - lambda) * float64(logp[tok])
					}
					if useLM {
						pre[tok] += mu * lmLogp[tok]
					}
				}
				top = topK(nil, pre, K)
			}
			if !contains(top, eos) {
				top = append(top, eos)
			}
			for _, tok := range top {
				c := rcand{parent: hi, tok: tok, att: h.att, ctc: h.ctc, lm: h.lm}
				if useAtt {
					c.att += float64(logp[tok])
				}
				if useLM {
					c.lm += lmLogp[tok]
					c.lmSt = lmNext[tok]
				}
				length := len(h.tokens)
				if useCTC {
					if tok == eos {
						c.ctc = scorer.Final(h.ctcSt)
					} else {
						c.ctcSt = scorer.Extend(nil, h.ctcSt, tok)
						c.ctc = c.ctcSt.Score
					}
				}
				if tok != eos {
					length++
				}
				c.s = (1-lambda)*c.att + lambda*c.ctc + mu*c.lm + beta*float64(length)
				if !math.IsInf(c.s, -1) && !math.IsNaN(c.s) {
					cands = append(cands, c)
				}
			}
		}
		sort.SliceStable(cands, func(i, j int) bool { return cands[i].s > cands[j].s })
		if scoreBeam > 0 && len(cands) > 0 {
			kept := cands[:0:0]
			for _, c := range cands {
				if c.tok == eos || c.s >= cands[0].s-scoreBeam {
					kept = append(kept, c)
				}
			}
			cands = kept
		}
		var next []*rhyp
		for _, c := range cands[:min(opt.Beam, len(cands))] {
			p := live[c.parent]
			h := &rhyp{tokens: p.tokens, att: c.att, ctc: c.ctc, lm: c.lm, s: c.s, lmSt: c.lmSt}
			if c.tok == eos {
				finished = append(finished, h)
				continue
			}
			h.tokens = append(append([]int(nil), p.tokens...), c.tok)
			h.dec, h.last, h.ctcSt = nexts[c.parent], c.tok, c.ctcSt
			next = append(next, h)
		}
		live = next
		if len(finished) > 0 {
			best := math.Inf(-1)
			for _, h := range finished {
				best = math.Max(best, h.s)
			}
			var keep []*rhyp
			improve := false
			for _, h := range live {
				if h.s+beta*float64(maxLen-len(h.tokens)) > best {
					keep = append(keep, h)
					improve = true
				}
			}
			live = keep
			if !improve {
				break
			}
		}
	}
	sort.SliceStable(finished, func(i, j int) bool { return finished[i].s > finished[j].s })
	finished = finished[:min(len(finished), opt.Beam)]
	out := make([]Hypothesis, len(finished))
	for i, h := range finished {
		out[i] = Hypothesis{Tokens: append([]int(nil), h.tokens...), Score: h.s, AttScore: h.att, CTCScore: h.ctc, LMScore: h.lm}
	}
	return out
}

// randomOptions draws search options for the random searches below.
func randomOptions(rng *rand.Rand, V int) Options {
	return Options{Beam: 1 + rng.Intn(12), PreBeam: rng.Intn(V + 1), MaxLen: 4 + rng.Intn(12), EOS: 0,
		CTCWeight: []float64{0, 0.2, 0.5, 1}[rng.Intn(4)], LMWeight: []float64{0, 0.3, 1}[rng.Intn(3)],
		LengthBonus: []float64{0, 0.2, 0.5, 2}[rng.Intn(4)]}
}

// TestSearchMatchesReference: with ScoreBeam 0, Search returns exactly
// what the search before the label trees, recycled states and score beam
// returned (refSearch), hypotheses and scores, on random decoders, CTC
// posteriors and LMs; with a recycling batch decoder too.
func TestSearchMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewSource(31))
	const T, V = 50, 10
	for trial := range 80 {
		x := randomSearchCTC(rng, trial, T, V)
		h := histDec{h: uint64(trial), v: V, eos: 0, eosBias: -1, temp: 1 + rng.Float64()}
		lm := bigramLM{table: randTable(rng, V, V, 1), eos: 0}
		opt := randomOptions(rng, V)
		var dec Decoder = h
		if opt.CTCWeight == 1 && trial%2 == 0 {
			dec = nil
		}
		want := refSearch(dec, x, T, V, lm, opt, 0)
		if got := Search(dec, x, T, V, lm, opt); !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d %+v:\nSearch    %+v\nrefSearch %+v", trial, opt, got, want)
		}
		if dec == nil {
			continue
		}
		r := newRecDec(h)
		if got := Search(r.start(), x, T, V, lm, opt); !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d %+v, recycling decoder:\nSearch    %+v\nrefSearch %+v", trial, opt, got, want)
		}
		if err := r.check(); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
	}
}

// TestScoreBeam: with ScoreBeam > 0 Search returns what refSearch with its
// plain score beam returns (so leaving hopeless candidates unscored in the
// lazy CTC step changes nothing), steps fewer hypotheses than without it,
// and a score beam wider than any score gap is the exact search.
func TestScoreBeam(t *testing.T) {
	rng := rand.New(rand.NewSource(32))
	const T, V = 50, 10
	var stepsExact, stepsPruned int
	for trial := range 120 {
		x := randomSearchCTC(rng, trial, T, V)
		h := histDec{h: uint64(trial), v: V, eos: 0, eosBias: -1, temp: 1 + 2*rng.Float64()}
		lm := bigramLM{table: randTable(rng, V, V, 1), eos: 0}
		opt := randomOptions(rng, V)
		sb := []float64{0.5, 1, 2, 4}[rng.Intn(4)]
		want := refSearch(h, x, T, V, lm, opt, sb)
		opt.ScoreBeam = sb
		var calls int
		got := Search(hypCountDec{h, &calls}, x, T, V, lm, opt)
		stepsPruned += calls
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d %+v:\nSearch    %+v\nrefSearch %+v", trial, opt, got, want)
		}
		r := newRecDec(h)
		if got := Search(r.start(), x, T, V, lm, opt); !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d %+v, recycling decoder:\nSearch    %+v\nrefSearch %+v", trial, opt, got, want)
		}
		if err := r.check(); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		opt.ScoreBeam = 0
		calls = 0
		exact := Search(hypCountDec{h, &calls}, x, T, V, lm, opt)
		stepsExact += calls
		opt.ScoreBeam = 1e9
		if wide := Search(h, x, T, V, lm, opt); !reflect.DeepEqual(wide, exact) {
			t.Fatalf("trial %d: score beam 1e9 %+v, exact %+v", trial, wide, exact)
		}
	}
	t.Logf("hypotheses stepped: %d with a score beam, %d without", stepsPruned, stepsExact)
	if stepsPruned >= stepsExact {
		t.Errorf("the score beam stepped %d hypotheses, %d without", stepsPruned, stepsExact)
	}
}

func TestScoreBeamPanics(t *testing.T) {
	for _, sb := range []float64{-1, math.NaN()} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("ScoreBeam %g: no panic", sb)
				}
			}()
			Search(markovDec{randTable(rand.New(rand.NewSource(1)), 3, 3, 1)}, nil, 0, 3, nil,
				Options{Beam: 2, MaxLen: 3, ScoreBeam: sb})
		}()
	}
}

// recDec is a recycling batch decoder over histDec: it checks that every
// state it is handed back was handed out, is handed back once, and is not
// stepped again after that; and it reuses the states handed back.
type recDec struct {
	*recPool
	d    histDec
	id   int
	dead bool
}

type recPool struct {
	base   histDec
	free   []*recDec
	out    map[*recDec]bool // states handed out and not recycled
	made   int
	errors []string
}

func newRecDec(d histDec) *recPool {
	return &recPool{base: d, out: map[*recDec]bool{}}
}

func (p *recPool) start() *recDec {
	// The start state is not from the pool and is never handed back.
	return &recDec{recPool: p, d: p.base, id: -1}
}

func (p *recPool) get() *recDec {
	if n := len(p.free); n > 0 {
		s := p.free[n-1]
		p.free = p.free[:n-1]
		s.dead = false
		p.out[s] = true
		return s
	}
	p.made++
	s := &recDec{recPool: p, id: p.made}
	p.out[s] = true
	return s
}

func (p *recPool) check() error {
	if len(p.errors) > 0 {
		return errorString(p.errors[0])
	}
	return nil
}

type errorString string

func (e errorString) Error() string { return string(e) }

func (r *recDec) Step(prev int, logp []float32) Decoder {
	if r.dead {
		r.errors = append(r.errors, "a recycled state was stepped")
	}
	next := r.get()
	next.d = r.d.Step(prev, logp).(histDec)
	return next
}

func (r *recDec) StepBatch(ds []Decoder, prev []int, logp []float32, next []Decoder) {
	V := len(logp) / len(ds)
	for i, d := range ds {
		next[i] = d.(*recDec).Step(prev[i], logp[i*V:(i+1)*V])
	}
}

func (r *recDec) Recycle(d Decoder) {
	s := d.(*recDec)
	switch {
	case s.id == -1:
		r.errors = append(r.errors, "the start state was recycled")
	case !r.out[s]:
		r.errors = append(r.errors, "a state was recycled twice or never handed out")
	}
	delete(r.out, s)
	s.dead = true
	r.free = append(r.free, s)
}

// quietDec is a recycling batch decoder that allocates nothing once it has
// enough states: its distributions come from a hash of the history,
// without a random generator, EOS held down so that searches run to
// MaxLen.
type quietDec struct {
	pool *[]*quietDec
	h    uint64
	v    int
}

func (d *quietDec) Step(prev int, logp []float32) Decoder {
	var next *quietDec
	if n := len(*d.pool); n > 0 {
		next = (*d.pool)[n-1]
		*d.pool = (*d.pool)[:n-1]
	} else {
		next = &quietDec{pool: d.pool, v: d.v}
	}
	next.h = (d.h ^ uint64(prev+1)) * 0x9E3779B97F4A7C15
	x, sum := next.h, 0.0
	for i := range logp[:d.v] {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		logp[i] = float32(x>>40) / (1 << 22) // logits in [0, 4)
		sum += math.Exp(float64(logp[i]))
	}
	logp[0] -= 30
	lse := float32(math.Log(sum))
	for i := range logp[:d.v] {
		logp[i] -= lse
	}
	return next
}

func (d *quietDec) StepBatch(ds []Decoder, prev []int, logp []float32, next []Decoder) {
	for i, s := range ds {
		next[i] = s.Step(prev[i], logp[i*d.v:(i+1)*d.v])
	}
}

func (d *quietDec) Recycle(s Decoder) { *d.pool = append(*d.pool, s.(*quietDec)) }

// TestSearchAllocsPerStep: once its buffers have grown, a search step
// allocates nothing but the label tree's growth (by doubling) and, with
// CTC, a state when a step needs more prefix states than any step before
// it. Before the label trees and reused buffers each step made at least
// two allocations per hypothesis.
func TestSearchAllocsPerStep(t *testing.T) {
	rng := rand.New(rand.NewSource(33))
	const T, V = 400, 29
	x := randCTC(rng, T, V, 2)
	lm := bigramLM{table: randTable(rng, V, V, 1), eos: 0}
	for _, c := range []struct {
		opt     Options
		perStep float64 // the most allocations per step past step 40
	}{
		{Options{Beam: 8, EOS: 0}, 0.02},
		{Options{Beam: 8, EOS: 0, LMWeight: 0.3, LengthBonus: 0.5}, 0.02},
		{Options{Beam: 8, EOS: 0, CTCWeight: 0.3, LMWeight: 0.3, LengthBonus: 0.5}, 0.5},
		{Options{Beam: 16, EOS: 0, CTCWeight: 0.3, LMWeight: 0.3, LengthBonus: 0.5, ScoreBeam: 6}, 0.5},
	} {
		allocs := func(steps int) float64 {
			opt := c.opt
			opt.MaxLen = steps
			var pool []*quietDec
			return testing.AllocsPerRun(3, func() {
				hs := Search(&quietDec{pool: &pool, v: V}, x, T, V, lm, opt)
				if len(hs) == 0 || len(hs[0].Tokens) != steps {
					t.Fatalf("%+v: %d hypotheses, not the %d labels wanted", opt, len(hs), steps)
				}
			})
		}
		short, long := allocs(40), allocs(320)
		t.Logf("%+v: %.0f allocations for 40 steps, %.0f for 320", c.opt, short, long)
		if (long-short)/280 > c.perStep {
			t.Errorf("%+v: %.0f allocations for 40 steps, %.0f for 320", c.opt, short, long)
		}
	}
}
