package main

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heed-asr/heed/features"
	"github.com/heed-asr/heed/model"
	"github.com/heed-asr/heed/model/modelfile"
)

// tinyConfig is a network small enough that an untrained model decodes a
// few seconds of audio in milliseconds.
func tinyConfig() model.Config {
	cfg := model.DefaultConfig()
	cfg.EncLayers, cfg.EncHidden = 1, 16
	cfg.EmbedDim, cfg.DecHidden, cfg.AttDim = 8, 16, 16
	cfg.ConvFilters, cfg.ConvWidth = 4, 5
	return cfg
}

// writeTinyModel saves an untrained tiny model (seed 1, identity CMVN) in a
// fresh temporary directory and returns its path.
func writeTinyModel(t *testing.T) string {
	t.Helper()
	cfg := tinyConfig()
	cmvn := features.CMVN{Mean: make([]float32, cfg.NumMel), Std: make([]float32, cfg.NumMel)}
	for i := range cmvn.Std {
		cmvn.Std[i] = 1
	}
	b := &model.Bundle{
		Net:  model.NewNet(model.InitParams[float32](cfg, 1)),
		Meta: model.Meta{Features: features.DefaultConfig(), CMVN: cmvn},
	}
	path := filepath.Join(t.TempDir(), "tiny.heed")
	if err := b.Save(path, modelfile.F32); err != nil {
		t.Fatal(err)
	}
	return path
}

// utterance returns sec seconds of a speech-like 16 kHz signal: bursts of
// noisy harmonic tones separated by short pauses, deterministic for seed.
func utterance(sec float64, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 1))
	n := int(sec * 16000)
	s := make([]float32, n)
	for start := 1600; start < n-1600; {
		burst := 1600 + rng.IntN(4800) // 100..400 ms
		f0 := 100 + 150*rng.Float64()
		end := min(n-1600, start+burst)
		for i := start; i < end; i++ {
			env := math.Sin(math.Pi * float64(i-start) / float64(end-start))
			v := 0.0
			for h := 1; h <= 5; h++ {
				v += math.Sin(2*math.Pi*f0*float64(h)*float64(i)/16000) / float64(h)
			}
			s[i] = float32(0.2*env*v + 0.02*rng.NormFloat64())
		}
		start = end + 800 + rng.IntN(2400) // 50..200 ms pause
	}
	return s
}

// writeUtterances writes one utterance WAV per duration into dir and
// returns their paths.
func writeUtterances(t *testing.T, dir string, secs ...float64) []string {
	t.Helper()
	paths := make([]string, len(secs))
	for i, sec := range secs {
		paths[i] = filepath.Join(dir, string(rune('a'+i))+".wav")
		writeWAV(t, paths[i], utterance(sec, uint64(i+1)), 16000)
	}
	return paths
}

// lines splits output into lines, dropping the final newline.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

func TestTranscribe(t *testing.T) {
	m := writeTinyModel(t)
	dir := t.TempDir()
	wavs := writeUtterances(t, dir, 1.0, 0.6, 1.4)
	stereo := filepath.Join(audioDir, "stereo.wav")
	r44k := filepath.Join(audioDir, "r44k.wav")
	garbage := filepath.Join(cliDir, "garbage.wav")
	adpcm := filepath.Join(audioDir, "ima_adpcm.wav")

	t.Run("one file", func(t *testing.T) {
		r := heed(t, "", "transcribe", "--model", m, wavs[0])
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if got := lines(r.stdout); len(got) != 1 || strings.Contains(got[0], "\t") {
			t.Errorf("want one line of text without a file name, got %q", r.stdout)
		}
		if r.stderr != "" {
			t.Errorf("stderr not empty: %q", r.stderr)
		}
	})

	t.Run("flags after files", func(t *testing.T) {
		r := heed(t, "", "transcribe", wavs[0], "--model", m, "--beam", "1")
		if r.code != 0 || len(lines(r.stdout)) != 1 {
			t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
	})

	t.Run("deterministic across jobs", func(t *testing.T) {
		args := append([]string{"transcribe", "--model", m}, wavs...)
		one := heed(t, "", append(args, "--jobs", "1")...)
		many := heed(t, "", append(args, "--jobs", "3")...)
		if one.code != 0 || many.code != 0 {
			t.Fatalf("exit %d and %d: %s %s", one.code, many.code, one.stderr, many.stderr)
		}
		if one.stdout != many.stdout {
			t.Errorf("--jobs 1 and --jobs 3 differ:\n%s\n---\n%s", one.stdout, many.stdout)
		}
	})

	t.Run("several files in order", func(t *testing.T) {
		files := []string{wavs[2], stereo, wavs[0], r44k, wavs[1]}
		r := heed(t, "", append([]string{"transcribe", "--model", m, "--jobs", "2"}, files...)...)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		got := lines(r.stdout)
		if len(got) != len(files) {
			t.Fatalf("%d lines for %d files:\n%s", len(got), len(files), r.stdout)
		}
		for i, l := range got {
			file, _, ok := strings.Cut(l, "\t")
			if !ok || file != files[i] {
				t.Errorf("line %d = %q, want %q<TAB>TEXT", i+1, l, files[i])
			}
		}
	})

	t.Run("json", func(t *testing.T) {
		files := []string{wavs[1], r44k, wavs[0]}
		wantDur := []float64{0.6, 0.25, 1.0}
		r := heed(t, "", append([]string{"transcribe", "--model", m, "--format", "json"}, files...)...)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		got := lines(r.stdout)
		if len(got) != len(files) {
			t.Fatalf("%d JSON lines for %d files:\n%s", len(got), len(files), r.stdout)
		}
		// tol is the rounding of durations (1 ms) plus the resampler's
		// rounding of the output length, in seconds.
		const tol = 2e-3
		for i, l := range got {
			var obj map[string]json.RawMessage
			if err := json.Unmarshal([]byte(l), &obj); err != nil {
				t.Fatalf("line %d is not JSON: %v: %s", i+1, err, l)
			}
			for _, k := range []string{"file", "duration", "text", "words"} {
				if _, ok := obj[k]; !ok {
					t.Errorf("line %d lacks %q: %s", i+1, k, l)
				}
			}
			var tr struct {
				File     string  `json:"file"`
				Duration float64 `json:"duration"`
				Text     string  `json:"text"`
				Words    []struct {
					Word  string  `json:"word"`
					Start float64 `json:"start"`
					End   float64 `json:"end"`
				} `json:"words"`
			}
			if err := json.Unmarshal([]byte(l), &tr); err != nil {
				t.Fatalf("line %d: %v", i+1, err)
			}
			if tr.File != files[i] {
				t.Errorf("line %d: file %q, want %q", i+1, tr.File, files[i])
			}
			if math.Abs(tr.Duration-wantDur[i]) > tol {
				t.Errorf("line %d: duration %v, want %v", i+1, tr.Duration, wantDur[i])
			}
			if string(obj["words"]) == "null" {
				t.Errorf("line %d: words is null, want a list", i+1)
			}
			var ws []string
			prev := 0.0
			for _, w := range tr.Words {
				ws = append(ws, w.Word)
				if w.Start < prev || w.End < w.Start || w.End > tr.Duration+tol {
					t.Errorf("line %d: word %q at %v..%v (previous start %v, duration %v)", i+1, w.Word, w.Start, w.End, prev, tr.Duration)
				}
				prev = w.Start
			}
			if strings.Join(ws, " ") != tr.Text {
				t.Errorf("line %d: words %q do not spell the text %q", i+1, ws, tr.Text)
			}
		}
	})

	t.Run("failing file among good ones", func(t *testing.T) {
		files := []string{wavs[0], garbage, wavs[1], adpcm, filepath.Join(dir, "missing.wav"), wavs[2]}
		r := heed(t, "", append([]string{"transcribe", "--model", m, "--jobs", "2"}, files...)...)
		if r.code != 1 {
			t.Errorf("exit %d, want 1", r.code)
		}
		got := lines(r.stdout)
		want := []string{wavs[0], wavs[1], wavs[2]}
		if len(got) != len(want) {
			t.Fatalf("%d lines, want %d for the good files:\n%s", len(got), len(want), r.stdout)
		}
		for i, l := range got {
			if !strings.HasPrefix(l, want[i]+"\t") {
				t.Errorf("line %d = %q, want %q<TAB>TEXT", i+1, l, want[i])
			}
		}
		for _, s := range []string{"heed: " + garbage + ": not a WAV file", "heed: " + adpcm + ": unsupported", "missing.wav"} {
			if !strings.Contains(r.stderr, s) {
				t.Errorf("stderr lacks %q:\n%s", s, r.stderr)
			}
		}
	})

	runCases(t, []cliCase{
		{name: "stdin", args: []string{"transcribe", "--model", m, "-"}, stdin: string(readAll(t, wavs[0])), code: 0},
		{name: "stdin garbage", args: []string{"transcribe", "--model", m, "-"}, stdin: "hello", code: 1,
			stderr: []string{"heed: -: not a WAV file"}, noStdout: true},
		{name: "truncated warns", args: []string{"transcribe", "--model", m, filepath.Join(cliDir, "truncated.wav")}, code: 0,
			stderr: []string{"heed: warning: " + filepath.Join(cliDir, "truncated.wav")}},
		{name: "no samples", args: []string{"transcribe", "--model", m, "--format", "json", filepath.Join(cliDir, "header_only.wav")}, code: 0,
			stdout: []string{`"duration":0`, `"text":""`}},
		{name: "missing model", args: []string{"transcribe", "--model", filepath.Join(dir, "nope.heed"), wavs[0]}, code: 1,
			stderr: []string{"heed:", "nope.heed"}, noStdout: true},
		{name: "model is a WAV", args: []string{"transcribe", "--model", wavs[0], wavs[0]}, code: 1,
			stderr: []string{"heed:", wavs[0]}, noStdout: true},
	})
}

// TestModelFiles checks that broken model files are reported, not crashed on.
func TestModelFiles(t *testing.T) {
	good := writeTinyModel(t)
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	flipped := append([]byte(nil), data...)
	flipped[len(flipped)-10] ^= 0xFF
	models := map[string]string{
		"empty":     write("empty.heed", nil),
		"truncated": write("truncated.heed", data[:len(data)/2]),
		"header":    write("header.heed", data[:64]),
		"flipped":   write("flipped.heed", flipped),
	}
	wav := writeUtterances(t, dir, 0.5)[0]
	for name, m := range models {
		t.Run(name, func(t *testing.T) {
			for _, args := range [][]string{
				{"transcribe", "--model", m, wav},
				{"align", "--model", m, wav, filepath.Join(cliDir, "dr_smith.txt")},
				{"eval", "asr", "--model", m, "nonexistent.jsonl"},
			} {
				checkResult(t, cliCase{args: args, code: 1, stderr: []string{"heed:", m}, noStdout: true}, heed(t, "", args...))
			}
		})
	}
}
