package main

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/heed-asr/heed/audio"
	"github.com/heed-asr/heed/corpus"
)

// TestSteadyNoise checks every noise kind: unit RMS, finite, and the same
// samples from the same rng.
func TestSteadyNoise(t *testing.T) {
	for _, kind := range noiseKinds {
		x := steadyNoise(rand.New(rand.NewPCG(1, 2)), 3*rate, kind)
		y := steadyNoise(rand.New(rand.NewPCG(1, 2)), 3*rate, kind)
		if !slices.Equal(x, y) {
			t.Errorf("%s: not deterministic", kind)
		}
		if db := rmsDB(x); math.Abs(db) > 1e-3 {
			t.Errorf("%s: RMS %.4f dB, want 0", kind, db)
		}
		for i, v := range x {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("%s: sample %d is %v", kind, i, v)
			}
		}
	}
	x := make([]float32, rate)
	for i := range x {
		x[i] = float32(3 * math.Sin(float64(i)))
	}
	setLevel(x, -6) // a 3.0 sine at -6 dBFS would peak at 0.71: kept
	if db := rmsDB(x); math.Abs(db+6) > 0.01 {
		t.Errorf("setLevel: %.2f dBFS, want -6", db)
	}
	setLevel(x, 0) // would peak at 1.41: limited to 0.98
	if p := slices.Max(x); p > 0.98+1e-6 {
		t.Errorf("setLevel: peak %g over 0.98", p)
	}
}

func TestMusicPackage(t *testing.T) {
	for dir, want := range map[string]string{
		"/usr/share/hyperrogue/music":        "hyperrogue",
		"/usr/share/games/singularity/music": "singularity",
		"/usr/share/games":                   "games",
		"/data/my-tunes":                     "my-tunes",
	} {
		if got := musicPackage(dir); got != want {
			t.Errorf("musicPackage(%q) = %q, want %q", dir, got, want)
		}
	}
}

// buildNS runs heed-corpus -nonspeech-hours and returns the manifest.
func buildNS(t *testing.T, out string, args ...string) []corpus.Utterance {
	t.Helper()
	var stderr bytes.Buffer
	if err := run(context.Background(), append([]string{"-out", out, "-seed", "3", "-jobs", "2"}, args...), &bytes.Buffer{}, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	utts, err := corpus.ReadManifest(filepath.Join(out, "nonspeech_train.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return utts
}

// checkNS checks the clips of a non-speech manifest and returns their total
// length in seconds and the samples of each.
func checkNS(t *testing.T, utts []corpus.Utterance) (float64, [][]float32) {
	t.Helper()
	total := 0.0
	var xs [][]float32
	for _, u := range utts {
		if !u.NonSpeech || u.Text != "" || u.Source != "nonspeech" || u.Speaker == "" {
			t.Errorf("bad line %+v", u)
		}
		if u.Duration < nsMinSec-0.01 || u.Duration > nsMaxSec+0.01 {
			t.Errorf("%s: %g s, want %g-%g", u.Audio, u.Duration, nsMinSec, nsMaxSec)
		}
		c, err := audio.Load16k(u.Audio)
		if err != nil {
			t.Fatal(err)
		}
		if d := float64(len(c.Samples)) / rate; math.Abs(d-u.Duration) > 0.001 {
			t.Errorf("%s: %g s of audio, manifest says %g", u.Audio, d, u.Duration)
		}
		if db := rmsDB(c.Samples); db < -52 || db > -9 {
			t.Errorf("%s (%s): level %.1f dBFS outside [-52, -9]", u.Audio, u.Speaker, db)
		}
		total += u.Duration
		xs = append(xs, c.Samples)
	}
	return total, xs
}

// TestBuildNonSpeechNoise builds a noise-only set twice: about the asked
// hours, valid clips, the same files both times.
func TestBuildNonSpeechNoise(t *testing.T) {
	dir := t.TempDir()
	a := buildNS(t, filepath.Join(dir, "a"), "-nonspeech-hours", "0.01", "-nonspeech-music", "")
	b := buildNS(t, filepath.Join(dir, "b"), "-nonspeech-hours", "0.01", "-nonspeech-music", "", "-jobs", "1")
	total, xa := checkNS(t, a)
	if total < 36 || total > 36+nsMaxSec {
		t.Errorf("%.1f s of noise, want about 36", total)
	}
	_, xb := checkNS(t, b)
	if len(xa) != len(xb) {
		t.Fatalf("%d and %d clips", len(xa), len(xb))
	}
	for i := range xa {
		if !slices.Equal(xa[i], xb[i]) || a[i].Speaker != b[i].Speaker {
			t.Fatalf("clip %d differs between builds (%s, %s)", i, a[i].Speaker, b[i].Speaker)
		}
	}
}

// TestBuildNonSpeechMusic builds from a music directory holding two
// synthetic WAV "tracks" (needs ffmpeg).
func TestBuildNonSpeechMusic(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("no ffmpeg")
	}
	dir := t.TempDir()
	music := filepath.Join(dir, "share", "games", "tunes")
	if err := os.MkdirAll(music, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, f0 := range []float64{220, 330} {
		x := make([]float32, 40*22050) // 40 s at 22.05 kHz: resampled
		for j := range x {
			x[j] = float32(0.3 * math.Sin(2*math.Pi*f0*float64(j)/22050) * (1 + math.Sin(float64(j)/5000)))
		}
		var buf bytes.Buffer
		if err := audio.WriteWAV(&buf, x, 22050); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(music, []string{"a.wav", "b.wav"}[i]), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(music, "notes.txt"), []byte("not music"), 0o644)
	utts := buildNS(t, filepath.Join(dir, "out"), "-nonspeech-hours", "0.02", "-nonspeech-music", music)
	total, _ := checkNS(t, utts)
	var musicSecs float64
	for _, u := range utts {
		if strings.HasPrefix(u.Speaker, "music:tunes/") {
			musicSecs += u.Duration
		} else if !strings.HasPrefix(u.Speaker, "noise:") {
			t.Errorf("speaker %q", u.Speaker)
		}
	}
	if total < 72 || total > 72+nsMaxSec || musicSecs < 46 || musicSecs > 51 {
		t.Errorf("%.1f s in all, %.1f s of music; want about 72 and 50", total, musicSecs)
	}
}

func TestNonSpeechFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-nonspeech-hours", "-1"},
		{"-nonspeech-hours", "NaN"},
		{"-nonspeech-hours", "1000"},
	} {
		err := run(context.Background(), append([]string{"-out", t.TempDir()}, args...), &bytes.Buffer{}, &bytes.Buffer{})
		if !errors.Is(err, errUsage) {
			t.Errorf("%v: error %v, want a usage error", args, err)
		}
	}
	err := run(context.Background(), []string{"-out", t.TempDir(), "-nonspeech-hours", "0.01", "-nonspeech-music", filepath.Join(t.TempDir(), "none")}, &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || errors.Is(err, errUsage) {
		t.Errorf("missing music directory: error %v", err)
	}
}
