package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/heed-asr/heed/align"
)

// span is one token read back from an alignment export.
type span struct {
	word       string
	start, end float64
}

// formatParsers read every export format back into its tokens, checking
// the format's own layout on the way.
var formatParsers = map[string]func(t *testing.T, out string) []span{
	"json":     parseJSONExport,
	"ctm":      parseCTM,
	"textgrid": parseTextGrid,
	"srt":      func(t *testing.T, out string) []span { return parseCaptions(t, out, false) },
	"vtt":      func(t *testing.T, out string) []span { return parseCaptions(t, out, true) },
	"audacity": parseAudacity,
	"tsv":      parseTSV,
}

// exported is heed align's JSON.
type exported struct {
	File     string  `json:"file"`
	Duration float64 `json:"duration"`
	Words    []struct {
		Word       string  `json:"word"`
		Spoken     string  `json:"spoken"`
		Start      float64 `json:"start"`
		End        float64 `json:"end"`
		Confidence float64 `json:"confidence"`
		Status     string  `json:"status"`
		Chars      []struct {
			Char  string  `json:"char"`
			Start float64 `json:"start"`
			End   float64 `json:"end"`
		} `json:"chars"`
	} `json:"words"`
	AlignedShare *float64 `json:"aligned_share"`
}

func decodeExport(t *testing.T, out string) exported {
	t.Helper()
	var e exported
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		t.Fatalf("not heed align JSON: %v\n%s", err, clip(out))
	}
	return e
}

func parseJSONExport(t *testing.T, out string) []span {
	t.Helper()
	e := decodeExport(t, out)
	var s []span
	for i, w := range e.Words {
		if w.Status != "aligned" && w.Status != "uncertain" && w.Status != "interpolated" {
			t.Errorf("word %d %q: status %q", i+1, w.Word, w.Status)
		}
		if !(w.Confidence >= 0 && w.Confidence <= 1) {
			t.Errorf("word %d %q: confidence %v outside [0, 1]", i+1, w.Word, w.Confidence)
		}
		if w.Chars == nil {
			t.Errorf("word %d %q: chars is null, want a list", i+1, w.Word)
		}
		// "spoken", when given, is the reading whose characters the
		// word's chars are.
		if w.Spoken != "" {
			var chars strings.Builder
			for _, c := range w.Chars {
				chars.WriteString(c.Char)
			}
			if got := strings.ReplaceAll(w.Spoken, " ", ""); got != chars.String() {
				t.Errorf("word %d %q: spoken %q, chars %q", i+1, w.Word, w.Spoken, chars.String())
			}
		}
		s = append(s, span{w.Word, w.Start, w.End})
	}
	return s
}

func parseCTM(t *testing.T, out string) []span {
	t.Helper()
	var s []span
	for i, l := range lines(out) {
		f := strings.Fields(l)
		if len(f) != 6 || f[1] != "1" {
			t.Fatalf("CTM line %d %q: want 6 fields \"FILE 1 START DUR WORD CONF\"", i+1, l)
		}
		start, dur := parseNum(t, f[2]), parseNum(t, f[3])
		parseNum(t, f[5])
		s = append(s, span{f[4], start, start + dur})
	}
	return s
}

var (
	tgInterval = regexp.MustCompile(`(?m)^\s*xmin = (\S+)\s*\n\s*xmax = (\S+)\s*\n\s*text = "((?:[^"]|"")*)"\s*$`)
	tgTier     = regexp.MustCompile(`name = "(\w+)"`)
)

func parseTextGrid(t *testing.T, out string) []span {
	t.Helper()
	if !strings.HasPrefix(out, "File type = \"ooTextFile\"\nObject class = \"TextGrid\"\n") {
		t.Fatalf("not a long TextGrid:\n%.200s", out)
	}
	tiers := tgTier.FindAllStringSubmatchIndex(out, -1)
	if len(tiers) != 2 || out[tiers[0][2]:tiers[0][3]] != "words" || out[tiers[1][2]:tiers[1][3]] != "chars" {
		t.Fatalf("want tiers words and chars, got %d tiers", len(tiers))
	}
	words := out[tiers[0][1]:tiers[1][0]]
	var s []span
	prevEnd := 0.0
	for _, m := range tgInterval.FindAllStringSubmatch(words, -1) {
		lo, hi := parseNum(t, m[1]), parseNum(t, m[2])
		if lo != prevEnd {
			t.Errorf("TextGrid words tier: interval starts at %v, previous ended at %v", lo, prevEnd)
		}
		prevEnd = hi
		if m[3] != "" {
			s = append(s, span{strings.ReplaceAll(m[3], `""`, `"`), lo, hi})
		}
	}
	return s
}

var (
	srtTime   = regexp.MustCompile(`^(\d\d):(\d\d):(\d\d),(\d\d\d) --> (\d\d):(\d\d):(\d\d),(\d\d\d)$`)
	vttTime   = regexp.MustCompile(`^(\d\d):(\d\d):(\d\d)\.(\d\d\d) --> (\d\d):(\d\d):(\d\d)\.(\d\d\d)$`)
	vttInline = regexp.MustCompile(`<\d\d:\d\d:\d\d\.\d\d\d>`)
)

// parseCaptions reads SRT or WebVTT cues. Captions time cues, not words,
// so every token of a cue gets the cue's span.
func parseCaptions(t *testing.T, out string, vtt bool) []span {
	t.Helper()
	re := srtTime
	if vtt {
		re = vttTime
		if !strings.HasPrefix(out, "WEBVTT\n\n") {
			t.Fatalf("WebVTT does not start with \"WEBVTT\\n\\n\":\n%.100s", out)
		}
		out = strings.TrimPrefix(out, "WEBVTT\n\n")
	}
	var s []span
	for i, block := range strings.Split(strings.TrimSpace(out), "\n\n") {
		ls := strings.Split(block, "\n")
		if !vtt {
			if ls[0] != strconv.Itoa(i+1) {
				t.Fatalf("SRT cue %d numbered %q", i+1, ls[0])
			}
			ls = ls[1:]
		}
		if len(ls) < 2 {
			t.Fatalf("cue %d has no text: %q", i+1, block)
		}
		m := re.FindStringSubmatch(ls[0])
		if m == nil {
			t.Fatalf("cue %d timing line %q", i+1, ls[0])
		}
		clock := func(h, mi, sec, ms string) float64 {
			return 3600*parseNum(t, h) + 60*parseNum(t, mi) + parseNum(t, sec) + parseNum(t, ms)/1000
		}
		lo, hi := clock(m[1], m[2], m[3], m[4]), clock(m[5], m[6], m[7], m[8])
		text := strings.Join(ls[1:], " ")
		if vtt {
			text = vttInline.ReplaceAllString(text, "")
			if strings.ContainsAny(text, "<>") {
				t.Errorf("cue %d text has an unescaped < or >: %q", i+1, text)
			}
			text = html.UnescapeString(text)
		}
		if n := len([]rune(text)); n > 42 && len(strings.Fields(text)) > 1 {
			t.Errorf("cue %d holds %d characters, more than 42: %q", i+1, n, text)
		}
		if hi-lo > 7.0005 && len(strings.Fields(text)) > 1 {
			t.Errorf("cue %d lasts %.3f s, more than 7 s", i+1, hi-lo)
		}
		for _, w := range strings.Fields(text) {
			s = append(s, span{w, lo, hi})
		}
	}
	return s
}

func parseAudacity(t *testing.T, out string) []span {
	t.Helper()
	var s []span
	for i, l := range lines(out) {
		f := strings.Split(l, "\t")
		if len(f) != 3 {
			t.Fatalf("label line %d %q: want START<TAB>END<TAB>LABEL", i+1, l)
		}
		s = append(s, span{f[2], parseNum(t, f[0]), parseNum(t, f[1])})
	}
	return s
}

func parseTSV(t *testing.T, out string) []span {
	t.Helper()
	ls := lines(out)
	if len(ls) == 0 || ls[0] != "word\tstart\tend\tconfidence\tstatus" {
		t.Fatalf("TSV header missing:\n%.200s", out)
	}
	var s []span
	for i, l := range ls[1:] {
		f := strings.Split(l, "\t")
		if len(f) != 5 {
			t.Fatalf("TSV line %d %q: want 5 fields", i+2, l)
		}
		parseNum(t, f[3])
		s = append(s, span{f[0], parseNum(t, f[1]), parseNum(t, f[2])})
	}
	return s
}

func parseNum(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q is not a number", s)
	}
	return v
}

// checkSpans checks that spans spell want token by token and that times are
// non-negative and ordered (each start at or after the previous one).
// TestAlign/times_within_the_audio checks the ends against the duration.
func checkSpans(t *testing.T, got []span, want []string) {
	t.Helper()
	// tol is the rounding of times in the exports (1 ms).
	const tol = 1e-3
	var words []string
	for _, s := range got {
		words = append(words, s.word)
	}
	if strings.Join(words, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("tokens differ from the transcript:\n got %q\nwant %q", words, want)
	}
	prev := 0.0
	for i, s := range got {
		if !(s.start >= 0 && s.start <= s.end) || s.start < prev-tol {
			t.Errorf("token %d %q: times %v..%v (previous start %v)", i+1, s.word, s.start, s.end, prev)
		}
		prev = s.start
	}
}

// alignTranscripts are written transcripts whose tokens must come back
// exactly as written.
var alignTranscripts = []struct{ name, text string }{
	{"dr smith", "Dr. Smith paid $42.50 on May 3rd, 1999."},
	{"numbers", "I have 3 cats, 2.5 kg, 1/2 cup, 10:15am, 21st, Mr. & Mrs. O'Neil's $1,000,000 50%"},
	{"escaping", `"Quoted," she said — it's 5:30 p.m. & 100% <done> a\b {x}`},
	{"unicode", "café naïve Zoë 東京 ..."},
	{"whitespace", "  first\tsecond\n\nthird   fourth \r\n"},
	{"one word", "hello"},
}

func TestAlign(t *testing.T) {
	m := writeTinyModel(t)
	dir := t.TempDir()
	wav := writeUtterances(t, dir, 3)[0]
	const duration = 3.0
	for _, tr := range alignTranscripts {
		txt := filepath.Join(dir, strings.ReplaceAll(tr.name, " ", "_")+".txt")
		if err := os.WriteFile(txt, []byte(tr.text), 0o644); err != nil {
			t.Fatal(err)
		}
		want := strings.Fields(tr.text)
		for _, format := range []string{"json", "ctm", "textgrid", "srt", "vtt", "audacity", "tsv"} {
			t.Run(tr.name+"/"+format, func(t *testing.T) {
				r := heed(t, "", "align", "--model", m, "--format", format, wav, txt)
				if r.code != 0 {
					t.Fatalf("exit %d: %s", r.code, r.stderr)
				}
				// The tiny model is untrained: heed may warn that it placed
				// few words, and nothing else.
				if r.stderr != "" && !strings.Contains(r.stderr, "could be placed") {
					t.Errorf("stderr: %q", r.stderr)
				}
				spans := formatParsers[format](t, r.stdout)
				if format == "textgrid" {
					// Praat intervals must be longer than zero, so a
					// token of zero duration shares the label of its
					// neighbour (see align.WriteTextGrid).
					var split []span
					for _, s := range spans {
						for _, f := range strings.Fields(s.word) {
							split = append(split, span{f, s.start, s.end})
						}
					}
					spans = split
				}
				checkSpans(t, spans, want)
			})
		}
	}

	t.Run("every format is tested", func(t *testing.T) {
		var names []string
		for name := range formatParsers {
			names = append(names, name)
		}
		sort.Strings(names)
		if got, want := strings.Join(align.FormatNames(), " "), strings.Join(names, " "); got != want {
			t.Errorf("align offers formats %q, the tests parse %q", got, want)
		}
		r := heed(t, "", "help", "align")
		for _, name := range names {
			if !strings.Contains(r.stdout, name) {
				t.Errorf("align help does not mention format %q", name)
			}
		}
	})

	dr := filepath.Join(cliDir, "dr_smith.txt")
	drWords := strings.Fields(string(readAll(t, dr)))

	t.Run("json fields", func(t *testing.T) {
		// Without variants the spoken form of "Dr." is "doctor"; with
		// them (the default) the audio picks doctor or drive.
		for _, tc := range []struct {
			flag string
			want []string
		}{{"--variants=false", []string{"doctor"}}, {"--variants=true", []string{"doctor", "drive"}}} {
			r := heed(t, "", "align", "--model", m, tc.flag, wav, dr) // json is the default
			if r.code != 0 {
				t.Fatalf("%s: exit %d: %s", tc.flag, r.code, r.stderr)
			}
			e := decodeExport(t, r.stdout)
			if e.File != wav || e.Duration != duration {
				t.Errorf("file %q duration %v, want %q %v", e.File, e.Duration, wav, duration)
			}
			if len(e.Words) == 0 || len(e.Words[0].Chars) == 0 {
				t.Fatalf("%s: first word has no characters: %+v", tc.flag, e.Words)
			}
			var chars []string
			for _, c := range e.Words[0].Chars {
				chars = append(chars, c.Char)
			}
			got := strings.Join(chars, "")
			if !slices.Contains(tc.want, got) || e.Words[0].Spoken != got {
				t.Errorf("%s: characters of %q = %q, spoken %q, want one of %q", tc.flag, e.Words[0].Word, got, e.Words[0].Spoken, tc.want)
			}
			if e.Words[1].Word != "Smith" || e.Words[1].Spoken != "" {
				t.Errorf("%s: second word %q spoken %q, want \"Smith\" without spoken", tc.flag, e.Words[1].Word, e.Words[1].Spoken)
			}
		}
	})

	t.Run("times within the audio", func(t *testing.T) {
		// tol is the rounding of times in the exports (1 ms).
		const tol = 1e-3
		for _, format := range align.FormatNames() {
			r := heed(t, "", "align", "--model", m, "--format", format, wav, dr)
			if r.code != 0 {
				t.Fatalf("%s: exit %d: %s", format, r.code, r.stderr)
			}
			last := 0.0
			for _, s := range formatParsers[format](t, r.stdout) {
				last = max(last, s.end)
			}
			if last > duration+tol {
				t.Errorf("%s: the last token ends at %v s, after the audio's end at %v s", format, last, duration)
			}
		}
		e := decodeExport(t, heed(t, "", "align", "--model", m, wav, dr).stdout)
		for _, w := range e.Words {
			for _, c := range w.Chars {
				if c.Start < w.Start || c.End > w.End || c.Start > c.End {
					t.Errorf("word %q %v..%v: char %q at %v..%v outside it", w.Word, w.Start, w.End, c.Char, c.Start, c.End)
				}
			}
		}
	})

	t.Run("transcript from stdin", func(t *testing.T) {
		r := heed(t, string(readAll(t, dr)), "align", "--model", m, "--format", "tsv", wav, "-")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		checkSpans(t, parseTSV(t, r.stdout), drWords)
	})

	t.Run("audio from stdin", func(t *testing.T) {
		r := heed(t, string(readAll(t, wav)), "align", "--model", m, "--format", "json", "-", dr)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		e := decodeExport(t, r.stdout)
		if e.File != "-" || e.Duration != duration {
			t.Errorf("file %q duration %v, want \"-\" %v", e.File, e.Duration, duration)
		}
		fromFile := heed(t, "", "align", "--model", m, "--format", "tsv", wav, dr)
		fromStdin := heed(t, string(readAll(t, wav)), "align", "--model", m, "--format", "tsv", "-", dr)
		if fromFile.stdout != fromStdin.stdout {
			t.Errorf("stdin and file give different alignments:\n%s\n---\n%s", fromFile.stdout, fromStdin.stdout)
		}
	})

	t.Run("resampled stereo input", func(t *testing.T) {
		for _, f := range []string{"stereo.wav", "r44k.wav", "r8k.wav", "f64.wav"} {
			r := heed(t, "hello world", "align", "--model", m, "--format", "tsv", filepath.Join(audioDir, f), "-")
			if r.code != 0 {
				t.Fatalf("%s: exit %d: %s", f, r.code, r.stderr)
			}
			checkSpans(t, parseTSV(t, r.stdout), []string{"hello", "world"})
		}
	})

	t.Run("-o writes atomically", func(t *testing.T) {
		outDir := t.TempDir()
		for _, format := range []string{"json", "srt", "textgrid"} {
			out := filepath.Join(outDir, "result."+format)
			// An existing file is replaced.
			if err := os.WriteFile(out, []byte("old contents"), 0o600); err != nil {
				t.Fatal(err)
			}
			r := heed(t, "", "align", "--model", m, "--format", format, "-o", out, wav, dr)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("-o: stdout not empty: %q", r.stdout)
			}
			stdout := heed(t, "", "align", "--model", m, "--format", format, wav, dr).stdout
			if got := string(readAll(t, out)); got != stdout {
				t.Errorf("%s: file differs from standard output:\n%s\n---\n%s", format, clip(got), clip(stdout))
			}
			// A replaced file keeps its mode.
			if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("%s: stat %v, %v; want mode 0600, kept from the file replaced", out, fi, err)
			}
		}
		entries, err := os.ReadDir(outDir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if want := "result.json result.srt result.textgrid"; strings.Join(names, " ") != want {
			t.Errorf("directory holds %q, want only %q (no temp files)", names, want)
		}
	})

	t.Run("-o failure leaves nothing", func(t *testing.T) {
		outDir := t.TempDir()
		out := filepath.Join(outDir, "missing-dir", "x.json")
		r := heed(t, "", "align", "--model", m, "-o", out, wav, dr)
		if r.code != 1 || !strings.Contains(r.stderr, out) {
			t.Errorf("exit %d, stderr %q; want 1 naming %s", r.code, r.stderr, out)
		}
		if entries, _ := os.ReadDir(outDir); len(entries) != 0 {
			t.Errorf("left %d entries behind in %s", len(entries), outDir)
		}
	})

	t.Run("--plot writes a PNG", func(t *testing.T) {
		png := filepath.Join(t.TempDir(), "align.png")
		r := heed(t, "", "align", "--model", m, "--format", "tsv", "--plot", png, wav, dr)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		checkSpans(t, parseTSV(t, r.stdout), drWords)
		b := readAll(t, png)
		if !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) || len(b) < 1000 {
			t.Errorf("%s is not a PNG (%d bytes, starts %q)", png, len(b), b[:min(8, len(b))])
		}
	})

	t.Run("--ctc-weight", func(t *testing.T) {
		r := heed(t, "", "align", "--model", m, "--format", "tsv", "--ctc-weight", "0.5", wav, dr)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		checkSpans(t, parseTSV(t, r.stdout), drWords)
	})

	t.Run("long audio split at silences", func(t *testing.T) {
		// 40 s is longer than the aligner's 30 s piece, so the transcript is
		// divided between pieces and stitched: tokens must still come back
		// once each and in order.
		long := filepath.Join(dir, "long.wav")
		writeWAV(t, long, utterance(40, 9), 16000)
		var text []string
		for i := range 12 {
			text = append(text, fmt.Sprintf("Sentence %d: Dr. Smith paid $%d.50 on May 3rd, 1999.", i+1, 40+i))
		}
		r := heed(t, strings.Join(text, "\n"), "align", "--model", m, "--format", "tsv", long, "-")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		checkSpans(t, parseTSV(t, r.stdout), strings.Fields(strings.Join(text, " ")))
	})

	garbage := filepath.Join(cliDir, "garbage.wav")
	adpcm := filepath.Join(audioDir, "ima_adpcm.wav")
	empty := filepath.Join(dir, "empty.txt")
	if err := os.WriteFile(empty, []byte(" \n\t\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runCases(t, []cliCase{
		{name: "missing transcript", args: []string{"align", "--model", m, wav, filepath.Join(dir, "nope.txt")}, code: 1,
			stderr: []string{"heed:", "nope.txt"}, noStdout: true},
		{name: "missing audio", args: []string{"align", "--model", m, filepath.Join(dir, "nope.wav"), dr}, code: 1,
			stderr: []string{"heed:", "nope.wav"}, noStdout: true},
		{name: "garbage audio", args: []string{"align", "--model", m, garbage, dr}, code: 1,
			stderr: []string{"heed: " + garbage + ": not a WAV file"}, noStdout: true},
		{name: "unsupported audio", args: []string{"align", "--model", m, adpcm, dr}, code: 1,
			stderr: []string{"heed: " + adpcm + ": unsupported"}, noStdout: true},
		{name: "empty transcript", args: []string{"align", "--model", m, wav, empty}, code: 1,
			stderr: []string{"heed: " + empty + ":", "empty"}, noStdout: true},
		{name: "transcript is a directory", args: []string{"align", "--model", m, wav, dir}, code: 1,
			stderr: []string{"heed:", dir}, noStdout: true},
		{name: "truncated audio warns", args: []string{"align", "--model", m, "--format", "tsv", filepath.Join(cliDir, "truncated.wav"), dr}, code: 0,
			stdout: []string{"Dr.\t", "1999.\t"}, stderr: []string{"heed: warning: " + filepath.Join(cliDir, "truncated.wav")}},
		{name: "no samples", args: []string{"align", "--model", m, "--format", "tsv", filepath.Join(cliDir, "header_only.wav"), dr}, code: 0,
			stdout: []string{"Dr.\t", "1999.\t"}},
		{name: "no samples plot", args: []string{"align", "--model", m, "--plot", filepath.Join(dir, "p.png"), filepath.Join(cliDir, "header_only.wav"), dr}, code: 1,
			stderr: []string{"heed:", "header_only.wav", "nothing to plot"}, noStdout: true},
	})
}

// TestEvalAlignWritten runs heed eval align on a manifest whose gold words
// are the tokens of its "written" text: the written text is aligned, so
// there is one boundary pair per written token, with and without variants.
func TestEvalAlignWritten(t *testing.T) {
	m := writeTinyModel(t)
	dir := t.TempDir()
	wav := filepath.Join(dir, "a.wav")
	writeWAV(t, wav, utterance(3, 5), 16000)
	line := `{"audio":"a.wav","text":"doctor smith paid two thousand nineteen dollars","written":"Dr. Smith paid $2,019.",` +
		`"words":[{"word":"Dr.","start":0.1,"end":0.5},{"word":"Smith","start":0.5,"end":0.9},{"word":"paid","start":1,"end":1.3},{"word":"$2,019.","start":1.3,"end":2.8}]}` + "\n"
	man := filepath.Join(dir, "m.jsonl")
	if err := os.WriteFile(man, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"--variants=true", "--variants=false"} {
		r := heed(t, "", "eval", "align", "--model", m, "--json", "--jobs", "1", v, man)
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", v, r.code, r.stderr)
		}
		var row struct {
			Boundaries struct {
				N int `json:"n"`
			} `json:"boundaries"`
		}
		if err := json.Unmarshal([]byte(lines(r.stdout)[0]), &row); err != nil || row.Boundaries.N != 8 {
			t.Errorf("%s: %d boundaries (%v), want 8 (4 written tokens): %s", v, row.Boundaries.N, err, r.stdout)
		}
	}
}
