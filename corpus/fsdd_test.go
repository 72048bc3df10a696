package corpus

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heed-asr/heed/audio"
)

// digitClip makes a clip of n samples with a 300 Hz tone in [a, b) and
// faint noise elsewhere.
func digitClip(rng *rand.Rand, n, a, b int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(1e-4 * rng.NormFloat64())
		if i >= a && i < b {
			x[i] += float32(0.3 * math.Sin(2*math.Pi*300*float64(i)/testRate))
		}
	}
	return x
}

// TestSpeechBounds: a click 0.6 s after the digit (as at the end of
// 5_lucas_1.wav) or a knock 0.3 s before it is not the digit, though it
// is sound (TrimBounds keeps it); a stop's release 0.1 s after the vowel
// and a quiet onset are.
func TestSpeechBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	const r = testRate
	burst := func(x []float32, at, n int, amp float64) {
		for i := at; i < at+n; i++ {
			x[i] += float32(amp * rng.NormFloat64())
		}
	}
	for _, tc := range []struct {
		name             string
		extra            func(x []float32)
		trimA, trimB     int // TrimBounds, 10 ms frames
		speechA, speechB int // SpeechBounds
	}{
		{"click after", func(x []float32) { burst(x, r*14/10, r/100, 0.1) }, 40, 141, 40, 80},
		{"knock before", func(x []float32) { burst(x, 0, r/50, 0.1) }, 0, 80, 40, 80},
		{"release", func(x []float32) { burst(x, r*90/100, r/50, 0.05) }, 40, 92, 40, 92},
		{"none", func([]float32) {}, 40, 80, 40, 80},
	} {
		x := digitClip(rng, r*15/10, r*4/10, r*8/10) // a 300 Hz "vowel" 0.4-0.8 s
		tc.extra(x)
		f := r / 100
		if a, b := TrimBounds(x, r); a != tc.trimA*f || b != tc.trimB*f {
			t.Errorf("%s: TrimBounds %d..%d frames, want %d..%d", tc.name, a/f, b/f, tc.trimA, tc.trimB)
		}
		if a, b := SpeechBounds(x, r); a != tc.speechA*f || b != tc.speechB*f {
			t.Errorf("%s: SpeechBounds %d..%d frames, want %d..%d", tc.name, a/f, b/f, tc.speechA, tc.speechB)
		}
	}
}

func TestParseFSDDName(t *testing.T) {
	tests := []struct {
		name    string
		ok      bool
		digit   int
		speaker string
		index   int
	}{
		{"7_george_12.wav", true, 7, "george", 12},
		{"/a/b/0_yweweler_0.wav", true, 0, "yweweler", 0},
		{"10_george_1.wav", false, 0, "", 0},
		{"7_george.wav", false, 0, "", 0},
		{"7__1.wav", false, 0, "", 0},
		{"7_george_x.wav", false, 0, "", 0},
		{"7_george_1.flac", false, 0, "", 0},
		{"NOTICE.md", false, 0, "", 0},
	}
	for _, tc := range tests {
		d, s, i, ok := ParseFSDDName(tc.name)
		if ok != tc.ok || (ok && (d != tc.digit || s != tc.speaker || i != tc.index)) {
			t.Errorf("%s: %d %q %d %v", tc.name, d, s, i, ok)
		}
	}
}

func TestTrimBounds(t *testing.T) {
	const tol = testRate / 100 // one frame
	rng := rand.New(rand.NewPCG(1, 1))
	tests := []struct{ n, a, b int }{
		{8000, 1000, 5000},
		{8000, 0, 8000},
		{8000, 3000, 3400},
	}
	for _, tc := range tests {
		a, b := TrimBounds(digitClip(rng, tc.n, tc.a, tc.b), testRate)
		if abs(a-tc.a) > tol || abs(b-tc.b) > tol {
			t.Errorf("TrimBounds = %d, %d; want %d, %d", a, b, tc.a, tc.b)
		}
	}
	if a, b := TrimBounds(make([]float32, 100), testRate); a != 0 || b != 100 {
		t.Errorf("silent clip: %d, %d", a, b)
	}
}

func abs(v int) int { return max(v, -v) }

func TestGlueTimes(t *testing.T) {
	const tol = 1e-4 // seconds (rounding of the written times)
	rng := rand.New(rand.NewPCG(2, 2))
	var clips []FSDDClip
	for d, span := range [][3]int{{6000, 1000, 4000}, {8000, 2500, 7000}, {5000, 0, 5000}, {7000, 500, 6900}} {
		x := digitClip(rng, span[0], span[1], span[2])
		a, b := TrimBounds(x, testRate)
		clips = append(clips, FSDDClip{Digit: d + 4, Speaker: "s", Samples: x, Start: a, End: b, WordStart: a, WordEnd: b})
	}
	cfg := GlueConfig{Rate: testRate, MinGap: 0.05, MaxGap: 0.3, Margin: 0.01, EdgeLead: 0.15, NoiseDBFS: -60}
	x, text, words := Glue(clips, cfg, rand.New(rand.NewPCG(3, 3)))
	if text != "four five six seven" {
		t.Errorf("text %q", text)
	}
	if len(words) != len(clips) {
		t.Fatalf("%d words", len(words))
	}
	dur := float64(len(x)) / testRate
	want := 2 * cfg.EdgeLead
	for i, c := range clips {
		w := words[i]
		if w.Word != strings.Fields(text)[i] {
			t.Errorf("word %d is %q", i, w.Word)
		}
		// The word's span holds exactly the clip's trimmed samples.
		a := int(math.Round(w.Start * testRate))
		b := int(math.Round(w.End * testRate))
		if b-a != c.End-c.Start {
			t.Errorf("word %d: %d samples, clip span %d", i, b-a, c.End-c.Start)
			continue
		}
		for k := a; k < b; k++ {
			if x[k] != c.Samples[c.Start+k-a] {
				t.Fatalf("word %d: sample %d differs from the clip", i, k)
			}
		}
		if i > 0 {
			gap := w.Start - words[i-1].End
			// Gap plus the margins actually kept around both clips.
			lo := cfg.MinGap - tol
			hi := cfg.MaxGap + 2*cfg.Margin + tol
			if gap < lo || gap > hi {
				t.Errorf("gap before word %d: %.4f s, want %.3f..%.3f", i, gap, lo, hi)
			}
		}
		want += float64(min(len(c.Samples), c.End+160)-max(0, c.Start-160)) / testRate
	}
	if words[0].Start < cfg.EdgeLead-tol || words[len(words)-1].End > dur-cfg.EdgeLead+tol {
		t.Errorf("edges: first starts %.4f, last ends %.4f of %.4f s", words[0].Start, words[len(words)-1].End, dur)
	}
	if dur < want+3*cfg.MinGap-tol || dur > want+3*cfg.MaxGap+tol {
		t.Errorf("duration %.4f s, want %.4f plus 3 gaps", dur, want)
	}
	u := Utterance{Audio: "x.wav", Text: text, Words: words, Duration: dur}
	if err := u.Validate(); err != nil {
		t.Errorf("glued utterance invalid: %v", err)
	}
}

func TestLoadFSDD(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(4, 4))
	names := []string{"3_ann_0.wav", "3_ann_7.wav", "9_bob_5.wav", "README.md"}
	for _, n := range names {
		var err error
		if strings.HasSuffix(n, ".wav") {
			f, ferr := os.Create(filepath.Join(dir, n))
			if ferr != nil {
				t.Fatal(ferr)
			}
			// 8 kHz, tone in 0.1..0.3 s.
			err = audio.WriteWAV(f, digitClip(rng, 3200, 800, 2400), 8000)
			f.Close()
		} else {
			err = os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	train, err := LoadFSDD(dir, 16000, func(i int) bool { return i >= 5 })
	if err != nil {
		t.Fatal(err)
	}
	if len(train) != 2 || train[0].Speaker != "ann" || train[0].Index != 7 || train[1].Digit != 9 {
		t.Fatalf("train clips: %+v", train)
	}
	c := train[0]
	if len(c.Samples) != 6400 {
		t.Errorf("%d samples at 16 kHz, want 6400", len(c.Samples))
	}
	if abs(c.Start-1600) > 160 || abs(c.End-4800) > 160 {
		t.Errorf("bounds %d..%d, want about 1600..4800", c.Start, c.End)
	}
	if _, err := LoadFSDD(dir, 16000, func(i int) bool { return i > 100 }); err == nil {
		t.Error("no error when no clip matches")
	}
}
