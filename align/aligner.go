package align

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/heed-asr/heed/align/normalize"
	"github.com/heed-asr/heed/model"
	"github.com/heed-asr/heed/model/modelfile"
)

// Aligner times written transcripts against 16 kHz audio with a heed model:
// it teacher-forces the transcript through the attention decoder, reads the
// attention matrix and extracts the best monotonic path (MonotonicPath).
// Audio longer than MaxPiece is first split at silences into pieces of at
// most MaxPiece/2 (the attention places words best well inside the length of
// the utterances it was trained on); the transcript is divided between the
// pieces by recognising each piece with the CTC head, matching the
// recognised characters to the transcript and mending the seams by CTC
// likelihood. Every piece is encoded once (the pieces several at a time);
// memory grows with the audio by its encodings (about 120 MB an hour, see
// KeptBytes) and time linearly.
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
	// Seg configures the CTC segmentation of the transcript (CTCSegment)
	// that divides long audio between pieces and, in every piece, keeps
	// the attention path near it: a character's score falls by PriorSlope
	// per encoder frame it lies more than PriorMargin frames outside the
	// span the segmentation gave its word (SegmentPrior; PriorSlope 0: no
	// such prior).
	Seg                     SegOptions
	PriorMargin, PriorSlope float64
	// ClipSkipLogProb, when not 0, replaces Seg.SkipLogProb in the
	// segmentation of audio aligned in one piece (up to MaxPiece). There
	// leaving a word out only marks it as text not in the audio, flagged
	// and interpolated, and a cheaper skip finds more such words; in a
	// long recording's segmentation a skipped word also moves the pieces'
	// boundaries, and a voice the model hears poorly would lose words.
	ClipSkipLogProb float64
	// Variants, when set, lets the audio choose the reading of every token
	// with more than one (normalize.Token.Variants: "2019" said "twenty
	// nineteen" or "two thousand nineteen") before the words are aligned
	// (ChooseReadings); otherwise every token is aligned as its default
	// reading.
	Variants bool
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
	return &Aligner{Model: b, Options: o, Refine: true, Offset: 0.02, CTCWeight: 0.5, MaxPiece: 12 * time.Second, MinPause: 200 * time.Millisecond,
		Seg: DefaultSegOptions(), PriorMargin: 4, PriorSlope: 1, ClipSkipLogProb: math.Log(1e-2), Variants: true}
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
		return a.alignEncoded(a.encode(samples), txt, a.Variants, nil)
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

// alignEncoded aligns the tokens of txt to an encoded piece of audio; with
// choose, the audio first picks the reading of every token with variants
// (ChooseReadings). seg, when not nil, is the CTC segmentation of txt in
// the piece's frames (from a longer recording's: subSegmentation); nil
// segments txt against the piece alone.
func (a *Aligner) alignEncoded(p *encodedPiece, txt *normalize.Text, choose bool, seg *Segmentation) ([]Word, *Detail, error) {
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
	T, V := enc.T, b.Net.Cfg.V()
	segOpts := a.Seg
	if seg == nil { // segmented here, not given by a longer recording's
		if a.ClipSkipLogProb != 0 {
			segOpts.SkipLogProb = a.ClipSkipLogProb
		}
		seg = CTCSegment(enc.CTCLogProbs, T, V, chars, sentenceEnds(txt), segOpts)
	}
	if choose {
		if t, changed := ChooseReadings(enc.CTCLogProbs, T, V, txt, seg, a.Seg.GarbageLogProb); changed {
			txt, chars = t, Transcript(t)
			if ids, err = model.Encode(chars); err != nil {
				return nil, nil, err
			}
			seg = CTCSegment(enc.CTCLogProbs, T, V, chars, sentenceEnds(txt), segOpts)
		}
	}
	rows := b.Net.ForceAlign(enc, ids)
	L := len(ids)
	att := make([]float32, 0, L*T)
	for _, r := range rows[:L] {
		att = append(att, r...)
	}
	if a.CTCWeight > 0 {
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
	opts.Seg = seg
	opts.Unheard = Unheard(seg, enc.CTCLogProbs, T, V, chars)
	if a.PriorSlope > 0 {
		opts.Path.Prior = SegmentPrior(seg, chars, T, a.PriorMargin, a.PriorSlope)
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
	text, words, _, err := a.TranscribeEncoded(ctx, samples, dec, timed)
	return text, words, err
}

// TranscribeEncoded is TranscribeContext that also returns the encoding of
// samples when they were recognised in one piece (nil when they were split,
// or had no frames), so that a caller can read more from it without
// encoding them again.
func (a *Aligner) TranscribeEncoded(ctx context.Context, samples []float32, dec model.DecodeOptions, timed bool) (string, []Word, *model.Encoded, error) {
	const rate = 16000
	pieces := []Piece{{Start: 0, End: len(samples)}}
	if time.Duration(len(samples))*time.Second/rate > a.MaxPiece {
		pieces = SplitAtSilences(samples, rate, a.MaxPiece, a.MinPause)
	}
	var (
		whole   *model.Encoded
		texts   []string
		offsets []float64
		parts   [][]Word
	)
	for _, p := range pieces {
		if err := a.check(); err != nil {
			return "", nil, nil, err
		}
		r, err := a.Model.RecognizeContext(ctx, samples[p.Start:p.End], dec)
		if err != nil {
			return "", nil, nil, err
		}
		if p.Start == 0 && p.End == len(samples) {
			whole = r.Enc
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
			return "", nil, nil, err
		}
		words, _, err := a.alignEncoded(&encodedPiece{samples: samples[p.Start:p.End], feats: r.Feats, frames: r.Frames, enc: r.Enc}, txt, false, nil)
		if err != nil {
			return "", nil, nil, err
		}
		start, _ := p.Seconds(rate)
		offsets = append(offsets, start)
		parts = append(parts, words)
	}
	if !timed {
		return strings.Join(texts, " "), nil, whole, nil
	}
	return strings.Join(texts, " "), Stitch(offsets, parts), whole, nil
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

// alignLong aligns audio longer than MaxPiece in two passes over pieces of
// at most MaxPiece/2 cut at silences. The first encodes every piece
// (encodePieces) and keeps its encoder outputs and CTC log-probabilities
// (T x 2H float16 and T x V float32: 75 MB an hour); the whole transcript is then
// segmented against all the CTC log-probabilities at once (CTCSegment),
// which gives every word the piece it lies in without recognising
// anything. The second pass aligns each piece's words with the attention
// path (alignEncoded) on its kept encoding, which it then lets go, guided
// by the part of the whole recording's segmentation for those words
// (subSegmentation). Neighbouring pieces are aligned as one, encoded again
// together, where a word given to one was placed in the other
// (mergedUnits). Memory is the kept encodings plus the segmentation's
// back-pointers; time is linear in the length.
func (a *Aligner) alignLong(ctx context.Context, samples []float32, txt *normalize.Text) ([]Word, *Detail, error) {
	const rate = 16000
	pieces := SplitAtSilences(samples, rate, a.MaxPiece/2, a.MinPause)
	encs, h16, err := a.encodePieces(ctx, samples, pieces)
	if err != nil {
		return nil, nil, err
	}
	V := a.Model.Net.Cfg.V()
	firstFrame := make([]int, len(pieces)+1) // encoder frame of each piece's start
	for i, e := range encs {
		firstFrame[i+1] = firstFrame[i] + e.T
	}
	T := firstFrame[len(pieces)]
	logp := make([]float32, 0, T*V)
	for i, e := range encs {
		logp = append(logp, e.CTCLogProbs...)
		// The piece's log-probabilities now live in logp only.
		e.CTCLogProbs = logp[firstFrame[i]*V : firstFrame[i+1]*V : firstFrame[i+1]*V]
	}
	chars := Transcript(txt)
	seg := CTCSegment(logp, T, V, chars, sentenceEnds(txt), a.Seg)
	if a.Variants {
		if t, changed := ChooseReadings(logp, T, V, txt, seg, a.Seg.GarbageLogProb); changed {
			txt, chars = t, Transcript(t)
			seg = CTCSegment(logp, T, V, chars, sentenceEnds(txt), a.Seg)
		}
	}
	logp = nil
	pieceOf, placed := tokenPieces(txt, chars, seg, firstFrame, int(runOnPause/a.Options.FrameSec))
	units := mergedUnits(pieces, pieceOf, placed, int(a.MaxPiece.Seconds()*rate))
	off, ranges := txt.Offsets(), wordRanges(chars)
	// frameTime is the time (seconds) of a frame of the whole recording's
	// segmentation: its piece's start plus its place in the piece.
	frameTime := func(f int) float64 {
		k := max(0, sort.SearchInts(firstFrame, f+1)-1)
		k = min(k, len(pieces)-1)
		start, _ := pieces[k].Seconds(rate)
		return start + float64(f-firstFrame[k])*a.Options.FrameSec
	}
	var (
		offsets []float64
		parts   [][]Word
		first   *Detail
	)
	for u := range len(units) - 1 {
		if err := a.check(); err != nil {
			return nil, nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		i, j := units[u], units[u+1] // pieces [i, j)
		p := Piece{pieces[i].Start, pieces[j-1].End}
		lo, hi := pieceOf[i], pieceOf[j]
		enc, h := encs[i], h16[i]
		for k := i; k < j; k++ {
			encs[k], h16[k] = nil, nil // let the pieces' encodings go once aligned
		}
		if lo == hi {
			continue
		}
		var ep *encodedPiece
		switch {
		case j-i > 1:
			// Merged pieces are encoded again as one: the pieces' own
			// encodings each began and ended at a cut.
			ep = a.encode(samples[p.Start:p.End])
			ep.feats, ep.frames = nil, 0
		case enc.T > 0:
			enc.H = make([]float32, len(h))
			for k, v := range h {
				enc.H[k] = modelfile.F16ToF32(v)
			}
			a.Model.Net.AddKeys(enc)
			ep = &encodedPiece{samples: samples[p.Start:p.End], enc: enc}
		default:
			ep = &encodedPiece{samples: samples[p.Start:p.End]}
		}
		sub := &normalize.Text{Tokens: txt.Tokens[lo:hi]}
		var subSeg *Segmentation
		if seg != nil && ep.enc != nil && off[lo] < off[hi] {
			start, _ := p.Seconds(rate)
			subSeg = subSegmentation(seg, ranges, off[lo], off[hi], frameTime, start, a.Options.FrameSec, ep.enc.T)
		}
		words, det, err := a.alignEncoded(ep, sub, false, subSeg)
		if err != nil {
			return nil, nil, err
		}
		start, _ := p.Seconds(rate)
		if first == nil && det != nil {
			// Only the first piece's detail is returned: its features
			// are computed again for it alone.
			det.Feats, det.Frames = a.Model.Features(ep.samples)
			det.Start = start
			first = det
		}
		offsets = append(offsets, start)
		parts = append(parts, words)
	}
	words := Stitch(offsets, parts)
	unstrand(words, txt)
	return words, first, nil
}

// KeptBytes is about how much memory Align holds, beyond the samples
// themselves and one piece's work, for n samples of audio: a long
// recording's encodings (encoder outputs as float16, CTC log-probabilities
// as float32) and its CTC segmentation's back-pointers (see alignLong).
func (a *Aligner) KeptBytes(n int) int64 {
	cfg := &a.Model.Net.Cfg
	frames := int64(n)/int64(160*cfg.Stack) + 1 // encoder frames (10 ms hop)
	return frames * (int64(cfg.EncDim())*2 + int64(cfg.V())*4 + int64(a.Seg.Band/4+4))
}

// encodeBatch is the number of pieces encodePieces runs through the
// encoder together: one row tile of the float32 matrix kernels (6 rows), so
// that no step computes rows it throws away while all pieces run.
const encodeBatch = 6

// encodePieces computes the features and encoding of every piece of
// samples, encodeBatch pieces at a time (model.BatchEncoder). It returns
// the encodings without their attention keys and without their encoder
// outputs, which it returns apart as float16: they wait for alignEncoded,
// and float16 halves the largest part of what an hour keeps (61 MB of 123).
// Pieces with no frames get empty encodings.
func (a *Aligner) encodePieces(ctx context.Context, samples []float32, pieces []Piece) ([]*model.Encoded, [][]uint16, error) {
	encs := make([]*model.Encoded, 0, len(pieces))
	h16 := make([][]uint16, 0, len(pieces))
	be := a.Model.Net.NewBatchEncoder()
	for lo := 0; lo < len(pieces); lo += encodeBatch {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		hi := min(lo+encodeBatch, len(pieces))
		feats := make([][]float32, hi-lo)
		frames := make([]int, hi-lo)
		for i, p := range pieces[lo:hi] {
			feats[i], frames[i] = a.Model.Features(samples[p.Start:p.End])
		}
		for _, e := range be.Encode(feats, frames) {
			h := make([]uint16, len(e.H))
			modelfile.F32sToF16(h, e.H)
			e.H = nil
			encs, h16 = append(encs, e), append(h16, h)
		}
	}
	return encs, h16, nil
}

// subSegmentation returns the part of seg, the segmentation of the whole
// transcript against a long recording (ranges: its words' byte ranges, from
// wordRanges), for the words [w0, w1), as a
// segmentation of a stretch of that recording that starts at start seconds
// and has T encoder frames of frameSec: every span keeps its time (sec
// gives the time of one of seg's frames) and is clamped into the stretch.
// The stretch's attention path then follows where the whole recording's
// segmentation put its words, which saw the text and audio around it,
// rather than a segmentation of the stretch alone, which must fit all its
// words inside it.
func subSegmentation(seg *Segmentation, ranges [][2]int, w0, w1 int, sec func(int) float64, start, frameSec float64, T int) *Segmentation {
	b0, b1 := ranges[w0][0], ranges[w1-1][1]
	local := func(f int) int {
		return min(T, max(0, int(math.Round((sec(f)-start)/frameSec))))
	}
	sub := &Segmentation{
		Spans:   make([]Span, b1-b0),
		Placed:  slices.Clone(seg.Placed[w0:w1]),
		Conf:    slices.Clone(seg.Conf[w0:w1]),
		LogProb: seg.LogProb,
	}
	for i, sp := range seg.Spans[b0:b1] {
		sub.Spans[i] = Span{local(sp.Start), local(sp.End)}
	}
	return sub
}

// mergedUnits groups consecutive pieces into the units that alignLong
// aligns, given the token boundaries b and the piece of every token's
// placement (placed, -1 for none) from tokenPieces. Pieces i-1 and i go
// into one unit when a token that tokenPieces gave to one of them was
// placed, however weakly, in the other: a weak word at a sentence's edge
// that the rules of tokenPieces moved across a pause into its neighbour's
// piece, where the attention path could only squeeze it against the cut.
// Aligned together, the path places it where the audio has it. A unit
// lasts at most maxLen samples. It returns the first piece of every unit,
// then len(pieces).
func mergedUnits(pieces []Piece, b, placed []int, maxLen int) []int {
	n := len(pieces)
	join := make([]bool, n) // join[i]: pieces i-1 and i belong together
	for p := range n {
		for ti := b[p]; ti < b[p+1]; ti++ {
			if q := placed[ti]; q == p-1 || q == p+1 {
				join[max(p, q)] = true
			}
		}
	}
	units := []int{0}
	for i := 1; i < n; i++ {
		if !join[i] || pieces[i].End-pieces[units[len(units)-1]].Start > maxLen {
			units = append(units, i)
		}
	}
	return append(units, n)
}

// tokenPieces divides the tokens of txt between pieces whose encoder frames
// start at firstFrame[i] (firstFrame has one more entry, the total). A
// token whose first spoken word seg placed with confidence at least
// pieceConf (a strong token) goes to the piece holding that word's middle.
// A weak token after a strong token of its sentence goes to the piece of
// its own placement, held between the pieces of the strong tokens around
// it (a slow reader's sentence runs on over a pause into the next piece),
// if a strong token of its sentence follows it or its placement starts at
// most runOn frames after the end of the token before it; otherwise (a
// stray match in the music or noise after the sentence, or no placement)
// it goes with the token before it. A weak token before its sentence's
// first strong token goes with that one (it would otherwise follow a stray
// character into the pause or music before the sentence). A sentence
// without any strong token (a voice the model hears poorly) goes where seg
// placed its words, however weakly: following the sentence before it
// instead would put it in that sentence's piece, possibly seconds early. A
// nil seg gives every token to the first piece. It returns the token
// ranges as boundaries: piece i gets tokens [b[i], b[i+1]); and the piece
// of every token's placement, however weak (-1: none).
func tokenPieces(txt *normalize.Text, chars string, seg *Segmentation, firstFrame []int, runOn int) (b, placed []int) {
	n := len(firstFrame) - 1
	b = make([]int, n+1)
	for i := 1; i <= n; i++ {
		b[i] = len(txt.Tokens)
	}
	nt := len(txt.Tokens)
	placed = make([]int, nt) // the piece of a placed word, however weak; -1: none
	if seg == nil {
		for ti := range placed {
			placed[ti] = -1
		}
		return b, placed
	}
	ranges := wordRanges(chars)
	off := txt.Offsets()
	piece := make([]int, nt)  // -1: no strong word
	startF := make([]int, nt) // first and last frame of a placed token
	endF := make([]int, nt)
	for ti := range txt.Tokens {
		piece[ti], placed[ti] = -1, -1
		if w := off[ti]; w < off[ti+1] && seg.Placed[w] {
			r := ranges[w]
			startF[ti], endF[ti] = seg.Spans[r[0]].Start, seg.Spans[ranges[off[ti+1]-1][1]-1].End
			mid := (seg.Spans[r[0]].Start + seg.Spans[r[1]-1].End) / 2
			p := 0
			for p+1 < n && firstFrame[p+1] <= mid {
				p++
			}
			placed[ti] = p
			if seg.Conf[w] >= pieceConf {
				piece[ti] = p
			}
		}
	}
	strong := make([]bool, nt)
	for ti := range piece {
		strong[ti] = piece[ti] >= 0
	}
	// next[ti]: the piece of the first strong token after ti, anywhere in
	// the text (the last piece if none).
	next := make([]int, nt)
	nextIn := make([]bool, nt) // a strong token follows in ti's sentence
	for ti, p, in := nt-1, n-1, false; ti >= 0; ti-- {
		if txt.Tokens[ti].Ends {
			in = false
		}
		next[ti], nextIn[ti] = p, in
		if strong[ti] {
			p, in = piece[ti], true
		}
	}
	// Weak tokens: see above.
	for s := 0; s < nt; {
		e := s
		for e < nt && !txt.Tokens[e].Ends {
			e++
		}
		e = min(e+1, nt) // tokens [s, e) form a sentence
		if !slices.Contains(strong[s:e], true) {
			copy(piece[s:e], placed[s:e])
		}
		last, lastEnd := -1, 0
		for ti := s; ti < e; ti++ {
			switch {
			case strong[ti]:
				last, lastEnd = piece[ti], endF[ti]
			case last >= 0 && placed[ti] >= 0 && (nextIn[ti] || startF[ti]-lastEnd <= runOn):
				piece[ti] = min(max(placed[ti], last), next[ti])
				last, lastEnd = piece[ti], endF[ti]
			case last >= 0:
				piece[ti] = last
			}
		}
		first := -1
		for ti := e - 1; ti >= s; ti-- {
			if piece[ti] >= 0 {
				first = piece[ti]
			} else if first >= 0 {
				piece[ti] = first
			}
		}
		s = e
	}
	cur := 0
	for ti := range piece {
		if piece[ti] > cur {
			for p := cur + 1; p <= piece[ti]; p++ {
				b[p] = ti
			}
			cur = piece[ti]
		}
	}
	return b, placed
}

// runOnPause is the longest pause (seconds) over which a weak word at the
// end of a sentence keeps its own piece (see tokenPieces): a slow reader's
// sentence runs on over shorter pauses, while a weak word further away is
// more likely a stray match in the music or noise after the sentence.
const runOnPause = 1.0

// pieceConf is the least CTC segmentation confidence of a word that
// decides its token's piece by itself (see tokenPieces).
const pieceConf = 0.3

// spaceID is the vocabulary id of the space between words.
var spaceID = func() int {
	ids, err := model.Encode(" ")
	if err != nil || len(ids) != 1 {
		panic("align: the vocabulary has no space")
	}
	return ids[0]
}()
