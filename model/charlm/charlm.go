// Package charlm is a character n-gram language model over the network's
// output alphabet, for shallow fusion in beam search (it implements
// beam.LM) and for measuring text perplexity.
//
// # Tokens
//
// The vocabulary has V = len(alphabet)+1 tokens: token 0 is the sentence
// boundary (<s> as context, <eos> as a prediction) and token i ≥ 1 is the
// i-th rune of the alphabet; DefaultAlphabet gives the 29-token set
// <eos>, space, apostrophe, a..z. Training and evaluation text is tokenized
// line by line by Encode: runes are lowercased, runes outside the alphabet
// become a space (or are dropped if the alphabet has no space), runs of
// spaces collapse to one, and leading and trailing spaces are removed. A
// line that is empty after this is skipped. Each line is one sentence: the
// model predicts its characters and then <eos>, starting from <s>.
//
// # Smoothing
//
// Interpolated modified Kneser-Ney (Chen & Goodman 1998): for the n-gram
// order n with context h (n−1 tokens) and h' = h without its oldest token,
//
//	P_n(w | h) = α_n(h, w) + γ_n(h) · P_{n−1}(w | h')
//	α_n(h, w)  = max(c(h w) − D_n(c), 0) / Σ_v c(h v)
//	γ_n(h)     = 1 − Σ_w α_n(h, w)
//	P_0(w)     = 1 / V
//
// where c is the raw count at the highest order and for n-grams that start
// with <s>, and otherwise the continuation count (the number of distinct
// tokens seen before the n-gram). D_n(c) is one of three discounts per
// order (for c = 1, 2, ≥ 3) estimated from that order's count-of-counts.
// A context never seen at order n gives P_n = P_{n−1}.
//
// # Pruning
//
// Pruning (Config.MinCount, Config.PruneAbove) drops n-grams of orders above
// PruneAbove whose count is below MinCount. Their α moves into γ, so every
// P_n(· | h) still sums to exactly 1 (up to float32 rounding of the stored
// values): the model stays a proper distribution.
//
// # Storage
//
// Token sequences are packed into uint64 keys (each token + 1 in
// ⌈log2(V+1)⌉ bits, oldest in the high bits). Each order keeps its
// contexts in a sorted array with their γ, and each context's n-grams as a
// contiguous run of (token, α). A query costs at most N binary searches:
// stored contexts are suffix-closed, so the lookup stops at the first
// context not stored; ScoreAll scores all V tokens for the same cost.
// Export and Import turn the maps into modelfile tensors laid out as a trie
// (see Export): small integers and probabilities, about 4 bytes per n-gram
// and 8 per context in a float16 file.
package charlm

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/heed-asr/heed/model/beam"
)

// DefaultAlphabet is the network's alphabet without the boundary token:
// tokens 1 (space), 2 (apostrophe) and 3..28 (a..z).
const DefaultAlphabet = " 'abcdefghijklmnopqrstuvwxyz"

// Boundary is the sentence-boundary token (<s> in a context, <eos> as a
// prediction).
const Boundary = 0

// DefaultOrder is the n-gram order used when Config.Order is 0.
const DefaultOrder = 7

// Config controls training.
type Config struct {
	// Alphabet lists the runes of tokens 1..V−1, without duplicates.
	Alphabet string
	// Order is the n-gram order N ≥ 1 (0 means DefaultOrder). N tokens
	// must fit in 64 bits: N·⌈log2(V+1)⌉ ≤ 64, so N ≤ 12 for V = 29.
	Order int
	// PruneAbove and MinCount: n-grams of order > PruneAbove with a count
	// below MinCount are dropped. MinCount ≤ 1 disables pruning.
	PruneAbove int
	MinCount   int
}

// Model is a trained, immutable character n-gram model. It is safe for
// concurrent use.
type Model struct {
	alphabet []rune
	index    map[rune]int // rune → token
	space    int          // token of ' ', or -1
	order    int
	bits     uint   // bits per packed token
	slot     uint64 // mask of one token slot
	stMask   uint64 // mask of the N−1 slots kept as LM state

	levels []level // per order 1..N, built by freeze

	// While training or reading the packed layout, before freeze:
	prob    map[uint64]float32 // packed n-gram → α
	backoff map[uint64]float32 // packed context → γ; the empty context is key 0

	discounts [][3]float64 // per order 1..N: D(1), D(2), D(3+)
	ngrams    []int        // kept n-grams per order 1..N
	contexts  []int        // kept contexts per order 1..N
}

// level holds the contexts of one order n (n−1 tokens each) and their
// n-grams, in arrays sorted by packed key: a context is found by binary
// search, its n-grams are a contiguous run.
type level struct {
	ctx   []uint64  // (C) sorted packed context keys
	gamma []float32 // (C) γ of each context
	off   []uint32  // (C+1) the n-grams of context i are tok[off[i]:off[i+1]]
	tok   []uint8   // (G) newest token + 1 of each n-gram, increasing per context
	alpha []float32 // (G) α of each n-gram
}

// find returns the index of context key h in lv, or −1.
func (lv *level) find(h uint64) int {
	if i, ok := slices.BinarySearch(lv.ctx, h); ok {
		return i
	}
	return -1
}

// freeze moves the maps prob and backoff into sorted levels and drops
// them.
func (m *Model) freeze() {
	m.levels = make([]level, m.order)
	for _, h := range sortedKeys(m.backoff) {
		lv := &m.levels[m.keyLen(h)] // a context of j tokens belongs to order j+1
		lv.ctx = append(lv.ctx, h)
		lv.gamma = append(lv.gamma, m.backoff[h])
	}
	keys := sortedKeys(m.prob)
	for n := 1; n <= m.order; n++ {
		lv := &m.levels[n-1]
		lv.off = make([]uint32, len(lv.ctx)+1)
	}
	for _, k := range keys {
		lv := &m.levels[m.keyLen(k)-1]
		lv.tok = append(lv.tok, uint8(k&m.slot))
		lv.alpha = append(lv.alpha, m.prob[k])
		lv.off[lv.find(k>>m.bits)+1]++ // every n-gram's context is stored
	}
	for n := range m.levels {
		off := m.levels[n].off
		for i := 1; i < len(off); i++ {
			off[i] += off[i-1]
		}
	}
	m.prob, m.backoff = nil, nil
}

// newModel validates the alphabet and order and sets up the token tables.
func newModel(alphabet string, order int) (*Model, error) {
	runes := []rune(alphabet)
	if len(runes) == 0 || len(runes) > 254 {
		return nil, fmt.Errorf("charlm: alphabet of %d runes, want 1 to 254", len(runes))
	}
	m := &Model{alphabet: runes, index: make(map[rune]int, len(runes)), space: -1, order: order}
	for i, r := range runes {
		if _, dup := m.index[r]; dup {
			return nil, fmt.Errorf("charlm: rune %q twice in the alphabet", r)
		}
		m.index[r] = i + 1
		if r == ' ' {
			m.space = i + 1
		}
	}
	m.bits = uint(bits.Len(uint(len(runes) + 1))) // token+1 ≤ V
	if order < 1 || uint(order)*m.bits > 64 {
		return nil, fmt.Errorf("charlm: order %d out of range [1, %d] for %d tokens", order, 64/m.bits, len(runes)+1)
	}
	m.slot = 1<<m.bits - 1
	m.stMask = lowMask(uint(order-1) * m.bits)
	return m, nil
}

func lowMask(n uint) uint64 {
	if n >= 64 {
		return math.MaxUint64
	}
	return 1<<n - 1
}

// V returns the vocabulary size, boundary included.
func (m *Model) V() int { return len(m.alphabet) + 1 }

// Order returns the n-gram order N.
func (m *Model) Order() int { return m.order }

// Alphabet returns the runes of tokens 1..V−1.
func (m *Model) Alphabet() string { return string(m.alphabet) }

// NumNGrams returns the number of stored n-grams per order 1..N.
func (m *Model) NumNGrams() []int { return append([]int(nil), m.ngrams...) }

// NumContexts returns the number of stored contexts per order 1..N.
func (m *Model) NumContexts() []int { return append([]int(nil), m.contexts...) }

// Encode tokenizes one line of text as described in the package doc. It
// returns the tokens (all ≥ 1), without boundaries.
func (m *Model) Encode(line string) []int {
	return encode(line, m.index, m.space, nil)
}

func encode(line string, index map[rune]int, space int, dst []int) []int {
	dst = dst[:0]
	for _, r := range line {
		tok, ok := index[r]
		if !ok {
			tok, ok = index[unicode.ToLower(r)]
		}
		if !ok {
			tok = space
		}
		if tok < 0 || (tok == space && (len(dst) == 0 || dst[len(dst)-1] == space)) {
			continue
		}
		dst = append(dst, tok)
	}
	if n := len(dst); n > 0 && dst[n-1] == space {
		dst = dst[:n-1]
	}
	return dst
}

// Decode maps tokens back to text; the boundary token and out-of-range
// tokens are skipped.
func (m *Model) Decode(tokens []int) string {
	var b strings.Builder
	for _, t := range tokens {
		if t >= 1 && t <= len(m.alphabet) {
			b.WriteRune(m.alphabet[t-1])
		}
	}
	return b.String()
}

// push appends tok to the packed state and keeps the last N−1 tokens.
func (m *Model) push(st uint64, tok int) uint64 {
	return (st<<m.bits | uint64(tok+1)) & m.stMask
}

// Start returns the LM state at the start of a sentence (context <s>).
func (m *Model) Start() beam.LMState {
	return beam.LMState(m.push(0, Boundary))
}

// Score returns the natural-log probability of tok after state st and the
// next state; it implements beam.LM. After the boundary token (<eos>) the
// state restarts a sentence. It panics if tok is outside [0, V).
func (m *Model) Score(st beam.LMState, tok int) (float32, beam.LMState) {
	lp := m.logProb(uint64(st), tok)
	if tok == Boundary {
		return float32(lp), m.Start()
	}
	return float32(lp), beam.LMState(m.push(uint64(st), tok))
}

// LogProb returns the natural-log probability of tok given context, the
// tokens of the current sentence so far (the leading <s> is implied). If
// context contains the boundary token, only the tokens after its last
// occurrence count. It panics if a token is outside [0, V).
func (m *Model) LogProb(context []int, tok int) float64 {
	for i := len(context) - 1; i >= 0; i-- {
		if context[i] == Boundary {
			context = context[i+1:]
			break
		}
	}
	if len(context) > m.order-1 {
		context = context[len(context)-(m.order-1):]
	}
	st := m.push(0, Boundary)
	for _, t := range context {
		m.checkTok(t)
		st = m.push(st, t)
	}
	return m.logProb(st, tok)
}

func (m *Model) checkTok(tok int) {
	if tok < 0 || tok > len(m.alphabet) {
		panic(fmt.Sprintf("charlm: token %d outside [0, %d)", tok, len(m.alphabet)+1))
	}
}

// logProb evaluates the interpolated recursion from the uniform
// distribution up to the longest context held in st (packed, up to N−1
// tokens, newest in the low bits).
func (m *Model) logProb(st uint64, tok int) float64 {
	m.checkTok(tok)
	p := 1 / float64(m.V())
	w := uint8(tok + 1)
	for n := 1; n <= m.order; n++ {
		lv, i := m.context(st, n)
		if i < 0 {
			break // no longer context is stored either (see closeContexts)
		}
		a := float32(0)
		for j := lv.off[i]; j < lv.off[i+1] && lv.tok[j] <= w; j++ {
			if lv.tok[j] == w {
				a = lv.alpha[j]
			}
		}
		p = float64(a) + float64(lv.gamma[i])*p
	}
	return math.Log(p)
}

// context returns the level of order n and the index in it of the context
// of n−1 tokens ending st, or −1 if st holds fewer tokens or the context is
// not stored.
func (m *Model) context(st uint64, n int) (*level, int) {
	shift := uint(n-1) * m.bits
	if n > 1 && (st>>(shift-m.bits))&m.slot == 0 {
		return nil, -1 // the state holds fewer than n−1 tokens
	}
	lv := &m.levels[n-1]
	return lv, lv.find(st & lowMask(shift))
}

// ScoreAll sets logp[tok] and next[tok], for every token, to what Score
// returns; it implements beam.AllScorer and costs about as much as one
// call of Score. logp and next must have length V.
func (m *Model) ScoreAll(st beam.LMState, logp []float64, next []beam.LMState) {
	V := m.V()
	if len(logp) != V || len(next) != V {
		panic(fmt.Sprintf("charlm: ScoreAll: slices of %d and %d, want %d", len(logp), len(next), V))
	}
	for t := range logp {
		logp[t] = 1 / float64(V)
	}
	for n := 1; n <= m.order; n++ {
		lv, i := m.context(uint64(st), n)
		if i < 0 {
			break
		}
		g := float64(lv.gamma[i])
		for t := range logp {
			logp[t] *= g
		}
		for j := lv.off[i]; j < lv.off[i+1]; j++ {
			logp[lv.tok[j]-1] += float64(lv.alpha[j])
		}
	}
	for t := range logp {
		logp[t] = math.Log(logp[t])
		next[t] = beam.LMState(m.push(uint64(st), t))
	}
	next[Boundary] = m.Start()
}

// Perplexity returns exp of the mean negative log-probability per predicted
// token (every character and the <eos> of each non-empty line), and the
// number of tokens scored. It returns (NaN, 0) if no line has text.
func (m *Model) Perplexity(lines []string) (ppl float64, tokens int) {
	var sum float64
	var seq []int
	for _, line := range lines {
		seq = encode(line, m.index, m.space, seq)
		if len(seq) == 0 {
			continue
		}
		st := m.push(0, Boundary)
		for _, t := range seq {
			sum += m.logProb(st, t)
			st = m.push(st, t)
		}
		sum += m.logProb(st, Boundary)
		tokens += len(seq) + 1
	}
	if tokens == 0 {
		return math.NaN(), 0
	}
	return math.Exp(-sum / float64(tokens)), tokens
}

// Train estimates a model of the given order over DefaultAlphabet, pruning
// n-grams seen once above order 3 (MinCount 2, PruneAbove 3). It panics if
// order is outside [1, 12]; use TrainConfig for other alphabets and settings.
func Train(lines []string, order int) *Model {
	m, err := TrainConfig(lines, Config{Alphabet: DefaultAlphabet, Order: order, PruneAbove: 3, MinCount: 2})
	if err != nil {
		panic(err.Error())
	}
	return m
}

// TrainConfig estimates a model from lines of text (see the package doc for
// tokenization and smoothing). It returns an error for an invalid alphabet
// or order. Time and memory are linear in the number of distinct n-grams.
func TrainConfig(lines []string, cfg Config) (*Model, error) {
	order := cfg.Order
	if order == 0 {
		order = DefaultOrder
	}
	m, err := newModel(cfg.Alphabet, order)
	if err != nil {
		return nil, err
	}
	N := order

	// adj[n] maps packed n-grams of order n to their (adjusted) counts.
	adj := make([]map[uint64]uint32, N+1)
	for n := range adj {
		adj[n] = make(map[uint64]uint32)
	}
	// Raw counts of each predicted token's longest n-gram: N tokens, or
	// fewer starting with <s> near the sentence start.
	var seq []int
	for _, line := range lines {
		seq = encode(line, m.index, m.space, seq)
		if len(seq) == 0 {
			continue
		}
		var key uint64 = Boundary + 1
		length := 1
		for i := 0; i <= len(seq); i++ {
			tok := Boundary
			if i < len(seq) {
				tok = seq[i]
			}
			key = key<<m.bits | uint64(tok+1)
			length++
			if length > N {
				key &= lowMask(uint(N) * m.bits)
				length = N
			}
			adj[length][key]++
		}
	}
	// Continuation counts: each distinct n-gram adds one to its suffix.
	for n := N; n >= 2; n-- {
		mask := lowMask(uint(n-1) * m.bits)
		lower := adj[n-1]
		for key := range adj[n] {
			lower[key&mask]++
		}
	}

	m.prob = make(map[uint64]float32)
	m.backoff = make(map[uint64]float32)
	m.discounts = make([][3]float64, N)
	m.ngrams = make([]int, N)
	m.contexts = make([]int, N)
	for n := 1; n <= N; n++ {
		m.estimate(n, adj[n], cfg)
		adj[n] = nil // free counts as we go
	}
	m.closeContexts()
	m.freeze()
	return m, nil
}

// closeContexts makes the stored contexts closed under dropping their
// oldest token (suffix-closed, so that a lookup can stop at the first
// missing context) and their newest token (prefix-closed, so that Export
// can store contexts as a trie). A context added this way gets γ = 1 and
// no n-grams, which leaves every probability unchanged. Contexts of n−1
// tokens only add contexts of n−2 tokens, so one pass from the longest
// down closes them all.
func (m *Model) closeContexts() {
	for n := m.order; n >= 2; n-- {
		var missing []uint64
		for h := range m.backoff {
			if m.keyLen(h) != n-1 {
				continue
			}
			suffix := h & lowMask(uint(n-2)*m.bits)
			prefix := h >> m.bits
			for _, c := range [2]uint64{suffix, prefix} {
				if _, ok := m.backoff[c]; !ok {
					missing = append(missing, c)
				}
			}
		}
		for _, h := range missing {
			if _, ok := m.backoff[h]; !ok {
				m.backoff[h] = 1
				m.contexts[n-2]++
			}
		}
	}
}

// ctxStats accumulates one context's counts at one order.
type ctxStats struct {
	total      float64
	n1, n2, n3 float64 // distinct followers seen once, twice, 3+ times
	kept       float64 // Σ α over the n-grams kept after pruning
	nkept      int
}

// estimate computes α and γ for order n from its counts.
func (m *Model) estimate(n int, counts map[uint64]uint32, cfg Config) {
	D := discounts(counts)
	m.discounts[n-1] = D
	ctx := make(map[uint64]*ctxStats)
	for key, c := range counts {
		h := key >> m.bits
		s := ctx[h]
		if s == nil {
			s = &ctxStats{}
			ctx[h] = s
		}
		s.total += float64(c)
		switch c {
		case 1:
			s.n1++
		case 2:
			s.n2++
		default:
			s.n3++
		}
	}
	prune := cfg.MinCount > 1 && n > cfg.PruneAbove
	for key, c := range counts {
		if prune && int(c) < cfg.MinCount {
			continue
		}
		s := ctx[key>>m.bits]
		d := D[2]
		if c < 3 {
			d = D[c-1]
		}
		a := float32(math.Max(float64(c)-d, 0) / s.total)
		if a == 0 {
			continue // contributes nothing; its mass is in γ already
		}
		m.prob[key] = a
		s.kept += float64(a)
		s.nkept++
	}
	for h, s := range ctx {
		if s.nkept == 0 {
			continue // γ = 1: same as an unseen context
		}
		m.backoff[h] = float32(1 - s.kept)
		m.contexts[n-1]++
		m.ngrams[n-1] += s.nkept
	}
}

// discounts returns modified Kneser-Ney discounts D(1), D(2), D(3+) from
// the count-of-counts (Chen & Goodman 1998, eq. 26). When an estimate is
// undefined or outside (0, k) for count k, which happens on tiny data, it
// falls back to the single absolute discount n1/(n1+2·n2), or to 0.5.
func discounts(counts map[uint64]uint32) [3]float64 {
	var nc [5]float64
	for _, c := range counts {
		if c <= 4 {
			nc[c]++
		}
	}
	n1, n2, n3, n4 := nc[1], nc[2], nc[3], nc[4]
	y := 0.5
	if n1 > 0 && n2 > 0 {
		y = n1 / (n1 + 2*n2)
	}
	if n1 > 0 && n2 > 0 && n3 > 0 && n4 > 0 {
		d := [3]float64{1 - 2*y*n2/n1, 2 - 3*y*n3/n2, 3 - 4*y*n4/n3}
		if d[0] > 0 && d[0] < 1 && d[1] > 0 && d[1] < 2 && d[2] > 0 && d[2] < 3 {
			return d
		}
	}
	return [3]float64{y, y, y}
}

// sortedKeys returns the keys of mp in increasing order, for deterministic
// export.
func sortedKeys(mp map[uint64]float32) []uint64 {
	keys := make([]uint64, 0, len(mp))
	for k := range mp {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}
