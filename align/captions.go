package align

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"
)

// Caption limits used by WriteSRT and WriteVTT.
const (
	// CaptionMaxChars is the longest caption text in characters.
	CaptionMaxChars = 42
	// CaptionMaxSec is the longest caption duration in seconds.
	CaptionMaxSec = 7.0
	// CaptionPauseSec is the pause between words (seconds) that always
	// starts a new caption.
	CaptionPauseSec = 0.3
)

// cue is one caption: a run of consecutive words.
type cue struct {
	words []Word
}

func (c cue) start() float64 { return c.words[0].Start }
func (c cue) end() float64   { return c.words[len(c.words)-1].End }

// textLen is the length in runes of the words joined by single spaces.
func textLen(words []Word) int {
	n := len(words) - 1
	for _, w := range words {
		n += len([]rune(oneLine(w.Word)))
	}
	return n
}

// fits reports whether words make a caption within the limits.
func fits(words []Word) bool {
	return len(words) == 1 || textLen(words) <= CaptionMaxChars &&
		words[len(words)-1].End-words[0].Start <= CaptionMaxSec
}

// buildCues groups words into captions: first at every pause longer than
// CaptionPauseSec, then, while a group exceeds CaptionMaxChars or
// CaptionMaxSec, at the word gap that best combines a long pause with an
// even split of the characters. A single word is never split. Words with
// empty text are left out.
func buildCues(words []Word) []cue {
	var cues []cue
	var phrase []Word
	flush := func() {
		if len(phrase) > 0 {
			cues = splitPhrase(cues, phrase)
			phrase = nil
		}
	}
	for _, w := range words {
		if strings.TrimSpace(oneLine(w.Word)) == "" {
			continue
		}
		if len(phrase) > 0 && w.Start-phrase[len(phrase)-1].End > CaptionPauseSec {
			flush()
		}
		phrase = append(phrase, w)
	}
	flush()
	return cues
}

// splitPhrase appends the captions of one pause-free phrase to dst.
func splitPhrase(dst []cue, words []Word) []cue {
	if fits(words) {
		return append(dst, cue{words: words})
	}
	total := float64(textLen(words))
	best, bestScore := 1, math.Inf(-1)
	for k := 1; k < len(words); k++ {
		gap := words[k].Start - words[k-1].End
		balance := math.Abs(float64(textLen(words[:k])-textLen(words[k:]))) / total
		score := math.Min(gap, CaptionPauseSec)/CaptionPauseSec - balance
		if score > bestScore {
			best, bestScore = k, score
		}
	}
	dst = splitPhrase(dst, words[:best])
	return splitPhrase(dst, words[best:])
}

// clock formats t seconds as HH:MM:SS<sep>mmm.
func clock(t float64, sep byte) string {
	ms := int64(math.Round(math.Max(t, 0) * 1000))
	return fmt.Sprintf("%02d:%02d:%02d%c%03d", ms/3_600_000, ms/60_000%60, ms/1000%60, sep, ms%1000)
}

// cueTimes returns a cue's start and end in milliseconds, the end at least
// 1 ms after the start.
func cueTimes(c cue) (start, end int64) {
	start = int64(math.Round(c.start() * 1000))
	end = int64(math.Round(c.end() * 1000))
	return start, max(end, start+1)
}

// WriteSRT writes r as SubRip captions: numbered cues with
// "00:00:01,234 --> 00:00:02,345" times, at most CaptionMaxChars characters
// and CaptionMaxSec seconds each, split preferably at pauses between words.
func WriteSRT(w io.Writer, r *Result) error {
	if err := r.Validate(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	for i, c := range buildCues(r.Words) {
		s, e := cueTimes(c)
		fmt.Fprintf(bw, "%d\n%s --> %s\n%s\n\n", i+1, clock(float64(s)/1000, ','), clock(float64(e)/1000, ','), cueText(c, false))
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("align: srt: %w", err)
	}
	return nil
}

// WriteVTT writes r as WebVTT captions: a WEBVTT header, then cues with
// "00:00:01.234 --> 00:00:02.345" times (same splitting as WriteSRT) whose
// text carries each later word's start as an inline timestamp,
// "one <00:00:01.500>two", where it falls strictly inside the cue and after
// the previous timestamp. &, < and > are escaped.
func WriteVTT(w io.Writer, r *Result) error {
	if err := r.Validate(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("WEBVTT\n\n")
	for _, c := range buildCues(r.Words) {
		s, e := cueTimes(c)
		fmt.Fprintf(bw, "%s --> %s\n%s\n\n", clock(float64(s)/1000, '.'), clock(float64(e)/1000, '.'), cueText(c, true))
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("align: vtt: %w", err)
	}
	return nil
}

var vttEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// cueText joins the cue's words; for WebVTT it escapes them and adds inline
// word timestamps.
func cueText(c cue, vtt bool) string {
	var b strings.Builder
	last, end := cueTimes(c)
	for i, w := range c.words {
		if i > 0 {
			b.WriteByte(' ')
		}
		text := oneLine(w.Word)
		if !vtt {
			b.WriteString(text)
			continue
		}
		if ms := int64(math.Round(w.Start * 1000)); i > 0 && ms > last && ms < end {
			b.WriteString("<" + clock(float64(ms)/1000, '.') + ">")
			last = ms
		}
		b.WriteString(vttEscaper.Replace(text))
	}
	return b.String()
}
