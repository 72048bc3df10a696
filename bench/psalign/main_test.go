package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heed-asr/heed/align"
	"github.com/heed-asr/heed/audio"
	"github.com/heed-asr/heed/corpus"
)

// fakeEnv, when set to "1", makes the test binary act as a fake
// pocketsphinx_continuous (see fakePocketsphinx).
const fakeEnv = "PSALIGN_FAKE_POCKETSPHINX"

func TestMain(m *testing.M) {
	if os.Getenv(fakeEnv) == "1" {
		os.Exit(fakePocketsphinx(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakePocketsphinx mimics pocketsphinx_continuous -time yes on a raw
// 16 kHz file with a one-sentence JSGF grammar: it splits the frames evenly
// among the words and prints them as pocketsphinx does (first word with a
// "(2)" variant suffix, fillers around). Words steer failures: "crash"
// exits 1 with an ERROR line, "hard" aligns only with -beam given, "never"
// never aligns (the last word is missing from the output).
func fakePocketsphinx(args []string) int {
	opt := map[string]string{}
	for i := 0; i+1 < len(args); i += 2 {
		opt[args[i]] = args[i+1]
	}
	g, err := os.ReadFile(opt["-jsgf"])
	if err != nil {
		fmt.Fprintln(os.Stderr, "ERROR: no grammar:", err)
		return 1
	}
	_, body, _ := strings.Cut(string(g), "public <utt> = ")
	words := strings.Fields(strings.TrimSuffix(strings.TrimSpace(body), ";"))
	st, err := os.Stat(opt["-infile"])
	if err != nil {
		fmt.Fprintln(os.Stderr, "ERROR: no audio:", err)
		return 1
	}
	frames := int(st.Size()/2) / 160
	fmt.Fprintln(os.Stderr, "INFO: fake pocketsphinx")
	switch {
	case slices.Contains(words, "crash"):
		fmt.Fprintln(os.Stderr, `ERROR: "fake.c", line 1: crashed`)
		return 1
	case slices.Contains(words, "hard") && opt["-beam"] == "":
		fmt.Fprintln(os.Stderr, `ERROR: "fsg_search.c", line 940: Final result does not match the grammar in frame 9`)
		return 0
	case slices.Contains(words, "never"):
		words = words[:len(words)-1]
	}
	fmt.Println(strings.Join(words, " "))
	fmt.Println("<s> 0.000 0.000 1.000000")
	n := len(words)
	for i, w := range words {
		if i == 0 {
			w += "(2)"
		}
		sf, ef := i*frames/n, (i+1)*frames/n-1
		fmt.Printf("%s %.3f %.3f 1.000000\n", w, float64(sf)/100, float64(ef)/100)
		if i == 0 {
			fmt.Printf("[NOISE] %.3f %.3f 1.000000\n", float64(ef)/100, float64(ef)/100)
		}
	}
	return 0
}

func TestBaseWord(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"read", "read"},
		{"read(2)", "read"},
		{"cat's(12)", "cat's"},
		{"(2)", "(2)"},
		{"a(b)", "a(b)"},
		{"x(2", "x(2"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := baseWord(tc.in); got != tc.want {
				t.Errorf("baseWord(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestParseTimes(t *testing.T) {
	const tol = 1e-9
	for _, tc := range []struct {
		name string
		out  string
		want []psWord
	}{
		{"empty", "", nil},
		{"hypothesis only", "but what can you\n", nil},
		{
			"words fillers and variants",
			"but what can\n<s> 0.000 0.020 0.99\nbut 0.030 0.220 1.000000\nwhat(2) 0.230 0.510 1.0\n<sil> 0.520 0.570 1.0\n[NOISE] 0.580 0.600 1\n++GARBAGE++ 0.610 0.610 1\ncan 0.610 0.780 0.5\n</s> 0.790 0.900 1\n",
			[]psWord{{"but", 0.03, 0.23}, {"what", 0.23, 0.52}, {"can", 0.61, 0.79}},
		},
		{"odd lines", "a 1 2\nb x 0.1 1\nc 0.100 0.200 1.0 extra\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := parseTimes([]byte(tc.out))
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for i, w := range got {
				g := tc.want[i]
				if w.word != g.word || math.Abs(w.start-g.start) > tol || math.Abs(w.end-g.end) > tol {
					t.Errorf("word %d = %+v, want %+v", i, w, g)
				}
			}
		})
	}
}

func TestMatch(t *testing.T) {
	got := []psWord{{"the", 0, 0.1}, {"cat", 0.1, 0.3}}
	for _, tc := range []struct {
		name       string
		transcript []string
		ok         bool
	}{
		{"same", []string{"the", "cat"}, true},
		{"other word", []string{"the", "dog"}, false},
		{"shorter", []string{"the"}, false},
		{"longer", []string{"the", "cat", "sat"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := match(tc.transcript, got)
			if (w != nil) != tc.ok {
				t.Fatalf("match = %v, want ok=%v", w, tc.ok)
			}
			if tc.ok && (w[1].Word != "cat" || w[1].Start != 0.1 || w[1].End != 0.3 || w[1].Status != align.StatusAligned) {
				t.Errorf("word 1 = %+v", w[1])
			}
		})
	}
}

func TestGrammar(t *testing.T) {
	got := grammar([]string{"public", "cat's", "hat"})
	want := "#JSGF V1.0;\ngrammar heed;\npublic <utt> = public cat's hat;\n"
	if got != want {
		t.Errorf("grammar = %q, want %q", got, want)
	}
}

func TestRawPCM(t *testing.T) {
	for _, tc := range []struct {
		in   float32
		want int16
	}{
		{0, 0}, {-1, -32768}, {0.5, 16384}, {-0.5, -16384},
		{1, 32767}, {1.5, 32767}, {-2, -32768}, {1.0 / 32768, 1}, {0.4 / 32768, 0},
	} {
		t.Run(fmt.Sprint(tc.in), func(t *testing.T) {
			b := rawPCM([]float32{tc.in})
			if got := int16(uint16(b[0]) | uint16(b[1])<<8); len(b) != 2 || got != tc.want {
				t.Errorf("rawPCM(%v) = %v, want %d", tc.in, b, tc.want)
			}
		})
	}
}

func TestReadLexicon(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.dict")
	dict := ";; comment\nREAD R IY D\nread(2) R EH D\ncat's K AE T S\n\nhat HH AE T\n"
	if err := os.WriteFile(path, []byte(dict), 0o644); err != nil {
		t.Fatal(err)
	}
	lex, err := readLexicon(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(lex) != 3 || !lex["read"] || !lex["cat's"] || !lex["hat"] {
		t.Errorf("lexicon = %v, want read, cat's, hat", lex)
	}
	if got := oov(lex, []string{"the", "cat's", "hat", "the", "dog"}); !slices.Equal(got, []string{"the", "dog"}) {
		t.Errorf("oov = %v, want [the dog]", got)
	}
	if _, err := readLexicon(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("missing dictionary: no error")
	}
	empty := filepath.Join(t.TempDir(), "empty.dict")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readLexicon(empty); err == nil {
		t.Error("empty dictionary: no error")
	}
}

// fakeCorpus writes one-second WAVs and a manifest for the fake
// pocketsphinx. With two words per utterance the fake puts the boundary at
// 0.5 s, so gold times shifted by d give boundary errors of d.
func fakeCorpus(t *testing.T) (dir, manifest string) {
	t.Helper()
	dir = t.TempDir()
	samples := make([]float32, 16000)
	for i := range samples {
		samples[i] = float32(0.1 * math.Sin(float64(i)*0.05))
	}
	type spec struct {
		text, source string
		shift        float64
		words        bool
	}
	specs := []spec{
		{"the cat", "a", 0, true},         // exact
		{"the hat", "a", 0.03, true},      // every boundary 30 ms off
		{"hard cat", "b", 0.01, true},     // aligned on the retry, 10 ms off
		{"the dog", "b", 0, true},         // "dog" is not in the dictionary
		{"crash cat", "b", 0, true},       // pocketsphinx fails
		{"never cat", "b", 0, true},       // no complete alignment
		{"the cat", "b", 0, false},        // no gold times: skipped
		{"the cat", "a", 0.2 / 3.0, true}, // 66.7 ms off
	}
	var utts []corpus.Utterance
	for i, s := range specs {
		wav := filepath.Join(dir, fmt.Sprintf("%d.wav", i))
		f, err := os.Create(wav)
		if err != nil {
			t.Fatal(err)
		}
		if err := audio.WriteWAV(f, samples, 16000); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		u := corpus.Utterance{Audio: wav, Text: s.text, Source: s.source, Duration: 1}
		if s.words {
			w := strings.Fields(s.text)
			u.Words = []corpus.Word{{Word: w[0], Start: s.shift, End: 0.5 + s.shift}, {Word: w[1], Start: 0.5 + s.shift, End: 1}}
			u.Words[1].End -= s.shift
		}
		utts = append(utts, u)
	}
	manifest = filepath.Join(dir, "m.jsonl")
	if err := corpus.WriteManifest(manifest, utts); err != nil {
		t.Fatal(err)
	}
	dict := "the DH AH\ncat K AE T\nhat HH AE T\nhard HH AA R D\ncrash K R AE SH\nnever N EH V ER\n"
	if err := os.WriteFile(filepath.Join(dir, "fake.dict"), []byte(dict), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, manifest
}

func TestEvaluateFake(t *testing.T) {
	const tol = 1e-6
	t.Setenv(fakeEnv, "1")
	dir, manifest := fakeCorpus(t)
	for _, tc := range []struct {
		name      string
		beam      float64
		retryBeam float64
		jobs      int
		// per source: all, a, b
		utts, failed, retried []int
		mean                  []float64 // seconds, NaN for no boundaries
	}{
		{
			name: "retry", retryBeam: 1e-80, jobs: 2,
			utts: []int{4, 3, 1}, failed: []int{3, 0, 3}, retried: []int{3, 0, 3},
			// a: errors 0 x4, 0.03 x4, 0.0667 x4; b: 0.01 x4.
			mean: []float64{(0.12 + 0.2/3*4 + 0.04) / 16, (0.12 + 0.2/3*4) / 12, 0.01},
		},
		{
			name: "wide first beam", beam: 1e-300, jobs: 2,
			utts: []int{4, 3, 1}, failed: []int{3, 0, 3}, retried: []int{0, 0, 0},
			mean: []float64{(0.12 + 0.2/3*4 + 0.04) / 16, (0.12 + 0.2/3*4) / 12, 0.01},
		},
		{
			name: "no retry", retryBeam: 0, jobs: 1,
			utts: []int{3, 3, 0}, failed: []int{4, 0, 4}, retried: []int{0, 0, 0},
			mean: []float64{(0.12 + 0.2/3*4) / 12, (0.12 + 0.2/3*4) / 12, math.NaN()},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := config{bin: os.Args[0], hmm: dir, dict: filepath.Join(dir, "fake.dict"), beam: tc.beam, retryBeam: tc.retryBeam, timeout: 10 * time.Second}
			p, cleanup, err := newPeer(c)
			if err != nil {
				t.Fatal(err)
			}
			defer cleanup()
			utts, err := corpus.ReadManifest(manifest)
			if err != nil {
				t.Fatal(err)
			}
			ev, err := evaluate(context.Background(), p, manifest, utts, tc.jobs)
			if err != nil {
				t.Fatal(err)
			}
			rows, fails := ev.rows, ev.fails
			if len(ev.aligned) != tc.utts[0] || (len(ev.aligned) > 0 && ev.aligned[0].Text != "the cat") {
				t.Errorf("aligned = %+v, want %d utterances, the first \"the cat\"", ev.aligned, tc.utts[0])
			}
			if len(rows) != 3 || rows[0].Source != "all" || rows[1].Source != "a" || rows[2].Source != "b" {
				t.Fatalf("rows = %+v, want sources all, a, b", rows)
			}
			if len(fails) != tc.failed[0] {
				t.Errorf("failure lines = %q, want %d", fails, tc.failed[0])
			}
			for i, r := range rows {
				if r.Utts != tc.utts[i] || r.Failed != tc.failed[i] || r.Retried != tc.retried[i] {
					t.Errorf("%s: utts/failed/retried = %d/%d/%d, want %d/%d/%d", r.Source, r.Utts, r.Failed, r.Retried, tc.utts[i], tc.failed[i], tc.retried[i])
				}
				if wantOOV := []int{1, 0, 1}[i]; r.OOV != wantOOV {
					t.Errorf("%s: oov = %d, want %d", r.Source, r.OOV, wantOOV)
				}
				if math.IsNaN(tc.mean[i]) {
					if r.Boundaries != nil {
						t.Errorf("%s: boundaries %+v, want none", r.Source, r.Boundaries)
					}
					continue
				}
				if r.Boundaries == nil || r.Boundaries.N != 4*r.Utts || math.Abs(r.Boundaries.Mean-tc.mean[i]) > tol {
					t.Errorf("%s: boundaries %+v, want N %d, mean %v", r.Source, r.Boundaries, 4*r.Utts, tc.mean[i])
				}
				if r.AudioSec != 7 || r.RunAudioSec != 6 || r.Jobs != tc.jobs || r.WallSec <= 0 || math.Abs(r.RTF-r.WallSec/6) > tol {
					t.Errorf("%s: timing %+v, want audio 7 s, run 6 s, rtf wall/6", r.Source, r)
				}
			}
			var out bytes.Buffer
			if err := printRows(&out, rows, false); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), "failed") || strings.Count(out.String(), "\n") != 5 {
				t.Errorf("table:\n%s", out.String())
			}
			out.Reset()
			if err := printRows(&out, rows, true); err != nil {
				t.Fatal(err)
			}
			if strings.Count(out.String(), "\n") != 3 || !strings.Contains(out.String(), `"rtf":`) {
				t.Errorf("JSON:\n%s", out.String())
			}
		})
	}
}

func TestRunUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"no manifest", nil},
		{"bad jobs", []string{"-jobs", "0", "m.jsonl"}},
		{"negative limit", []string{"-limit", "-1", "m.jsonl"}},
		{"bad beam", []string{"-retry-beam", "2", "m.jsonl"}},
		{"bad first beam", []string{"-beam", "-1", "m.jsonl"}},
		{"aligned with two manifests", []string{"-aligned", "x.jsonl", "a.jsonl", "b.jsonl"}},
		{"unknown flag", []string{"-nope", "m.jsonl"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(context.Background(), &out, &errOut, tc.args)
			if !errors.Is(err, errUsage) {
				t.Errorf("run(%q) = %v, want a usage error", tc.args, err)
			}
		})
	}
	var out, errOut bytes.Buffer
	err := run(context.Background(), &out, &errOut, []string{"-bin", "/nonexistent/pocketsphinx", "m.jsonl"})
	if err == nil || errors.Is(err, errUsage) {
		t.Errorf("missing binary: err = %v, want a failure", err)
	}
}

// TestRealPocketsphinx aligns testdata/fbank/speech.wav (espeak-ng, text
// in testdata/fbank/make_reference.py) with the installed pocketsphinx. It
// needs the Debian packages pocketsphinx and pocketsphinx-en-us.
func TestRealPocketsphinx(t *testing.T) {
	if _, err := exec.LookPath("pocketsphinx_continuous"); err != nil {
		t.Skip("pocketsphinx_continuous not installed (apt-get install pocketsphinx pocketsphinx-en-us)")
	}
	c := config{bin: "pocketsphinx_continuous", hmm: defaultModel, dict: defaultDict, beam: 1e-300, timeout: 30 * time.Second}
	p, cleanup, err := newPeer(c)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	clip, err := audio.Load16k("../../testdata/fbank/speech.wav")
	if err != nil {
		t.Fatal(err)
	}
	dur := float64(len(clip.Samples)) / 16000
	words := strings.Fields("the quick brown fox jumps over the lazy dog near the river bank")
	r, err := p.align(context.Background(), "speech", clip.Samples, words)
	if err != nil {
		t.Fatal(err)
	}
	if r.words == nil {
		t.Fatalf("no alignment: %s: %s", r.fail, r.detail)
	}
	prev := 0.0
	for i, w := range r.words {
		if w.Word != words[i] || w.Start < prev || w.End <= w.Start || w.End > dur+0.01 {
			t.Errorf("word %d = %+v (previous end %v, duration %v)", i, w, prev, dur)
		}
		prev = w.End
	}
	if first, last := r.words[0], r.words[len(words)-1]; first.Start > 0.3 || last.End < dur-0.7 {
		t.Errorf("speech spans %v..%v s of %v s", first.Start, last.End, dur)
	}
	r, err = p.align(context.Background(), "oov", clip.Samples, []string{"the", "qwxzv"})
	if err != nil || r.fail != failOOV || r.ran {
		t.Errorf("OOV word: %+v, %v", r, err)
	}
}

func TestRunAligned(t *testing.T) {
	t.Setenv(fakeEnv, "1")
	dir, manifest := fakeCorpus(t)
	outPath := filepath.Join(t.TempDir(), "aligned.jsonl")
	var out, errOut bytes.Buffer
	args := []string{"-bin", os.Args[0], "-hmm", dir, "-dict", filepath.Join(dir, "fake.dict"), "-json", "-v", "-aligned", outPath, manifest}
	if err := run(context.Background(), &out, &errOut, args); err != nil {
		t.Fatalf("run: %v\n%s", err, errOut.String())
	}
	got, err := corpus.ReadManifest(outPath)
	if err != nil {
		t.Fatal(err)
	}
	// The default wide beam aligns "hard cat"; OOV, crash and never fail.
	var texts []string
	for _, u := range got {
		texts = append(texts, u.Text)
	}
	if want := []string{"the cat", "the hat", "hard cat", "the cat"}; !slices.Equal(texts, want) {
		t.Errorf("aligned manifest texts = %q, want %q", texts, want)
	}
	if n := strings.Count(errOut.String(), "\n"); n != 3 || !strings.Contains(errOut.String(), "oov: not in the dictionary: dog") {
		t.Errorf("-v listed %d failures:\n%s", n, errOut.String())
	}
	if strings.Count(out.String(), "\n") != 3 {
		t.Errorf("JSON output:\n%s", out.String())
	}
}
