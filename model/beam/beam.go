// Package beam implements label-synchronous beam search for an attention
// decoder, with optional joint CTC prefix scoring (Watanabe et al. 2017;
// Hori et al. 2017) and shallow fusion of a language model. It knows nothing
// about the network: the decoder is reached through the Decoder interface,
// the CTC head through a (T, V) matrix of log-probabilities, and the LM
// through the LM interface.
//
// # Scores
//
// For a hypothesis y of n labels (the end-of-sentence token not counted)
// the search ranks by
//
//	Score = (1−λ)·log p_att(y) + λ·log p_ctc(y) + μ·log p_lm(y) + β·n
//
// where λ = Options.CTCWeight, μ = Options.LMWeight, β = Options.LengthBonus.
// For a live (unfinished) hypothesis log p_ctc is the CTC prefix probability;
// for a finished one, the probability of exactly y. β is a per-label bonus
// (as in ESPnet's "penalty"), chosen over dividing by len^α because it keeps
// scores additive, so the end-of-search test below stays exact.
//
// # Search
//
// Each step expands every live hypothesis: the decoder (and the LM, over the
// whole vocabulary) scores all V next tokens, the best K by
// (1−λ)·att + μ·lm are kept ("pre-beam", K = Options.PreBeam, as ESPnet's
// pre_beam_ratio), the end-of-sentence token is always added (its CTC score
// costs O(1)), and only those candidates are scored with CTC. Of all
// candidates, the Beam best survive; those ending in EOS are finished and
// leave the beam. The search stops when no live hypothesis can still beat the
// best finished one: the att, CTC and LM terms never increase as a
// hypothesis grows, so with β = 0 that is when the best finished score is at
// least the best live score, and with β > 0 when it is at least the best live
// score plus β times the labels still allowed. Before that, each live
// hypothesis that can no longer beat the best finished one by this bound
// leaves the beam (see dropHopeless: the best hypothesis stays the same).
// At MaxLen labels every live hypothesis is ended with EOS.
//
// With Options.ScoreBeam > 0 the search is no longer exact: a live
// hypothesis scoring more than ScoreBeam below the best candidate of its
// step leaves the beam (a "score beam", as in Kaldi's lattice beam), which
// saves the decoder steps and CTC prefix scores of hypotheses that would
// rarely win. Finished hypotheses are kept. 0 is the exact search.
//
// # Memory
//
// A hypothesis' labels are one node of a tree (its last label and its
// parent's node), not a copied slice, and the search's buffers are reused
// from step to step: after the first steps a step allocates nothing but
// the tree's occasional growth. A decoder that is also a Recycler gets
// back the states the search no longer reads, to reuse their memory.
//
// # Complexity
//
// With B = Beam, K = PreBeam, L output labels and T frames, one step costs
// B decoder steps, B·V LM scores, O(B·V log K) to pick candidates, and
// O(B·K·T) for the CTC prefix scores, which dominate: O(L·B·K·T) overall,
// versus O(L·B·V·T) without the pre-beam. A CTC state holds 3·T float64s;
// states are recycled between steps.
package beam

import (
	"math"
	"sort"
)

// Decoder is one hypothesis' decoder state machine.
type Decoder interface {
	// Step consumes token prev and writes natural-log probabilities over
	// the vocabulary into logp (len V); returns the successor state (must
	// not modify the receiver, so hypotheses can share a parent). The
	// search feeds Options.EOS as prev for the first step. The values
	// must be ≤ 0 (log-softmax output) for the stopping rule to be exact.
	Step(prev int, logp []float32) Decoder
}

// BatchDecoder is a Decoder that can also step several hypotheses at once,
// which for a neural decoder turns B matrix-vector products into one
// matrix product. Search uses StepBatch when the start state has it.
type BatchDecoder interface {
	Decoder
	// StepBatch does what next[i] = ds[i].Step(prev[i], logp[i*V:(i+1)*V])
	// does for every i. Every ds[i] is the start state or a state returned
	// by Step or StepBatch.
	StepBatch(ds []Decoder, prev []int, logp []float32, next []Decoder)
}

// Recycler is a Decoder that can reuse the memory of states the search no
// longer needs. Search calls the start state's Recycle with each state
// returned by Step or StepBatch once it will not read it again, at most
// once per state and never with the start state itself. For this, Step and
// StepBatch must return a new state on every call (never their receiver or
// a state handed out before and not yet recycled).
type Recycler interface {
	Recycle(d Decoder)
}

// LMState is an LM's opaque state for one hypothesis. A character n-gram
// model can pack its last N−1 tokens into it; other models may use it as a
// handle into storage of their own.
type LMState uint64

// LM is a token-level language model used for shallow fusion.
type LM interface {
	// Start returns the state at the start of a sentence.
	Start() LMState
	// Score returns the natural-log probability of tok after state st
	// and the state after tok. tok may be the end-of-sentence token.
	Score(st LMState, tok int) (logp float32, next LMState)
}

// AllScorer is an LM that can score every token after a state at once
// (V = len(logp) tokens), more cheaply than V calls of Score; Search uses
// it when the LM has it. logp[tok] and next[tok] must equal what
// Score(st, tok) returns.
type AllScorer interface {
	ScoreAll(st LMState, logp []float64, next []LMState)
}

// Options controls Search. The zero value is not usable: Beam must be set.
type Options struct {
	// Beam is the number of hypotheses kept per step (≥ 1) and the maximum
	// number returned.
	Beam int
	// PreBeam is the number of candidate tokens per hypothesis that get a
	// CTC score. 0 means ⌈1.5·Beam⌉ (capped at V). Ignored when CTCWeight
	// is 0; when CTCWeight is 1 every token is scored.
	PreBeam int
	// MaxLen is the maximum number of output labels, EOS excluded. 0
	// means T, the number of CTC frames (the most CTC can emit).
	MaxLen int
	// EOS is the end-of-sentence token. It is also the first prev fed to
	// the decoder and the CTC blank index.
	EOS int
	// CTCWeight is λ in [0, 1]; 0 disables CTC prefix scoring.
	CTCWeight float64
	// LMWeight is μ ≥ 0; 0 (or a nil LM) disables the LM.
	LMWeight float64
	// LengthBonus is β, added to the score per output label (EOS
	// excluded); ≥ 0. Counteracts the bias toward short outputs.
	LengthBonus float64
	// ScoreBeam, when > 0, drops every live hypothesis whose score is
	// more than ScoreBeam (natural-log units) below the best candidate of
	// its step; 0 keeps all Beam best (the exact search).
	ScoreBeam float64
	// Done, when not nil, stops the search before the next step once it
	// is closed (pass a context's Done); Search then returns nil.
	Done <-chan struct{}
}

// Hypothesis is one finished output of Search.
type Hypothesis struct {
	Tokens   []int   // output labels, EOS excluded
	Score    float64 // combined score (see package doc)
	AttScore float64 // log p_att(Tokens, EOS) under the decoder
	CTCScore float64 // log p_ctc(Tokens) (0 when CTCWeight is 0)
	LMScore  float64 // log p_lm(Tokens, EOS) (0 without an LM)
}

// hyp is a live or finished hypothesis during the search.
type hyp struct {
	node    int32   // its last label in the label tree (labelNode); -1: none
	n       int     // labels, EOS excluded
	dec     Decoder // state that has consumed every token before last
	last    int     // last token fed (EOS for the empty hypothesis)
	att     float64
	ctc     float64
	lm      float64
	score   float64
	ctcSt   *CTCState
	lmSt    LMState
	decNext Decoder // decoder after consuming last (set during expansion)
	parent  int     // index of the parent in the previous step's live list
}

// labelNode is one label of the tree of the hypotheses' label sequences:
// a hypothesis' labels are its node's label preceded by its parent's
// labels. Growing a hypothesis adds one node instead of copying its labels.
type labelNode struct {
	tok, parent int32 // parent: index of the previous label's node; -1: none
}

// labels returns the n labels ending at node (nil for none).
func labels(nodes []labelNode, node int32, n int) []int {
	if n == 0 {
		return nil
	}
	out := make([]int, n)
	for i := n - 1; i >= 0; i-- {
		out[i] = int(nodes[node].tok)
		node = nodes[node].parent
	}
	return out
}

// candidate is one scored extension of a live hypothesis.
type candidate struct {
	parent int // index into live
	tok    int
	att    float64
	ctc    float64
	lm     float64
	score  float64
	ctcSt  *CTCState
	lmSt   LMState
	// pending: the CTC prefix score is not computed yet; ctc holds the
	// parent's, an upper bound, and score the bound it gives.
	pending bool
	taken   bool // among the Beam best of its step
}

// Search runs beam search from the decoder state start and returns up to
// Beam finished hypotheses, best first. ctcLogProbs holds T frames of V
// natural-log CTC probabilities (row-major (T, V), blank = Options.EOS); it
// may be nil with T = 0 when CTCWeight is 0. lm may be nil. start may be nil
// only when CTCWeight is 1 (pure CTC prefix search, optionally with the LM).
//
// Search panics on invalid options or shapes: Beam < 1, V < 2, EOS outside
// [0, V), CTCWeight outside [0, 1], negative LMWeight or LengthBonus,
// CTCWeight > 0 without T·V log-probabilities, MaxLen = 0 with T = 0, or a
// negative or NaN ScoreBeam.
// It returns no hypotheses only when every candidate scored −Inf.
func Search(start Decoder, ctcLogProbs []float32, T, V int, lm LM, opt Options) []Hypothesis {
	lambda, mu, beta := opt.CTCWeight, opt.LMWeight, opt.LengthBonus
	switch {
	case opt.Beam < 1:
		panic("beam: Options.Beam must be at least 1")
	case V < 2:
		panic("beam: vocabulary needs at least 2 tokens")
	case opt.EOS < 0 || opt.EOS >= V:
		panic("beam: Options.EOS out of range")
	case !(lambda >= 0 && lambda <= 1):
		panic("beam: Options.CTCWeight must be in [0, 1]")
	case !(mu >= 0) || !(beta >= 0):
		panic("beam: Options.LMWeight and LengthBonus must be non-negative")
	case !(opt.ScoreBeam >= 0):
		panic("beam: Options.ScoreBeam must be non-negative")
	case lambda > 0 && (T < 1 || len(ctcLogProbs) < T*V):
		panic("beam: CTCWeight > 0 needs (T, V) CTC log-probabilities")
	case start == nil && lambda != 1:
		panic("beam: nil decoder requires CTCWeight 1")
	}
	maxLen := opt.MaxLen
	if maxLen <= 0 {
		if T < 1 {
			panic("beam: Options.MaxLen must be set when T is 0")
		}
		maxLen = T
	}
	useLM := lm != nil && mu != 0
	useCTC := lambda > 0
	useAtt := start != nil
	eos := opt.EOS

	// K: candidates per hypothesis. Without CTC only a hypothesis' Beam
	// best tokens can enter the global top Beam, so K = Beam is exact.
	K := opt.Beam
	if useCTC {
		K = opt.PreBeam
		if K <= 0 {
			K = int(math.Ceil(1.5 * float64(opt.Beam)))
		}
		if lambda == 1 {
			K = V // att weight is 0, so the pre-beam score is uninformative
		}
	}
	if K > V {
		K = V
	}

	var scorer *CTCPrefixScorer
	var pool []*CTCState
	getState := func() *CTCState {
		if n := len(pool); n > 0 {
			st := pool[n-1]
			pool = pool[:n-1]
			return st
		}
		return nil
	}
	putState := func(st *CTCState) {
		if st != nil {
			pool = append(pool, st)
		}
	}

	root := hyp{node: -1, dec: start, last: eos}
	if useCTC {
		scorer = NewCTCPrefixScorer(ctcLogProbs, T, V, eos)
		root.ctcSt = scorer.Initial()
		root.ctc = root.ctcSt.Score
	}
	if useLM {
		root.lmSt = lm.Start()
	}

	// live and next swap roles every step; finished and nodes only grow.
	live := append(make([]hyp, 0, opt.Beam), root)
	next := make([]hyp, 0, opt.Beam)
	var finished []hyp
	var nodes []labelNode
	batch, _ := start.(BatchDecoder)
	recycler, _ := start.(Recycler)
	var (
		logps  []float32             // (len(live), V) decoder outputs
		decs   []Decoder             // (len(live)) decoder states to step
		prevs  []int                 // (len(live)) their last tokens
		nexts  []Decoder             // (len(live)) successor states
		lmLogp = make([]float64, V)  // (V) LM log-probs
		lmNext = make([]LMState, V)  // (V) LM successor states
		pre    = make([]float64, V)  // (V) pre-beam scores
		top    = make([]int, 0, K+1) // candidate token ids of one hypothesis
		cands  []candidate
		lazy   ctcLazy
		best   bestFirst // the candidates, best first
		kids   []int     // (len(live)) live children of each hypothesis
		// parents: decoder states that live hypotheses consume in the
		// next step, handed back to the recycler after it.
		parents []Decoder
	)

	for n := 0; len(live) > 0; n++ {
		select {
		case <-opt.Done:
			return nil
		default:
		}
		logps = growF32(logps, len(live)*V)
		if useAtt {
			decs, prevs, nexts = decs[:0], prevs[:0], nexts[:0]
			for i := range live {
				decs, prevs, nexts = append(decs, live[i].dec), append(prevs, live[i].last), append(nexts, nil)
			}
			if batch != nil {
				batch.StepBatch(decs, prevs, logps, nexts)
			} else {
				for i, d := range decs {
					nexts[i] = d.Step(prevs[i], logps[i*V:(i+1)*V])
				}
			}
			for i := range live {
				live[i].decNext = nexts[i]
			}
			clear(decs)
			clear(nexts)
			if recycler != nil {
				for _, d := range parents {
					recycler.Recycle(d)
				}
			}
			clear(parents)
			parents = parents[:0]
		}
		cands = cands[:0]
		for hi := range live {
			h := &live[hi]
			logp := logps[hi*V : (hi+1)*V]
			if all, ok := lm.(AllScorer); useLM && ok {
				all.ScoreAll(h.lmSt, lmLogp, lmNext)
			} else if useLM {
				for tok := 0; tok < V; tok++ {
					lp, nx := lm.Score(h.lmSt, tok)
					lmLogp[tok], lmNext[tok] = float64(lp), nx
				}
			}
			top = top[:0]
			if n < maxLen {
				for tok := 0; tok < V; tok++ {
					s := 0.0
					if useAtt {
						s = (1 - lambda) * float64(logp[tok])
					}
					if useLM {
						s += mu * lmLogp[tok]
					}
					pre[tok] = s
				}
				top = topK(top, pre, K)
			}
			if !contains(top, eos) {
				top = append(top, eos) // at MaxLen, EOS is the only choice
			}
			for _, tok := range top {
				c := candidate{parent: hi, tok: tok, att: h.att, ctc: h.ctc, lm: h.lm}
				if useAtt {
					c.att += float64(logp[tok])
				}
				if useLM {
					c.lm += lmLogp[tok]
					c.lmSt = lmNext[tok]
				}
				if useCTC {
					if tok == eos {
						c.ctc = scorer.Final(h.ctcSt)
					} else {
						// The prefix score of h+tok is at most h's: score
						// with h's now, extend later if it can still win.
						c.pending = true
					}
				}
				c.score = (1-lambda)*c.att + lambda*c.ctc + mu*c.lm
				length := h.n
				if tok != eos {
					length++
				}
				c.score += beta * float64(length)
				if math.IsInf(c.score, -1) || math.IsNaN(c.score) {
					continue
				}
				cands = append(cands, c)
			}
		}
		if useCTC {
			cands = lazy.resolve(cands, opt.Beam, lambda, opt.ScoreBeam, func(c *candidate) {
				c.ctcSt = scorer.Extend(getState(), live[c.parent].ctcSt, c.tok)
				c.ctc = c.ctcSt.Score
			}, putState)
		}

		// Keep the Beam best candidates, best first; ties go by hypothesis
		// order, then token order (the candidates' order), as a stable sort
		// would order them. With a score beam, live ones too far below the
		// step's best are no candidates.
		best.init(len(cands), func(i int) float64 { return cands[i].score })
		next = next[:0]
		floor := math.Inf(-1)
		for taken := 0; taken < opt.Beam && best.len() > 0; {
			c := &cands[best.pop()]
			if opt.ScoreBeam > 0 && math.IsInf(floor, -1) {
				floor = c.score - opt.ScoreBeam // the first is the best
			}
			p := &live[c.parent]
			h := hyp{node: p.node, n: p.n, att: c.att, ctc: c.ctc, lm: c.lm, score: c.score, lmSt: c.lmSt}
			if c.tok == eos {
				c.taken = true
				taken++
				finished = append(finished, h)
				continue
			}
			if c.score < floor {
				continue // below the score beam; its CTC state is released below
			}
			c.taken = true
			taken++
			nodes = append(nodes, labelNode{tok: int32(c.tok), parent: p.node})
			h.node, h.n = int32(len(nodes)-1), p.n+1
			h.dec, h.last, h.ctcSt, h.parent = p.decNext, c.tok, c.ctcSt, c.parent
			next = append(next, h)
		}
		for i := range cands {
			if !cands[i].taken {
				putState(cands[i].ctcSt)
			}
		}
		for i := range live {
			putState(live[i].ctcSt)
		}
		if len(finished) > 0 && pruneHopeless {
			// Live hypotheses that cannot beat the best finished one
			// leave the beam now: see hopeless.
			next = dropHopeless(next, finished, beta, maxLen, putState)
		}
		// A decoder state stepped this time is read by the next step if a
		// live hypothesis grew from it, and by none otherwise.
		kids = append(kids[:0], make([]int, len(live))...)
		for i := range next {
			kids[next[i].parent]++
		}
		for i := range live {
			if live[i].decNext == nil {
				continue
			}
			if kids[i] > 0 {
				parents = append(parents, live[i].decNext)
			} else if recycler != nil {
				recycler.Recycle(live[i].decNext)
			}
		}
		clear(live) // drop references to decoder and CTC states
		live, next = next, live
		if len(finished) > 0 && len(live) > 0 && !canImprove(live, finished, beta, maxLen) {
			break
		}
	}

	sort.SliceStable(finished, func(i, j int) bool { return finished[i].score > finished[j].score })
	if len(finished) > opt.Beam {
		finished = finished[:opt.Beam]
	}
	out := make([]Hypothesis, len(finished))
	for i, h := range finished {
		out[i] = Hypothesis{
			Tokens: labels(nodes, h.node, h.n),
			Score:  h.score, AttScore: h.att, CTCScore: h.ctc, LMScore: h.lm,
		}
	}
	return out
}

// canImprove reports whether some live hypothesis could still reach a score
// above the best finished one: its att, CTC and LM terms can only fall, and
// it can gain at most β per label still allowed.
func canImprove(live, finished []hyp, beta float64, maxLen int) bool {
	best := math.Inf(-1)
	for i := range finished {
		best = math.Max(best, finished[i].score)
	}
	for i := range live {
		bound := live[i].score + beta*float64(maxLen-live[i].n)
		if bound > best {
			return true
		}
	}
	return false
}

// pruneHopeless is false only in tests that check that dropping hopeless
// live hypotheses leaves the best hypothesis unchanged.
var pruneHopeless = true

// dropHopeless returns live without the hypotheses that cannot reach a
// score above the best finished one (whose bound, as in canImprove, is at
// most it), in their order, handing their CTC states to release.
//
// This leaves the best hypothesis unchanged. The search is label-
// synchronous: all live hypotheses have the same length, so their bounds
// are ordered as their scores, and every candidate grown from a hopeless
// one, ending or not, scores below every candidate that is not hopeless.
// Hopeless ones are therefore only ever at the bottom of the beam and all
// that descends from them stays below the best finished score; without
// them the beam holds the same hypotheses that can still win. Lower
// finished hypotheses may differ: some that hopeless ones crowded out of
// the beam may finish instead. Steps shrink once the first hypothesis
// ends, which is where the search used to go on at full width until the
// last live one became hopeless.
func dropHopeless(live, finished []hyp, beta float64, maxLen int, release func(*CTCState)) []hyp {
	best := math.Inf(-1)
	for i := range finished {
		best = math.Max(best, finished[i].score)
	}
	out := live[:0]
	for i := range live {
		if h := live[i]; h.score+beta*float64(maxLen-h.n) > best {
			out = append(out, h)
		} else {
			release(h.ctcSt)
		}
	}
	clear(live[len(out):])
	return out
}

// ctcSlack covers rounding in the bound "a prefix's CTC score is at most
// its parent's" (the softplus table errs by 1e-10 nats per logAdd).
const ctcSlack = 1e-6

// lazyCTC is false only in tests that check the lazy search against
// extending every candidate.
var lazyCTC = true

// ctcLazy computes CTC prefix scores only for candidates that can still be
// among the best: a candidate's score with its parent's CTC score bounds its
// true score from above, so candidates are extended in order of that bound
// until beam exact scores beat every remaining bound. The result is the one
// of extending every candidate; typically a few times beam extensions are
// made instead of beam·PreBeam. The slices are reused between steps.
type ctcLazy struct {
	order bestFirst // candidate indices by bound, best first
	best  []float64 // the best exact scores so far, descending, at most beam
	keep  []bool    // candidates that may be among the beam best
}

// resolve fills in the pending CTC scores of cands that can be among the
// beam best, by calling extend, and returns cands without the others and
// without those whose exact score is −Inf, in their original order. The
// states of the latter are handed to release. With scoreBeam > 0, pending
// candidates whose bound is more than scoreBeam below an exact score are
// left out unscored too: the search's score beam would drop them.
func (z *ctcLazy) resolve(cands []candidate, beam int, lambda, scoreBeam float64, extend func(*candidate), release func(*CTCState)) []candidate {
	z.order.init(len(cands), func(i int) float64 { return cands[i].score })
	z.best = z.best[:0]
	z.keep = append(z.keep[:0], make([]bool, len(cands))...)
	keep := z.keep
	for z.order.len() > 0 {
		i := z.order.pop()
		c := &cands[i]
		if lazyCTC && len(z.best) == beam && c.score+ctcSlack < z.best[beam-1] {
			// Neither this bound nor any after it can reach the beam. But
			// with a score beam, live candidates among the beam best may
			// be dropped, making room for lower finished ones, whose
			// scores are exact already: those stay.
			if scoreBeam > 0 {
				keep[i] = !c.pending
				for _, j := range z.order.idx {
					keep[j] = !cands[j].pending
				}
			}
			break
		}
		if c.pending {
			if scoreBeam > 0 && len(z.best) > 0 && c.score+ctcSlack < z.best[0]-scoreBeam {
				continue // a live hypothesis below the score beam
			}
			bound := c.ctc
			extend(c)
			c.pending = false
			c.score += lambda * (c.ctc - bound)
			if math.IsInf(c.score, -1) || math.IsNaN(c.score) {
				release(c.ctcSt)
				continue
			}
		}
		keep[i] = true
		// Insert c.score into the descending best list, capped at beam.
		j := len(z.best)
		if j < beam {
			z.best = append(z.best, c.score)
		} else if c.score > z.best[j-1] {
			j--
		} else {
			continue
		}
		for ; j > 0 && z.best[j-1] < c.score; j-- {
			z.best[j] = z.best[j-1]
		}
		z.best[j] = c.score
	}
	out := cands[:0]
	for i := range cands {
		if keep[i] {
			out = append(out, cands[i])
		}
	}
	return out
}

// bestFirst hands out indices 0..n-1 by descending score, ties by index:
// the order of a stable sort by descending score, made lazily with a
// binary heap, so that taking the first k costs O(n + k log n) instead of
// sorting all n. Scores must not be NaN.
type bestFirst struct {
	idx   []int
	score []float64
}

// init holds indices 0..n-1 with the scores score(i).
func (b *bestFirst) init(n int, score func(int) float64) {
	b.idx, b.score = b.idx[:0], b.score[:0]
	for i := range n {
		b.idx = append(b.idx, i)
		b.score = append(b.score, score(i))
	}
	for i := n/2 - 1; i >= 0; i-- {
		b.down(i)
	}
}

func (b *bestFirst) len() int { return len(b.idx) }

// before reports whether index i comes before index j.
func (b *bestFirst) before(i, j int) bool {
	si, sj := b.score[i], b.score[j]
	return si > sj || (si == sj && i < j)
}

// pop removes and returns the next index; there must be one.
func (b *bestFirst) pop() int {
	top := b.idx[0]
	last := len(b.idx) - 1
	b.idx[0] = b.idx[last]
	b.idx = b.idx[:last]
	b.down(0)
	return top
}

// down moves the entry at heap position p down to its place.
func (b *bestFirst) down(p int) {
	n := len(b.idx)
	for {
		c := 2*p + 1
		if c >= n {
			return
		}
		if c+1 < n && b.before(b.idx[c+1], b.idx[c]) {
			c++
		}
		if !b.before(b.idx[c], b.idx[p]) {
			return
		}
		b.idx[p], b.idx[c] = b.idx[c], b.idx[p]
		p = c
	}
}

// topK appends to dst the indices of the k largest values of s, largest
// first, ties broken by the smaller index.
func topK(dst []int, s []float64, k int) []int {
	base := len(dst)
	for i, v := range s {
		n := len(dst) - base
		if n == k && v <= s[dst[len(dst)-1]] {
			continue
		}
		if n < k {
			dst = append(dst, i)
		} else {
			dst[len(dst)-1] = i
		}
		// Insertion sort the new entry into place.
		for j := len(dst) - 1; j > base && s[dst[j]] > s[dst[j-1]]; j-- {
			dst[j], dst[j-1] = dst[j-1], dst[j]
		}
	}
	return dst
}

// growF32 returns s resized to n, reallocated only when too small.
func growF32(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}

func contains(s []int, x int) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// Greedy decodes by taking the most probable token at every step (the first
// one on ties) until EOS or maxLen labels, after which EOS is forced. V is
// the vocabulary size and eos the end-of-sentence token, also fed as the
// first prev. It equals Search with Beam 1 and no CTC or LM.
func Greedy(start Decoder, V, eos, maxLen int) Hypothesis {
	if V < 2 || eos < 0 || eos >= V || maxLen < 0 {
		panic("beam: Greedy needs V >= 2, eos in [0, V) and maxLen >= 0")
	}
	logp := make([]float32, V)
	var h Hypothesis
	dec, prev := start, eos
	for {
		dec = dec.Step(prev, logp)
		best := eos
		if len(h.Tokens) < maxLen {
			for tok, v := range logp {
				if v > logp[best] || (v == logp[best] && tok < best) {
					best = tok
				}
			}
		}
		h.AttScore += float64(logp[best])
		if best == eos {
			break
		}
		h.Tokens = append(h.Tokens, best)
		prev = best
	}
	h.Score = h.AttScore
	return h
}
