package charlm

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/heed-asr/heed/model/modelfile"
)

// Smoothing names the estimator in Header.Smoothing.
const Smoothing = "interpolated-modified-kneser-ney"

// LayoutTrie names the tensor layout that Export writes (Header.Layout).
// Files from before it (Layout "") stored packed keys and are still read.
const LayoutTrie = "trie"

// Header describes an exported model; it is JSON-encodable for a model
// file header. The tensors it refers to are listed in Export.
type Header struct {
	Alphabet  string       `json:"alphabet"`         // runes of tokens 1..V−1
	Order     int          `json:"order"`            // N
	Smoothing string       `json:"smoothing"`        // always Smoothing
	Layout    string       `json:"layout,omitempty"` // LayoutTrie, or "" for packed keys
	Discounts [][3]float64 `json:"discounts"`        // per order 1..N, informational
	NGrams    []int        `json:"ngrams"`           // stored n-grams per order 1..N
	Contexts  []int        `json:"contexts"`         // stored contexts per order 1..N
}

// Export returns the model as a header and tensors laid out as a trie.
// Let C_n be the stored contexts of order n (n−1 tokens; C_1 is the empty
// context) and G_n the stored n-grams, each sorted by packed key, so that
// the entries sharing a parent (the sequence without its newest token) are
// adjacent and in the parent's order. For each order n = 1..N the tensors,
// named prefix + one of, are:
//
//	context.<n>.children (C_{n−1})  contexts in C_n under each of C_{n−1} (n ≥ 2)
//	context.<n>.token    (C_n)      newest token + 1 of each context (n ≥ 2)
//	context.<n>.backoff  (C_n)      γ
//	ngram.<n>.children   (C_n)      n-grams in G_n under each context
//	ngram.<n>.token      (G_n)      newest token + 1 of each n-gram
//	ngram.<n>.prob       (G_n)      α
//
// Counts and tokens are integers of at most V, exact in float16; α and γ
// are rounded to half precision in a float16 file (relative error at most
// 2⁻¹¹, far below what changes a decision in beam search).
func (m *Model) Export(prefix string) (Header, []modelfile.Tensor) {
	h := Header{
		Alphabet: string(m.alphabet), Order: m.order, Smoothing: Smoothing, Layout: LayoutTrie,
		Discounts: append([][3]float64(nil), m.discounts...),
		NGrams:    m.NumNGrams(), Contexts: m.NumContexts(),
	}
	var ts []modelfile.Tensor
	add := func(name string, data []float32) {
		ts = append(ts, modelfile.Tensor{Name: prefix + name, Shape: []int{len(data)}, Data: data})
	}
	for n := 1; n <= m.order; n++ {
		lv := &m.levels[n-1]
		if n >= 2 {
			add(fmt.Sprintf("context.%d.children", n), m.children(m.levels[n-2].ctx, lv.ctx))
			add(fmt.Sprintf("context.%d.token", n), m.newest(lv.ctx))
		}
		add(fmt.Sprintf("context.%d.backoff", n), slices.Clone(lv.gamma))
		counts := make([]float32, len(lv.ctx))
		for i := range counts {
			counts[i] = float32(lv.off[i+1] - lv.off[i])
		}
		add(fmt.Sprintf("ngram.%d.children", n), counts)
		toks := make([]float32, len(lv.tok))
		for i, t := range lv.tok {
			toks[i] = float32(t)
		}
		add(fmt.Sprintf("ngram.%d.token", n), toks)
		add(fmt.Sprintf("ngram.%d.prob", n), slices.Clone(lv.alpha))
	}
	return h, ts
}

// children counts, for each of the sorted parents, the sorted keys whose
// parent (key without its newest token) it is.
func (m *Model) children(parents, keys []uint64) []float32 {
	out := make([]float32, len(parents))
	i := 0
	for _, k := range keys {
		for parents[i] != k>>m.bits {
			i++ // both sorted; every parent is stored (closeContexts)
		}
		out[i]++
	}
	return out
}

// newest returns the newest token slot (token + 1) of each key.
func (m *Model) newest(keys []uint64) []float32 {
	out := make([]float32, len(keys))
	for i, k := range keys {
		out[i] = float32(k & m.slot)
	}
	return out
}

// keyLen returns the number of tokens packed in key.
func (m *Model) keyLen(key uint64) int {
	return (bits.Len64(key) + int(m.bits) - 1) / int(m.bits)
}

// Import rebuilds a model from a header and its tensors, fetched by name and
// expected shape through tensor (for example (*modelfile.File).Tensor).
// prefix must match the one given to Export. Every count, token and value
// is validated; errors wrap the lookup's error where there is one.
func Import(h Header, prefix string, tensor func(name string, shape ...int) ([]float32, error)) (*Model, error) {
	return ImportFloat16(h, prefix, tensor, nil)
}

// ImportFloat16 is Import from a model file whose tensors may be stored as
// binary16: float16 returns a tensor's stored bits (modelfile.Lazy.Float16;
// nil for one stored as float32, which tensor then reads). The trie layout
// is read from those bits where they lie, so that only the model's own
// arrays are allocated, not a float32 copy of every tensor; the model is
// the one Import builds. float16 may be nil.
func ImportFloat16(h Header, prefix string, tensor func(name string, shape ...int) ([]float32, error), float16 func(name string) []uint16) (*Model, error) {
	if h.Smoothing != Smoothing {
		return nil, fmt.Errorf("charlm: import: smoothing %q, want %q", h.Smoothing, Smoothing)
	}
	m, err := newModel(h.Alphabet, h.Order)
	if err != nil {
		return nil, fmt.Errorf("charlm: import: %w", err)
	}
	if len(h.NGrams) != h.Order || len(h.Contexts) != h.Order {
		return nil, fmt.Errorf("charlm: import: header lists %d/%d orders, want %d", len(h.NGrams), len(h.Contexts), h.Order)
	}
	for n := 0; n < h.Order; n++ {
		if h.NGrams[n] < 0 || h.Contexts[n] < 0 || (n == 0 && h.Contexts[0] > 1) {
			return nil, fmt.Errorf("charlm: import: bad counts for order %d", n+1)
		}
	}
	m.discounts = append([][3]float64(nil), h.Discounts...)
	m.ngrams = append([]int(nil), h.NGrams...)
	m.contexts = append([]int(nil), h.Contexts...)
	switch h.Layout {
	case LayoutTrie:
		err = m.importTrie(h, prefix, tensor, float16)
	case "":
		err = m.importPacked(h, prefix, tensor)
	default:
		err = fmt.Errorf("charlm: import: unknown layout %q", h.Layout)
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

// importTrie reads the layout that Export writes straight into the
// sorted levels: each order is one sequential pass. A tensor is read from
// its binary16 bits when float16 (which may be nil) gives them.
func (m *Model) importTrie(h Header, prefix string, tensor func(string, ...int) ([]float32, error), float16 func(string) []uint16) error {
	var wide *[1 << 16]float32 // binary16 bits to float32, when float16 is given
	if float16 != nil {
		wide = halfValues()
	}
	get := func(name string, n int) (column, error) {
		if float16 != nil {
			if b := float16(prefix + name); b != nil && len(b) == n {
				return column{h: b, wide: wide}, nil
			}
		}
		d, err := tensor(prefix+name, n)
		if err != nil {
			return column{}, fmt.Errorf("charlm: import: %w", err)
		}
		return column{f: d}, nil
	}
	V := float32(m.V())
	m.levels = make([]level, m.order)
	for n := 1; n <= m.order; n++ {
		lv := &m.levels[n-1]
		if n == 1 {
			lv.ctx = make([]uint64, h.Contexts[0]) // the empty context, key 0
		} else {
			parents := m.levels[n-2].ctx
			counts, err := get(fmt.Sprintf("context.%d.children", n), len(parents))
			if err != nil {
				return err
			}
			toks, err := get(fmt.Sprintf("context.%d.token", n), h.Contexts[n-1])
			if err != nil {
				return err
			}
			if lv.ctx, err = m.expand(fmt.Sprintf("context.%d", n), parents, counts, toks); err != nil {
				return err
			}
		}
		gammas, err := get(fmt.Sprintf("context.%d.backoff", n), len(lv.ctx))
		if err != nil {
			return err
		}
		if lv.gamma, err = probs(fmt.Sprintf("context.%d.backoff", n), gammas); err != nil {
			return err
		}
		counts, err := get(fmt.Sprintf("ngram.%d.children", n), len(lv.ctx))
		if err != nil {
			return err
		}
		toks, err := get(fmt.Sprintf("ngram.%d.token", n), h.NGrams[n-1])
		if err != nil {
			return err
		}
		nt := toks.len()
		lv.off = make([]uint32, len(lv.ctx)+1)
		lv.tok = make([]uint8, nt)
		j := 0
		for i := range counts.len() {
			c := counts.at(i)
			if !(c >= 0 && c <= V) || c != float32(math.Trunc(float64(c))) || j+int(c) > nt {
				return fmt.Errorf("charlm: import ngram.%d: bad child count %g at %d", n, c, i)
			}
			last := float32(0)
			for range int(c) {
				t := toks.at(j)
				if !(t > last && t <= V) || t != float32(math.Trunc(float64(t))) {
					return fmt.Errorf("charlm: import ngram.%d: bad token %g at %d", n, t, j)
				}
				lv.tok[j], last = uint8(t), t
				j++
			}
			lv.off[i+1] = uint32(j)
		}
		if j != nt {
			return fmt.Errorf("charlm: import ngram.%d: child counts add up to %d, want %d", n, j, nt)
		}
		alphas, err := get(fmt.Sprintf("ngram.%d.prob", n), nt)
		if err != nil {
			return err
		}
		if lv.alpha, err = probs(fmt.Sprintf("ngram.%d.prob", n), alphas); err != nil {
			return err
		}
	}
	return nil
}

// column is one tensor being imported: its float32 values, or its binary16
// bits as stored with the table that widens them.
type column struct {
	f    []float32
	h    []uint16
	wide *[1 << 16]float32
}

func (c column) len() int {
	if c.h != nil {
		return len(c.h)
	}
	return len(c.f)
}

// at returns element i as float32.
func (c column) at(i int) float32 {
	if c.h != nil {
		return c.wide[c.h[i]]
	}
	return c.f[i]
}

// halfValues is the float32 value of every binary16 bit pattern.
var halfValues = sync.OnceValue(func() *[1 << 16]float32 {
	var t [1 << 16]float32
	for i := range t {
		t[i] = modelfile.F16ToF32(uint16(i))
	}
	return &t
})

// probs returns the values of vals as a new slice, checking that each is in
// [0, 1].
func probs(name string, vals column) ([]float32, error) {
	out := make([]float32, vals.len())
	for i := range out {
		v := vals.at(i)
		if !(v >= 0 && v <= 1) {
			return nil, fmt.Errorf("charlm: import %s: entry %d: value %g outside [0, 1]", name, i, v)
		}
		out[i] = v
	}
	return out, nil
}

// expand returns the keys parent<<bits | token for each parent and its
// counts[i] tokens, checking that counts are whole, add up to len(toks),
// and that each parent's tokens are valid and strictly increasing.
func (m *Model) expand(name string, parents []uint64, counts, toks column) ([]uint64, error) {
	V := float32(m.V())
	nt := toks.len()
	keys := make([]uint64, 0, nt)
	for i, p := range parents {
		c := counts.at(i)
		if !(c >= 0 && c <= V) || c != float32(math.Trunc(float64(c))) || len(keys)+int(c) > nt {
			return nil, fmt.Errorf("charlm: import %s: bad child count %g at %d", name, c, i)
		}
		last := float32(0)
		for range int(c) {
			t := toks.at(len(keys))
			if !(t > last && t <= V) || t != float32(math.Trunc(float64(t))) {
				return nil, fmt.Errorf("charlm: import %s: bad token %g at %d", name, t, len(keys))
			}
			last = t
			keys = append(keys, p<<m.bits|uint64(t))
		}
	}
	if len(keys) != nt {
		return nil, fmt.Errorf("charlm: import %s: child counts add up to %d, want %d", name, len(keys), nt)
	}
	return keys, nil
}

// keyChunkBits is the number of key bits per float32 element in the packed
// layout: integers below 2^24 are exact in float32.
const keyChunkBits = 24

// keyChunks returns how many float32 elements hold a key of n tokens in the
// packed layout.
func (m *Model) keyChunks(n int) int {
	return max(1, (n*int(m.bits)+keyChunkBits-1)/keyChunkBits)
}

// importPacked reads the layout of files written before LayoutTrie: for
// each order n, ngram.<n>.key (G_n, k(n)) and context.<n>.key (C_n,
// k(n−1)) hold every key split into 24-bit pieces, least significant
// first, beside ngram.<n>.prob and context.<n>.backoff.
func (m *Model) importPacked(h Header, prefix string, tensor func(string, ...int) ([]float32, error)) error {
	m.prob = make(map[uint64]float32)
	m.backoff = make(map[uint64]float32)
	for n := 1; n <= m.order; n++ {
		if err := m.importPart(tensor, fmt.Sprintf("%sngram.%d", prefix, n), ".prob", h.NGrams[n-1], n, m.prob); err != nil {
			return err
		}
		if err := m.importPart(tensor, fmt.Sprintf("%scontext.%d", prefix, n), ".backoff", h.Contexts[n-1], n-1, m.backoff); err != nil {
			return err
		}
	}
	for h := range m.backoff {
		if n := m.keyLen(h); n >= 1 {
			if _, ok := m.backoff[h&lowMask(uint(n-1)*m.bits)]; !ok {
				return fmt.Errorf("charlm: import: context of %d tokens without its shorter suffix", n)
			}
		}
	}
	m.closeContexts() // older files are not prefix-closed
	for k := range m.prob {
		if _, ok := m.backoff[k>>m.bits]; !ok {
			return fmt.Errorf("charlm: import: n-gram without its context")
		}
	}
	m.freeze()
	return nil
}

// importPart loads one key tensor and its value tensor of count entries,
// each key holding exactly tokens tokens, into dst.
func (m *Model) importPart(tensor func(string, ...int) ([]float32, error), base, valSuffix string, count, tokens int, dst map[uint64]float32) error {
	if count < 0 {
		return fmt.Errorf("charlm: import %s: negative count %d", base, count)
	}
	chunks := m.keyChunks(tokens)
	keys, err := tensor(base+".key", count, chunks)
	if err != nil {
		return fmt.Errorf("charlm: import: %w", err)
	}
	vals, err := tensor(base+valSuffix, count)
	if err != nil {
		return fmt.Errorf("charlm: import: %w", err)
	}
	if len(keys) != count*chunks || len(vals) != count {
		return fmt.Errorf("charlm: import %s: %d keys and %d values, want %d", base, len(keys), len(vals), count)
	}
	V := uint64(m.V())
	for i := 0; i < count; i++ {
		var key uint64
		for c := 0; c < chunks; c++ {
			f := keys[i*chunks+c]
			if f < 0 || f >= 1<<keyChunkBits || f != float32(math.Trunc(float64(f))) {
				return fmt.Errorf("charlm: import %s: entry %d has a bad key piece %g", base, i, f)
			}
			key |= uint64(f) << (uint(c) * keyChunkBits)
		}
		// Exactly tokens slots, each holding a token+1 in [1, V].
		for s := 0; s < tokens; s++ {
			if v := key >> (uint(s) * m.bits) & m.slot; v == 0 || v > V {
				return fmt.Errorf("charlm: import %s: entry %d: bad token slot", base, i)
			}
		}
		if key>>(uint(tokens)*m.bits) != 0 && uint(tokens)*m.bits < 64 {
			return fmt.Errorf("charlm: import %s: entry %d: key longer than %d tokens", base, i, tokens)
		}
		v := vals[i]
		if !(v >= 0 && v <= 1) {
			return fmt.Errorf("charlm: import %s: entry %d: value %g outside [0, 1]", base, i, v)
		}
		if _, dup := dst[key]; dup {
			return fmt.Errorf("charlm: import %s: duplicate entry %d", base, i)
		}
		dst[key] = v
	}
	return nil
}
