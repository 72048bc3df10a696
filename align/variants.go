package align

import (
	"math"
	"slices"
	"strings"

	"github.com/heed-asr/heed/align/normalize"
	"github.com/heed-asr/heed/model"
)

// Choosing among spoken variants. A token such as "2019" can be said
// "twenty nineteen" or "two thousand nineteen" (normalize.Token.Variants);
// aligning the wrong reading drags its neighbours' boundaries by hundreds
// of milliseconds. ChooseReadings keeps, for every token with variants, the
// reading whose characters the CTC head hears best where the token lies.
//
// Every reading is scored the same way over the same frames: the window
// runs from the CTC segmentation's start of the spoken token before it to
// the end of the spoken token after it, widened by VariantMargin frames on
// each side, and the score is the log-likelihood of the best CTC path of
// the neighbours' words, the reading and the next neighbour's words through
// those frames (a Viterbi pass: blanks between words may also be the space,
// and score at least the segmentation's garbage floor, which lets the
// margins hold other speech). All readings are scored over the same frames,
// so a longer reading is not favoured or penalised for its length as such:
// it wins when the audio holds its extra characters, and loses when it must
// squeeze them into frames that hold none.

// VariantMargin is the number of encoder frames (30 ms each) a variant's
// scoring window reaches beyond the spans of the neighbouring tokens.
const VariantMargin = 10

// maxVariantWindow bounds a scoring window, in encoder frames (30 s), so
// that a token whose neighbours lie far apart costs no more than that.
const maxVariantWindow = 1000

// ChooseReadings picks, for every token of txt with variants, the reading
// that best explains logp, (T, V) CTC log-probabilities with blank 0, given
// seg, the CTC segmentation of Transcript(txt) over the same frames (see
// the comment above for the score; garbage is the least log score of a
// blank frame between words, as SegOptions.GarbageLogProb). Tokens are taken left to right; a
// neighbour's words are its reading chosen so far. It returns txt itself
// and false when no reading changed, else a copy whose tokens' Spoken are
// the chosen readings (Variants kept) and true. A nil seg changes nothing.
// Time is linear in the number of tokens with variants times the length of
// their windows; memory is one column of the trellis. It panics if
// len(logp) != T*V.
func ChooseReadings(logp []float32, T, V int, txt *normalize.Text, seg *Segmentation, garbage float64) (*normalize.Text, bool) {
	if len(logp) != T*V {
		panic("align: ChooseReadings: logp size mismatch")
	}
	if seg == nil || T == 0 {
		return txt, false
	}
	chars := Transcript(txt)
	ranges := wordRanges(chars)
	off := txt.Offsets()
	if len(ranges) != off[len(off)-1] || len(seg.Spans) != len(chars) {
		return txt, false
	}
	// Token spans in frames, from the segmentation of the default readings.
	tokSpan := make([]Span, len(txt.Tokens))
	for i := range txt.Tokens {
		if off[i] == off[i+1] {
			continue
		}
		tokSpan[i] = Span{seg.Spans[ranges[off[i]][0]].Start, seg.Spans[ranges[off[i+1]-1][1]-1].End}
	}
	cur := make([][]string, len(txt.Tokens))
	for i, tok := range txt.Tokens {
		cur[i] = tok.Spoken
	}
	changed := false
	sc := &ctcScorer{logp: logp, V: V, garbage: garbage}
	for i, tok := range txt.Tokens {
		if len(tok.Variants) < 2 {
			continue
		}
		p, q := i-1, i+1
		for p >= 0 && len(cur[p]) == 0 {
			p--
		}
		for q < len(txt.Tokens) && len(cur[q]) == 0 {
			q++
		}
		a, b := tokSpan[i].Start, tokSpan[i].End
		var before, after []string
		if p >= 0 {
			a, before = tokSpan[p].Start, cur[p]
		}
		if q < len(txt.Tokens) {
			b, after = tokSpan[q].End, cur[q]
		}
		a, b = max(0, a-VariantMargin), min(T, b+VariantMargin)
		if b-a > maxVariantWindow {
			mid := (tokSpan[i].Start + tokSpan[i].End) / 2
			a = max(0, mid-maxVariantWindow/2)
			b = min(T, a+maxVariantWindow)
		}
		best, bestScore := -1, math.Inf(-1)
		for k, v := range tok.Variants {
			words := slices.Concat(before, v, after)
			s := sc.score(a, b, words)
			if s > bestScore {
				best, bestScore = k, s
			}
		}
		if best > 0 {
			cur[i] = tok.Variants[best]
			changed = true
		}
	}
	if !changed {
		return txt, false
	}
	out := &normalize.Text{Tokens: slices.Clone(txt.Tokens)}
	for i := range out.Tokens {
		out.Tokens[i].Spoken = cur[i]
	}
	return out, true
}

// ctcScorer scores word sequences against CTC log-probabilities (T, V)
// with blank 0; its buffers are reused from call to call.
type ctcScorer struct {
	logp       []float32
	V          int
	garbage    float64 // least log score of a blank frame between words
	labels     []int
	wordStart  []bool // per label: the first of its word
	prev, next []float64
}

// score returns the log score of the best CTC path of words through frames
// [a, b): labels separated by optional blanks (required between repeated
// labels), a blank between words also standing for the space and scoring
// at least s.garbage, as do the blanks before the first word and after
// the last. It is -Inf when the words cannot fit the frames or hold a
// character outside the vocabulary.
func (s *ctcScorer) score(a, b int, words []string) float64 {
	ninf := math.Inf(-1)
	s.labels, s.wordStart = s.labels[:0], s.wordStart[:0]
	for _, w := range words {
		ids, err := model.Encode(w)
		if err != nil || len(ids) == 0 {
			return ninf
		}
		for j, id := range ids {
			if id == spaceID || id == model.EOS {
				return ninf
			}
			s.labels = append(s.labels, id)
			s.wordStart = append(s.wordStart, j == 0)
		}
	}
	K := len(s.labels)
	if K == 0 || b-a < K {
		return ninf
	}
	nS := 2*K + 1
	if cap(s.prev) < nS {
		s.prev, s.next = make([]float64, nS), make([]float64, nS)
	}
	prev, next := s.prev[:nS], s.next[:nS]
	// boundary reports whether blank state 2k lies between words (or
	// before the first or after the last).
	boundary := func(k int) bool { return k == 0 || k == K || s.wordStart[k] }
	emit := func(f []float32, st int) float64 {
		if st%2 == 1 {
			return float64(f[s.labels[st/2]])
		}
		v := float64(f[model.EOS])
		k := st / 2
		if !boundary(k) {
			return v
		}
		if k > 0 && k < K {
			v = math.Max(v, float64(f[spaceID]))
		}
		return math.Max(v, s.garbage)
	}
	for st := range prev {
		prev[st] = ninf
	}
	f := s.logp[a*s.V : (a+1)*s.V]
	prev[0], prev[1] = emit(f, 0), emit(f, 1)
	for t := a + 1; t < b; t++ {
		f := s.logp[t*s.V : (t+1)*s.V]
		for st := 0; st < nS; st++ {
			v := prev[st]
			if st >= 1 && prev[st-1] > v {
				v = prev[st-1]
			}
			if st%2 == 1 && st >= 2 && s.labels[st/2] != s.labels[st/2-1] && prev[st-2] > v {
				v = prev[st-2]
			}
			if math.IsInf(v, -1) {
				next[st] = ninf
				continue
			}
			next[st] = v + emit(f, st)
		}
		prev, next = next, prev
	}
	return math.Max(prev[nS-1], prev[nS-2])
}

// spokenField returns what Word.Spoken shows for tok: its reading, joined
// by spaces, when the token has variants or its reading differs from its
// written letters ("$5", "Dr."); "" otherwise.
func spokenField(tok normalize.Token) string {
	if len(tok.Spoken) == 0 {
		return ""
	}
	reading := strings.Join(tok.Spoken, " ")
	if len(tok.Variants) > 0 {
		return reading
	}
	written := strings.FieldsFunc(strings.ToLower(tok.Orig), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r == '\'')
	})
	j := 0
	for _, w := range written {
		if w = strings.Trim(w, "'"); w != "" {
			written[j] = w
			j++
		}
	}
	if strings.Join(written[:j], " ") == strings.TrimLeft(reading, "'") {
		return ""
	}
	return reading
}
