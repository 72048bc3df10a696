package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heed-asr/heed/model/train"
)

// TestEmbeddedModel, TestAlignNoSpeech and TestCompressedInput are the
// tests that use the embedded English model. TestEmbeddedModel checks that transcribing a short spoken clip without --model exits 0 with non-empty
// text. It checks that the model is embedded, loads and runs, not its
// accuracy. testdata/hello.wav is used when the repository has one,
// otherwise testdata/cli/hello.wav (eSpeak NG, see its README).
func TestEmbeddedModel(t *testing.T) {
	wav := filepath.Join("..", "..", "testdata", "hello.wav")
	if _, err := os.Stat(wav); err != nil {
		wav = filepath.Join(cliDir, "hello.wav")
	}
	r := heed(t, "", "transcribe", wav)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got := lines(r.stdout); len(got) != 1 || strings.TrimSpace(got[0]) == "" {
		t.Errorf("want one line of non-empty text, got %q", r.stdout)
	}
}

// TestAlignNoSpeech aligns a transcript against audio that holds no speech:
// three seconds of digital silence. No word may be "aligned" (until
// 2026-12-05 the paths agreed on the silence and gave each word 0.85),
// every word gets confidence 0, and a warning names the transcript. A
// transcript with no letter the model spells is interpolated, with a
// warning of its own.
func TestAlignNoSpeech(t *testing.T) {
	dir := t.TempDir()
	wav := filepath.Join(dir, "silence.wav")
	writeWAV(t, wav, make([]float32, 3*16000), 16000)
	txt := filepath.Join(dir, "hello.txt")
	if err := os.WriteFile(txt, []byte("hello big world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := heed(t, "", "align", wav, txt)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var res struct {
		Words []struct {
			Word       string  `json:"word"`
			Confidence float64 `json:"confidence"`
			Status     string  `json:"status"`
		} `json:"words"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	if len(res.Words) != 3 {
		t.Fatalf("%d words, want 3: %s", len(res.Words), r.stdout)
	}
	for _, w := range res.Words {
		if w.Status == "aligned" || w.Confidence != 0 {
			t.Errorf("%q on silence: %s at confidence %.3f, want not aligned at 0", w.Word, w.Status, w.Confidence)
		}
	}
	if !strings.Contains(r.stderr, "only 0 of 3 words") || !strings.Contains(r.stderr, txt) {
		t.Errorf("stderr %q: want a warning that no word of %s could be placed", r.stderr, txt)
	}

	zh := filepath.Join(dir, "zh.txt")
	if err := os.WriteFile(zh, []byte("这是中文的句子\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wav = filepath.Join("..", "..", "testdata", "hello.wav")
	if _, err := os.Stat(wav); err != nil {
		wav = filepath.Join(cliDir, "hello.wav")
	}
	r = heed(t, "", "align", "--format", "tsv", wav, zh)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "none of its 1 words has a letter the model spells") || !strings.Contains(r.stdout, "interpolated") {
		t.Errorf("a Chinese transcript: stdout %q, stderr %q; want it interpolated with a warning", r.stdout, r.stderr)
	}
}

// TestCompressedInput runs heed on testdata/hello.mp3 and
// testdata/hello.flac, an MP3 (32 kbit/s) and a FLAC copy of hello.wav
// (testdata/README.md), as files and on standard input. The FLAC copy is
// lossless: transcribe and align give exactly the WAV's text and times.
// The MP3 copy's text is within 5 characters of the WAV's, and its words
// within 30 ms of the WAV's (measured 5 ms; the encoder and decoder
// delays, 1105 samples or 69 ms, are cut: see the audio package).
func TestCompressedInput(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata")
	wav, mp3, flac := filepath.Join(dir, "hello.wav"), filepath.Join(dir, "hello.mp3"), filepath.Join(dir, "hello.flac")
	run := func(stdin string, args ...string) string {
		t.Helper()
		r := heed(t, stdin, args...)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("heed %q: exit %d, stderr %q", args, r.code, r.stderr)
		}
		return r.stdout
	}
	want := strings.TrimSpace(run("", "transcribe", wav))
	for _, tc := range []struct {
		name, path string
		maxEdits   int
	}{{"flac", flac, 0}, {"mp3", mp3, 5}} {
		for _, stdin := range []bool{false, true} {
			var got string
			if stdin {
				got = strings.TrimSpace(run(string(readAll(t, tc.path)), "transcribe", "-"))
			} else {
				got = strings.TrimSpace(run("", "transcribe", tc.path))
			}
			d := train.EditDistance([]rune(got), []rune(want))
			t.Logf("%s (stdin %v): %q, %d edits from the WAV's", tc.name, stdin, got, d)
			if d > tc.maxEdits || got == "" {
				t.Errorf("%s (stdin %v): %q, %d edits from the WAV's %q (want at most %d)", tc.name, stdin, got, d, want, tc.maxEdits)
			}
		}
	}

	txt := filepath.Join(t.TempDir(), "hello.txt")
	if err := os.WriteFile(txt, []byte("hello world, this is a test of speech recognition\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	type word struct {
		Word       string
		Start, End float64
	}
	words := func(audio string) []word {
		t.Helper()
		var res struct {
			Words []word `json:"words"`
		}
		out := run("", "align", audio, txt)
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("align %s: %v: %s", audio, err, out)
		}
		return res.Words
	}
	ref := words(wav)
	if got := words(flac); fmt.Sprint(got) != fmt.Sprint(ref) {
		t.Errorf("align of the FLAC copy %v, of the WAV %v; want the same", got, ref)
	}
	got := words(mp3)
	if len(got) != len(ref) {
		t.Fatalf("align of the MP3 copy: %d words, want %d", len(got), len(ref))
	}
	var worst float64
	for i := range ref {
		worst = max(worst, math.Abs(got[i].Start-ref[i].Start), math.Abs(got[i].End-ref[i].End))
	}
	t.Logf("MP3 word times: at most %.3f s from the WAV's", worst)
	if worst > 0.03 {
		t.Errorf("align of the MP3 copy: a word boundary %.3f s from the WAV's, want at most 0.030: %v vs %v", worst, got, ref)
	}

	for _, c := range []struct{ path, want string }{
		{mp3, "container=mp3 encoding=mp3 bits=0 rate=16000 channels=1 frames=49287 duration=3.080s"},
		{flac, "container=flac encoding=flac_s16 bits=16 rate=16000 channels=1 frames=49287 duration=3.080s"},
	} {
		if out := run("", "info", c.path); out != c.path+": "+c.want+"\n" {
			t.Errorf("info: %q, want %q", out, c.path+": "+c.want)
		}
	}
}
