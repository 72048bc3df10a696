package speech

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/heed-asr/heed/align"
	"github.com/heed-asr/heed/audio"
	"github.com/heed-asr/heed/model"
	"github.com/heed-asr/heed/model/english"
)

var (
	loadOnce sync.Once
	bundle   *model.Bundle
	hello    []float32 // testdata/hello.wav: one spoken sentence
)

// setup loads the embedded model and the spoken test sentence once.
func setup(t *testing.T) (*model.Bundle, []float32) {
	t.Helper()
	loadOnce.Do(func() {
		b, err := english.Load()
		if err != nil {
			t.Fatal(err)
		}
		c, err := audio.Load16k("../testdata/hello.wav")
		if err != nil {
			t.Fatal(err)
		}
		bundle, hello = b, c.Samples
	})
	if bundle == nil {
		t.Fatal("setup failed")
	}
	return bundle, hello
}

// noise returns sec seconds of white or pink noise at an RMS of about rms.
func noise(sec float64, rms float64, pink bool, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 7))
	x := make([]float32, int(sec*Rate))
	var b0, b1, b2 float64 // Paul Kellet's economy pink filter
	for i := range x {
		w := rng.NormFloat64()
		if pink {
			b0 = 0.99765*b0 + w*0.0990460
			b1 = 0.96300*b1 + w*0.2965164
			b2 = 0.57000*b2 + w*1.0526913
			w = (b0 + b1 + b2 + w*0.1848) / 3
		}
		x[i] = float32(rms * w)
	}
	return x
}

// glue joins pieces of audio.
func glue(parts ...[]float32) []float32 {
	var out []float32
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// push feeds x to e in chunks of n samples and returns every event.
func push(e *Endpointer, x []float32, n int) []Event {
	var out []Event
	for i := 0; i < len(x); i += n {
		out = append(out, e.Push(x[i:min(i+n, len(x))])...)
	}
	return append(out, e.Flush()...)
}

func finals(evs []Event) []Event {
	var out []Event
	for _, ev := range evs {
		if ev.Final && !ev.Rejected {
			out = append(out, ev)
		}
	}
	return out
}

// TestHourOfSilence: an hour of digital silence, streamed, opens no segment,
// holds no more audio than a window, and needs no encoder run.
func TestHourOfSilence(t *testing.T) {
	b, _ := setup(t)
	e := NewEndpointer(b, StreamOptions())
	sec := make([]float32, Rate)
	start := time.Now()
	for i := 0; i < 3600; i++ {
		if evs := e.Push(sec); len(evs) > 0 {
			t.Fatalf("second %d: %d events from silence", i, len(evs))
		}
		if len(e.buf) > 4*Rate {
			t.Fatalf("second %d: %d samples held", i, len(e.buf))
		}
	}
	if evs := e.Flush(); len(evs) > 0 {
		t.Fatalf("%d events from silence at the end", len(evs))
	}
	t.Logf("one hour of silence in %v", time.Since(start))
}

// TestNoiseIsNotSpeech: white and pink noise, faint and loud, and silence
// give no transcript and no words.
func TestNoiseIsNotSpeech(t *testing.T) {
	b, _ := setup(t)
	a := align.NewAligner(b)
	dec := model.DefaultDecodeOptions()
	dec.Beam = 4
	for _, tc := range []struct {
		name string
		x    []float32
	}{
		{"silence", make([]float32, 120*Rate)},
		{"white -40 dB", noise(10, 0.01, false, 1)},
		{"white -15 dB", noise(10, 0.18, false, 2)},
		{"pink -35 dB", noise(10, 0.018, true, 3)},
		{"pink -15 dB", noise(10, 0.18, true, 4)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantNothing(t, a, tc.x, dec)
		})
	}
}

// wantNothing checks that Transcribe gives x no transcript and no words.
func wantNothing(t *testing.T, a *align.Aligner, x []float32, dec model.DecodeOptions) {
	t.Helper()
	text, words, err := Transcribe(a, x, dec, true, 2)
	if err != nil || text != "" || len(words) != 0 {
		t.Errorf("text %q, %d words, error %v; want nothing", text, len(words), err)
	}
}

// TestSegmentsAtPauses: three sentences with pauses of silence and of
// noise between them become three segments, each holding one sentence,
// and transcribe to three non-empty transcripts with words inside them.
func TestSegmentsAtPauses(t *testing.T) {
	b, x := setup(t)
	floor := noise(1, 0.003, true, 5)
	rec := glue(make([]float32, Rate/2), x, make([]float32, Rate), x, floor, x, make([]float32, Rate/2))
	ch := make(chan Segment)
	go Segments(b, rec, ch)
	var segs []Segment
	for s := range ch {
		segs = append(segs, s)
	}
	starts := []int64{Rate / 2, int64(Rate/2 + len(x) + Rate), int64(Rate/2 + 2*len(x) + 2*Rate)}
	if len(segs) != 3 {
		t.Fatalf("%d segments, want 3: %+v", len(segs), segs)
	}
	for i, s := range segs {
		// Each segment lies within its sentence and the pauses around it.
		lo, hi := starts[i]-Rate, starts[i]+int64(len(x))+Rate
		if s.Start < lo || s.End > hi || s.End-s.Start < int64(len(x))/2 {
			t.Errorf("segment %d: samples %d..%d, want within %d..%d", i, s.Start, s.End, lo, hi)
		}
		if s.Text == "" {
			t.Errorf("segment %d: no text from the CTC head", i)
		}
	}
	dec := model.DefaultDecodeOptions()
	dec.Beam = 4
	text, words, err := Transcribe(align.NewAligner(b), rec, dec, true, 2)
	if err != nil {
		t.Fatal(err)
	}
	one, _, err := Transcribe(align.NewAligner(b), x, dec, false, 1)
	if err != nil || one == "" {
		t.Fatalf("one sentence: %q, %v", one, err)
	}
	if want := strings.Repeat(one+" ", 3); text+" " != want {
		t.Logf("three sentences: %q, one: %q", text, one) // the pauses differ; a word may too
	}
	if n := len(strings.Fields(text)); n < 2*len(strings.Fields(one)) || n > 4*len(strings.Fields(one)) {
		t.Errorf("three sentences gave %d words (%q), one gave %q", n, text, one)
	}
	if len(words) != len(strings.Fields(text)) {
		t.Errorf("%d timed words for %d in the text", len(words), len(strings.Fields(text)))
	}
	prev := 0.0
	for _, w := range words {
		if w.Start < prev || w.End < w.Start || w.End > float64(len(rec))/Rate {
			t.Errorf("word %q at %.3f..%.3f after %.3f", w.Word, w.Start, w.End, prev)
		}
		prev = w.Start
	}
}

// TestSegmentsJoinShortPauses: two stretches of speech a short pause apart
// are one segment of Segments (decoded together, joinGap) unless together
// they are longer than joinMax; a long pause keeps them apart.
func TestSegmentsJoinShortPauses(t *testing.T) {
	b, x := setup(t)
	segments := func(rec []float32) []Segment {
		ch := make(chan Segment)
		go Segments(b, rec, ch)
		var segs []Segment
		for s := range ch {
			segs = append(segs, s)
		}
		return segs
	}
	one := segments(x)
	if len(one) != 1 {
		t.Fatalf("the sentence alone: %d segments", len(one))
	}
	sp := x[one[0].Start:one[0].End] // the sentence with its segment's margins
	half := sp[:len(sp)/2]
	if 2*len(sp)+int(0.4*Rate) <= joinMax*Rate || len(sp) > joinMax*Rate {
		t.Fatalf("the sentence's segment is %.2f s: the last case below needs two of it and 0.4 s to exceed joinMax", float64(len(sp))/Rate)
	}
	for _, c := range []struct {
		piece []float32
		pause float64
		want  int
	}{
		{half, 0.4, 1}, {half, joinGap - 0.05, 1}, {half, 2, 2},
		{sp, 0.4, 2}, // joined, it would be longer than joinMax
	} {
		rec := glue(c.piece, make([]float32, int(c.pause*Rate)), c.piece)
		segs := segments(rec)
		if len(segs) != c.want {
			var spans []string
			for _, g := range segs {
				spans = append(spans, fmt.Sprintf("%d..%d", g.Start, g.End))
			}
			t.Errorf("%.2f s pieces, pause %.2f s: %d segments (%s), want %d", float64(len(c.piece))/Rate, c.pause, len(segs), strings.Join(spans, ", "), c.want)
			continue
		}
		if c.want == 1 && (segs[0].End-segs[0].Start < int64(len(rec))*8/10 || int64(len(segs[0].Samples)) != segs[0].End-segs[0].Start) {
			t.Errorf("pause %.2f s: the joined segment %d..%d (%d samples) does not hold both pieces of %d samples",
				c.pause, segs[0].Start, segs[0].End, len(segs[0].Samples), len(rec))
		}
	}
}

// TestMaxSegment: speech without a pause is cut at MaxSegment, and no
// segment is longer.
func TestMaxSegment(t *testing.T) {
	b, x := setup(t)
	var rec []float32
	for len(rec) < 10*Rate {
		rec = append(rec, x[:len(x)*3/4]...) // cut before the sentence's final silence
	}
	opt := StreamOptions()
	opt.MaxSegment = 3 * time.Second
	evs := finals(push(NewEndpointer(b, opt), rec, 1600))
	if len(evs) < 4 {
		t.Fatalf("%d segments from 10 s of speech with MaxSegment 3 s", len(evs))
	}
	for _, ev := range evs {
		if d := float64(ev.End-ev.Start) / Rate; d > 3.01 {
			t.Errorf("segment %.2f..%.2f is %.2f s long", float64(ev.Start)/Rate, float64(ev.End)/Rate, d)
		}
	}
}

// TestStreamEvents: pushed in 100 ms chunks, a sentence gives partials at
// least every 300 ms of audio, then one final whose audio is what Pending
// offered beforehand; the encoder's work per second of audio stays that of
// one window per Hop.
func TestStreamEvents(t *testing.T) {
	b, x := setup(t)
	e := NewEndpointer(b, StreamOptions())
	rec := glue(make([]float32, Rate/2), x, make([]float32, Rate))
	var (
		evs     []Event
		pending []Segment
	)
	for i := 0; i < len(rec); i += 1600 {
		evs = append(evs, e.Push(rec[i:min(i+1600, len(rec))])...)
		if s, ok := e.Pending(); ok {
			pending = append(pending, s)
		}
	}
	evs = append(evs, e.Flush()...)
	var last int64 = -1
	nf := 0
	for i, ev := range evs {
		if ev.Final {
			nf++
			if i == 0 || evs[i-1].Final {
				t.Errorf("final %d has no partial before it", nf)
			}
			found := false
			for _, p := range pending {
				found = found || (p.Start == ev.Start && p.End == ev.End && len(p.Samples) == len(ev.Samples))
			}
			if !found {
				t.Errorf("final %d..%d was never pending", ev.Start, ev.End)
			}
			last = -1
			continue
		}
		if last >= 0 && ev.End-last > Rate*3/10 {
			t.Errorf("partials %.2f s apart", float64(ev.End-last)/Rate)
		}
		last = ev.End
	}
	if nf != 1 {
		t.Fatalf("%d finals, want 1", nf)
	}
	hop := e.hop
	window := e.left + hop + b.Meta.Features.FrameLength
	if r := float64(e.encoded) / float64(e.total); r > float64(window)/float64(hop)+0.5 {
		t.Errorf("encoded %.1f samples per sample of audio, a window per hop is %.1f", r, float64(window)/float64(hop))
	}
}

// TestNoiseStream: 20 s of loud pink noise in a stream report nothing and
// hold bounded audio.
func TestNoiseStream(t *testing.T) {
	b, _ := setup(t)
	e := NewEndpointer(b, StreamOptions())
	x := noise(20, 0.1, true, 9)
	held := 0
	var evs []Event
	for i := 0; i < len(x); i += 1600 {
		evs = append(evs, e.Push(x[i:min(i+1600, len(x))])...)
		held = max(held, len(e.buf))
	}
	evs = append(evs, e.Flush()...)
	if f := finals(evs); len(f) > 0 {
		t.Errorf("%d segments of speech in noise: %q", len(f), f[0].Text)
	}
	if held > 17*Rate { // MaxSegment, a window and the head
		t.Errorf("%.1f s of audio held", float64(held)/Rate)
	}
}

func TestCTCText(t *testing.T) {
	tok := func(s string) []frameInfo {
		var f []frameInfo
		for _, r := range s {
			id := model.EOS
			switch {
			case r == '_':
			case r == ' ':
				id = 1
			default:
				id = 3 + int(r-'a')
			}
			f = append(f, frameInfo{tok: id})
		}
		return f
	}
	for in, want := range map[string]string{
		"":                 "",
		"__":               "",
		" _h_ee_l_ll_o  _": "hello",
		"aa _ bb":          "a b",
		"a__a":             "aa",
	} {
		if got := ctcText(tok(in)); got != want {
			t.Errorf("ctcText(%q) = %q, want %q", in, got, want)
		}
	}
}

// cpuTime is the process's user and system time so far, seconds: the
// benchmarks report it rather than wall time, which a busy machine inflates.
func cpuTime() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkDecode reports the CPU time to decode and align one sentence
// (testdata/hello.wav, 3.4 s) by beam width: what a stream's final costs
// after its closing pause has begun.
func BenchmarkDecode(b *testing.B) {
	t := &testing.T{}
	m, x := setup(t)
	if _, err := m.LanguageModel(); err != nil {
		b.Fatal(err)
	}
	a := align.NewAligner(m)
	e := NewEndpointer(m, FileOptions())
	evs := finals(push(e, x, len(x)))
	if len(evs) != 1 {
		b.Fatalf("%d segments", len(evs))
	}
	for _, beam := range []int{1, 4, 8, 16} {
		b.Run(fmt.Sprintf("beam%d", beam), func(b *testing.B) {
			dec := model.DefaultDecodeOptions()
			dec.Beam = beam
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				if _, err := Decode(a, evs[0].Segment, dec, true); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cpuTime()-cpu0)/float64(b.N), "cpu-s/op")
		})
	}
}

// BenchmarkEndpointer reports the encoder's work per second of speech,
// streamed in 100 ms chunks (StreamOptions) or read whole (FileOptions):
// run with GOMAXPROCS=1 for the cost on one core.
func BenchmarkEndpointer(b *testing.B) {
	t := &testing.T{}
	m, x := setup(t)
	rec := glue(x, make([]float32, Rate/2))
	for _, bc := range []struct {
		name string
		opt  Options
	}{{"stream", StreamOptions()}, {"file", FileOptions()}} {
		b.Run(bc.name, func(b *testing.B) {
			e := NewEndpointer(m, bc.opt)
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				for j := 0; j < len(rec); j += 1600 {
					e.Push(rec[j:min(j+1600, len(rec))])
				}
			}
			b.ReportMetric((cpuTime()-cpu0)/(float64(b.N*len(rec))/Rate), "cpu-s/audio-s")
		})
	}
}

// TestNoisyRoom: three sentences 1 s apart in pink noise at 10 dB SNR are
// still cut at the pauses between them, streamed or read whole, and at
// most at one pause within each: the pauses are found in the posteriors,
// not in the energy.
func TestNoisyRoom(t *testing.T) {
	b, x := setup(t)
	rec := glue(make([]float32, Rate), x, make([]float32, Rate), x, make([]float32, Rate), x, make([]float32, Rate))
	sum := 0.0
	for _, v := range x {
		sum += float64(v) * float64(v)
	}
	n := noise(float64(len(rec))/Rate+1, math.Sqrt(sum/float64(len(x)))/math.Sqrt(10), true, 11)
	for i := range rec {
		rec[i] += n[i]
	}
	for name, opt := range map[string]Options{"stream": StreamOptions(), "file": FileOptions()} {
		evs := finals(push(NewEndpointer(b, opt), rec, 1600))
		spans := false
		for k := 1; k <= 2; k++ { // the middle of the pause after sentence k
			mid := float64(k)*(1+float64(len(x))/Rate) + 0.5
			for _, ev := range evs {
				if a, z := ev.Seconds(); a < mid && z > mid {
					spans = true
				}
			}
		}
		if len(evs) < 3 || len(evs) > 6 || spans {
			var got []string
			for _, ev := range evs {
				a, z := ev.Seconds()
				got = append(got, fmt.Sprintf("%.2f-%.2f %q", a, z, ev.Text))
			}
			t.Errorf("%s: %d segments, want 3 to 6 cut at the pauses between sentences: %s", name, len(evs), strings.Join(got, "; "))
		}
	}
}
