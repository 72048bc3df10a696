package align

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"syscall"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// mkWord makes an aligned word whose characters share its time equally.
func mkWord(text string, start, end, conf float64) Word {
	w := Word{Word: text, Start: start, End: end, Confidence: conf, Status: StatusAligned, Chars: []Char{}}
	var letters []rune
	for _, r := range strings.ToLower(text) {
		if r >= 'a' && r <= 'z' || r == '\'' {
			letters = append(letters, r)
		}
	}
	for i, r := range letters {
		d := (end - start) / float64(len(letters))
		w.Chars = append(w.Chars, Char{Char: string(r), Start: start + float64(i)*d, End: start + float64(i+1)*d})
	}
	return w
}

// sampleResult is the fixture of the writer tests: short words with a
// pause, a quoted word, a zero-length token, an interpolated word and a long
// pause-free run that must be split by the caption limits.
func sampleResult() *Result {
	words := []Word{
		mkWord("Dr.", 0.5, 0.8, 0.91),
		mkWord("Smith", 0.85, 1.2, 0.88),
		mkWord("said", 1.25, 1.5, 0.8),
		mkWord(`"hi"`, 1.55, 1.8, 0.75),
		{Word: "—", Start: 1.8, End: 1.8, Status: StatusInterpolated, Chars: []Char{}},
		mkWord("&", 2.4, 2.6, 0.7),
	}
	words[5].Status = StatusInterpolated
	t := 2.7
	for _, w := range strings.Fields("then everybody went home because it was getting rather late in the evening and nobody wanted to stay") {
		d := 0.1 + 0.05*float64(len(w))
		words = append(words, mkWord(w, t, t+d, 0.9))
		t += d + 0.05
	}
	return &Result{File: "/data/talk one.wav", Duration: math.Ceil(t), Words: words}
}

func TestWritersGolden(t *testing.T) {
	r := sampleResult()
	for _, name := range FormatNames() {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Formats[name].Write(&buf, r); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "golden", "sample"+Formats[name].Ext)
			if *update {
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("output differs from %s (run with -update after checking):\n%s", path, buf.String())
			}
		})
	}
}

func TestWriteJSONFields(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, sampleResult()); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	keys := func(m map[string]any) []string {
		var k []string
		for key := range m {
			k = append(k, key)
		}
		sort.Strings(k)
		return k
	}
	if got, want := keys(doc), []string{"duration", "file", "words"}; !reflect.DeepEqual(got, want) {
		t.Errorf("top-level keys %v, want %v", got, want)
	}
	w0 := doc["words"].([]any)[0].(map[string]any)
	if got, want := keys(w0), []string{"chars", "confidence", "end", "start", "status", "word"}; !reflect.DeepEqual(got, want) {
		t.Errorf("word keys %v, want %v", got, want)
	}
	c0 := w0["chars"].([]any)[0].(map[string]any)
	if got, want := keys(c0), []string{"char", "end", "start"}; !reflect.DeepEqual(got, want) {
		t.Errorf("char keys %v, want %v", got, want)
	}
	var back Result
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	const tol = 5e-4
	orig := sampleResult()
	for i, w := range back.Words {
		if w.Word != orig.Words[i].Word || math.Abs(w.Start-orig.Words[i].Start) > tol || math.Abs(w.End-orig.Words[i].End) > tol {
			t.Errorf("word %d round trip: %+v vs %+v", i, w, orig.Words[i])
		}
	}
}

func TestBuildCues(t *testing.T) {
	seq := func(text string, start, dur, gap float64) []Word {
		var ws []Word
		for _, w := range strings.Fields(text) {
			ws = append(ws, mkWord(w, start, start+dur, 1))
			start += dur + gap
		}
		return ws
	}
	tests := []struct {
		name  string
		words []Word
		want  []string
	}{
		{"one cue", seq("a short line", 0, 0.2, 0.1), []string{"a short line"}},
		{"pause splits", append(seq("before the pause", 0, 0.2, 0.1), seq("after it", 1.2, 0.2, 0.1)...),
			[]string{"before the pause", "after it"}},
		{"small gap keeps", append(seq("before the pause", 0, 0.2, 0.1), seq("after it", 0.9, 0.2, 0.1)...),
			[]string{"before the pause after it"}},
		{"42 characters", seq("aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk", 0, 0.2, 0.05),
			[]string{"aaaa bbbb cccc dddd eeee", "ffff gggg hhhh iiii jjjj kkkk"}},
		{"prefers the larger gap", append(seq("aaaa bbbb cccc dddd", 0, 0.2, 0.05), seq("eeee ffff gggg hhhh iiii jjjj kkkk", 1.2, 0.2, 0.05)...),
			[]string{"aaaa bbbb cccc dddd", "eeee ffff gggg hhhh iiii jjjj kkkk"}},
		{"7 seconds", seq("a b c d e f g h", 0, 0.9, 0.1), []string{"a b c d", "e f g h"}},
		{"long word alone", seq("supercalifragilisticexpialidocious-and-then-some x", 0, 0.2, 0.1),
			[]string{"supercalifragilisticexpialidocious-and-then-some", "x"}},
		{"empty word skipped", []Word{mkWord("a", 0, 0.1, 1), {Word: "", Start: 0.1, End: 0.1}, mkWord("b", 0.2, 0.3, 1)}, []string{"a b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range buildCues(tt.words) {
				got = append(got, cueText(c, false))
				if len(c.words) > 1 && (textLen(c.words) > CaptionMaxChars || c.end()-c.start() > CaptionMaxSec) {
					t.Errorf("cue %q breaks the limits", cueText(c, false))
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("cues %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCueTextVTT(t *testing.T) {
	c := cue{words: []Word{mkWord("a<b", 1, 1.5, 1), mkWord("&c", 1.5, 2, 1), mkWord("d", 2.25, 2.5, 1)}}
	if got, want := cueText(c, true), "a&lt;b <00:00:01.500>&amp;c <00:00:02.250>d"; got != want {
		t.Errorf("cueText = %q, want %q", got, want)
	}
	if got, want := clock(3723.4567, ','), "01:02:03,457"; got != want {
		t.Errorf("clock = %q, want %q", got, want)
	}
}

func TestTierIntervals(t *testing.T) {
	got := tierIntervals([]interval{{0.5, 1, "a"}, {1, 1, "zero"}, {0.9, 1.5, "overlap"}, {2, 2.5, "b"}}, 3)
	want := []interval{{0, 0.5, ""}, {0.5, 1, "a"}, {1, 1.5, "overlap"}, {1.5, 2, ""}, {2, 2.5, "b"}, {2.5, 3, ""}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tierIntervals = %v, want %v", got, want)
	}
	if got, want := textGridString(`say "hi"`), `"say ""hi"""`; got != want {
		t.Errorf("textGridString = %s, want %s", got, want)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(r *Result)
		ok   bool
	}{
		{"sample", func(*Result) {}, true},
		{"nan", func(r *Result) { r.Words[0].Start = math.NaN() }, false},
		{"negative", func(r *Result) { r.Words[0].Start = -1 }, false},
		{"reversed", func(r *Result) { r.Words[1].End = r.Words[1].Start - 0.1 }, false},
		{"back in time", func(r *Result) { r.Words[2].Start, r.Words[2].End = 0.1, 0.2 }, false},
		{"confidence", func(r *Result) { r.Words[0].Confidence = 1.5 }, false},
		{"char", func(r *Result) { r.Words[0].Chars[0].End = -1 }, false},
		{"duration", func(r *Result) { r.Duration = math.Inf(1) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := sampleResult()
			tt.edit(r)
			if err := r.Validate(); (err == nil) != tt.ok {
				t.Errorf("Validate() = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := WriteFile(path, "json", sampleResult()); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bad := sampleResult()
	bad.Words[0].End = math.NaN()
	if err := WriteFile(path, "json", bad); err == nil {
		t.Fatal("no error for an invalid result")
	}
	if err := WriteFile(path, "nope", sampleResult()); err == nil || !strings.Contains(err.Error(), "textgrid") {
		t.Fatalf("unknown format: err = %v, want one listing the formats", err)
	}
	if err := WriteFile(filepath.Join(dir, "missing", "x.json"), "json", sampleResult()); err == nil {
		t.Fatal("no error for a missing directory")
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(good, after) {
		t.Error("failed write changed the existing file")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only out.json (temp files left?)", len(entries))
	}
}

// TestWriteFileMode checks that a new file's mode follows the umask and a
// replaced file keeps its mode (issue 16: -o and --plot always wrote 0644).
func TestWriteFileMode(t *testing.T) {
	defer syscall.Umask(syscall.Umask(0o022))
	dir := t.TempDir()
	for _, tc := range []struct {
		umask int
		old   os.FileMode // 0: no file before
		want  os.FileMode
	}{
		{0o022, 0, 0o644},
		{0o077, 0, 0o600},
		{0o027, 0, 0o640},
		{0o022, 0o600, 0o600},
		{0o077, 0o644, 0o644},
		{0o022, 0o755, 0o755},
	} {
		path := filepath.Join(dir, fmt.Sprintf("u%o_m%o.json", tc.umask, tc.old))
		if tc.old != 0 {
			if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, tc.old); err != nil {
				t.Fatal(err)
			}
		}
		syscall.Umask(tc.umask)
		err := WriteFile(path, "json", sampleResult())
		syscall.Umask(0o022)
		if err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != tc.want {
			t.Errorf("umask %03o, old mode %v: mode %v, %v; want %v", tc.umask, tc.old, fi.Mode().Perm(), err, tc.want)
		}
	}
}
