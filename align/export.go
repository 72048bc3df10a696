package align

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Writer writes a Result in one file format.
type Writer func(w io.Writer, r *Result) error

// Format is an output format: its file extension (with the dot) and writer.
type Format struct {
	Ext   string
	Write Writer
}

// Formats lists the output formats by name.
var Formats = map[string]Format{
	"json":     {".json", WriteJSON},
	"ctm":      {".ctm", WriteCTM},
	"textgrid": {".TextGrid", WriteTextGrid},
	"srt":      {".srt", WriteSRT},
	"vtt":      {".vtt", WriteVTT},
	"audacity": {".txt", WriteAudacity},
	"tsv":      {".tsv", WriteTSV},
}

// FormatNames returns the names of Formats, sorted.
func FormatNames() []string {
	names := make([]string, 0, len(Formats))
	for name := range Formats {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// WriteFile writes r to path in the named format (a key of Formats). It
// writes a temporary file in the same directory and renames it over path, so
// an existing file survives any failure.
func WriteFile(path, format string, r *Result) error {
	f, ok := Formats[format]
	if !ok {
		return fmt.Errorf("align: unknown format %q (have %s)", format, strings.Join(FormatNames(), ", "))
	}
	return WriteAtomic(path, func(w io.Writer) error { return f.Write(w, r) })
}

// WriteAtomic writes a file through write into a temporary file in the same
// directory (named ".BASE.tmp-*"), syncs it and renames it to path. On
// failure the temporary file is removed and path is untouched; a crash or
// kill leaves at most that hidden temporary file, never a partial path. A
// new file gets mode 0666 less the umask, as os.Create would give it; a
// file replaced keeps its mode.
func WriteAtomic(path string, write func(io.Writer) error) (err error) {
	tmp, err := createTemp(path)
	if err != nil {
		return fmt.Errorf("align: write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			err = fmt.Errorf("align: write %s: %w", path, err)
		}
	}()
	bw := bufio.NewWriter(tmp)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		if err := tmp.Chmod(fi.Mode().Perm()); err != nil {
			return err
		}
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// createTemp creates a new file next to path, named after it, with mode
// 0666 less the umask (os.CreateTemp would make it 0600).
func createTemp(path string) (*os.File, error) {
	dir, base := filepath.Split(path)
	for range 1000 {
		name := filepath.Join(dir, "."+base+".tmp-"+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("cannot create a temporary file next to %s", path)
}

// round3 rounds x to three decimals (milliseconds for times).
func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// Rounded returns a copy of r with times rounded to 1 ms and confidences to
// 0.001, and an empty (not nil) Chars for words without characters.
func (r *Result) Rounded() Result {
	out := Result{File: r.File, Duration: round3(r.Duration), Words: make([]Word, len(r.Words))}
	if r.AlignedShare != nil {
		v := round3(*r.AlignedShare)
		out.AlignedShare = &v
	}
	for i, wd := range r.Words {
		chars := make([]Char, len(wd.Chars))
		for j, c := range wd.Chars {
			chars[j] = Char{Char: c.Char, Start: round3(c.Start), End: round3(c.End)}
		}
		out.Words[i] = Word{
			Word: wd.Word, Spoken: wd.Spoken, Start: round3(wd.Start), End: round3(wd.End),
			Confidence: round3(wd.Confidence), Status: wd.Status, Chars: chars,
		}
	}
	return out
}

// WriteJSON writes r as indented JSON:
//
//	{"file","duration","words":[{"word","spoken","start","end","confidence","status","chars":[{"char","start","end"}]}]}
//
// "spoken" (the reading aligned) is left out for words read as written.
// Times are rounded to 1 ms and confidences to 0.001; a word without
// characters has "chars": [].
func WriteJSON(w io.Writer, r *Result) error {
	if err := r.Validate(); err != nil {
		return err
	}
	out := r.Rounded()
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&out); err != nil {
		return fmt.Errorf("align: json: %w", err)
	}
	return nil
}

// ctmName is the CTM file field: the base name of the audio file without
// its extension, "audio" when there is none, white space replaced by '_'.
func ctmName(file string) string {
	base := filepath.Base(file)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	if base == "" || base == "." || base == string(filepath.Separator) {
		base = "audio"
	}
	return ctmField(base)
}

// ctmField replaces white space and control characters with '_'.
func ctmField(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return '_'
		}
		return r
	}, s)
}

// WriteCTM writes r in NIST CTM format, one word a line:
//
//	file 1 start duration word confidence
//
// with file the base name of r.File without extension, channel 1, times in
// seconds with three decimals. Words with empty text are skipped; white space
// inside a word becomes '_'. The file loads in sclite (`-h file.ctm ctm`).
func WriteCTM(w io.Writer, r *Result) error {
	if err := r.Validate(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	name := ctmName(r.File)
	for _, wd := range r.Words {
		if wd.Word == "" {
			continue
		}
		start := round3(wd.Start)
		fmt.Fprintf(bw, "%s 1 %.3f %.3f %s %.3f\n", name, start, math.Max(0, round3(wd.End)-start), ctmField(wd.Word), wd.Confidence)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("align: ctm: %w", err)
	}
	return nil
}

// interval is one labelled interval of a TextGrid tier.
type interval struct {
	start, end float64
	label      string
}

// tierIntervals makes a contiguous tier covering [0, xmax] from labelled
// spans in time order: gaps become empty intervals, spans are clipped so they
// do not overlap, and spans left with no duration (Praat intervals must be
// longer than zero) are dropped. Times are rounded to 1 µs.
func tierIntervals(spans []interval, xmax float64) []interval {
	const us = 1e6
	rnd := func(x float64) float64 { return math.Round(x*us) / us }
	var out []interval
	cursor := 0.0
	for _, s := range spans {
		start, end := math.Max(rnd(s.start), cursor), math.Min(rnd(s.end), xmax)
		if end <= start {
			continue
		}
		if start > cursor {
			out = append(out, interval{cursor, start, ""})
		}
		out = append(out, interval{start, end, s.label})
		cursor = end
	}
	if cursor < xmax {
		out = append(out, interval{cursor, xmax, ""})
	}
	return out
}

// textGridString quotes s for a TextGrid: double quotes are doubled.
func textGridString(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// WriteTextGrid writes r as a Praat long-format TextGrid with two interval
// tiers, "words" and "chars", each covering 0..xmax contiguously (xmax is
// the duration or the last end, whichever is later); gaps are empty
// intervals. Praat intervals must be longer than zero: a word with zero
// duration is joined to the label of the previous word (or the next, at the
// start), so every token still appears; characters with zero duration are
// left out. It fails when xmax is zero.
func WriteTextGrid(w io.Writer, r *Result) error {
	if err := r.Validate(); err != nil {
		return err
	}
	xmax := math.Round(r.end()*1e6) / 1e6
	if xmax <= 0 {
		return errors.New("align: textgrid: result has zero duration")
	}
	var words, chars []interval
	pending := "" // labels of zero-length words before the first interval
	for _, wd := range r.Words {
		switch {
		case math.Round(wd.End*1e6) > math.Round(wd.Start*1e6):
			label := wd.Word
			if pending != "" {
				label, pending = pending+" "+label, ""
			}
			words = append(words, interval{wd.Start, wd.End, label})
		case len(words) > 0:
			// Praat intervals cannot be empty: a word without duration
			// joins the label of the previous one, so no token is lost.
			words[len(words)-1].label += " " + wd.Word
		case pending == "":
			pending = wd.Word
		default:
			pending += " " + wd.Word
		}
		for _, c := range wd.Chars {
			chars = append(chars, interval{c.Start, c.End, c.Char})
		}
	}
	if pending != "" { // no word has a duration
		words = []interval{{0, xmax, pending}}
	}
	tiers := []struct {
		name      string
		intervals []interval
	}{
		{"words", tierIntervals(words, xmax)},
		{"chars", tierIntervals(chars, xmax)},
	}
	num := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "File type = \"ooTextFile\"\nObject class = \"TextGrid\"\n\n")
	fmt.Fprintf(bw, "xmin = 0 \nxmax = %s \ntiers? <exists> \nsize = %d \nitem []: \n", num(xmax), len(tiers))
	for i, t := range tiers {
		fmt.Fprintf(bw, "    item [%d]:\n", i+1)
		fmt.Fprintf(bw, "        class = \"IntervalTier\" \n        name = %s \n", textGridString(t.name))
		fmt.Fprintf(bw, "        xmin = 0 \n        xmax = %s \n        intervals: size = %d \n", num(xmax), len(t.intervals))
		for j, iv := range t.intervals {
			fmt.Fprintf(bw, "        intervals [%d]:\n", j+1)
			fmt.Fprintf(bw, "            xmin = %s \n            xmax = %s \n            text = %s \n",
				num(iv.start), num(iv.end), textGridString(iv.label))
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("align: textgrid: %w", err)
	}
	return nil
}

// oneLine replaces control characters and line breaks with spaces.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.IsSpace(r) {
			return ' '
		}
		return r
	}, s)
}

// WriteAudacity writes r as an Audacity label track: "start\tend\tlabel"
// per word, times in seconds with six decimals.
func WriteAudacity(w io.Writer, r *Result) error {
	if err := r.Validate(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	for _, wd := range r.Words {
		fmt.Fprintf(bw, "%.6f\t%.6f\t%s\n", wd.Start, wd.End, oneLine(wd.Word))
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("align: audacity: %w", err)
	}
	return nil
}

// WriteTSV writes r as tab-separated values with the header
// "word\tstart\tend\tconfidence\tstatus", times in seconds with three
// decimals.
func WriteTSV(w io.Writer, r *Result) error {
	if err := r.Validate(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("word\tstart\tend\tconfidence\tstatus\n")
	for _, wd := range r.Words {
		fmt.Fprintf(bw, "%s\t%.3f\t%.3f\t%.3f\t%s\n", oneLine(wd.Word), wd.Start, wd.End, wd.Confidence, wd.Status)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("align: tsv: %w", err)
	}
	return nil
}
