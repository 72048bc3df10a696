package align

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/heed-asr/heed/align/normalize"
	"github.com/heed-asr/heed/model"
)

// Aligner times written transcripts against 16 kHz audio with a heed model:
// it teacher-forces the transcript through the attention decoder, reads the
// attention matrix and extracts the best monotonic path (MonotonicPath).
// Audio longer than MaxPiece is first split at silences into pieces of at
// most MaxPiece/2 (the attention places words best well inside the length of
// the utterances it was trained on); the transcript is divided between the
// pieces by recognising each piece with the CTC head, matching the
// recognised characters to the transcript and mending the seams by CTC
// likelihood, so memory stays bounded by one piece and time grows linearly
// with the audio.
type Aligner struct {
	Model *model.Bundle
	// Options configures the path and word building. FrameSec is taken
	// from the model (Stack x 10 ms).
	Options Options
	// CTCWeight adds the CTC head's frame posteriors to the path score.
	CTCWeight float64
	// Refine moves word boundaries to pauses in the audio's energy at 5 ms
	// precision (see Refine).
	Refine bool
	// Offset (seconds) is added to every time: the delay between an
	// encoder frame's start and the sound it stands for, measured on
	// training utterances.
	Offset float64
	// MaxPiece is the longest audio aligned in one piece (longer audio is
	// aligned in pieces of at most MaxPiece/2); MinPause the shortest
	// silence a long recording is split at.
	MaxPiece, MinPause time.Duration
	// Check, when not nil, is called before each piece of audio is
	// recognised or aligned; an error from it stops the work and is
	// returned (the heed package passes a context's Err).
	Check func() error
}

// check calls a.Check when there is one.
func (a *Aligner) check() error {
	if a.Check == nil {
		return nil
	}
	return a.Check()
}

// NewAligner returns an Aligner with heed's defaults for model b.
func NewAligner(b *model.Bundle) *Aligner {
	o := DefaultOptions()
	o.FrameSec = float64(b.Net.Cfg.Stack) * 0.01
	return &Aligner{Model: b, Options: o, Refine: true, Offset: 0.02, CTCWeight: 0.5, MaxPiece: 12 * time.Second, MinPause: 200 * time.Millisecond}
}

// Detail is what the aligner saw for one piece of audio, for plotting.
type Detail struct {
	Feats  []float32 // (Frames, NumMel) normalised features
	Frames int
	Att    []float32 // (L, T) attention, L = len(Chars)
	L, T   int
	Spans  []Span
	Start  float64 // the piece's start in the audio, seconds
}

// Align times every token of text against samples (16 kHz mono). It
// returns one Word per whitespace-separated token of text, in order and
// spelled exactly as given, and the detail of the first piece.
func (a *Aligner) Align(samples []float32, text string) ([]Word, *Detail, error) {
	return a.AlignContext(context.Background(), samples, text)
}

// MaxCharsPerSecond bounds the transcripts Align accepts: at most
// MaxCharsPerSecond spoken characters (spaces included) per second of
// audio, plus MaxCharsSlack, about three times the fastest speech. Longer
// transcripts cannot be what the audio says and are refused, which bounds
// the alignment's time and memory by the audio.
const (
	MaxCharsPerSecond = 60
	MaxCharsSlack     = 200
)

// ErrTextTooLong is returned (wrapped) by Align for a transcript longer than
// the audio can hold (see MaxCharsPerSecond).
var ErrTextTooLong = errors.New("transcript too long for the audio")

// AlignContext is Align that stops between pieces of audio once ctx is
// done, returning ctx.Err(). It returns an error for a CTCWeight outside [0,
// 1] and for a transcript longer than the audio can hold (ErrTextTooLong).
func (a *Aligner) AlignContext(ctx context.Context, samples []float32, text string) ([]Word, *Detail, error) {
	const rate = 16000
	if !(a.CTCWeight >= 0 && a.CTCWeight <= 1) {
		return nil, nil, fmt.Errorf("align: CTC weight %g out of range [0, 1]", a.CTCWeight)
	}
	seconds := float64(len(samples)) / rate
	limit := int(MaxCharsPerSecond*seconds) + MaxCharsSlack
	// Written text is rarely longer in bytes than its spoken form; 8 bytes
	// a character leaves room for multi-byte letters and punctuation, and
	// keeps normalizing a huge text from costing more than the audio.
	if len(text) > 8*limit {
		return nil, nil, fmt.Errorf("%w: %d bytes for %.2f s of audio (at most %d)", ErrTextTooLong, len(text), seconds, 8*limit)
	}
	txt, err := normalize.Normalize(text)
	if err != nil {
		return nil, nil, err
	}
	if len(txt.Tokens) == 0 {
		return nil, nil, errors.New("the transcript is empty")
	}
	if n := len(Transcript(txt)); n > limit {
		return nil, nil, fmt.Errorf("%w: %d spoken characters for %.2f s of audio (at most %d)", ErrTextTooLong, n, seconds, limit)
	}
	if err := a.check(); err != nil {
		return nil, nil, err
	}
	if time.Duration(len(samples))*time.Second/rate <= a.MaxPiece {
		return a.alignEncoded(a.encode(samples), txt)
	}
	return a.alignLong(ctx, samples, txt)
}

// encodedPiece is a piece of audio with its features and encoding, made
// once for both the text assignment (CTC) and the alignment (attention).
type encodedPiece struct {
	samples []float32      // 16 kHz
	feats   []float32      // (frames, NumMel)
	frames  int            // feature frames
	enc     *model.Encoded // nil when the piece has no frames
}

// encode computes the features and encoding of samples (16 kHz mono).
func (a *Aligner) encode(samples []float32) *encodedPiece {
	e := &encodedPiece{samples: samples}
	e.feats, e.frames = a.Model.Features(samples)
	if e.frames > 0 {
		e.enc = a.Model.Net.Encode(e.feats, e.frames)
	}
	return e
}

// alignEncoded aligns the tokens of txt to an encoded piece of audio.
func (a *Aligner) alignEncoded(p *encodedPiece, txt *normalize.Text) ([]Word, *Detail, error) {
	samples, feats, frames, enc := p.samples, p.feats, p.frames, p.enc
	b := a.Model
	seconds := float64(len(samples)) / 16000
	chars := Transcript(txt)
	ids, err := model.Encode(chars)
	if err != nil {
		return nil, nil, err
	}
	opts := a.Options
	if enc == nil || len(ids) == 0 {
		// Nothing to look at: every word is interpolated over the piece.
		opts.FrameSec = math.Max(seconds, 1e-3)
		words, err := AlignText(txt, make([]float32, len(chars)), 1, opts)
		return words, nil, err
	}
	rows := b.Net.ForceAlign(enc, ids)
	L, T := len(ids), enc.T
	att := make([]float32, 0, L*T)
	for _, r := range rows[:L] {
		att = append(att, r...)
	}
	if a.CTCWeight > 0 {
		V := b.Net.Cfg.V()
		ctc := make([]float32, T*L)
		for t := 0; t < T; t++ {
			lp := enc.CTCLogProbs[t*V : (t+1)*V]
			blank := math.Exp(float64(lp[model.EOS]))
			for l, id := range ids {
				ctc[t*L+l] = float32(math.Exp(float64(lp[id])) + blank)
			}
		}
		opts.Path.CTC, opts.Path.CTCWeight = ctc, a.CTCWeight
	}
	opts.Offset = a.Offset
	if a.Refine {
		opts.Samples, opts.Rate = samples, 16000
	}
	words, err := AlignText(txt, att, T, opts)
	if err != nil {
		return nil, nil, err
	}
	det := &Detail{Feats: feats, Frames: frames, Att: att, L: L, T: T}
	det.Spans = MonotonicPath(att, L, T, opts.Path)
	return shift(words, 0, seconds), det, nil
}

// Transcribe recognises samples (16 kHz mono) piece by piece, split at
// silences into pieces of at most MaxPiece, and, when timed, times the
// recognised words with the same aligner. It returns the transcript and its
// words (nil when not timed).
func (a *Aligner) Transcribe(samples []float32, dec model.DecodeOptions, timed bool) (string, []Word, error) {
	return a.TranscribeContext(context.Background(), samples, dec, timed)
}

// TranscribeContext is Transcribe that stops soon (within a decoder step)
// once ctx is done, returning ctx.Err(), and returns an error for options
// that fail DecodeOptions.Validate.
func (a *Aligner) TranscribeContext(ctx context.Context, samples []float32, dec model.DecodeOptions, timed bool) (string, []Word, error) {
	const rate = 16000
	pieces := []Piece{{Start: 0, End: len(samples)}}
	if time.Duration(len(samples))*time.Second/rate > a.MaxPiece {
		pieces = SplitAtSilences(samples, rate, a.MaxPiece, a.MinPause)
	}
	var (
		texts   []string
		offsets []float64
		parts   [][]Word
	)
	for _, p := range pieces {
		if err := a.check(); err != nil {
			return "", nil, err
		}
		r, err := a.Model.RecognizeContext(ctx, samples[p.Start:p.End], dec)
		if err != nil {
			return "", nil, err
		}
		if r.Text == "" {
			continue
		}
		texts = append(texts, r.Text)
		if !timed {
			continue
		}
		txt, err := normalize.Normalize(r.Text)
		if err != nil {
			return "", nil, err
		}
		words, _, err := a.alignEncoded(&encodedPiece{samples: samples[p.Start:p.End], feats: r.Feats, frames: r.Frames, enc: r.Enc}, txt)
		if err != nil {
			return "", nil, err
		}
		start, _ := p.Seconds(rate)
		offsets = append(offsets, start)
		parts = append(parts, words)
	}
	if !timed {
		return strings.Join(texts, " "), nil, nil
	}
	return strings.Join(texts, " "), Stitch(offsets, parts), nil
}

// shift adds d seconds to every time of words, clamped to [0, end].
func shift(words []Word, d, end float64) []Word {
	at := func(t float64) float64 { return math.Min(end, math.Max(0, t+d)) }
	for i := range words {
		w := &words[i]
		w.Start, w.End = at(w.Start), at(w.End)
		for j := range w.Chars {
			c := &w.Chars[j]
			c.Start, c.End = at(c.Start), at(c.End)
		}
	}
	return words
}

// alignLong aligns audio longer than MaxPiece. It splits samples at
// silences into pieces of at most MaxPiece/2 and divides the tokens of txt
// between them: it recognises each piece with the CTC head and finds where
// its characters best match the transcript, moving forward through it
// (matchEnd); then it moves the boundary between two pieces by up to
// seamReach tokens to where the CTC head finds the two pieces' texts most
// likely (mendSeam), which mends the seams where recognition erred at a
// piece's edge. Each piece is aligned as soon as both its seams are mended
// and is encoded once, so at most two encoded pieces are held at a time.
func (a *Aligner) alignLong(ctx context.Context, samples []float32, txt *normalize.Text) ([]Word, *Detail, error) {
	const rate = 16000
	pieces := SplitAtSilences(samples, rate, a.MaxPiece/2, a.MinPause)
	// Character stream of the transcript and the token each char ends.
	var ref []byte
	var tokEnd []int // tokEnd[i]: token index that position i belongs to
	for ti, tok := range txt.Tokens {
		for _, w := range tok.Spoken {
			if len(ref) > 0 {
				ref = append(ref, ' ')
				tokEnd = append(tokEnd, ti)
			}
			ref = append(ref, w...)
			for range w {
				tokEnd = append(tokEnd, ti)
			}
		}
	}
	V := a.Model.Net.Cfg.V()
	// advance matches piece e's recognised text from character pos and
	// returns the token after the last one matched (tok when nothing
	// matched) and the character position after it.
	advance := func(e *encodedPiece, pos, tok int) (int, int) {
		end := matchEnd(ref, pos, []byte(ctcText(e.enc)))
		next := tok
		if end > pos {
			// The token holding the last matched character, completed.
			next = tokEnd[end-1] + 1
		}
		for pos = end; pos < len(ref) && tokEnd[pos] < next; pos++ {
		}
		return next, pos
	}
	var (
		offsets []float64
		parts   [][]Word
		first   *Detail
	)
	n := len(txt.Tokens)
	cur := a.encode(samples[pieces[0].Start:pieces[0].End])
	lo, hi, pos := 0, n, 0
	if len(pieces) > 1 {
		hi, pos = advance(cur, 0, 0)
	}
	for i, p := range pieces {
		if err := a.check(); err != nil {
			return nil, nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		var next *encodedPiece
		nextHi := n
		if i+1 < len(pieces) {
			next = a.encode(samples[pieces[i+1].Start:pieces[i+1].End])
			if i+2 < len(pieces) {
				nextHi, pos = advance(next, pos, hi)
			}
			r := [][2]int{{lo, hi}, {hi, nextHi}}
			mendSeam(r, cur.enc, next.enc, txt, V)
			hi = r[0][1]
		}
		if lo < hi {
			sub := &normalize.Text{Tokens: txt.Tokens[lo:hi]}
			words, det, err := a.alignEncoded(cur, sub)
			if err != nil {
				return nil, nil, err
			}
			start, _ := p.Seconds(rate)
			if first == nil && det != nil {
				det.Start = start
				first = det
			}
			offsets = append(offsets, start)
			parts = append(parts, words)
		}
		lo, hi, cur = hi, nextHi, next
	}
	return Stitch(offsets, parts), first, nil
}

// seamReach is how many tokens assign may move a boundary between pieces.
const seamReach = 4

// mendSeam moves the boundary between two consecutive token ranges r[0] and
// r[1] (pieces encoded as e0 and e1, nil for no frames) by up to seamReach
// tokens to where log P(text of r[0] | piece 0) + log P(text of r[1] |
// piece 1) is largest. Ties keep the boundary nearest to where it was.
func mendSeam(r [][2]int, e0, e1 *model.Encoded, txt *normalize.Text, V int) {
	lo, b, hi := r[0][0], r[0][1], r[1][1]
	c0, c1 := max(lo, b-seamReach), min(hi, b+seamReach)
	if c0 == c1 {
		return
	}
	// Labels of tokens lo..c1 and, for each candidate boundary c, how many
	// of them lie before it; likewise for tokens c0..hi.
	preIDs, preAt := tokenLabels(txt, lo, c1, c0)
	sufIDs, sufAt := tokenLabels(txt, c0, hi, c0)
	pre := model.CTCPrefixScores(ctcLogProbs(e0), ctcFrames(e0), V, preIDs, false)
	suf := model.CTCPrefixScores(ctcLogProbs(e1), ctcFrames(e1), V, sufIDs, true)
	dist := func(c int) int { return max(c-b, b-c) }
	best, bestScore := b, math.Inf(-1)
	for c := c0; c <= c1; c++ {
		// The second piece's text starts after the space before token c.
		u := sufAt[c-c0]
		if u > 0 && u < len(sufIDs) && sufIDs[u] == spaceID {
			u++
		}
		score := pre[preAt[c-c0]] + suf[u]
		if score > bestScore || (score == bestScore && dist(c) < dist(best)) {
			best, bestScore = c, score
		}
	}
	r[0][1], r[1][0] = best, best
}

// spaceID is the vocabulary id of the space between words.
var spaceID = func() int {
	ids, err := model.Encode(" ")
	if err != nil || len(ids) != 1 {
		panic("align: the vocabulary has no space")
	}
	return ids[0]
}()

// tokenLabels returns the character ids of the spoken words of tokens
// [lo, hi) of txt, words separated by spaces, and for each token boundary
// c in [from, hi] how many ids come before it (a space between words counts
// with the word after it).
func tokenLabels(txt *normalize.Text, lo, hi, from int) (ids []int, at []int) {
	var words []string
	n := 0 // ids so far
	for c := lo; c <= hi; c++ {
		if c >= from {
			at = append(at, n)
		}
		if c == hi {
			break
		}
		for _, w := range txt.Tokens[c].Spoken {
			if len(words) > 0 {
				n++
			}
			n += len(w)
			words = append(words, w)
		}
	}
	ids, err := model.Encode(strings.Join(words, " "))
	if err != nil {
		panic("align: normalized text outside the vocabulary: " + err.Error())
	}
	return ids, at
}

// ctcLogProbs and ctcFrames are the CTC head's output (T, V) of e and its T;
// none for a piece without frames (nil e).
func ctcLogProbs(e *model.Encoded) []float32 {
	if e == nil {
		return nil
	}
	return e.CTCLogProbs
}

func ctcFrames(e *model.Encoded) int {
	if e == nil {
		return 0
	}
	return e.T
}

// ctcText recognises by the CTC head's best path (the most likely token of
// each frame, repeats merged, blanks dropped); "" for a nil e. Unlike the
// attention decoder it does not lose its place on pieces longer than the
// utterances it was trained on.
func ctcText(e *model.Encoded) string {
	if e == nil {
		return ""
	}
	var ids []int
	prev := model.EOS
	for _, id := range model.CTCBest(e) {
		if id != prev && id != model.EOS {
			ids = append(ids, id)
		}
		prev = id
	}
	return model.Decode(ids)
}

// Costs of matchEnd's alignment: an edit (substitution, insertion or
// deletion) and a transcript character skipped before the match starts.
// Skipping is cheap so that a piece whose text starts later than the last
// piece's match ended (a piece before it recognised too little) catches up
// instead of falling further behind.
const (
	matchEdit = 10
	matchSkip = 3
)

// matchEnd returns the end position e in ref (e >= from) such that a stretch
// of ref[from:e] best matches hyp by edit distance, all of hyp against ref
// from a start at most a little way past from (skipped characters cost
// matchSkip, edits matchEdit). It looks at most 3*len(hyp)+100 characters
// ahead.
func matchEnd(ref []byte, from int, hyp []byte) int {
	if len(hyp) == 0 {
		return from
	}
	win := min(len(ref)-from, 3*len(hyp)+100)
	if win <= 0 {
		return from
	}
	r := ref[from : from+win]
	// d[j]: cost of matching hyp[:i] with r[:j]; rows over hyp.
	prev := make([]int, win+1)
	cur := make([]int, win+1)
	for j := range prev {
		prev[j] = matchSkip * j
	}
	for i := 1; i <= len(hyp); i++ {
		cur[0] = matchEdit * i
		for j := 1; j <= win; j++ {
			sub := prev[j-1]
			if hyp[i-1] != r[j-1] {
				sub += matchEdit
			}
			cur[j] = min(sub, prev[j]+matchEdit, cur[j-1]+matchEdit)
		}
		prev, cur = cur, prev
	}
	best := 0
	for j := 1; j <= win; j++ {
		if prev[j] < prev[best] {
			best = j
		}
	}
	return from + best
}
