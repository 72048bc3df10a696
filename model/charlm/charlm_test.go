package charlm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/heed-asr/heed/model/beam"
	"github.com/heed-asr/heed/model/modelfile"
)

// opticks returns the test corpus (see testdata/README.md) split into
// sentences at . ? ! ; and :.
func opticks(t testing.TB) []string {
	t.Helper()
	b, err := os.ReadFile("testdata/opticks.txt")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(b)), " ")
	return strings.FieldsFunc(text, func(r rune) bool { return strings.ContainsRune(".?!;:", r) })
}

func split(lines []string) (train, test []string) {
	n := len(lines) * 9 / 10
	return lines[:n], lines[n:]
}

func mustTrain(t testing.TB, lines []string, cfg Config) *Model {
	t.Helper()
	m, err := TrainConfig(lines, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestEncode(t *testing.T) {
	m := mustTrain(t, nil, Config{Alphabet: DefaultAlphabet, Order: 3})
	noSpace := mustTrain(t, nil, Config{Alphabet: "ab", Order: 2})
	cases := []struct {
		name string
		m    *Model
		in   string
		want string
	}{
		{"plain", m, "hello world", "hello world"},
		{"case and punctuation", m, "Hello,  World!", "hello world"},
		{"apostrophe", m, "It's Newton's", "it's newton's"},
		{"digits and edges", m, "  1730 editions\t", "editions"},
		{"non-ascii", m, "Opticæ café", "optic caf"},
		{"only junk", m, "1234 !!", ""},
		{"no space in alphabet drops", noSpace, "a b, ba", "abba"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			toks := c.m.Encode(c.in)
			if got := c.m.Decode(toks); got != c.want {
				t.Errorf("Encode(%q) decodes to %q, want %q", c.in, got, c.want)
			}
			for _, tok := range toks {
				if tok < 1 || tok >= c.m.V() {
					t.Errorf("token %d out of range", tok)
				}
			}
		})
	}
	if got := m.Encode("a z"); !reflect.DeepEqual(got, []int{3, 1, 28}) {
		t.Errorf("token ids %v, want [3 1 28] (a=3, space=1, z=28)", got)
	}
}

// TestHandComputed checks probabilities worked out by hand for the corpus
// "aab" (see the package doc formulas; discounts fall back to 0.5).
func TestHandComputed(t *testing.T) {
	const tol = 1e-6
	const a, b, eos = 1, 2, Boundary
	cases := []struct {
		name  string
		order int
		ctx   []int
		tok   int
		want  float64
	}{
		// Order 1: counts a:2 b:1 eos:1, D = 0.5, γ = 0.375, V = 3.
		{"unigram a", 1, nil, a, 0.5},
		{"unigram b", 1, []int{a}, b, 0.25},
		{"unigram eos", 1, nil, eos, 0.25},
		// Order 2: bigrams <s>a aa ab b</s> once each, D = 0.5; the
		// unigram level has continuation counts a:2 b:1 eos:1.
		{"a|a", 2, []int{a}, a, 0.5},
		{"b|a", 2, []int{a}, b, 0.375},
		{"eos|a", 2, []int{a}, eos, 0.125},
		{"a|<s>", 2, nil, a, 0.75},
		{"b|<s>", 2, nil, b, 0.125},
		{"eos|b", 2, []int{a, b}, eos, 0.625}, // 0.5 + 0.5·P1(eos)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := mustTrain(t, []string{"aab"}, Config{Alphabet: "ab", Order: c.order})
			if got := math.Exp(m.LogProb(c.ctx, c.tok)); math.Abs(got-c.want) > tol {
				t.Errorf("P = %.6f, want %.6f", got, c.want)
			}
		})
	}
}

// refModel is an independent, string-keyed implementation of the same
// estimator (no packing, no pruning) to cross-check Train.
type refModel struct {
	order int
	v     int
	alpha []map[string]float64 // per order: "h|w" -> α
	gamma []map[string]float64 // per order: "h" -> γ
}

func seqKey(toks []int) string { return fmt.Sprint(toks) }

func newRef(m *Model, lines []string, order int) *refModel {
	r := &refModel{order: order, v: m.V()}
	counts := make([]map[string]int, order+1)
	grams := make([]map[string][]int, order+1)
	for n := range counts {
		counts[n], grams[n] = map[string]int{}, map[string][]int{}
	}
	add := func(g []int, c int) {
		k := seqKey(g)
		counts[len(g)][k] += c
		grams[len(g)][k] = g
	}
	for _, line := range lines {
		toks := m.Encode(line)
		if len(toks) == 0 {
			continue
		}
		s := append(append([]int{Boundary}, toks...), Boundary)
		for i := 1; i < len(s); i++ {
			lo := i - order + 1
			if lo < 0 {
				lo = 0
			}
			add(s[lo:i+1], 1)
		}
	}
	for n := order; n >= 2; n-- {
		for _, g := range grams[n] {
			add(g[1:], 1)
		}
	}
	for n := 1; n <= order; n++ {
		var cc [5]float64
		for _, c := range counts[n] {
			if c <= 4 {
				cc[c]++
			}
		}
		y := 0.5
		if cc[1] > 0 && cc[2] > 0 {
			y = cc[1] / (cc[1] + 2*cc[2])
		}
		D := [3]float64{y, y, y}
		if cc[1] > 0 && cc[2] > 0 && cc[3] > 0 && cc[4] > 0 {
			d := [3]float64{1 - 2*y*cc[2]/cc[1], 2 - 3*y*cc[3]/cc[2], 3 - 4*y*cc[4]/cc[3]}
			if d[0] > 0 && d[0] < 1 && d[1] > 0 && d[1] < 2 && d[2] > 0 && d[2] < 3 {
				D = d
			}
		}
		total := map[string]float64{}
		for k, c := range counts[n] {
			total[seqKey(grams[n][k][:n-1])] += float64(c)
		}
		alpha, gamma := map[string]float64{}, map[string]float64{}
		for h := range total {
			gamma[h] = 1
		}
		for k, c := range counts[n] {
			g := grams[n][k]
			h := seqKey(g[:n-1])
			d := D[2]
			if c < 3 {
				d = D[c-1]
			}
			a := (float64(c) - d) / total[h]
			alpha[h+"|"+fmt.Sprint(g[n-1])] = a
			gamma[h] -= a
		}
		r.alpha = append(r.alpha, alpha)
		r.gamma = append(r.gamma, gamma)
	}
	return r
}

// prob evaluates the recursion with full history hist (starting with <s>).
func (r *refModel) prob(hist []int, w int) float64 {
	p := 1 / float64(r.v)
	for n := 1; n <= r.order && n-1 <= len(hist); n++ {
		h := seqKey(hist[len(hist)-(n-1):])
		g, ok := r.gamma[n-1][h]
		if !ok {
			continue
		}
		p = r.alpha[n-1][h+"|"+fmt.Sprint(w)] + g*p
	}
	return p
}

func TestMatchesReference(t *testing.T) {
	const tol = 1e-5 // float32 storage
	lines := opticks(t)[:300]
	for _, order := range []int{1, 2, 3, 5, 8} {
		t.Run(fmt.Sprint("order", order), func(t *testing.T) {
			m := mustTrain(t, lines, Config{Alphabet: DefaultAlphabet, Order: order})
			ref := newRef(m, lines, order)
			rng := rand.New(rand.NewSource(int64(order)))
			for _, line := range opticks(t)[300:340] {
				toks := m.Encode(line)
				hist := []int{Boundary}
				for i := 0; i <= len(toks); i++ {
					w := Boundary
					if i < len(toks) {
						w = toks[i]
					}
					// Also probe a random token in the same context.
					for _, tok := range []int{w, rng.Intn(m.V())} {
						got := math.Exp(m.LogProb(hist[1:], tok))
						want := ref.prob(hist, tok)
						if math.Abs(got-want) > tol*math.Max(want, 1e-3) {
							t.Fatalf("P(%d | %v) = %.8f, reference %.8f", tok, hist, got, want)
						}
					}
					hist = append(hist, w)
				}
			}
		})
	}
}

// TestNormalized checks that P(· | context) sums to 1 for random contexts
// (seen and unseen, short and long), with and without pruning.
func TestNormalized(t *testing.T) {
	const tol = 1e-5
	lines := opticks(t)
	cases := []struct {
		name  string
		lines []string
		cfg   Config
	}{
		{"order 1", lines, Config{Alphabet: DefaultAlphabet, Order: 1}},
		{"order 4", lines, Config{Alphabet: DefaultAlphabet, Order: 4}},
		{"order 8", lines, Config{Alphabet: DefaultAlphabet, Order: 8}},
		{"order 8 pruned", lines, Config{Alphabet: DefaultAlphabet, Order: 8, PruneAbove: 3, MinCount: 2}},
		{"order 6 pruned hard", lines, Config{Alphabet: DefaultAlphabet, Order: 6, PruneAbove: 1, MinCount: 5}},
		{"max order", lines[:200], Config{Alphabet: DefaultAlphabet, Order: 12}},
		{"tiny corpus", []string{"ab ba"}, Config{Alphabet: DefaultAlphabet, Order: 5}},
		{"empty corpus", nil, Config{Alphabet: DefaultAlphabet, Order: 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := mustTrain(t, c.lines, c.cfg)
			rng := rand.New(rand.NewSource(3))
			for trial := 0; trial < 200; trial++ {
				var ctx []int
				if trial%2 == 0 && len(c.lines) > 0 {
					// A real context from the corpus.
					toks := m.Encode(c.lines[rng.Intn(len(c.lines))])
					if len(toks) > 0 {
						ctx = toks[:rng.Intn(len(toks))]
					}
				} else {
					ctx = make([]int, rng.Intn(12))
					for i := range ctx {
						ctx[i] = 1 + rng.Intn(m.V()-1)
					}
				}
				sum := 0.0
				for w := 0; w < m.V(); w++ {
					sum += math.Exp(m.LogProb(ctx, w))
				}
				if math.Abs(sum-1) > tol {
					t.Fatalf("context %q: probabilities sum to %.8f", m.Decode(ctx), sum)
				}
			}
		})
	}
}

// TestPerplexityFallsWithOrder trains on 90% of the corpus and evaluates on
// the rest.
func TestPerplexityFallsWithOrder(t *testing.T) {
	train, test := split(opticks(t))
	prev := math.Inf(1)
	for order := 1; order <= 7; order++ {
		m := mustTrain(t, train, Config{Alphabet: DefaultAlphabet, Order: order})
		ppl, n := m.Perplexity(test)
		t.Logf("order %d: perplexity %.3f over %d tokens, %d n-grams", order, ppl, n, sum(m.NumNGrams()))
		if order <= 5 && !(ppl < prev) {
			t.Errorf("order %d: perplexity %.3f, not below order %d's %.3f", order, ppl, order-1, prev)
		}
		if order > 5 && ppl > prev*1.02 {
			t.Errorf("order %d: perplexity %.3f, more than 2%% above order %d's %.3f", order, ppl, order-1, prev)
		}
		prev = math.Min(prev, ppl)
	}
	if prev > 5 {
		t.Errorf("best perplexity %.3f; a character model of English should reach below 5", prev)
	}
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

func TestPruning(t *testing.T) {
	train, test := split(opticks(t))
	full := mustTrain(t, train, Config{Alphabet: DefaultAlphabet, Order: 7})
	pruned := Train(train, 7)
	nf, np := sum(full.NumNGrams()), sum(pruned.NumNGrams())
	pf, _ := full.Perplexity(test)
	pp, _ := pruned.Perplexity(test)
	t.Logf("full: %d n-grams, ppl %.3f; pruned: %d n-grams, ppl %.3f", nf, pf, np, pp)
	if np >= nf*2/3 {
		t.Errorf("pruning kept %d of %d n-grams", np, nf)
	}
	if pp > pf*1.1 {
		t.Errorf("pruned perplexity %.3f more than 10%% above %.3f", pp, pf)
	}
	for n, c := range pruned.NumNGrams()[:3] {
		if c != full.NumNGrams()[n] {
			t.Errorf("order %d pruned (%d vs %d) although PruneAbove is 3", n+1, c, full.NumNGrams()[n])
		}
	}
}

// TestBeamLM checks that the beam.LM view scores a sentence exactly like
// LogProb, including the restart after <eos>.
func TestBeamLM(t *testing.T) {
	m := Train(opticks(t)[:500], 6)
	var lm beam.LM = m
	for _, line := range []string{"the rays of light", "colours", "x"} {
		t.Run(line, func(t *testing.T) {
			toks := m.Encode(line)
			st := lm.Start()
			for round := 0; round < 2; round++ { // second round after <eos>
				for i := 0; i <= len(toks); i++ {
					w := Boundary
					if i < len(toks) {
						w = toks[i]
					}
					var lp float32
					lp, st = lm.Score(st, w)
					if want := float32(m.LogProb(toks[:i], w)); lp != want {
						t.Fatalf("round %d token %d: Score %g, LogProb %g", round, i, lp, want)
					}
				}
			}
		})
	}
	if got, want := m.LogProb([]int{5, 6, Boundary, 3}, 4), m.LogProb([]int{3}, 4); got != want {
		t.Errorf("context with boundary: %g, want %g", got, want)
	}
}

// roundTrip writes m to a model file of the given storage type, reads it
// back and imports it; it returns the file, its header and the model.
func roundTrip(t *testing.T, m *Model, dtype modelfile.DType) (*modelfile.File, Header, *Model, int) {
	t.Helper()
	hdr, ts := m.Export("lm.")
	var buf bytes.Buffer
	if err := modelfile.Write(&buf, hdr, ts, dtype); err != nil {
		t.Fatal(err)
	}
	f, err := modelfile.ReadBytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var h2 Header
	if err := json.Unmarshal(f.Header, &h2); err != nil {
		t.Fatal(err)
	}
	m2, err := Import(h2, "lm.", f.Tensor)
	if err != nil {
		t.Fatal(err)
	}
	return f, h2, m2, buf.Len()
}

// samePerplexity checks that got scores opticks lines 900-949 as want does,
// within a relative tolerance.
func samePerplexity(t *testing.T, want, got *Model, tol float64) {
	t.Helper()
	test := opticks(t)[900:950]
	pw, _ := want.Perplexity(test)
	pg, _ := got.Perplexity(test)
	if math.Abs(pg/pw-1) > tol {
		t.Errorf("perplexity %g, want %g", pg, pw)
	}
}

func TestExportImport(t *testing.T) {
	m := Train(opticks(t)[:800], 7)
	f, h2, m2, size := roundTrip(t, m, modelfile.F32)
	if !reflect.DeepEqual(m.levels, m2.levels) {
		t.Fatal("imported tables differ")
	}
	samePerplexity(t, m, m2, 0)
	t.Logf("%d n-grams, file %d bytes", sum(m.NumNGrams()), size)

	corrupt := func(name string, edit func([]float32)) func(string, ...int) ([]float32, error) {
		return func(n string, shape ...int) ([]float32, error) {
			d, err := f.Tensor(n, shape...)
			if n == name && err == nil {
				d = append([]float32(nil), d...)
				edit(d)
			}
			return d, err
		}
	}
	bad := []struct {
		name   string
		hdr    Header
		prefix string
		lookup func(string, ...int) ([]float32, error)
	}{
		{"wrong prefix", h2, "x.", f.Tensor},
		{"wrong order", func() Header { h := h2; h.Order = 6; return h }(), "lm.", f.Tensor},
		{"count mismatch", func() Header {
			h := h2
			h.NGrams = append([]int(nil), h2.NGrams...)
			h.NGrams[3]++
			return h
		}(), "lm.", f.Tensor},
		{"smoothing", func() Header { h := h2; h.Smoothing = "witten-bell"; return h }(), "lm.", f.Tensor},
		{"alphabet dup", func() Header { h := h2; h.Alphabet = "aab"; return h }(), "lm.", f.Tensor},
		{"unknown layout", func() Header { h := h2; h.Layout = "hash"; return h }(), "lm.", f.Tensor},
		{"fractional count", h2, "lm.", corrupt("lm.ngram.3.children", func(d []float32) { d[0] += 0.5 })},
		{"counts too many", h2, "lm.", corrupt("lm.context.3.children", func(d []float32) { d[0]++ })},
		{"zero token", h2, "lm.", corrupt("lm.ngram.2.token", func(d []float32) { d[0] = 0 })},
		{"token out of range", h2, "lm.", corrupt("lm.ngram.1.token", func(d []float32) { d[0] = 31 })},
		{"tokens not increasing", h2, "lm.", corrupt("lm.ngram.1.token", func(d []float32) { d[1] = d[0] })},
		{"prob > 1", h2, "lm.", corrupt("lm.ngram.5.prob", func(d []float32) { d[2] = 1.5 })},
		{"NaN backoff", h2, "lm.", corrupt("lm.context.2.backoff", func(d []float32) { d[0] = float32(math.NaN()) })},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Import(c.hdr, c.prefix, c.lookup); err == nil {
				t.Fatal("Import succeeded, want error")
			}
		})
	}
}

// TestExportF16 checks that a float16 file, which rounds α and γ, scores
// text almost exactly as the model it came from.
func TestExportF16(t *testing.T) {
	m := Train(opticks(t)[:800], 7)
	_, _, m2, size := roundTrip(t, m, modelfile.F16)
	samePerplexity(t, m, m2, 1e-3)
	t.Logf("%d n-grams, float16 file %d bytes", sum(m.NumNGrams()), size)
}

// TestImportPacked reads testdata/legacy.heedlm, a model of order 4 trained
// on opticks lines 0-99 and exported in the packed-key layout used before
// LayoutTrie: it must score text exactly as the same model trained now.
func TestImportPacked(t *testing.T) {
	f, err := modelfile.ReadFile("testdata/legacy.heedlm")
	if err != nil {
		t.Fatal(err)
	}
	var h Header
	if err := json.Unmarshal(f.Header, &h); err != nil {
		t.Fatal(err)
	}
	if h.Layout != "" {
		t.Fatalf("fixture layout %q, want the packed layout", h.Layout)
	}
	old, err := Import(h, "lm.", f.Tensor)
	if err != nil {
		t.Fatal(err)
	}
	m := Train(opticks(t)[:100], 4)
	if !reflect.DeepEqual(old.levels, m.levels) {
		t.Error("tables differ")
	}
	samePerplexity(t, m, old, 0)
}

// TestScoreAll checks that ScoreAll gives what Score gives, token by
// token, after every prefix of some sentences.
func TestScoreAll(t *testing.T) {
	var _ beam.AllScorer = (*Model)(nil)
	m := Train(opticks(t)[:400], 6)
	V := m.V()
	logp, next := make([]float64, V), make([]beam.LMState, V)
	for _, line := range opticks(t)[500:520] {
		st := m.Start()
		for _, tok := range append(m.Encode(line), Boundary) {
			m.ScoreAll(st, logp, next)
			for w := range V {
				lp, nx := m.Score(st, w)
				if math.Abs(float64(lp)-logp[w]) > 1e-6 || nx != next[w] {
					t.Fatalf("token %d: ScoreAll gives %g, %d; Score gives %g, %d", w, logp[w], next[w], lp, nx)
				}
			}
			_, st = m.Score(st, tok)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
	}{
		{"empty alphabet", Config{Order: 3}},
		{"duplicate rune", Config{Alphabet: "abca", Order: 3}},
		{"order too high", Config{Alphabet: DefaultAlphabet, Order: 13}},
		{"negative order", Config{Alphabet: DefaultAlphabet, Order: -1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := TrainConfig([]string{"abc"}, c.cfg); err == nil {
				t.Fatal("want error")
			}
		})
	}
	if m := mustTrain(t, nil, Config{Alphabet: DefaultAlphabet}); m.Order() != DefaultOrder {
		t.Errorf("default order %d, want %d", m.Order(), DefaultOrder)
	}
	defer func() {
		if r := recover(); r == nil {
			t.Error("LogProb with token V did not panic")
		}
	}()
	m := Train(nil, 3)
	m.LogProb(nil, m.V())
}

func BenchmarkScore(b *testing.B) {
	m := Train(opticks(b), 7)
	toks := m.Encode(strings.Join(opticks(b)[:50], " "))
	b.ReportAllocs()
	b.ResetTimer()
	st := m.Start()
	for i := 0; i < b.N; i++ {
		_, st = m.Score(st, toks[i%len(toks)])
	}
}

func BenchmarkTrain(b *testing.B) {
	lines := opticks(b)
	b.ReportAllocs()
	b.SetBytes(150000)
	for i := 0; i < b.N; i++ {
		Train(lines, 7)
	}
}

// BenchmarkScoreTokens compares scoring every token after a state with V
// calls of Score and with one call of ScoreAll (as beam search does).
func BenchmarkScoreTokens(b *testing.B) {
	lines := opticks(b)
	m := Train(lines[:1000], 8)
	var states []beam.LMState
	for _, line := range lines[1000:1020] {
		st := m.Start()
		for _, tok := range m.Encode(line) {
			states = append(states, st)
			_, st = m.Score(st, tok)
		}
	}
	V := m.V()
	logp, next := make([]float64, V), make([]beam.LMState, V)
	b.Run("Score", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			st := states[i%len(states)]
			for w := range V {
				lp, nx := m.Score(st, w)
				logp[w], next[w] = float64(lp), nx
			}
		}
	})
	b.Run("ScoreAll", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			m.ScoreAll(states[i%len(states)], logp, next)
		}
	})
}

// TestImportFloat16: importing a float16 file from its stored bits builds
// the model that importing its float32 widening builds, to the last bit;
// a float32 file, which has no bits, imports as before.
func TestImportFloat16(t *testing.T) {
	m := Train(opticks(t)[:800], 7)
	for _, dtype := range []modelfile.DType{modelfile.F16, modelfile.F32} {
		hdr, ts := m.Export("lm.")
		var buf bytes.Buffer
		if err := modelfile.Write(&buf, hdr, ts, dtype); err != nil {
			t.Fatal(err)
		}
		l, err := modelfile.OpenBytes(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		var h Header
		if err := json.Unmarshal(l.Header, &h); err != nil {
			t.Fatal(err)
		}
		want, err := Import(h, "lm.", l.Tensor)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ImportFloat16(h, "lm.", l.Tensor, l.Float16)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.levels, want.levels) {
			t.Errorf("%v: the levels differ", dtype)
		}
	}
}
