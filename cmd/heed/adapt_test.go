package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heed-asr/heed/align"
	"github.com/heed-asr/heed/audio"
	"github.com/heed-asr/heed/corpus"
	"github.com/heed-asr/heed/model"
)

// tinyModelWithLM trains a tiny network for three updates and gives it a
// character LM, as a base for heed adapt that takes milliseconds a step.
func tinyModelWithLM(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	m := tinyCorpus(t)
	run := filepath.Join(dir, "run")
	args := append([]string{"train", "--train", m, "--out", run, "--steps", "3", "--batch-frames", "2000", "--eval-every", "0"}, tinyTrainFlags...)
	if r := heed(t, "", args...); r.code != 0 {
		t.Fatalf("train: exit %d: %s", r.code, r.stderr)
	}
	text := filepath.Join(dir, "lm.txt")
	if err := os.WriteFile(text, []byte("a b c d\nb c a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "base.heed")
	if r := heed(t, "", "lm", "--model", filepath.Join(run, "model.heed"), "--out", out, "--order", "3", "--weight", "0.4", text); r.code != 0 {
		t.Fatalf("lm: exit %d: %s", r.code, r.stderr)
	}
	return out
}

func TestAdapt(t *testing.T) {
	base := tinyModelWithLM(t)
	voice := t.TempDir()
	wavs := writeUtterances(t, voice, 0.5, 0.8, 0.6, 0.7)
	for i, text := range []string{"A.", "B, c!", "D 1", "a b"} {
		if err := os.WriteFile(strings.TrimSuffix(wavs[i], ".wav")+".txt", []byte(text+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "voice.heed")

	r := heed(t, "", "adapt", "--model", base, "--out", out, "--hold", "1", "--epochs", "1", voice)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"3 utterances", "1 held out", "20 updates", "1 held-out utterances: CER", "wrote " + out} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	b, err := model.LoadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lm, err := b.LanguageModel()
	if err != nil || lm == nil || b.Meta.LMWeight != 0.4 {
		t.Errorf("the adapted model's LM: %v, %v, weight %g; want the base's, weight 0.4", lm, err, b.Meta.LMWeight)
	}
	if c := b.Meta.Training.Comments; !strings.Contains(c, "adapted by heed adapt from "+base) || !strings.Contains(c, "3 utterances") {
		t.Errorf("provenance %q", c)
	}
	orig, err := model.LoadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	same := true
	for i, v := range b.Net.P.Data {
		if v != orig.Net.P.Data[i] {
			same = false
			break
		}
	}
	if same {
		t.Error("the adapted weights equal the base's")
	}

	t.Run("kept unless --force", func(t *testing.T) {
		before := readAll(t, out)
		r := heed(t, "", "adapt", "--model", base, "--out", out, "--epochs", "1", voice)
		if r.code != 1 || !strings.Contains(r.stderr, "exists; --force overwrites it") {
			t.Errorf("exit %d: %s", r.code, r.stderr)
		}
		if string(readAll(t, out)) != string(before) {
			t.Error("the existing model was changed")
		}
		if r := heed(t, "", "adapt", "--model", base, "--out", out, "--epochs", "1", "--force", voice); r.code != 0 {
			t.Errorf("--force: exit %d: %s", r.code, r.stderr)
		}
	})

	t.Run("blend", func(t *testing.T) {
		half := filepath.Join(t.TempDir(), "half.heed")
		if r := heed(t, "", "adapt", "--model", base, "--out", half, "--hold", "1", "--epochs", "1", "--blend", "0.5", voice); r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		h, err := model.LoadFile(half)
		if err != nil {
			t.Fatal(err)
		}
		if c := h.Meta.Training.Comments; !strings.Contains(c, "blended 0.5") {
			t.Errorf("provenance %q", c)
		}
		h.Net.Materialize()
		b.Net.Materialize()
		orig.Net.Materialize()
		// The same training (same seed and workers), then halfway back to
		// the base; float16 storage rounds each weight.
		moved := 0
		for i, v := range h.Net.P.Data {
			a, o := b.Net.P.Data[i], orig.Net.P.Data[i]
			want := (a + o) / 2
			if d := math.Abs(float64(v - want)); d > 1e-4+2e-3*math.Abs(float64(want)) {
				t.Fatalf("weight %d: %g, want (%g + %g)/2", i, v, a, o)
			}
			if a != o {
				moved++
			}
		}
		if moved == 0 {
			t.Fatal("no weight moved")
		}
	})

	t.Run("manifest", func(t *testing.T) {
		r := heed(t, "", "adapt", "--model", base, "--out", filepath.Join(t.TempDir(), "m.heed"), "--epochs", "1", tinyCorpus(t))
		if r.code != 0 || !strings.Contains(r.stderr, "3 utterances") || !strings.Contains(r.stderr, "0 held out") {
			t.Errorf("exit %d: %s", r.code, r.stderr)
		}
	})

	t.Run("a long recording is aligned and cut", func(t *testing.T) {
		long := t.TempDir()
		writeWAV(t, filepath.Join(long, "chapter.wav"), utterance(31, 9), 16000)
		if err := os.WriteFile(filepath.Join(long, "chapter.txt"), []byte("A b c d. B c a!\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		r := heed(t, "", "adapt", "--model", base, "--out", filepath.Join(t.TempDir(), "l.heed"), "--epochs", "1", long, voice)
		if r.code != 0 || !strings.Contains(r.stderr, "chapter.wav: aligned and cut into") {
			t.Errorf("exit %d: %s", r.code, r.stderr)
		}
	})

	bad := t.TempDir()
	w := writeUtterances(t, bad, 0.5)
	for _, c := range []struct {
		name, txt string
		args      []string
		code      int
		want      string
	}{
		{"no transcript", "", []string{bad}, 1, "a.wav: no transcript a.txt beside it"},
		{"unspeakable transcript", "日本語", []string{bad}, 1, "a.txt: token"},
		{"missing input", "", []string{filepath.Join(bad, "nope")}, 1, "nope"},
		{"no input", "", nil, 2, "give at least one directory"},
		{"blend out of range", "", []string{"--blend", "0", bad}, 2, "--blend 0 out of range"},
		{"no .wav in a directory", "", []string{t.TempDir()}, 1, "no .wav, .mp3 or .flac file in it"},
	} {
		t.Run(c.name, func(t *testing.T) {
			txt := strings.TrimSuffix(w[0], ".wav") + ".txt"
			os.Remove(txt)
			if c.txt != "" {
				if err := os.WriteFile(txt, []byte(c.txt), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			o := filepath.Join(t.TempDir(), "x.heed")
			r := heed(t, "", append([]string{"adapt", "--model", base, "--out", o}, c.args...)...)
			if r.code != c.code || !strings.Contains(r.stderr, c.want) {
				t.Errorf("exit %d, want %d with %q: %s", r.code, c.code, c.want, r.stderr)
			}
			if _, err := os.Stat(o); err == nil {
				t.Error("a model was written")
			}
		})
	}
}

// splitHeld holds out evenly spread utterances: a tenth by default from 20
// utterances up, at most 50, none below 20.
func TestSplitHeld(t *testing.T) {
	utts := func(n int) []corpus.Utterance {
		us := make([]corpus.Utterance, n)
		for i := range us {
			us[i].Audio = fmt.Sprint(i)
		}
		return us
	}
	for _, c := range []struct {
		n, hold, want int
		first, last   string
	}{
		{100, -1, 10, "5", "95"}, {1000, -1, 50, "10", "990"}, {19, -1, 0, "", ""},
		{20, -1, 2, "5", "15"}, {7, 0, 0, "", ""}, {3, 5, 3, "0", "2"}, {10, 1, 1, "5", "5"},
	} {
		fit, held := splitHeld(utts(c.n), c.hold)
		if len(held) != c.want || len(fit)+len(held) != c.n {
			t.Errorf("n %d hold %d: %d held, %d fit; want %d held", c.n, c.hold, len(held), len(fit), c.want)
			continue
		}
		if c.want > 0 && (held[0].Audio != c.first || held[len(held)-1].Audio != c.last) {
			t.Errorf("n %d hold %d: held %s..%s, want %s..%s", c.n, c.hold, held[0].Audio, held[len(held)-1].Audio, c.first, c.last)
		}
	}
}

// cutAligned cuts at pauses once a clip holds cutMin seconds, closes a
// clip at cutMax, keeps margins inside the pauses, leaves out clips with a
// word the aligner could not place, and skips words without sound.
func TestCutAligned(t *testing.T) {
	samples := make([]float32, 16000*40)
	for i := range samples {
		samples[i] = float32(i%100) / 1000
	}
	w := func(word string, a, b float64, status string) align.Word {
		return align.Word{Word: word, Start: a, End: b, Status: status, Chars: []align.Char{{Char: "x", Start: a, End: b}}}
	}
	ok := align.StatusAligned
	words := []align.Word{
		w("one", 0.5, 1.0, ok), w("2", 1.05, 1.6, ok), w("three", 1.7, 3.8, ok), // a pause of 0.4 s after 3.3 s: cut
		{Word: "—"}, // no sound
		w("four", 4.2, 5.0, align.StatusUncertain), w("five", 5.1, 9.6, align.StatusInterpolated), // left out
		w("six", 10.0, 15.0, ok), w("seven", 15.01, 30.5, ok), w("eight", 30.51, 34.0, ok), // closed once 20 s are reached
	}
	dir := t.TempDir()
	clips, err := cutAligned(samples, words, filepath.Join(dir, "c"))
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		text       string
		start, end float64
	}
	wants := []want{{"one two three", 0.35, 3.95}, {"six seven", 9.85, 30.51}, {"eight", 30.5, 34.15}}
	if len(clips) != len(wants) {
		t.Fatalf("got %d clips %+v, want %d", len(clips), clips, len(wants))
	}
	for i, c := range clips {
		if c.Text != wants[i].text || math.Abs(c.Duration-(wants[i].end-wants[i].start)) > 1e-3 {
			t.Errorf("clip %d: %q, %.3f s; want %q, %.3f s", i, c.Text, c.Duration, wants[i].text, wants[i].end-wants[i].start)
		}
		got, err := audio.Load16k(c.Audio)
		if err != nil {
			t.Fatal(err)
		}
		if n := int(wants[i].end*16000) - int(wants[i].start*16000); abs(len(got.Samples)-n) > 1 {
			t.Errorf("clip %d: %d samples, want %d", i, len(got.Samples), n)
		}
	}
}

func abs(x int) int { return max(x, -x) }
