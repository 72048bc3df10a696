package align

import (
	"math"

	"github.com/heed-asr/heed/align/normalize"
	"github.com/heed-asr/heed/model"
)

// CTC segmentation (after Kürzinger et al. 2020, "CTC-Segmentation of Large
// Corpora for German End-to-end Speech Recognition"): the Viterbi path of
// the known transcript through the CTC head's frame posteriors of the whole
// recording. It does not depend on what the model would recognise: only on
// how likely the known characters are at each frame, so a voice the model
// transcribes badly is still segmented where its characters are most
// likely.
//
// The trellis is the usual CTC one over the extended labels [∅, c1, ∅, c2,
// ..., cK, ∅] of the transcript's characters without spaces. A blank
// between two words also stands for the space the CTC head may emit there.
// Every blank between words (and before the first and after the last)
// scores at least SegOptions.GarbageLogProb per frame, so that
// music, noise or speech not in the transcript can wait in a blank; and a
// whole word may be left out at SkipLogProb per character (text not in the
// audio). The trellis is computed in a band of Band extended labels that
// follows the best state (a beam in label space), so time is O(T·Band) and
// the back-pointers take Band/4 bytes per frame (2 bits a state: 31 MB for
// one hour at 30 ms frames with the default band).

// SegOptions configures CTCSegment.
type SegOptions struct {
	// Band is the number of extended labels (2 per character) kept per
	// frame; the band runs from 3/4 of it behind the best state to 1/4
	// ahead. 0 means the whole trellis.
	Band int
	// GarbageLogProb is the least log score of a blank frame (natural log).
	GarbageLogProb float64
	// SkipLogProb is the log score per character of leaving a word out (0
	// or positive: words are never left out).
	SkipLogProb float64
	// InWord is added to the score of every frame inside a word (a
	// character's or a blank between two characters of a word); a small
	// negative value keeps a word from stretching over music or noise in
	// which the CTC head hears a few of its letters.
	InWord float64
	// Progress is added to the score each time the path enters a
	// character (and per character of a word left out). Every complete
	// path gets it once per character, so it does not change which one is
	// best; but it makes a path that has spoken more of the text comparable
	// with one that waited, which keeps the band on the path that advances
	// where the posteriors of the text are weak (a voice the model
	// recognises badly).
	Progress float64
	// InSentence is added to the score of every frame of a pause between
	// two words of one sentence (see CTCSegment's ends): 0 or negative. A
	// pause of seconds inside a sentence is rare in read speech and
	// common between sentences, so a small penalty per frame keeps the
	// path from spending a sentence's pause inside the wrong sentence.
	InSentence float64
}

// DefaultSegOptions returns the options heed uses: a band of 1,536
// extended labels (768 characters, about a minute of speech), a garbage
// floor of log(1e-4) per frame, words left out at log(1e-4) per character,
// -0.7 per frame inside a word, -0.1 per frame of a pause inside a
// sentence (3.3 a second; chosen on the long real recordings of the
// README's Long audio, where -0.2 and -0.3 moved more sentences of
// children who pause while reading) and a progress bonus of 5 per character
// (chosen on glued espeak-ng dev recordings with music, noise and pitch
// shifts: bench/longreal.py; InWord went from -0.5 to -0.7 with the model
// of update 128,000, whose last words of a sentence otherwise ran on into
// the music after it: see model/english/HISTORY.md, the tenth cycle).
func DefaultSegOptions() SegOptions {
	return SegOptions{Band: 1536, GarbageLogProb: math.Log(1e-4), SkipLogProb: math.Log(1e-4), InWord: -0.7, Progress: 5, InSentence: -0.1}
}

// Segmentation is the CTC path of a transcript: a span of encoder frames
// per character (spaces included) and, per space-separated word, whether
// the path placed it.
type Segmentation struct {
	Spans  []Span // per byte of the transcript, encoder frames [Start, End)
	Placed []bool // per word
	// Conf is per word the mean over its characters of the highest
	// posterior the character has at the frames the path gives it (0 for
	// words left out).
	Conf []float64
	// LogProb is the path's log score per frame (the mean log posterior of
	// the path's states).
	LogProb float64
}

// frameSeconds is the time (seconds) of encoder frame f: frames of frameSec
// seconds, plus offset, never before 0.
func frameSeconds(f int, frameSec, offset float64) float64 {
	return math.Max(0, float64(f)*frameSec+offset)
}

// wordSeconds returns the start and end (seconds, see frameSeconds) that
// seg gives the word of its transcript in byte range r (from wordRanges).
func (s *Segmentation) wordSeconds(r [2]int, frameSec, offset float64) (start, end float64) {
	return frameSeconds(s.Spans[r[0]].Start, frameSec, offset), frameSeconds(s.Spans[r[1]-1].End, frameSec, offset)
}

// segWords returns the byte ranges of the words of chars, and panics
// (naming fn) unless spoken and seg hold one entry per word.
func segWords(spoken []Word, chars string, seg *Segmentation, fn string) [][2]int {
	ranges := wordRanges(chars)
	if len(ranges) != len(spoken) || len(seg.Placed) != len(spoken) {
		panic("align: " + fn + " size mismatch")
	}
	return ranges
}

// sentenceEnds returns per spoken word of txt whether a sentence ends
// after it: the last word of a token that Ends.
func sentenceEnds(txt *normalize.Text) []bool {
	var ends []bool
	for _, tok := range txt.Tokens {
		for i := range tok.Spoken {
			ends = append(ends, tok.Ends && i == len(tok.Spoken)-1)
		}
	}
	return ends
}

// segState kinds: what a state's emission score is made of.
const (
	labelState  = iota // its label's log-probability, plus InWord
	blankInWord        // the blank's, plus InWord
	blankEdge          // the blank's, at least GarbageLogProb (before the first word, after the last)
	blankSpace         // the blank's or the space's, at least GarbageLogProb (between sentences)
	blankPause         // blankSpace's score plus InSentence (between two words of a sentence)
)

// segCodes: how a state was entered, 2 bits.
const (
	segStay = iota
	segFrom1
	segFrom2
	segSkipWord
)

// CTCSegment finds the best CTC path of chars (a transcript as from
// Transcript: words of a..z and apostrophes separated by single spaces)
// through logp, (T, V) CTC log-probabilities with blank 0. A character's
// span runs from the first frame the path emits it to the first frame of
// the next character of its word (its last character: to its own last
// frame); a space gets the frames between its words. Characters of words
// the path left out, or did not reach because the band lost them, get the
// empty span at the end of the previous placed character and Placed false.
// ends, when not nil, tells per word whether a sentence ends after it
// (sentenceEnds): the pauses between the other words cost
// opts.InSentence a frame. It returns nil when chars has no word or T is
// 0. It panics if len(logp) != T*V, ends has not one entry per word, or
// chars holds a character outside the vocabulary.
func CTCSegment(logp []float32, T, V int, chars string, ends []bool, opts SegOptions) *Segmentation {
	if len(logp) != T*V {
		panic("align: CTCSegment: logp size mismatch")
	}
	ranges := wordRanges(chars)
	if ends != nil && len(ends) != len(ranges) {
		panic("align: CTCSegment: ends size mismatch")
	}
	if len(ranges) == 0 || T == 0 {
		return nil
	}
	// Labels without spaces; the byte of chars of each; the word of each
	// label and the first label of each word.
	var labels, at, wordOf []int
	first := make([]int, len(ranges)+1)
	for w, r := range ranges {
		first[w] = len(labels)
		for i := r[0]; i < r[1]; i++ {
			ids, err := model.Encode(chars[i : i+1])
			if err != nil {
				panic("align: CTCSegment: " + err.Error())
			}
			labels, at, wordOf = append(labels, ids[0]), append(at, i), append(wordOf, w)
		}
	}
	K := len(labels)
	first[len(ranges)] = K
	nS := 2*K + 1
	band := opts.Band
	if band <= 0 || band > nS {
		band = nS
	}
	// wordAt[k] is the word starting at label k, or -1; a blank state 2k
	// with wordAt[k] >= 0 (or k == K) is a word boundary.
	wordAt := make([]int, K+1)
	for k := range wordAt {
		wordAt[k] = -1
	}
	for w := range ranges {
		wordAt[first[w]] = w
	}
	wordAt[K] = len(ranges)
	skip := opts.SkipLogProb < 0
	ninf := math.Inf(-1)
	// What each extended label s does, worked out once (the trellis visits
	// every state at up to T frames).
	type segState struct {
		emits    int32   // vocabulary entry it emits: its label, or blank
		skipFrom int32   // state a skipped word is entered from, or -1
		enter    float64 // earned entering it: opts.Progress for a label
		from2    bool    // may be entered from s-2 (a label unlike the one before)
		kind     uint8   // labelState, blankInWord, blankEdge or blankSpace
	}
	states := make([]segState, nS)
	skipCost := make([]float64, nS) // score of skipping the word before a state with skipFrom >= 0
	for s := range states {
		st := &states[s]
		st.skipFrom = -1
		k := s / 2
		if s%2 == 1 {
			st.emits, st.enter, st.kind = int32(labels[k]), opts.Progress, labelState
			st.from2 = s >= 2 && labels[k] != labels[k-1]
			continue
		}
		st.emits = model.EOS
		switch {
		case k > 0 && k < K && wordAt[k] >= 0 && (ends == nil || ends[wordAt[k]-1]):
			st.kind = blankSpace
		case k > 0 && k < K && wordAt[k] >= 0:
			st.kind = blankPause
		case wordAt[k] >= 0:
			st.kind = blankEdge
		default:
			st.kind = blankInWord
		}
		if skip && s > 0 && wordAt[k] > 0 {
			w := wordAt[k]
			st.skipFrom = int32(2 * first[w-1])
			skipCost[s] = (opts.SkipLogProb + opts.Progress) * float64(first[w]-first[w-1])
		}
	}
	// blankScores returns a frame's emission scores of a blank by its
	// kind; a label's is its log-probability plus InWord (inside a word:
	// no garbage).
	blankScores := func(f []float32) [blankPause + 1]float64 {
		blank, space := float64(f[model.EOS]), float64(f[spaceID])
		between := math.Max(math.Max(blank, space), opts.GarbageLogProb)
		return [...]float64{
			blankInWord: blank + opts.InWord,
			blankEdge:   math.Max(blank, opts.GarbageLogProb),
			blankSpace:  between,
			blankPause:  between + opts.InSentence,
		}
	}
	bpw := (band + 3) / 4
	bp := make([]byte, T*bpw)
	lo := make([]int32, T) // band start per frame
	// A frame's scores of the band's states are prev (the frame before) and
	// cur, each inside a buffer whose two cells before and band/4+1 after
	// stay -Inf: the band moves on by less than a quarter of its width a
	// frame, so the trellis reads a state's predecessors s, s-1 and s-2 in
	// the frame before with no test of where the band was.
	newBuf := func() []float64 {
		b := make([]float64, 2+band+band/4+1)
		for i := range b {
			b[i] = ninf
		}
		return b
	}
	prevBuf, curBuf := newBuf(), newBuf()
	prev, cur := prevBuf[2:2+band], curBuf[2:2+band]
	// Frame 0: start in the first blank or the first label, or skip words
	// from the start.
	ek0 := blankScores(logp[:V])
	for i := range cur {
		if i >= nS {
			continue
		}
		st := &states[i]
		v, code := ninf, byte(segStay)
		if i == 1 {
			v = opts.Progress
		} else if i == 0 {
			v = 0
		} else if st.skipFrom >= 0 {
			v, code = (opts.SkipLogProb+opts.Progress)*float64(first[wordAt[i/2]]), segSkipWord
		}
		if !math.IsInf(v, -1) {
			e := ek0[st.kind]
			if st.kind == labelState {
				e = float64(logp[st.emits]) + opts.InWord
			}
			cur[i] = v + e
			bp[i/4] |= code << (2 * (i % 4))
		}
	}
	// pbase is the first state of the frame before; prevAt(s) is its score
	// of state s, -Inf for a state outside that band.
	pbase := 0
	prevAt := func(s int) float64 {
		if j := s - pbase; j >= 0 && j < band {
			return prev[j]
		}
		return ninf
	}
	base := 0
	for t := 0; t < T; t++ {
		best, bestS := ninf, base
		if t == 0 {
			for i, v := range cur {
				if v > best {
					best, bestS = v, base+i
				}
			}
		} else {
			f := logp[t*V : (t+1)*V]
			pbase = int(lo[t-1])
			row := bp[t*bpw : (t+1)*bpw]
			n := min(band, nS-base) // states of the band that exist
			for i := n; i < band; i++ {
				cur[i] = ninf
			}
			eKind := blankScores(f)
			// q[i+2], q[i+1] and q[i] are the frame before's scores of
			// states s, s-1 and s-2, for s = base+i.
			q := prevBuf[base-pbase : base-pbase+n+2]
			for i := range n {
				st := &states[base+i]
				v, code := q[i+2], byte(segStay)
				if p := q[i+1] + st.enter; p > v {
					v, code = p, segFrom1
				}
				if st.from2 {
					if p := q[i] + st.enter; p > v {
						v, code = p, segFrom2
					}
				}
				if st.skipFrom >= 0 {
					if j := int(st.skipFrom) - pbase; j >= 0 && j < band {
						if p := prev[j] + skipCost[base+i]; p > v {
							v, code = p, segSkipWord
						}
					}
				}
				if v == ninf {
					cur[i] = ninf
					continue
				}
				var e float64
				if st.kind == labelState {
					e = float64(f[st.emits]) + opts.InWord
				} else {
					e = eKind[st.kind]
				}
				v += e
				cur[i] = v
				if code != segStay {
					row[i/4] |= code << (2 * (i % 4))
				}
				if v > best {
					best, bestS = v, base+i
				}
			}
		}
		lo[t] = int32(base)
		prev, cur = cur, prev
		prevBuf, curBuf = curBuf, prevBuf
		// Move the band: 3/4 of it behind the best state.
		if nb := bestS - band*3/4; nb > base {
			base = min(nb, max(nS-band, 0))
		}
	}
	// End in the last label or the trailing blank, if the band holds them,
	// else in the best state there is.
	pbase = int(lo[T-1])
	endS, endV := -1, ninf
	for _, s := range []int{nS - 1, nS - 2} {
		if v := prevAt(s); s >= 0 && v > endV {
			endS, endV = s, v
		}
	}
	if endS < 0 {
		for i, v := range prev {
			if v > endV {
				endS, endV = pbase+i, v
			}
		}
	}
	seg := &Segmentation{Spans: make([]Span, len(chars)), Placed: make([]bool, len(ranges)), Conf: make([]float64, len(ranges))}
	if endS < 0 {
		return seg
	}
	seg.LogProb = (endV - opts.Progress*float64(K)) / float64(T)
	// Backtrack: the first and last frame of each label.
	firstF, lastF := make([]int, K), make([]int, K)
	for k := range firstF {
		firstF[k], lastF[k] = -1, -1
	}
	s := endS
	for t := T - 1; t >= 0; t-- {
		if s%2 == 1 {
			k := s / 2
			if lastF[k] < 0 {
				lastF[k] = t
			}
			firstF[k] = t
		}
		i := s - int(lo[t])
		code := (bp[t*bpw+i/4] >> (2 * (i % 4))) & 3
		switch code {
		case segFrom1:
			s--
		case segFrom2:
			s -= 2
		case segSkipWord:
			if t == 0 {
				s = 0
			} else {
				s = 2 * first[wordAt[s/2]-1]
			}
		}
	}
	// Spans: a label runs to the next label of its word; words are placed
	// when all their labels were visited.
	for w := range ranges {
		ok, sum := true, 0.0
		for k := first[w]; k < first[w+1]; k++ {
			if firstF[k] < 0 {
				ok = false
				break
			}
			best := ninf
			for t := firstF[k]; t <= lastF[k]; t++ {
				best = math.Max(best, float64(logp[t*V+labels[k]]))
			}
			sum += math.Exp(best)
		}
		seg.Placed[w] = ok
		if ok {
			seg.Conf[w] = sum / float64(first[w+1]-first[w])
		}
	}
	prevEnd := 0
	for k := 0; k < K; k++ {
		i := at[k]
		if !seg.Placed[wordOf[k]] {
			seg.Spans[i] = Span{prevEnd, prevEnd}
			continue
		}
		end := lastF[k] + 1
		if k+1 < K && wordOf[k+1] == wordOf[k] {
			end = max(end, firstF[k+1])
		}
		seg.Spans[i] = Span{firstF[k], end}
		prevEnd = end
	}
	// Spaces: between the words around them.
	for w := 0; w+1 < len(ranges); w++ {
		i := ranges[w][1] // the space after word w
		a, b := seg.Spans[i-1].End, seg.Spans[i+1].Start
		seg.Spans[i] = Span{a, max(a, b)}
	}
	return seg
}

// SegmentPrior returns log scores (T, L) for PathOptions.Prior, L =
// len(chars), that keep every character near the word seg put it in: 0
// from margin frames before the word's span to margin frames after it,
// falling by slope per frame further out. A space's span is the gap between
// its words; a word seg left out spans the gap between its placed
// neighbours. A nil seg gives nil.
func SegmentPrior(seg *Segmentation, chars string, T int, margin, slope float64) []float32 {
	if seg == nil {
		return nil
	}
	L := len(chars)
	ranges := wordRanges(chars)
	// Word windows [a, b) in frames; left-out words get the gap.
	win := make([][2]int, len(ranges))
	end := 0
	for w, r := range ranges {
		if seg.Placed[w] {
			win[w] = [2]int{seg.Spans[r[0]].Start, seg.Spans[r[1]-1].End}
			end = win[w][1]
			continue
		}
		next := T
		for v := w + 1; v < len(ranges); v++ {
			if seg.Placed[v] {
				next = seg.Spans[ranges[v][0]].Start
				break
			}
		}
		win[w] = [2]int{end, max(end, next)}
	}
	rowWin := make([][2]int, L)
	for w, r := range ranges {
		for i := r[0]; i < r[1]; i++ {
			rowWin[i] = win[w]
		}
		if w+1 < len(ranges) {
			rowWin[r[1]] = [2]int{win[w][1], max(win[w][1], win[w+1][0])}
		}
	}
	prior := make([]float32, T*L)
	for l, ab := range rowWin {
		lo, hi := float64(ab[0])-margin, float64(ab[1]-1)+margin
		for t := 0; t < T; t++ {
			d := math.Max(0, math.Max(lo-float64(t), float64(t)-hi))
			prior[t*L+l] = float32(-slope * d)
		}
	}
	return prior
}

// minUnheard is the fewest frames in the space between two words in which
// the CTC head must hear a character for Unheard to report them: a word's
// characters (its late decay is blank).
const minUnheard = 3

// Unheard returns per word k of chars (a transcript as for CTCSegment)
// the encoder frames [Start, End) between the last frame seg gave word k
// and the first it gave word k+1, from the first to the last frame there
// whose likeliest output (logp, (T, V), blank 0) is a character, neither
// blank nor space, and neither word k's last nor word k+1's first (the
// segmentation ends a word early on a long final vowel, and starts one
// late): where the CTC head hears characters that the transcript does not
// have there (a word left out of it). The span is empty where fewer than
// minUnheard frames do, for the last word, and for words seg did not
// place. It panics if chars holds a character outside the vocabulary.
func Unheard(seg *Segmentation, logp []float32, T, V int, chars string) []Span {
	ranges := wordRanges(chars)
	out := make([]Span, len(ranges))
	ids, err := model.Encode(chars)
	if err != nil {
		panic("align: Unheard: " + err.Error())
	}
	for k := 0; k+1 < len(ranges); k++ {
		if !seg.Placed[k] || !seg.Placed[k+1] {
			continue
		}
		lo, hi := seg.Spans[ranges[k][1]-1].End, seg.Spans[ranges[k+1][0]].Start
		own0, own1 := ids[ranges[k][1]-1], ids[ranges[k+1][0]]
		first, last, n := -1, -1, 0
		for t := max(lo, 0); t < min(hi, T); t++ {
			lp := logp[t*V : (t+1)*V]
			best := 2 // the likeliest character (not blank, not space)
			for v := 3; v < V; v++ {
				if lp[v] > lp[best] {
					best = v
				}
			}
			if lp[best] > lp[model.EOS] && lp[best] > lp[1] && best != own0 && best != own1 {
				if first < 0 {
					first = t
				}
				last, n = t, n+1
			}
		}
		if n >= minUnheard {
			out[k] = Span{first, last + 1}
		}
	}
	return out
}
