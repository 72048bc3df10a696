package align

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/heed-asr/heed/align/normalize"
	"github.com/heed-asr/heed/internal/chart"
)

func TestCalibrationConfidence(t *testing.T) {
	const tol = 1e-12
	c := Calibration{Bias: 2, Moved: 3, Settled: 1, Pause: 0.5}
	sigmoid := func(z float64) float64 { return 1 / (1 + math.Exp(-z)) }
	tests := []struct {
		name string
		e    Evidence
		want float64
	}{
		{"nothing against it", Evidence{Contrast: 20}, sigmoid(2)},
		// 50 ms moved at 20 dB contrast: moved = 0.5 in full.
		{"moved in noise", Evidence{Moved: 0.05, Contrast: 20}, sigmoid(2 - 3*0.5)},
		{"moved below 20 dB counts in full", Evidence{Moved: 0.05, Contrast: 5}, sigmoid(2 - 3*0.5)},
		// 35 dB: half way from 20 to 50 dB.
		{"moved at 35 dB counts half", Evidence{Moved: 0.1, Contrast: 35}, sigmoid(2 - 3*0.5)},
		{"moved in clean audio does not count", Evidence{Moved: 0.3, Contrast: 60}, sigmoid(2)},
		{"settled", Evidence{Settled: 0.2, Contrast: 60}, sigmoid(2 - 2)},
		{"settled capped at MaxApart", Evidence{Settled: 3, Contrast: 60}, sigmoid(2 - MaxApart/0.1)},
		{"pause", Evidence{Pause: 0.2, Contrast: 60}, sigmoid(2 - 0.5*2)},
		{"pause capped at MaxPause", Evidence{Pause: 4, Contrast: 60}, sigmoid(2 - 0.5*MaxPause/0.1)},
		{"attention, segment and apart are not weighed", Evidence{Attention: 1, Segment: 0.1, Apart: 0.4, Contrast: 60}, sigmoid(2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.Confidence(tt.e); math.Abs(got-tt.want) > tol {
				t.Errorf("Confidence(%+v) = %v, want %v", tt.e, got, tt.want)
			}
		})
	}
}

// TestDefaultCalibration checks the shipped map on the cases it was made
// for: a word both refined paths agree on, that no refinement moved and
// that no pause follows is confident; one the refinement moved 100 ms in noisy
// audio, or that the two refined paths place 300 ms apart, is flagged;
// confidence never rises as the evidence worsens.
func TestDefaultCalibration(t *testing.T) {
	c := DefaultCalibration()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	good := Evidence{Settled: 0.01, Contrast: 25}
	if got := c.Confidence(good); got < 0.9 {
		t.Errorf("agreed, unmoved word: confidence %v, want at least 0.9", got)
	}
	for _, bad := range []Evidence{{Settled: 0.02, Moved: 0.1, Contrast: 20}, {Settled: 0.3, Moved: 0, Contrast: 60}} {
		if got := c.Confidence(bad); got >= FlagConfidence {
			t.Errorf("%+v: confidence %v, want under %v", bad, got, FlagConfidence)
		}
	}
	prev := 1.0
	for ms := 0; ms <= 500; ms += 10 {
		s := float64(ms) / 1000
		got := c.Confidence(Evidence{Moved: s, Settled: s / 2, Pause: s, Contrast: 25})
		if got > prev || got <= 0 || got >= 1 {
			t.Fatalf("at %d ms: confidence %v after %v: want it in (0, 1), never rising", ms, got, prev)
		}
		prev = got
	}
}

func TestCalibrationValidate(t *testing.T) {
	for _, c := range []Calibration{{Bias: math.NaN()}, {Moved: math.Inf(1)}, {Moved: -1}, {Settled: -0.1}, {Pause: -2}, {Pause: math.NaN()}} {
		if c.Validate() == nil {
			t.Errorf("Validate(%+v) = nil, want an error", c)
		}
	}
}

func TestCalibrate(t *testing.T) {
	c := Calibration{Bias: 2, Moved: 10, Settled: 1}
	words := []Word{
		{Word: "a", Status: StatusAligned, Confidence: 0.1},
		{Word: "b", Status: StatusAligned, Confidence: 0.9},
		{Word: "c", Status: StatusInterpolated, Confidence: 0.2},
		{Word: "d", Status: StatusUncertain, Confidence: 0.1},
	}
	ev := []Evidence{
		{Contrast: 20},               // z = 2: aligned
		{Moved: 0.1, Contrast: 20},   // z = -8: uncertain
		{Moved: 1, Contrast: 20},     // interpolated: untouched
		{Settled: 0.1, Contrast: 60}, // z = 1: aligned
	}
	Calibrate(words, ev, c)
	want := []struct {
		status string
		conf   float64
	}{{StatusAligned, c.Confidence(ev[0])}, {StatusUncertain, c.Confidence(ev[1])}, {StatusInterpolated, 0.2}, {StatusAligned, c.Confidence(ev[3])}}
	for i, w := range words {
		if w.Status != want[i].status || w.Confidence != want[i].conf {
			t.Errorf("word %s: %s %v, want %s %v", w.Word, w.Status, w.Confidence, want[i].status, want[i].conf)
		}
		if (w.Evidence != nil) != (w.Status != StatusInterpolated) || w.Evidence != nil && *w.Evidence != ev[i] {
			t.Errorf("word %s: evidence %v, want %v for status %s", w.Word, w.Evidence, ev[i], w.Status)
		}
	}
}

// TestPauseEvidence: the pause after a word runs to the next word that is
// not interpolated, is capped at MaxPause and is never negative;
// interpolated words and words that end a sentence get none.
func TestPauseEvidence(t *testing.T) {
	const tol = 1e-12
	words := []Word{
		{Start: 0, End: 0.3, Status: StatusAligned},
		{Start: 0.35, End: 0.6, Status: StatusUncertain},
		{Start: 0.7, End: 0.8, Status: StatusInterpolated},
		{Start: 0.9, End: 1.0, Status: StatusAligned},
		{Start: 0.95, End: 1.2, Status: StatusAligned}, // overlaps the word before
		{Start: 1.3, End: 1.5, Status: StatusAligned},  // ends a sentence
		{Start: 3, End: 3.5, Status: StatusAligned},
		{Start: 3.6, End: 3.9, Status: StatusAligned}, // ends the text
	}
	ends := []bool{false, false, false, false, false, true, false, true}
	ev := make([]Evidence, len(words))
	pauseEvidence(ev, words, ends)
	want := []float64{0.05, MaxPause, 0, 0, 0.1, 0, 0.1, 0}
	for k := range words {
		if math.Abs(ev[k].Pause-want[k]) > tol {
			t.Errorf("word %d: pause %v, want %v", k, ev[k].Pause, want[k])
		}
	}
}

// TestLevelContrast: half a second of white noise of RMS 0.005, then a
// tone of amplitude 0.5 (RMS 0.5/√2) over it: 37 dB between the tone's
// frames and the noise floor.
func TestLevelContrast(t *testing.T) {
	const tol = 1.0 // dB
	r := rand.New(rand.NewPCG(1, 2))
	x := make([]float32, 16000)
	for i := range x {
		x[i] = float32(0.005 * r.NormFloat64())
		if i >= 8000 {
			x[i] += float32(0.5 * math.Sin(2*math.Pi*440*float64(i)/16000))
		}
	}
	want := 20 * math.Log10(0.5/math.Sqrt2/0.005)
	if got := levelContrast(measureLevels(x, 16000)); math.Abs(got-want) > tol {
		t.Errorf("levelContrast = %.2f dB, want %.2f ± %v", got, want, tol)
	}
	if got := levelContrast(measureLevels(x[:10], 16000)); got != 0 {
		t.Errorf("levelContrast of 10 samples = %v, want 0", got)
	}
}

// TestTokenWordsLeastConfident: a token of several spoken words takes the
// confidence and evidence of the least confident of them, so that a token
// is StatusAligned exactly when its confidence reaches FlagConfidence.
func TestTokenWordsLeastConfident(t *testing.T) {
	txt, err := normalize.Normalize("1999 ok")
	if err != nil {
		t.Fatal(err)
	}
	n := len(txt.Words())
	if n < 3 {
		t.Fatalf("%q has %d spoken words, want a number read as several", "1999 ok", n)
	}
	spoken := make([]Word, n)
	evs := make([]Evidence, n)
	for k := range spoken {
		evs[k] = Evidence{Apart: float64(k)}
		spoken[k] = Word{Word: txt.Words()[k], Start: float64(k), End: float64(k) + 0.5, Confidence: 0.9, Status: StatusAligned, Evidence: &evs[k], Chars: []Char{{Char: "x"}}}
	}
	spoken[1].Confidence, spoken[1].Status = 0.3, StatusUncertain
	words := TokenWords(txt, spoken)
	if w := words[0]; w.Confidence != 0.3 || w.Status != StatusUncertain || w.Evidence != &evs[1] {
		t.Errorf("token %q: confidence %v status %s evidence %v, want 0.3, uncertain, the second word's", w.Word, w.Confidence, w.Status, w.Evidence)
	}
	if w := words[1]; w.Confidence != 0.9 || w.Status != StatusAligned {
		t.Errorf("token %q: confidence %v status %s, want 0.9 aligned", w.Word, w.Confidence, w.Status)
	}
}

func TestWordStats(t *testing.T) {
	gold := []Word{
		{Start: 0, End: 0.3}, {Start: 0.3, End: 0.6}, {Start: 0.6, End: 0.9},
		{Start: 1, End: 1.03}, {Start: 1.1, End: 1.4}, {Start: 1.5, End: 1.6},
	}
	ch := []Char{{Char: "x"}}
	hyp := []Word{
		{Start: 0.01, End: 0.29, Confidence: 0.95, Chars: ch}, // right, kept
		{Start: 0.45, End: 0.6, Confidence: 0.2, Chars: ch},   // off, flagged
		{Start: 0.6, End: 0.62, Confidence: 0.7, Chars: ch},   // off, not flagged, collapsed
		{Start: 1, End: 1.02, Confidence: 0.5, Chars: ch},     // right, kept; short but so is the gold
		{Start: 1.17, End: 1.4, Confidence: 0.45, Chars: ch},  // between 50 and 100 ms, flagged
		{Start: 1.5, End: 1.6, Confidence: 0.3},               // no spoken form: skipped
	}
	var s WordStats
	s.Add(gold, hyp)
	want := WordStats{Words: 5, Off: 2, Right: 2, Flagged: 2, OffFlag: 1, RightKept: 2, Collapsed: 1}
	want.Bins[9] = ReliabilityBin{Words: 1, Within50: 1, Within100: 1}
	want.Bins[2] = ReliabilityBin{Words: 1}
	want.Bins[7] = ReliabilityBin{Words: 1}
	want.Bins[5] = ReliabilityBin{Words: 1, Within50: 1, Within100: 1}
	want.Bins[4] = ReliabilityBin{Words: 1, Within100: 1}
	if s != want {
		t.Fatalf("WordStats = %+v,\nwant %+v", s, want)
	}
	const tol = 1e-12
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"precision", s.Precision(), 0.5}, {"recall", s.Recall(), 0.5}, {"kept", s.Kept(), 1}, {"collapsed", s.CollapsedShare(), 0.2}} {
		if math.Abs(c.got-c.want) > tol {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	var m WordStats
	m.Merge(s)
	m.Merge(s)
	if m.Words != 10 || m.Bins[9].Words != 2 || m.Bins[4].Within100 != 2 {
		t.Errorf("Merge twice: %+v", m)
	}
	if !math.IsNaN((WordStats{}).Precision()) {
		t.Error("Precision of no words is not NaN")
	}
}

func TestPlotReliability(t *testing.T) {
	dir := t.TempDir()
	var s WordStats
	s.Count(0.01, 0.3, 0.3, 0.9)
	s.Count(0.2, 0.3, 0.3, 0.1)
	path := filepath.Join(dir, "r.png")
	if err := PlotReliability(path, []string{"dev", "empty"}, []WordStats{s, {}}); err != nil {
		t.Fatal(err)
	}
	img := decodePNG(t, path)
	if b := img.Bounds(); b.Dx() != 700 || b.Dy() != 500 {
		t.Errorf("plot is %dx%d pixels, want 700x500", b.Dx(), b.Dy())
	}
	// The first set is drawn, its points at (0.15, 0) bottom left and
	// (0.95, 1) top right; the empty second set is left out, legend too.
	dev, empty := chart.Colors[0], chart.Colors[1]
	for _, r := range []image.Rectangle{image.Rect(0, 250, 350, 500), image.Rect(350, 0, 700, 250)} {
		if n := countColor(img, r, dev); n < 20 {
			t.Errorf("%v: %d pixels of the first set, want its point", r, n)
		}
	}
	if n := countColor(img, img.Bounds(), empty); n != 0 {
		t.Errorf("%d pixels of the empty set", n)
	}
	if n := countColor(img, img.Bounds(), color.RGBA{190, 190, 190, 255}); n < 300 {
		t.Errorf("%d pixels of the grey diagonal, want at least 300", n)
	}
	if err := PlotReliability(filepath.Join(dir, "x.png"), []string{"a"}, nil); err == nil {
		t.Error("names and stats of different lengths: no error")
	}
	if err := PlotReliability(filepath.Join(dir, "x.png"), []string{"a"}, []WordStats{{}}); err == nil {
		t.Error("no words: no error")
	}
	if err := PlotReliability(filepath.Join(dir, "no", "such", "dir.png"), []string{"dev"}, []WordStats{s}); err == nil {
		t.Error("unwritable path: no error")
	}
}
