package align

import (
	"math"
)

// Span is the half-open range [Start, End) of upsampled frames given to one
// character (attention row) by MonotonicPath. Upsampled frame f covers
// encoder frame f/upsample.
type Span struct {
	Start, End int
}

// Len returns the number of frames in s.
func (s Span) Len() int { return s.End - s.Start }

// PathOptions configures MonotonicPath. The zero value means: no
// upsampling, DefaultFloor, no gaps, no CTC.
type PathOptions struct {
	// Upsample is the number of output frames per encoder frame (>= 1; 0
	// means 1). With encoder frames of 30 ms (three stacked 10 ms feature
	// frames) Upsample 3 places boundaries at 10 ms and gives even a
	// one-encoder-frame character a span. Attention is linearly interpolated
	// between encoder frame centres and divided by Upsample, so that each
	// row keeps its probability mass.
	Upsample int
	// Floor is the smallest probability taken into the log (0 means
	// DefaultFloor).
	Floor float64
	// AllowGaps lets frames belong to no character: before the first span,
	// after the last and between any two consecutive spans. Each such frame
	// scores GapLogProb. Without gaps the spans cover all frames, so pauses
	// go to the neighbouring characters (normally the space between two
	// words); with gaps a pause goes to the space character while its
	// attention per frame stays above exp(GapLogProb), and to nobody
	// otherwise. Gaps also absorb audio with no counterpart in the text.
	AllowGaps bool
	// GapLogProb is the score of a frame in a gap, a natural log (for
	// example math.Log(1e-3)).
	GapLogProb float64
	// CTC optionally holds CTC frame posteriors gathered per character,
	// (T, L) row-major at the encoder rate: CTC[t*L+l] is the posterior at
	// frame t of character l's symbol. Adding the blank posterior to each
	// entry before the call makes blank frames neutral.
	CTC []float32
	// CTCWeight scales the CTC log score added to the attention log score.
	CTCWeight float64
	// Prior optionally holds log scores (T, L) row-major at the encoder
	// rate, added as they are to every row's score at every frame (for
	// example a penalty for straying from a CTC segmentation, see
	// SegmentPrior).
	Prior []float32
}

// DefaultFloor is the probability floor used when PathOptions.Floor is 0.
const DefaultFloor = 1e-6

// DefaultPathOptions returns the options heed uses: encoder frames of three
// stacked feature frames upsampled to 10 ms, gaps allowed at 1e-2 per frame,
// no CTC.
func DefaultPathOptions() PathOptions {
	return PathOptions{Upsample: 3, Floor: DefaultFloor, AllowGaps: true, GapLogProb: math.Log(1e-2)}
}

// upsample returns opts.Upsample clamped to at least 1.
func (o PathOptions) upsample() int { return max(o.Upsample, 1) }

// floor returns opts.Floor or DefaultFloor.
func (o PathOptions) floor() float64 {
	if o.Floor > 0 {
		return o.Floor
	}
	return DefaultFloor
}

// fineMatrix holds a (T, L) matrix transposed from the caller's layout and
// gives its values at upsampled frames.
type fineMatrix struct {
	tl   []float32 // (T, L)
	L, T int
	up   int
}

// newFine makes a fineMatrix from an (L, T) row-major matrix.
func newFineLT(m []float32, L, T, up int) *fineMatrix {
	tl := make([]float32, L*T)
	for l := 0; l < L; l++ {
		row := m[l*T : (l+1)*T]
		for t, v := range row {
			tl[t*L+l] = v
		}
	}
	return &fineMatrix{tl: tl, L: L, T: T, up: up}
}

// lerp returns, for upsampled frame f, the two encoder frames to mix and
// the weight of the second: frame centres sit at (t+0.5)*up.
func (m *fineMatrix) lerp(f int) (t0, t1 int, w float64) {
	if m.up == 1 {
		return f, f, 0
	}
	x := (float64(f)+0.5)/float64(m.up) - 0.5 // in encoder frames
	if x <= 0 {
		return 0, 0, 0
	}
	if x >= float64(m.T-1) {
		return m.T - 1, m.T - 1, 0
	}
	t0 = int(x)
	return t0, t0 + 1, x - float64(t0)
}

// column writes the values of all L rows at upsampled frame f into dst
// (length L), divided by up when scale is set.
func (m *fineMatrix) column(dst []float64, f int, scale bool) {
	t0, t1, w := m.lerp(f)
	a, b := m.tl[t0*m.L:(t0+1)*m.L], m.tl[t1*m.L:(t1+1)*m.L]
	s := 1.0
	if scale {
		s = 1 / float64(m.up)
	}
	for l := range dst {
		dst[l] = s * ((1-w)*float64(a[l]) + w*float64(b[l]))
	}
}

// Back-pointer codes, packed into one byte per (frame, row): bits 0-1 tell
// how the row's span state was entered, bit 2 how its following-gap state
// was entered.
const (
	inStay     = 0 // frame f-1 was in the same row
	inFromIn   = 1 // frame f-1 was in the previous row
	inFromGap  = 2 // frame f-1 was in the gap after the previous row (or the leading gap)
	gapFromIn  = 1 << 2
	inCodeMask = 3
)

// MonotonicPath finds the best strictly monotonic segmentation of an
// attention matrix att, (L, T) row-major (L characters including spaces, T
// encoder frames), at the upsampled rate N = T*Upsample: every row l gets a
// non-empty span spans[l] = [Start, End) of upsampled frames, with
// spans[l].End <= spans[l+1].Start. Without AllowGaps the spans tile
// 0..N exactly; with it, frames between, before and after spans belong to
// nobody (see PathOptions.AllowGaps). The path maximizes
//
//	sum over rows l, frames f in spans[l] of
//	    log max(a(l,f), Floor) + CTCWeight * log max(c(f,l), Floor) + p(f,l)
//	+ GapLogProb * (number of gap frames)
//
// where a is the upsampled attention, c the upsampled CTC posteriors and p
// the upsampled prior (0 without one).
// Ties are broken deterministically. It returns nil when L == 0 or when no
// path exists (L > N).
//
// Time is O(L*N); memory is one byte of back-pointer per (row, upsampled
// frame), a transposed float32 copy of att and O(L) floats: 21 MB and about
// 0.45 s on one core for L = 1000, T = 3000, Upsample = 3.
// It panics if len(att) != L*T or a non-nil opts.CTC or opts.Prior has
// length != T*L.
func MonotonicPath(att []float32, L, T int, opts PathOptions) []Span {
	if L < 0 || T < 0 || len(att) != L*T {
		panic("align: attention matrix size mismatch")
	}
	if opts.CTC != nil && len(opts.CTC) != T*L {
		panic("align: CTC matrix size mismatch")
	}
	if opts.Prior != nil && len(opts.Prior) != T*L {
		panic("align: prior matrix size mismatch")
	}
	up := opts.upsample()
	N := T * up
	if L == 0 || L > N {
		return nil
	}
	sc := newScorer(att, L, T, opts)
	negInf := math.Inf(-1)
	gapScore := negInf
	if opts.AllowGaps {
		gapScore = opts.GapLogProb
	}
	bp := make([]byte, N*L)
	prevIn, curIn := make([]float64, L), make([]float64, L)
	prevGap, curGap := make([]float64, L), make([]float64, L)
	score := make([]float64, L)
	for l := range prevIn {
		prevIn[l], prevGap[l] = negInf, negInf
	}
	// lead is the score of the leading gap covering frames 0..f-1.
	lead := 0.0
	for f := 0; f < N; f++ {
		sc.column(score, f)
		row := bp[f*L : (f+1)*L]
		for l := 0; l < L; l++ {
			// Enter or stay in row l.
			best, code := prevIn[l], byte(inStay)
			if l > 0 {
				if prevIn[l-1] > best {
					best, code = prevIn[l-1], inFromIn
				}
				if prevGap[l-1] > best {
					best, code = prevGap[l-1], inFromGap
				}
			} else if lead > best && (f == 0 || opts.AllowGaps) {
				best, code = lead, inFromGap
			}
			curIn[l] = best + score[l]
			// Gap after row l.
			g, gcode := prevGap[l], byte(0)
			if prevIn[l] > g {
				g, gcode = prevIn[l], gapFromIn
			}
			curGap[l] = g + gapScore
			row[l] = code | gcode
		}
		if f == 0 {
			curIn[0] = score[0] // the leading gap is empty
		}
		lead += gapScore
		prevIn, curIn = curIn, prevIn
		prevGap, curGap = curGap, prevGap
	}
	// Backtrack from the end state.
	inState := true
	if opts.AllowGaps && prevGap[L-1] > prevIn[L-1] {
		inState = false
	}
	if math.IsInf(math.Max(prevIn[L-1], prevGap[L-1]), -1) {
		return nil
	}
	spans := make([]Span, L)
	l := L - 1
	if inState {
		spans[l].End = N
	}
	for f := N - 1; f >= 0; f-- {
		code := bp[f*L+l]
		if !inState {
			if code&gapFromIn != 0 {
				inState = true
				spans[l].End = f // frame f-1 is the last of row l
			}
			continue
		}
		switch code & inCodeMask {
		case inStay:
			if f == 0 {
				spans[l].Start = 0
			}
		case inFromIn:
			spans[l].Start = f
			l--
			spans[l].End = f
		case inFromGap:
			spans[l].Start = f
			if l == 0 {
				return spans
			}
			l--
			inState = false
		}
	}
	return spans
}

// scorer computes per-frame log scores of all rows.
type scorer struct {
	att, ctc, prior *fineMatrix
	floor, logFloor float64
	ctcWeight       float64
	buf             []float64
}

func newScorer(att []float32, L, T int, opts PathOptions) *scorer {
	up := opts.upsample()
	s := &scorer{att: newFineLT(att, L, T, up), floor: opts.floor(), ctcWeight: opts.CTCWeight}
	s.logFloor = math.Log(s.floor)
	if opts.CTC != nil && opts.CTCWeight != 0 {
		s.ctc = &fineMatrix{tl: opts.CTC, L: L, T: T, up: up}
	}
	if opts.Prior != nil {
		s.prior = &fineMatrix{tl: opts.Prior, L: L, T: T, up: up}
	}
	s.buf = make([]float64, L)
	return s
}

// column writes the log score of every row at upsampled frame f into dst.
func (s *scorer) column(dst []float64, f int) {
	s.att.column(dst, f, true)
	for l, v := range dst {
		dst[l] = s.log(v)
	}
	if s.ctc != nil {
		s.ctc.column(s.buf, f, false)
		for l, v := range s.buf {
			dst[l] += s.ctcWeight * s.log(v)
		}
	}
	if s.prior != nil {
		s.prior.column(s.buf, f, false)
		for l, v := range s.buf {
			dst[l] += v
		}
	}
}

// log returns log(max(v, floor)); most of an attention column is at the
// floor, whose logarithm is kept.
func (s *scorer) log(v float64) float64 {
	if v <= s.floor {
		return s.logFloor
	}
	return math.Log(v)
}

// pathScore returns the objective of MonotonicPath for given spans.
func pathScore(att []float32, L, T int, opts PathOptions, spans []Span) float64 {
	sc := newScorer(att, L, T, opts)
	N := T * opts.upsample()
	col := make([]float64, L)
	total := 0.0
	l := 0
	for f := 0; f < N; f++ {
		for l < L && spans[l].End <= f {
			l++
		}
		if l < L && spans[l].Start <= f {
			sc.column(col, f)
			total += col[l]
		} else {
			total += opts.GapLogProb
		}
	}
	return total
}
