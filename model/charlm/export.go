package charlm

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/heed-asr/heed/model/modelfile"
)

// Smoothing names the estimator in Header.Smoothing.
const Smoothing = "interpolated-modified-kneser-ney"

// Header describes an exported model; it is JSON-encodable for a model
// file header. The tensors it refers to are listed in Export.
type Header struct {
	Alphabet  string       `json:"alphabet"`  // runes of tokens 1..V−1
	Order     int          `json:"order"`     // N
	Smoothing string       `json:"smoothing"` // always Smoothing
	Discounts [][3]float64 `json:"discounts"` // per order 1..N, informational
	NGrams    []int        `json:"ngrams"`    // stored n-grams per order 1..N
	Contexts  []int        `json:"contexts"`  // stored contexts per order 1..N
}

// keyChunkBits is the number of key bits per float32 element: integers
// below 2^24 are exact in float32.
const keyChunkBits = 24

// keyChunks returns how many float32 elements hold a key of n tokens.
func (m *Model) keyChunks(n int) int {
	c := (n*int(m.bits) + keyChunkBits - 1) / keyChunkBits
	if c < 1 {
		c = 1
	}
	return c
}

// Export returns the model as a header and tensors named prefix + one of,
// for each order n = 1..N:
//
//	ngram.<n>.key      (NGrams[n−1], k(n))    packed n-gram keys
//	ngram.<n>.prob     (NGrams[n−1])          α
//	context.<n>.key    (Contexts[n−1], k(n−1)) packed context keys
//	context.<n>.backoff (Contexts[n−1])        γ
//
// where k(j) = max(1, ⌈j·⌈log2(V+1)⌉/24⌉) and each key is split into
// 24-bit pieces, least significant first, stored exactly as float32
// integers. Keys are in increasing order. Store the tensors as
// modelfile.F32: F16 would corrupt keys and probabilities.
func (m *Model) Export(prefix string) (Header, []modelfile.Tensor) {
	h := Header{
		Alphabet: string(m.alphabet), Order: m.order, Smoothing: Smoothing,
		Discounts: append([][3]float64(nil), m.discounts...),
		NGrams:    m.NumNGrams(), Contexts: m.NumContexts(),
	}
	byOrder := func(mp map[uint64]float32, ctx bool) [][]uint64 {
		out := make([][]uint64, m.order)
		for _, k := range sortedKeys(mp) {
			n := m.keyLen(k)
			if ctx {
				n++ // a context of j tokens belongs to order j+1
			}
			out[n-1] = append(out[n-1], k)
		}
		return out
	}
	probs, ctxs := byOrder(m.prob, false), byOrder(m.backoff, true)
	var ts []modelfile.Tensor
	for n := 1; n <= m.order; n++ {
		ts = append(ts, m.keyTensor(fmt.Sprintf("%sngram.%d.key", prefix, n), probs[n-1], m.keyChunks(n)))
		ts = append(ts, valueTensor(fmt.Sprintf("%sngram.%d.prob", prefix, n), probs[n-1], m.prob))
		ts = append(ts, m.keyTensor(fmt.Sprintf("%scontext.%d.key", prefix, n), ctxs[n-1], m.keyChunks(n-1)))
		ts = append(ts, valueTensor(fmt.Sprintf("%scontext.%d.backoff", prefix, n), ctxs[n-1], m.backoff))
	}
	return h, ts
}

// keyLen returns the number of tokens packed in key.
func (m *Model) keyLen(key uint64) int {
	return (bits.Len64(key) + int(m.bits) - 1) / int(m.bits)
}

func (m *Model) keyTensor(name string, keys []uint64, chunks int) modelfile.Tensor {
	data := make([]float32, 0, len(keys)*chunks)
	for _, k := range keys {
		for c := 0; c < chunks; c++ {
			data = append(data, float32(k>>(uint(c)*keyChunkBits)&(1<<keyChunkBits-1)))
		}
	}
	return modelfile.Tensor{Name: name, Shape: []int{len(keys), chunks}, Data: data}
}

func valueTensor(name string, keys []uint64, mp map[uint64]float32) modelfile.Tensor {
	data := make([]float32, len(keys))
	for i, k := range keys {
		data[i] = mp[k]
	}
	return modelfile.Tensor{Name: name, Shape: []int{len(keys)}, Data: data}
}

// Import rebuilds a model from a header and its tensors, fetched by name and
// expected shape through tensor (for example (*modelfile.File).Tensor).
// prefix must match the one given to Export. Every key and value is
// validated; errors wrap the lookup's error where there is one.
func Import(h Header, prefix string, tensor func(name string, shape ...int) ([]float32, error)) (*Model, error) {
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
	m.discounts = append([][3]float64(nil), h.Discounts...)
	m.ngrams = append([]int(nil), h.NGrams...)
	m.contexts = append([]int(nil), h.Contexts...)
	m.prob = make(map[uint64]float32)
	m.backoff = make(map[uint64]float32)
	for n := 1; n <= m.order; n++ {
		if err := m.importPart(tensor, fmt.Sprintf("%sngram.%d", prefix, n), ".prob", h.NGrams[n-1], n, m.prob); err != nil {
			return nil, err
		}
		if err := m.importPart(tensor, fmt.Sprintf("%scontext.%d", prefix, n), ".backoff", h.Contexts[n-1], n-1, m.backoff); err != nil {
			return nil, err
		}
	}
	for h := range m.backoff {
		if n := m.keyLen(h); n >= 1 {
			if _, ok := m.backoff[h&lowMask(uint(n-1)*m.bits)]; !ok {
				return nil, fmt.Errorf("charlm: import: context of %d tokens without its shorter suffix", n)
			}
		}
	}
	return m, nil
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
