package align

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// These tests check the exports with the real tools when they are installed
// (Debian packages praat, ffmpeg, sctk). They skip when a tool is missing,
// unless HEED_REQUIRE_TOOLS=1, which makes a missing tool a failure.

// tool returns the path of the first of names found on PATH.
func tool(t *testing.T, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if os.Getenv("HEED_REQUIRE_TOOLS") == "1" {
		t.Fatalf("%s not installed and HEED_REQUIRE_TOOLS=1", strings.Join(names, " or "))
	}
	t.Skipf("%s not installed (set HEED_REQUIRE_TOOLS=1 to require it)", strings.Join(names, " or "))
	return ""
}

// writeSample writes sampleResult in the named format to dir and returns the
// file path.
func writeSample(t *testing.T, dir, format string, r *Result) string {
	t.Helper()
	path := filepath.Join(dir, "sample"+Formats[format].Ext)
	if err := WriteFile(path, format, r); err != nil {
		t.Fatal(err)
	}
	return path
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String()
}

func TestToolPraat(t *testing.T) {
	praat := tool(t, "praat", "praat_nogui")
	r := sampleResult()
	path := writeSample(t, t.TempDir(), "textgrid", r)
	script, err := filepath.Abs(filepath.Join("testdata", "textgrid_dump.praat"))
	if err != nil {
		t.Fatal(err)
	}
	out := run(t, praat, "--run", script, path)
	// Expected word labels: every word in order; a word without duration
	// shares the label of the word before it.
	var want []string
	for _, w := range r.Words {
		if w.End > w.Start || len(want) == 0 {
			want = append(want, w.Word)
		} else {
			want[len(want)-1] += " " + w.Word
		}
	}
	var got []string
	tiers := map[string]int{}
	prevEnd := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		switch {
		case strings.HasPrefix(line, "tier "):
			n, _ := strconv.Atoi(f[2])
			tiers[f[1]] = n
		case strings.HasPrefix(line, "interval "):
			// interval TIER INDEX START END [LABEL]
			label := line[strings.Index(line, "[")+1 : strings.LastIndex(line, "]")]
			if f[1] == "1" && label != "" {
				got = append(got, label)
			}
			start, end := f[3], f[4]
			if p, ok := prevEnd[f[1]]; ok && p != start {
				t.Errorf("tier %s interval %s starts at %s, previous ended at %s", f[1], f[2], start, p)
			}
			prevEnd[f[1]] = end
		}
	}
	if tiers["words"] == 0 || tiers["chars"] == 0 {
		t.Fatalf("praat saw tiers %v, want words and chars:\n%s", tiers, out)
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("praat word labels\n got %q\nwant %q", got, want)
	}
}

// ffmpegCues converts a caption file to ASS with ffmpeg and returns the
// text of its Dialogue lines.
func ffmpegCues(t *testing.T, ffmpeg, path string) []string {
	t.Helper()
	out := run(t, ffmpeg, "-nostdin", "-v", "error", "-i", path, "-f", "ass", "-")
	var cues []string
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "Dialogue: "); ok {
			// Text is the tenth comma-separated field.
			cues = append(cues, strings.TrimSpace(strings.SplitN(rest, ",", 10)[9]))
		}
	}
	return cues
}

func TestToolFFmpegCaptions(t *testing.T) {
	ffmpeg := tool(t, "ffmpeg")
	r := sampleResult()
	want := buildCues(r.Words)
	assTag := regexp.MustCompile(`\{[^}]*\}`)
	for _, format := range []string{"srt", "vtt"} {
		t.Run(format, func(t *testing.T) {
			path := writeSample(t, t.TempDir(), format, r)
			cues := ffmpegCues(t, ffmpeg, path)
			if len(cues) != len(want) {
				t.Fatalf("ffmpeg read %d cues, want %d: %q", len(cues), len(want), cues)
			}
			for i, c := range cues {
				text := assTag.ReplaceAllString(c, "")
				if text != cueText(want[i], false) {
					t.Errorf("cue %d: ffmpeg text %q, want %q", i, text, cueText(want[i], false))
				}
			}
		})
	}
}

// scliteErr scores hyp.ctm against ref.stm with sclite and returns the
// Sum/Avg word error rate in percent and the number of reference words.
func scliteErr(t *testing.T, dir string) (wer float64, words int) {
	t.Helper()
	var out string
	if p, err := exec.LookPath("sclite"); err == nil {
		out = run(t, p, "-r", filepath.Join(dir, "ref.stm"), "stm", "-h", filepath.Join(dir, "hyp.ctm"), "ctm", "-o", "sum", "stdout")
	} else {
		out = run(t, tool(t, "sctk"), "sclite", "-r", filepath.Join(dir, "ref.stm"), "stm", "-h", filepath.Join(dir, "hyp.ctm"), "ctm", "-o", "sum", "stdout")
	}
	// | Sum/Avg|    1     24 |100.0    0.0    0.0    0.0    0.0    0.0 | ...
	re := regexp.MustCompile(`\|\s*Sum/Avg\s*\|\s*(\d+)\s+(\d+)\s*\|\s*([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)`)
	m := re.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no Sum/Avg line in sclite output:\n%s", out)
	}
	words, _ = strconv.Atoi(m[2])
	wer, _ = strconv.ParseFloat(m[7], 64)
	return wer, words
}

func TestToolScliteCTM(t *testing.T) {
	tool(t, "sclite", "sctk")
	r := sampleResult()
	var ref []string
	for _, w := range r.Words {
		ref = append(ref, w.Word)
	}
	tests := []struct {
		name    string
		ref     []string
		wantErr bool
	}{
		{"same words", ref, false},
		{"one substitution", append(append([]string{}, ref[:3]...), append([]string{"other"}, ref[4:]...)...), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := WriteFile(filepath.Join(dir, "hyp.ctm"), "ctm", r); err != nil {
				t.Fatal(err)
			}
			stm := fmt.Sprintf("%s 1 spk 0.000 %.3f %s\n", ctmName(r.File), r.Duration, strings.Join(tt.ref, " "))
			if err := os.WriteFile(filepath.Join(dir, "ref.stm"), []byte(stm), 0o644); err != nil {
				t.Fatal(err)
			}
			wer, n := scliteErr(t, dir)
			if n != len(tt.ref) {
				t.Errorf("sclite counted %d reference words, want %d", n, len(tt.ref))
			}
			if (wer > 0) != tt.wantErr {
				t.Errorf("sclite WER %.1f%%, want error=%v", wer, tt.wantErr)
			}
		})
	}
}
