package align

import (
	"fmt"
	"math"
	"strings"

	"github.com/heed-asr/heed/align/normalize"
)

// Transcript returns the character sequence the attention rows refer to:
// the spoken words of txt joined by single spaces, no leading or trailing
// space. Row l of the attention matrix is byte l of the result (spoken
// words are ASCII).
func Transcript(txt *normalize.Text) string { return strings.Join(txt.Words(), " ") }

// Options configures AlignText.
type Options struct {
	// Path configures MonotonicPath.
	Path PathOptions
	// FrameSec is the duration of one encoder frame in seconds (0.03 for
	// three stacked 10 ms feature frames).
	FrameSec float64
	// MinConfidence is the confidence below which a spoken word is
	// interpolated instead of taking its times from the path.
	MinConfidence float64
	// Offset (seconds) is added to the times the path gives, before any
	// refinement: the delay between an encoder frame and the sound it
	// stands for.
	Offset float64
	// Samples, when not nil, is the audio (at Rate Hz, starting with the
	// first encoder frame) whose energy refines the word boundaries (see
	// Refine).
	Samples []float32
	Rate    int
	// Seg, when not nil, is the CTC segmentation of the same transcript
	// over the same encoder frames (CTCSegment): a word whose attention
	// confidence is below MinConfidence takes its times from it instead of
	// being interpolated, when the segmentation placed it (see
	// FromSegmentation), and every word placed gets its confidence from
	// Calibration (see Calibrate).
	Seg *Segmentation
	// Unheard, with Seg, is per word the encoder frames after it where the
	// CTC head hears characters the transcript does not have (Unheard):
	// Refine keeps that sound outside the word and the next.
	Unheard []Span
	// Calibration maps a word's evidence to its confidence when Seg is set;
	// nil means DefaultCalibration.
	Calibration *Calibration
}

// DefaultOptions returns heed's alignment options: DefaultPathOptions,
// 30 ms encoder frames, MinConfidence 0.3.
func DefaultOptions() Options {
	return Options{Path: DefaultPathOptions(), FrameSec: 0.03, MinConfidence: 0.3}
}

// AlignText aligns the transcript txt against a decoder attention matrix
// att, (L, T) row-major, whose L rows are the bytes of Transcript(txt) and
// whose T columns are encoder frames. It returns one Word per token of txt,
// in order and spelled as given (see TokenWords); times are seconds from
// the first encoder frame.
//
// Steps: MonotonicPath gives each character a span; SpokenWords groups them
// into words with confidences; words below opts.MinConfidence are
// interpolated (or, with opts.Seg, take the CTC segmentation's times); the
// words placed get their final confidence (with opts.Seg: Calibrate;
// without: the attention confidence) and are StatusAligned when it reaches
// FlagConfidence, else StatusUncertain; TokenWords maps spoken words back
// to tokens. When no path
// exists (more characters than upsampled frames) every word is
// interpolated over the whole audio. It returns an error when len(att) !=
// L*T or opts.FrameSec <= 0.
func AlignText(txt *normalize.Text, att []float32, T int, opts Options) ([]Word, error) {
	chars := Transcript(txt)
	L := len(chars)
	if T < 0 || len(att) != L*T {
		return nil, fmt.Errorf("align: attention has %d values, want %d characters x %d frames", len(att), L, T)
	}
	if opts.Path.CTC != nil && len(opts.Path.CTC) != L*T {
		return nil, fmt.Errorf("align: CTC posteriors have %d values, want %d frames x %d characters", len(opts.Path.CTC), T, L)
	}
	if !(opts.FrameSec > 0) {
		return nil, fmt.Errorf("align: frame duration %v s must be positive", opts.FrameSec)
	}
	var spans []Span
	if L > 0 {
		spans = MonotonicPath(att, L, T, opts.Path)
	}
	var conf []float64
	if spans != nil {
		conf = WordConfidence(chars, att, T, spans, opts.Path)
	}
	fineSec := opts.FrameSec / float64(opts.Path.upsample())
	spoken := SpokenWords(chars, spans, conf, fineSec)
	ev := make([]Evidence, len(spoken)) // attention support, before anything replaces it
	for k := range ev {
		ev[k].Attention = spoken[k].Confidence
	}
	if spans != nil && opts.Offset != 0 {
		shift(spoken, opts.Offset, float64(T)*opts.FrameSec)
	}
	for i := range spoken {
		if spoken[i].Confidence < opts.MinConfidence {
			spoken[i].Status = StatusInterpolated
		}
	}
	if opts.Seg != nil {
		FromSegmentation(spoken, chars, opts.Seg, opts.FrameSec, opts.Offset, opts.MinConfidence)
	}
	if spans != nil {
		hugEdges(spoken, txt)
	}
	if opts.Seg != nil {
		measureEvidence(ev, spoken, chars, opts.Seg, opts.FrameSec, opts.Offset)
		shrinkToSegmentation(spoken, chars, opts.Seg, opts.FrameSec, opts.Offset)
		dropSkipped(spoken, chars, opts.Seg, opts.FrameSec, opts.Offset)
	}
	soundless := false // the audio holds no level contrast: no speech
	var quiet []bool   // the refinement's quiet 5 ms frames
	if opts.Samples != nil && opts.Rate > 0 {
		before := make([][2]float64, len(spoken))
		for k, w := range spoken {
			before[k] = [2]float64{w.Start, w.End}
		}
		var gaps [][2]float64
		if len(opts.Unheard) == len(spoken) {
			gaps = make([][2]float64, len(spoken))
			for k, u := range opts.Unheard {
				if u.Len() > 0 {
					gaps[k] = [2]float64{frameSeconds(u.Start, opts.FrameSec, opts.Offset), frameSeconds(u.End, opts.FrameSec, opts.Offset)}
				}
			}
		}
		levels := measureLevels(opts.Samples, opts.Rate)
		quiet = refine(spoken, levels, gaps)
		contrast := levelContrast(levels)
		soundless = contrast < MinSoundContrast
		for k, w := range spoken {
			ev[k].Moved = math.Max(math.Abs(w.Start-before[k][0]), math.Abs(w.End-before[k][1]))
			ev[k].Contrast = contrast
		}
		if opts.Seg != nil {
			settledEvidence(ev, spoken, chars, opts.Seg, opts.FrameSec, opts.Offset, levels)
		}
	}
	if opts.Seg != nil {
		_, ends := sentenceEdges(txt)
		pauseEvidence(ev, spoken, ends)
		c := DefaultCalibration()
		if opts.Calibration != nil {
			c = *opts.Calibration
		}
		Calibrate(spoken, ev, c)
	} else {
		for i := range spoken {
			if spoken[i].Status == StatusAligned && spoken[i].Confidence < FlagConfidence {
				spoken[i].Status = StatusUncertain
			}
		}
	}
	if soundless {
		// Nothing in this audio rises above its floor (digital silence, a
		// steady tone or hum): no word can have been placed by its sound,
		// however sure the paths were (they agree on silence, and the
		// refinement finds no pause to move an edge to), nor a word left
		// to interpolation between them.
		for i := range spoken {
			spoken[i].Confidence = 0
			if spoken[i].Status != StatusInterpolated {
				spoken[i].Status = StatusUncertain
			}
		}
	}
	flagUnheard(spoken, quiet)
	Interpolate(spoken, opts.MinConfidence, 0, float64(T)*opts.FrameSec)
	return TokenWords(txt, spoken), nil
}

// minCharSec is the least time (seconds) per character that a spoken word
// is given without being flagged: on the espeak-ng dev sets, the written
// numbers and the FSDD strings (13,800 words) one gold word in a thousand
// is spoken faster than 16.5 ms a character, and 2 of heed's placed words
// lie under 15 ms, one of them right.
const minCharSec = 0.015

// flagUnheard makes every placed word that no sound can have placed
// StatusUncertain, with confidence at most strayConfidence: a word shorter
// than minCharSec per character, or one whose span holds no frame that is
// not quiet (quiet: Refine's 5 ms frames; nil: not measured). Such a word
// is text without its audio (a line whose recording is missing), pressed
// into the gap between its neighbours or laid in a pause.
func flagUnheard(words []Word, quiet []bool) {
	for i := range words {
		w := &words[i]
		if w.Status == StatusInterpolated || len(w.Chars) == 0 {
			continue
		}
		short := w.End-w.Start < minCharSec*float64(len(w.Chars))
		silent := quiet != nil
		lo, hi := max(0, int(w.Start/refineFrameSec)), min(len(quiet), int(math.Ceil(w.End/refineFrameSec)))
		for f := lo; silent && f < hi; f++ {
			silent = quiet[f]
		}
		if short || silent {
			demote(w)
		}
	}
}

// demote makes w StatusUncertain with confidence at most strayConfidence:
// a word that no path placed where it lies.
func demote(w *Word) {
	w.Status, w.Confidence = StatusUncertain, math.Min(w.Confidence, strayConfidence)
}

// MinSoundContrast is the least level contrast (dB, levelContrast: the
// 99th against the 10th percentile of the 5 ms frames) of audio that a
// word can be placed in by its sound. Digital silence has none, a steady
// tone or white noise a few dB; the dev sets' speech has 10 dB or more
// (espeak-ng at 10 dB SNR), and pink noise alone about 9.
const MinSoundContrast = 6.0

// FromSegmentation gives every spoken word (one per word of chars) that is
// StatusInterpolated the times the CTC segmentation seg gave it (encoder
// frames of frameSec seconds, plus offset), kept between its aligned
// neighbours, and seg's confidence for it. Such a word becomes
// StatusAligned when that confidence reaches minConf and StatusUncertain
// otherwise; words seg left out, or that have no room between their
// neighbours, are left as they are.
func FromSegmentation(spoken []Word, chars string, seg *Segmentation, frameSec, offset, minConf float64) {
	ranges := segWords(spoken, chars, seg, "FromSegmentation")
	for k, r := range ranges {
		w := &spoken[k]
		if w.Status != StatusInterpolated || !seg.Placed[k] {
			continue
		}
		lo, hi := math.Inf(-1), math.Inf(1)
		for j := k - 1; j >= 0; j-- {
			if spoken[j].Status != StatusInterpolated {
				lo = spoken[j].End
				break
			}
		}
		for j := k + 1; j < len(spoken); j++ {
			if spoken[j].Status == StatusAligned {
				hi = spoken[j].Start
				break
			}
		}
		start, end := seg.wordSeconds(r, frameSec, offset)
		start, end = math.Max(start, lo), math.Min(end, hi)
		if !(end > start) {
			continue
		}
		seg.place(w, r, start, end, frameSec, offset)
		w.Confidence = seg.Conf[k]
		w.Status = StatusUncertain
		if w.Confidence >= minConf {
			w.Status = StatusAligned
		}
	}
}

// place gives w, the word of seg's transcript in byte range r, the times
// start to end (seconds) and its characters the times seg gave them, kept
// within the word.
func (s *Segmentation) place(w *Word, r [2]int, start, end, frameSec, offset float64) {
	w.Start, w.End = start, end
	for j := range w.Chars {
		sp := s.Spans[r[0]+j]
		w.Chars[j].Start, w.Chars[j].End = frameSeconds(sp.Start, frameSec, offset), frameSeconds(sp.End, frameSec, offset)
	}
	clampChars(w)
}

// shrinkToSegmentation's limits: how far (seconds) past the CTC
// segmentation's edge a word may reach, and the least segmentation
// confidence that shrinks or moves it.
const (
	shrinkReach = 0.1
	shrinkConf  = 0.5
)

// shrinkToSegmentation brings every placed word that the CTC segmentation
// seg placed with confidence shrinkConf or more back to seg's span for it.
// The attention path may stretch a word over speech next to it that the
// transcript does not hold (a word left out of it), where the segmentation,
// which can leave such speech in a blank between words
// (SegOptions.GarbageLogProb), keeps to the word's own sound: an edge that
// reaches more than shrinkReach past seg's is pulled in to it (edges only
// move in). And where a word of the text is not in the audio, the path
// must still give it frames and may take them from a neighbour, pushing
// that neighbour onto the next word's sound: a word that overlaps seg's
// span for it by less than half of the shorter of the two takes seg's span
// (its characters too) when that span lies within the words around it,
// and the words on either side give way.
func shrinkToSegmentation(spoken []Word, chars string, seg *Segmentation, frameSec, offset float64) {
	for k, r := range segWords(spoken, chars, seg, "shrinkToSegmentation") {
		w := &spoken[k]
		if w.Status == StatusInterpolated || !seg.Placed[k] || seg.Conf[k] < shrinkConf {
			continue
		}
		s, e := seg.wordSeconds(r, frameSec, offset)
		if !(e > s) {
			continue
		}
		overlap := math.Min(w.End, e) - math.Max(w.Start, s)
		within := (k == 0 || s >= spoken[k-1].Start) && (k+1 == len(spoken) || e <= spoken[k+1].End)
		if overlap < 0.5*math.Min(w.End-w.Start, e-s) && within {
			seg.place(w, r, s, e, frameSec, offset)
			if k > 0 && spoken[k-1].End > s {
				p := &spoken[k-1]
				p.End = math.Max(p.Start, s)
				clampChars(p)
			}
			if k+1 < len(spoken) && spoken[k+1].Start < e {
				n := &spoken[k+1]
				n.Start = math.Min(e, n.End)
				clampChars(n)
			}
			continue
		}
		if w.Start < s-shrinkReach && s < w.End {
			w.Start = s
		}
		if w.End > e+shrinkReach && e > w.Start {
			w.End = e
		}
		clampChars(w)
	}
}

// dropSkipped leaves to Interpolate every word that the CTC segmentation
// seg left out (text not in the audio: SegOptions.SkipLogProb) while it
// placed the words on both sides of it (or the one side it has) with
// confidence shrinkConf or more: the attention path, which must give every
// character a frame, takes such a word's room from its neighbours. The
// neighbours' edges next to it move out to where seg put them.
func dropSkipped(spoken []Word, chars string, seg *Segmentation, frameSec, offset float64) {
	ranges := segWords(spoken, chars, seg, "dropSkipped")
	sure := func(k int) bool {
		return k < 0 || k >= len(spoken) || (seg.Placed[k] && seg.Conf[k] >= shrinkConf && spoken[k].Status != StatusInterpolated)
	}
	for k := range spoken {
		w := &spoken[k]
		if seg.Placed[k] || w.Status == StatusInterpolated || !sure(k-1) || !sure(k+1) {
			continue
		}
		w.Status, w.Confidence = StatusInterpolated, 0
		if k > 0 {
			p := &spoken[k-1]
			_, e := seg.wordSeconds(ranges[k-1], frameSec, offset)
			p.End = math.Max(p.End, e)
			clampChars(p)
		}
		if k+1 < len(spoken) {
			n := &spoken[k+1]
			st, _ := seg.wordSeconds(ranges[k+1], frameSec, offset)
			n.Start = math.Min(n.Start, st)
			if k > 0 && spoken[k-1].End > n.Start {
				// The path's end of the word before lies past the
				// segmentation's start of the word after: both take the
				// segmentation's edges, which are in order.
				p := &spoken[k-1]
				_, e := seg.wordSeconds(ranges[k-1], frameSec, offset)
				p.End = math.Max(p.Start, math.Min(p.End, e))
				n.Start = math.Min(n.End, math.Max(n.Start, p.End))
				clampChars(p)
			}
			clampChars(n)
		}
	}
}

// hugPerChar is the duration (seconds per character) hugEdges gives a word.
const hugPerChar = 0.08

// hugEdges places the words at the edges of a sentence (or line) of txt
// that no path could place (not StatusAligned) next to the placed words of
// their sentence, hugPerChar seconds a character, instead of spread over
// the pause (or music, or noise) between sentences, where a path or
// interpolation would put them: a run of such words that starts a
// sentence ends where the sentence's first placed word starts, one that
// ends a sentence starts where its last placed word ends. They become
// StatusUncertain. spoken holds one Word per spoken word of txt.
func hugEdges(spoken []Word, txt *normalize.Text) {
	n := len(spoken)
	starts, ends := sentenceEdges(txt)
	weak := func(k int) bool { return spoken[k].Status != StatusAligned }
	// bound returns the end of the last word before k that is not
	// interpolated (or 0), and the start of the first after k (or +Inf).
	dur := func(k int) float64 { return hugPerChar * float64(max(1, len(spoken[k].Chars))) }
	for k := 0; k < n; k++ {
		if !starts[k] || !weak(k) {
			continue
		}
		// The run k..j-1 of weak words inside the sentence, then word j.
		j := k
		for j < n && weak(j) && (j == k || !starts[j]) && !ends[j] {
			j++
		}
		if j == n || !starts[k] || weak(j) || (j > k && starts[j]) {
			continue
		}
		lo := 0.0
		for m := k - 1; m >= 0; m-- {
			if spoken[m].Status != StatusInterpolated {
				lo = spoken[m].End
				break
			}
		}
		t := spoken[j].Start
		for m := j - 1; m >= k; m-- {
			a := math.Max(lo, t-dur(m))
			placeUncertain(&spoken[m], a, t)
			t = a
		}
	}
	for k := n - 1; k >= 0; k-- {
		if !ends[k] || !weak(k) {
			continue
		}
		i := k
		for i >= 0 && weak(i) && (i == k || !ends[i]) && !starts[i] {
			i--
		}
		if i < 0 || weak(i) || (i < k && ends[i]) {
			continue
		}
		hi := math.Inf(1)
		for m := k + 1; m < n; m++ {
			if spoken[m].Status != StatusInterpolated {
				hi = spoken[m].Start
				break
			}
		}
		t := spoken[i].End
		for m := i + 1; m <= k; m++ {
			b := math.Min(hi, t+dur(m))
			placeUncertain(&spoken[m], t, b)
			t = b
		}
	}
}

// sentenceEdges reports, for every spoken word of txt, whether it starts
// a sentence (or line) and whether it ends one (see normalize.Token.Ends).
func sentenceEdges(txt *normalize.Text) (starts, ends []bool) {
	off := txt.Offsets()
	n := off[len(off)-1]
	starts, ends = make([]bool, n), make([]bool, n)
	prevEnds := true
	for ti, tok := range txt.Tokens {
		if off[ti] == off[ti+1] {
			prevEnds = prevEnds || tok.Ends
			continue
		}
		starts[off[ti]] = prevEnds
		ends[off[ti+1]-1] = tok.Ends
		prevEnds = tok.Ends
	}
	return starts, ends
}

// placeUncertain puts w at [a, b], its characters sharing the span evenly,
// as StatusUncertain: a word placed by a rule, not by a path.
func placeUncertain(w *Word, a, b float64) {
	w.Start, w.End, w.Status = a, b, StatusUncertain
	for c := range w.Chars {
		w.Chars[c].Start = a + (b-a)*float64(c)/float64(len(w.Chars))
		w.Chars[c].End = a + (b-a)*float64(c+1)/float64(len(w.Chars))
	}
}

// wordRanges returns the [start, end) byte ranges of the space-separated
// words of chars.
func wordRanges(chars string) [][2]int {
	var r [][2]int
	start := -1
	for i := 0; i <= len(chars); i++ {
		if i == len(chars) || chars[i] == ' ' {
			if start >= 0 {
				r = append(r, [2]int{start, i})
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	return r
}

// WordConfidence returns a confidence in [0, 1] for every space-separated
// word of chars (the attention rows): the mean over the word's characters of
// the attention mass each row puts inside the word's span (from its first
// character's Start to its last character's End), using the same
// upsampling as MonotonicPath. Rows are assumed to sum to 1 (softmax); the
// mass is clamped to [0, 1]. When opts carries CTC posteriors with a
// positive CTCWeight w, each character's term becomes
// (mass + w*peak)/(1 + w), where peak is the character's highest CTC
// posterior inside its own span. It panics if len(att) != len(chars)*T or
// len(spans) != len(chars).
func WordConfidence(chars string, att []float32, T int, spans []Span, opts PathOptions) []float64 {
	L := len(chars)
	if len(att) != L*T || len(spans) != L {
		panic("align: WordConfidence size mismatch")
	}
	up := opts.upsample()
	fm := &fineMatrix{L: 1, T: T, up: up}
	var cm *fineMatrix
	w := opts.CTCWeight
	if opts.CTC != nil && w > 0 {
		cm = &fineMatrix{tl: opts.CTC, L: L, T: T, up: up}
	}
	one, col := make([]float64, 1), make([]float64, L)
	ranges := wordRanges(chars)
	conf := make([]float64, len(ranges))
	for k, r := range ranges {
		span := Span{spans[r[0]].Start, spans[r[1]-1].End}
		sum := 0.0
		for l := r[0]; l < r[1]; l++ {
			fm.tl = att[l*T : (l+1)*T] // one row as a (T, 1) matrix
			mass := 0.0
			for f := span.Start; f < span.End; f++ {
				fm.column(one, f, true)
				mass += one[0]
			}
			c := math.Min(math.Max(mass, 0), 1)
			if cm != nil {
				peak := 0.0
				for f := spans[l].Start; f < spans[l].End; f++ {
					cm.column(col, f, false)
					peak = math.Max(peak, col[l])
				}
				c = (c + w*math.Min(peak, 1)) / (1 + w)
			}
			sum += c
		}
		conf[k] = sum / float64(r[1]-r[0])
	}
	return conf
}

// SpokenWords builds one Word per space-separated word of chars (the
// attention rows) from the character spans (upsampled frames of fineSec
// seconds) and the word confidences conf (one per word, as from
// WordConfidence). Spans of spaces belong to no word. Words are
// StatusAligned; their Chars carry the character spans. When spans is nil
// (no path) the words get zero times, confidence 0 and
// StatusInterpolated, ready for Interpolate. It panics if spans is neither
// nil nor of length len(chars), or conf does not hold one value per word.
func SpokenWords(chars string, spans []Span, conf []float64, fineSec float64) []Word {
	ranges := wordRanges(chars)
	if spans != nil && (len(spans) != len(chars) || len(conf) != len(ranges)) {
		panic("align: SpokenWords size mismatch")
	}
	words := make([]Word, len(ranges))
	for k, r := range ranges {
		w := Word{Word: chars[r[0]:r[1]], Status: StatusInterpolated, Chars: make([]Char, 0, r[1]-r[0])}
		for l := r[0]; l < r[1]; l++ {
			c := Char{Char: chars[l : l+1]}
			if spans != nil {
				c.Start, c.End = float64(spans[l].Start)*fineSec, float64(spans[l].End)*fineSec
			}
			w.Chars = append(w.Chars, c)
		}
		if spans != nil {
			w.Start, w.End = w.Chars[0].Start, w.Chars[len(w.Chars)-1].End
			w.Confidence, w.Status = conf[k], StatusAligned
		}
		words[k] = w
	}
	return words
}

// Interpolate marks every word whose confidence is below minConf (or that
// is already StatusInterpolated), except StatusUncertain words, as
// StatusInterpolated and gives each run of such words new times: the
// interval between the end of the previous word that is not interpolated
// (or start) and the start of the next one (or end)
// is tiled by the run's words in proportion to their character counts, and
// each word's characters share its time equally. Other words are left as
// they are. Times are seconds.
func Interpolate(words []Word, minConf, start, end float64) {
	for i := range words {
		if words[i].Confidence < minConf && words[i].Status != StatusUncertain {
			words[i].Status = StatusInterpolated
		}
	}
	for i := 0; i < len(words); {
		if words[i].Status != StatusInterpolated {
			i++
			continue
		}
		j := i
		for j < len(words) && words[j].Status == StatusInterpolated {
			j++
		}
		lo, hi := start, end
		if i > 0 {
			lo = words[i-1].End
		}
		if j < len(words) {
			hi = words[j].Start
		}
		hi = math.Max(hi, lo)
		units := 0
		for _, w := range words[i:j] {
			units += max(len([]rune(w.Word)), 1)
		}
		t := lo
		for k := i; k < j; k++ {
			n := max(len([]rune(words[k].Word)), 1)
			d := (hi - lo) * float64(n) / float64(units)
			w := &words[k]
			w.Start, w.End = t, t+d
			if k == j-1 {
				w.End = hi
			}
			for c := range w.Chars {
				cs := w.Start + (w.End-w.Start)*float64(c)/float64(len(w.Chars))
				ce := w.Start + (w.End-w.Start)*float64(c+1)/float64(len(w.Chars))
				w.Chars[c].Start, w.Chars[c].End = cs, ce
			}
			t = w.End
		}
		i = j
	}
}

// TokenWords maps spoken words (one per word of txt.Words(), as from
// SpokenWords) back to the tokens of txt: one Word per token, spelled
// exactly as the token (Token.Orig), with the reading aligned in Spoken
// when it has variants or is not its written letters. A token with several
// spoken words starts at the first and ends at the last; its confidence and
// Evidence are those of the least confident of them (the token is placed
// right only if all of them are), its Chars their characters, and it is
// StatusAligned only if all of them are (else StatusInterpolated if one of
// them is, else StatusUncertain). A token without spoken words ("—") gets zero length at the end of
// the previous token (or the start of the next one), confidence 0 and
// StatusInterpolated. It panics if len(spoken) != len(txt.Words()).
func TokenWords(txt *normalize.Text, spoken []Word) []Word {
	off := txt.Offsets()
	if len(spoken) != off[len(off)-1] {
		panic("align: TokenWords: spoken word count mismatch")
	}
	out := make([]Word, len(txt.Tokens))
	for i, tok := range txt.Tokens {
		w := Word{Word: tok.Orig, Spoken: spokenField(tok), Status: StatusInterpolated}
		ws := spoken[off[i]:off[i+1]]
		if len(ws) > 0 {
			w.Start, w.End = ws[0].Start, ws[len(ws)-1].End
			w.Status = StatusAligned
			w.Confidence, w.Evidence = ws[0].Confidence, ws[0].Evidence
			for _, s := range ws {
				if s.Confidence < w.Confidence {
					w.Confidence, w.Evidence = s.Confidence, s.Evidence
				}
				w.Chars = append(w.Chars, s.Chars...)
				switch {
				case s.Status == StatusInterpolated:
					w.Status = StatusInterpolated
				case s.Status == StatusUncertain && w.Status == StatusAligned:
					w.Status = StatusUncertain
				}
			}
			w.Confidence = math.Min(math.Max(w.Confidence, 0), 1)
		}
		out[i] = w
	}
	// Place tokens without spoken words at a neighbour boundary.
	for i := range out {
		if off[i] != off[i+1] {
			continue
		}
		switch {
		case i > 0:
			out[i].Start = out[i-1].End
		case off[len(off)-1] > 0:
			out[i].Start = spoken[0].Start
		}
		out[i].End = out[i].Start
	}
	return out
}

// Strays (see unstrand): a sentence's first or last word that the
// alignment of a long recording put against the neighbouring sentence,
// within strayAbut seconds of it, and more than strayGap seconds away from
// the rest of its own sentence; and a last word more than strayFar seconds
// after the rest of its sentence, wherever it lies.
const (
	strayGap        = 1.0
	strayFar        = 2.0
	strayAbut       = 0.5
	strayConfidence = 0.25 // the confidence a moved word keeps at most: no path placed it there
)

// unstrand moves the strays of a long recording's words (one Word per
// token of txt, in order) back to their sentence: a first word into the
// start of its sentence's next word's span, a last word into the end of
// the previous word's span, the span shared by their characters. The
// whole recording's CTC segmentation can find a sentence's short first
// word ("he", "in") in the last syllable of the sentence before it,
// seconds early, when the model hears the speaker poorly; the word then
// lies against that sentence with a long pause, the one between the
// sentences, after it. A reader who pauses for a second after the first
// word of a sentence is rarer than that. The moved word becomes
// StatusUncertain with confidence at most strayConfidence.
//
// A last word more than strayFar after the rest of its sentence moves back
// too, even far from the next sentence: in the real hour "all" of "she did
// not cry at all" lay 3.7 s late on a breath at the start of the next take.
// A first word that far before the rest of its sentence stays: the three
// such words in the long recordings were right, and the rest of their
// sentence was what lay wrong.
func unstrand(words []Word, txt *normalize.Text) {
	n := len(words)
	if n != len(txt.Tokens) {
		return
	}
	placed := func(k int) bool { return k >= 0 && k < n && words[k].Status != StatusInterpolated }
	near := func(k, step int) int { // the nearest placed word from k on, stepping by step
		for ; k >= 0 && k < n; k += step {
			if placed(k) {
				return k
			}
		}
		return -1
	}
	move := func(w *Word, a, b float64) {
		placeUncertain(w, a, b)
		demote(w)
	}
	share := func(a, b *Word) float64 { // a's share of a span a and b split by characters
		na, nb := max(1, len(a.Chars)), max(1, len(b.Chars))
		return float64(na) / float64(na+nb)
	}
	for k := 1; k+1 < n; k++ {
		starts := txt.Tokens[k-1].Ends && !txt.Tokens[k].Ends
		ends := txt.Tokens[k].Ends && !txt.Tokens[k-1].Ends
		w := &words[k]
		if !placed(k) || !starts && !ends {
			continue
		}
		if starts {
			p, q := near(k-1, -1), k+1
			if p < 0 || !placed(q) || w.Start-words[p].End >= strayAbut || words[q].Start-w.End <= strayGap {
				continue
			}
			nx := &words[q]
			cut := nx.Start + (nx.End-nx.Start)*share(w, nx)
			move(w, nx.Start, cut)
			nx.Start = cut
			clampChars(nx)
		} else {
			p, q := k-1, near(k+1, 1)
			if q < 0 || !placed(p) || w.Start-words[p].End <= strayGap || words[q].Start-w.End >= strayAbut && w.Start-words[p].End <= strayFar {
				continue
			}
			pv := &words[p]
			cut := pv.End - (pv.End-pv.Start)*share(w, pv)
			move(w, cut, pv.End)
			pv.End = cut
			clampChars(pv)
		}
	}
}
