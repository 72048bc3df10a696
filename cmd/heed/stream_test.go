package main

// The stream tests use the embedded English model: whether a segment is
// speech is the model's own verdict, which an untrained model cannot give.
// The protocol tests run this test binary as heed (TestMain, in
// batch_test.go) behind real pipes and send it real signals.

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/heed-asr/heed/audio"
	"github.com/heed-asr/heed/model/train"
)

// s16 encodes samples as raw s16le.
func s16(x []float32) []byte {
	b := make([]byte, 2*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(int16(math.Round(float64(max(-1, min(1, v)))*32767))))
	}
	return b
}

// spoken returns testdata/hello.wav (one spoken sentence) at 16 kHz.
func spoken(t *testing.T) []float32 {
	t.Helper()
	c, err := audio.Load16k(filepath.Join("..", "..", "testdata", "hello.wav"))
	if err != nil {
		t.Fatal(err)
	}
	return c.Samples
}

func quiet(sec float64) []float32 { return make([]float32, int(sec*16000)) }

// line is one line of heed stream's JSON output and when it arrived.
type line struct {
	streamLine
	at  time.Time
	raw string
}

// proc is heed stream running as a child process behind pipes.
type proc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan line
	stderr bytes.Buffer
	done   chan error
}

func startStream(t *testing.T, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"stream", "--input", "s16le", "--rate", "16000"}, args...)...)
	cmd.Env = append(os.Environ(), "HEED_TEST_MAIN=1")
	p := &proc{cmd: cmd, lines: make(chan line, 1000), done: make(chan error, 1)}
	cmd.Stderr = &p.stderr
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			l := line{at: time.Now(), raw: sc.Text()}
			if err := json.Unmarshal(sc.Bytes(), &l.streamLine); err != nil {
				l.Type = "bad: " + err.Error()
			}
			p.lines <- l
		}
		close(p.lines)
		p.done <- cmd.Wait()
	}()
	t.Cleanup(func() { cmd.Process.Kill() })
	return p
}

// next returns the next line, failing the test after a minute without one.
func (p *proc) next(t *testing.T) (line, bool) {
	t.Helper()
	select {
	case l, ok := <-p.lines:
		return l, ok
	case <-time.After(time.Minute):
		t.Fatalf("no line within a minute; stderr: %s", p.stderr.String())
	}
	return line{}, false
}

// until reads lines up to and including the first of type typ.
func (p *proc) until(t *testing.T, typ string) []line {
	t.Helper()
	var got []line
	for {
		l, ok := p.next(t)
		if !ok {
			t.Fatalf("output ended before a %s line; got %d lines; stderr: %s", typ, len(got), p.stderr.String())
		}
		got = append(got, l)
		if l.Type == typ {
			return got
		}
	}
}

// exit waits for the process and returns its exit status.
func (p *proc) exit(t *testing.T) int {
	t.Helper()
	select {
	case err := <-p.done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(time.Minute):
		t.Fatalf("still running a minute later; stderr: %s", p.stderr.String())
	}
	return -1
}

// checkUtterance checks the partials and the final of one utterance.
func checkUtterance(t *testing.T, ls []line) {
	t.Helper()
	fin := ls[len(ls)-1]
	parts := ls[:len(ls)-1]
	if len(parts) == 0 {
		t.Errorf("final %q with no partial before it", fin.raw)
	}
	prev := -1.0
	for _, l := range parts {
		if l.Type != "partial" || l.Start != fin.Start || l.Words != nil || strings.Contains(l.raw, `"words"`) {
			t.Errorf("line %s: want a partial of the utterance at %v with no words", l.raw, fin.Start)
		}
		if prev >= 0 && l.End-prev > 0.3001 {
			t.Errorf("partials %.3f s of audio apart", l.End-prev)
		}
		prev = l.End
	}
	if fin.Text == "" || len(fin.Words) == 0 || fin.End <= fin.Start {
		t.Errorf("final %s: want text and words", fin.raw)
	}
	for _, w := range fin.Words {
		if w.Start < fin.Start || w.End > fin.End+0.001 || w.Confidence <= 0 {
			t.Errorf("word %+v outside the utterance %v..%v or without confidence", w, fin.Start, fin.End)
		}
	}
}

// TestStreamPipe feeds heed stream through a real pipe: partials come
// before the final, the final of an utterance that ended in a pause comes
// while standard input is still open (every line is flushed), and the end
// of the input closes the open utterance with a final and exit status 0.
func TestStreamPipe(t *testing.T) {
	x := spoken(t)
	p := startStream(t, "--beam", "4")
	if _, err := p.stdin.Write(s16(glue(quiet(0.5), x, quiet(1.5)))); err != nil {
		t.Fatal(err)
	}
	first := p.until(t, "final")
	checkUtterance(t, first)
	// The second sentence is cut before its own pause: only the end of the
	// input ends it.
	if _, err := p.stdin.Write(s16(x[:len(x)*4/5])); err != nil {
		t.Fatal(err)
	}
	p.stdin.Close()
	second := p.until(t, "final")
	checkUtterance(t, second)
	if second[0].Start < first[len(first)-1].End {
		t.Errorf("second utterance starts at %v, before the first ends at %v", second[0].Start, first[len(first)-1].End)
	}
	if l, ok := <-p.lines; ok {
		t.Errorf("line after the last final: %s", l.raw)
	}
	if code := p.exit(t); code != 0 || p.stderr.Len() > 0 {
		t.Errorf("exit %d, stderr %q", code, p.stderr.String())
	}
}

// TestStreamSignals: SIGINT and SIGTERM, while standard input is idle (open,
// nothing written) or busy (speech still pouring in), close the open
// utterance with a final line and exit 0.
func TestStreamSignals(t *testing.T) {
	x := spoken(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		for _, busy := range []bool{false, true} {
			name := sig.String() + map[bool]string{false: " idle", true: " busy"}[busy]
			t.Run(name, func(t *testing.T) {
				p := startStream(t, "--beam", "1")
				if _, err := p.stdin.Write(s16(glue(quiet(0.5), x[:len(x)/2]))); err != nil {
					t.Fatal(err)
				}
				var wg sync.WaitGroup
				stop := make(chan struct{})
				if busy {
					wg.Add(1)
					go func() { // speech without a pause, until heed is gone
						defer wg.Done()
						for i := 0; ; i = (i + 1600) % (len(x) / 2) {
							select {
							case <-stop:
								return
							default:
							}
							if _, err := p.stdin.Write(s16(x[i : i+1600])); err != nil {
								return
							}
							time.Sleep(20 * time.Millisecond)
						}
					}()
				}
				for l := p.until(t, "partial"); l[len(l)-1].End < 1.4; l = p.until(t, "partial") {
					// a second of speech heard
				}
				if err := p.cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				rest := p.until(t, "final")
				if fin := rest[len(rest)-1]; fin.Text == "" {
					t.Errorf("final %s: want the text heard before the signal", fin.raw)
				}
				code := p.exit(t)
				close(stop)
				p.stdin.Close()
				wg.Wait()
				if code != 0 {
					t.Errorf("exit %d after %v, stderr %q", code, sig, p.stderr.String())
				}
			})
		}
	}
}

// TestStreamInputs: raw input cut in the middle of a sample is used up to
// the last whole sample with a warning and exit 0; --format text prints
// finals only, with their times; silence and noise print nothing; bad
// flags are usage errors.
func TestStreamInputs(t *testing.T) {
	x := spoken(t)
	raw := s16(glue(quiet(0.3), x))
	r := heed(t, string(raw[:len(raw)-1]), "stream", "--input", "s16le", "--beam", "1")
	if r.code != 0 || !strings.Contains(r.stderr, "partial frame") || !strings.Contains(r.stdout, `"type":"final"`) {
		t.Errorf("cut mid-sample: exit %d, stdout %q, stderr %q", r.code, clip(r.stdout), r.stderr)
	}
	r = heed(t, string(raw), "stream", "--input", "s16le", "--beam", "1", "--format", "text")
	f := strings.Split(strings.TrimSpace(r.stdout), "\t")
	if r.code != 0 || len(f) != 3 || f[2] == "" || strings.Contains(r.stdout, "{") {
		t.Errorf("--format text: exit %d, stdout %q, want START<TAB>END<TAB>TEXT", r.code, r.stdout)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	noise := make([]float32, 30*16000)
	for i := range noise {
		noise[i] = float32(0.1 * rng.NormFloat64())
	}
	for name, in := range map[string][]float32{"silence": quiet(60), "white noise": noise} {
		if r := heed(t, string(s16(in)), "stream", "--input", "s16le", "--beam", "1"); r.code != 0 || r.stdout != "" {
			t.Errorf("%s: exit %d, stdout %q", name, r.code, clip(r.stdout))
		}
	}
	for _, args := range [][]string{
		{"stream", "--input", "ogg"},
		{"stream", "extra.wav"},
		{"stream", "--min-pause", "20s"},
		{"stream", "--format", "srt"},
	} {
		if r := heed(t, "", args...); r.code != 2 {
			t.Errorf("heed %q: exit %d, want 2", args, r.code)
		}
	}
}

// TestStreamCompressed pipes testdata/hello.mp3 and testdata/hello.flac,
// copies of hello.wav (testdata/README.md), into heed stream, told by
// their first bytes and named with --input. Each gives one final line and
// exit 0: the lossless FLAC exactly the WAV's, the MP3 a text within 5
// characters of it. FLAC damaged after the first second (a frame's CRC
// fails) closes the utterance heard so far with a final, then exits 1
// naming "-" and the damage; MP3 given to --input flac is refused.
func TestStreamCompressed(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata")
	stream := func(in []byte, args ...string) result {
		t.Helper()
		return heed(t, string(in), append([]string{"stream", "--beam", "1", "--format", "text"}, args...)...)
	}
	ref := stream(readAll(t, filepath.Join(dir, "hello.wav")))
	if f := strings.Split(strings.TrimSpace(ref.stdout), "\t"); ref.code != 0 || len(f) != 3 || f[2] == "" {
		t.Fatalf("hello.wav: exit %d, stdout %q, stderr %q", ref.code, ref.stdout, ref.stderr)
	}
	want := strings.Split(strings.TrimSpace(ref.stdout), "\t")[2]
	mp3, flac := readAll(t, filepath.Join(dir, "hello.mp3")), readAll(t, filepath.Join(dir, "hello.flac"))
	for _, tc := range []struct {
		name     string
		in       []byte
		input    string
		maxEdits int
	}{
		{"mp3", mp3, "wav", 5}, {"mp3", mp3, "mp3", 5},
		{"flac", flac, "wav", 0}, {"flac", flac, "flac", 0},
	} {
		r := stream(tc.in, "--input", tc.input)
		f := strings.Split(strings.TrimSpace(r.stdout), "\t")
		if r.code != 0 || r.stderr != "" || len(f) != 3 {
			t.Errorf("%s, --input %s: exit %d, stdout %q, stderr %q; want one final", tc.name, tc.input, r.code, r.stdout, r.stderr)
			continue
		}
		if tc.maxEdits == 0 && r.stdout != ref.stdout {
			t.Errorf("%s, --input %s: %q, want the WAV's %q", tc.name, tc.input, r.stdout, ref.stdout)
		}
		if d := train.EditDistance([]rune(f[2]), []rune(want)); f[2] == "" || d > tc.maxEdits {
			t.Errorf("%s, --input %s: %q, %d edits from the WAV's %q (want at most %d)", tc.name, tc.input, f[2], d, want, tc.maxEdits)
		}
	}

	bad := slices.Clone(flac)
	bad[len(bad)*3/4] ^= 0x10
	r := stream(bad)
	if r.code != 1 || !strings.Contains(r.stderr, "heed: -: corrupt FLAC data after ") || !strings.Contains(r.stderr, "CRC") {
		t.Errorf("damaged FLAC: exit %d, stderr %q; want 1 and the damage named", r.code, r.stderr)
	}
	if f := strings.Split(strings.TrimSpace(r.stdout), "\t"); len(f) != 3 || f[2] == "" {
		t.Errorf("damaged FLAC: stdout %q, want the final of what came before the damage", r.stdout)
	}
	if r := stream(mp3, "--input", "flac"); r.code != 1 || !strings.Contains(r.stderr, "heed: -: not a FLAC stream") {
		t.Errorf("MP3 as --input flac: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestTranscribeNothing: two minutes of digital silence transcribe to an
// empty text with an empty word list.
func TestTranscribeNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "silence.wav")
	var b bytes.Buffer
	if err := audio.WriteWAV(&b, quiet(120), 16000); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r := heed(t, "", "transcribe", "--format", "json", path)
	var tr transcript
	if err := json.Unmarshal([]byte(r.stdout), &tr); r.code != 0 || err != nil || tr.Text != "" || tr.Words == nil || len(tr.Words) != 0 {
		t.Errorf("exit %d, %v, stdout %q", r.code, err, r.stdout)
	}
}

// glue joins pieces of audio.
func glue(parts ...[]float32) []float32 {
	var out []float32
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}
