package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// chunkyReader returns reads of the given sizes in turn, like a pipe fed
// by a slow writer.
type chunkyReader struct {
	b     []byte
	sizes []int
	i     int
}

func (r *chunkyReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), r.sizes[r.i%len(r.sizes)], len(r.b))
	r.i++
	copy(p, r.b[:n])
	r.b = r.b[n:]
	return n, nil
}

// readAll drains s with reads of len(buf).
func readAll(s *Stream, buf []float32) ([]float32, error) {
	var out []float32
	for {
		n, err := s.Read(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if n == 0 {
			return out, errors.New("Read returned 0, nil")
		}
	}
}

// interleave builds multi-channel 16-bit frames from a mono signal, giving
// every channel a different gain.
func interleave16(x []float32, ch int) []byte {
	var b []byte
	for _, v := range x {
		for c := range ch {
			g := 1 - 0.2*float32(c)
			b = binary.LittleEndian.AppendUint16(b, uint16(int16(math.Round(float64(v*g)*32767))))
		}
	}
	return b
}

func streamInputs() []struct {
	name string
	in   []byte
} {
	type input = struct {
		name string
		in   []byte
	}
	ins := []input{
		{"44.1k stereo s16", riff(fmtChunk(1, 2, 44100, 16), data(interleave16(tone(44100, 1000, 0.5, 4410), 2)))},
		{"48k mono f32", riff(fmtChunk(3, 1, 48000, 32), data(f32(tone(48000, 3000, 0.5, 2400)...)))},
		{"8k mono s16", riff(fmtChunk(1, 1, 8000, 16), data(interleave16(tone(8000, 440, 0.5, 800), 1)))},
		{"16k 6ch s16", riff(fmtChunk(1, 6, 16000, 16), data(interleave16(tone(16000, 440, 0.5, 1600), 6)))},
		{"22.05k s24 ext, trailing chunk", riff(fmtExt(1, 2, 22050, 24, 24), data(s24(1, 2, 3, 4, -5, -6, 7, 8)), chunk{"LIST", -1, []byte("INFO")})},
		{"streaming size 44.1k", riff(fmtChunk(1, 1, 44100, 16), chunk{"data", 0xFFFFFFFF, interleave16(tone(44100, 500, 0.3, 1000), 1)})},
		{"truncated 44.1k", riff(fmtChunk(1, 1, 44100, 16), chunk{"data", 1 << 20, interleave16(tone(44100, 500, 0.3, 1001), 1)})},
	}
	for _, tc := range decodeTests {
		if tc.err == noErr {
			ins = append(ins, input{tc.name, tc.in})
		}
	}
	return ins
}

// TestStreamMatchesDecode reads each input through odd-sized short reads
// and small dst buffers and compares with Decode + Resample.
func TestStreamMatchesDecode(t *testing.T) {
	const tol = 0 // the same arithmetic on the same values
	chunkings := [][]int{{1}, {3}, {7}, {1, 3, 7, 2, 5}, {4096}, {1 << 20}}
	dsts := []int{1, 5, 160, 4096}
	for _, tc := range streamInputs() {
		ref, err := Decode(bytes.NewReader(tc.in), "x.wav")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		want := Resample(ref.Samples, ref.Rate, TargetRate)
		for i, sizes := range chunkings {
			t.Run(fmt.Sprintf("%s/reads%v", tc.name, sizes), func(t *testing.T) {
				s, err := NewStream(&chunkyReader{b: tc.in, sizes: sizes}, "x.wav", StreamOptions{})
				if err != nil {
					t.Fatal(err)
				}
				got, err := readAll(s, make([]float32, dsts[i%len(dsts)]))
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(want) {
					t.Fatalf("%d samples, want %d", len(got), len(want))
				}
				for k := range want {
					if math.Abs(float64(got[k]-want[k])) > tol {
						t.Fatalf("sample %d = %v, want %v", k, got[k], want[k])
					}
				}
				if len(s.Warnings()) != len(ref.Warnings) {
					t.Errorf("warnings %q, Decode gave %q", s.Warnings(), ref.Warnings)
				}
				wantInfo, _ := DecodeInfo(bytes.NewReader(tc.in), "x.wav")
				if s.Info() != wantInfo {
					t.Errorf("Info = %+v, want %+v", s.Info(), wantInfo)
				}
			})
		}
	}
}

func TestStreamErrors(t *testing.T) {
	for _, tc := range decodeTests {
		if tc.err == noErr {
			continue
		}
		if looksCompressed(tc.in) { // Decode reads MP3 and FLAC, a Stream does not
			tc.errIs, tc.errMsg = ErrNotWAV, "x.wav: not a WAV file (looks like"
		}
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewStream(&chunkyReader{b: tc.in, sizes: []int{3}}, "x.wav", StreamOptions{})
			checkErr(t, err, tc)
		})
	}
	opts := []struct {
		name   string
		opt    StreamOptions
		unsup  bool
		errMsg string
	}{
		{"unknown format", StreamOptions{Format: "mp3"}, true, `x.wav: unsupported stream format "mp3"`},
		{"raw without rate", StreamOptions{Format: "s16le"}, false, "x.wav: raw s16le stream needs a sample rate"},
		{"raw negative channels", StreamOptions{Format: "f32le", Rate: 16000, Channels: -1}, false, "-1 channels"},
		{"raw 9 channels", StreamOptions{Format: "f32le", Rate: 16000, Channels: 9}, true, "9 channels"},
		{"raw rate too high", StreamOptions{Format: "s16le", Rate: 200000}, true, "sample rate 200000 Hz"},
	}
	for _, tc := range opts {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewStream(strings.NewReader(""), "x.wav", tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.errMsg) {
				t.Fatalf("error = %v, want one containing %q", err, tc.errMsg)
			}
			if got := errors.Is(err, errors.ErrUnsupported); got != tc.unsup {
				t.Errorf("errors.Is(err, ErrUnsupported) = %v, want %v", got, tc.unsup)
			}
		})
	}
}

func TestStreamRaw(t *testing.T) {
	const tol = 0
	x := tone(16000, 700, 0.5, 1000)
	stereo := make([]float32, 0, 2*len(x))
	for _, v := range x {
		stereo = append(stereo, v, -v/2)
	}
	tests := []struct {
		name string
		in   []byte
		opt  StreamOptions
		want []float32
		info Info
	}{
		{"s16le mono", s16(16384, -32768, 0), StreamOptions{Format: "s16le", Rate: 16000},
			[]float32{0.5, -1, 0}, Info{"raw", "pcm_s16le", 16, 16000, 1, -1, false}},
		{"f32le stereo", f32(stereo...), StreamOptions{Format: "f32le", Rate: 16000, Channels: 2},
			func() []float32 {
				w := make([]float32, len(x))
				for i, v := range x {
					w[i] = float32((float64(v) + float64(-v/2)) * 0.5)
				}
				return w
			}(), Info{"raw", "float32", 32, 16000, 2, -1, false}},
		{"s16le 8k", s16(0, 8192, 16384, 8192, 0, -8192, -16384, -8192), StreamOptions{Format: "s16le", Rate: 8000},
			Resample([]float32{0, 0.25, 0.5, 0.25, 0, -0.25, -0.5, -0.25}, 8000, 16000), Info{"raw", "pcm_s16le", 16, 8000, 1, -1, false}},
		{"s16le partial frame", append(s16(16384), 7), StreamOptions{Format: "s16le", Rate: 16000},
			[]float32{0.5}, Info{"raw", "pcm_s16le", 16, 16000, 1, -1, false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewStream(&chunkyReader{b: tc.in, sizes: []int{1, 3, 7}}, "raw", tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if s.Info() != tc.info {
				t.Errorf("Info = %+v, want %+v", s.Info(), tc.info)
			}
			got, err := readAll(s, make([]float32, 64))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d samples, want %d", len(got), len(tc.want))
			}
			for i := range got {
				if math.Abs(float64(got[i]-tc.want[i])) > tol {
					t.Fatalf("sample %d = %v, want %v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// TestStreamNoWaitForEOF checks that samples come out while the writer is
// still holding the pipe open.
func TestStreamNoWaitForEOF(t *testing.T) {
	pr, pw := io.Pipe()
	x := interleave16(tone(44100, 440, 0.5, 441), 2)
	in := riff(fmtChunk(1, 2, 44100, 16), chunk{"data", 0xFFFFFFFF, x})
	release := make(chan struct{})
	go func() {
		pw.Write(in[:len(in)-101]) // header and most samples, cut mid-frame
		<-release
		pw.Write(in[len(in)-101:])
		pw.Close()
	}()
	s, err := NewStream(pr, "pipe", StreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan int, 1)
	go func() {
		var total int
		buf := make([]float32, 8192)
		for total < 100 {
			n, err := s.Read(buf)
			if err != nil {
				break
			}
			total += n
		}
		got <- total
	}()
	select {
	case n := <-got:
		if n < 100 {
			t.Fatalf("only %d samples before the writer finished", n)
		}
	case <-time.After(10 * time.Second):
		close(release)
		t.Fatal("Read blocked waiting for EOF")
	}
	close(release)
	rest, err := readAll(s, make([]float32, 100))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rest); n == 0 {
		t.Errorf("no samples after the writer finished")
	}
}

type errReader struct{ n int }

func (r *errReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, errors.New("disk on fire")
	}
	n := min(len(p), r.n)
	for i := range p[:n] {
		p[i] = 0
	}
	r.n -= n
	return n, nil
}

func TestStreamReadError(t *testing.T) {
	hdr := riff(fmtChunk(1, 1, 16000, 16), chunk{"data", 0xFFFFFFFF, nil})
	s, err := NewStream(io.MultiReader(bytes.NewReader(hdr), &errReader{n: 2000}), "x.wav", StreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(s, make([]float32, 300))
	if err == nil || !strings.Contains(err.Error(), "x.wav: reading sample data: disk on fire") {
		t.Fatalf("error = %v", err)
	}
	if len(got) != 1000 {
		t.Errorf("got %d samples before the error, want 1000", len(got))
	}
	if _, err2 := s.Read(make([]float32, 1)); err2 != err {
		t.Errorf("error not sticky: %v then %v", err, err2)
	}
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) { return 0, nil }

func TestStreamNoProgress(t *testing.T) {
	s, err := NewStream(zeroReader{}, "z", StreamOptions{Format: "s16le", Rate: 16000})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Read(make([]float32, 10)); !errors.Is(err, io.ErrNoProgress) {
		t.Errorf("error = %v, want io.ErrNoProgress", err)
	}
}

// TestStreamRandomChunks uses random read sizes on a longer signal.
func TestStreamRandomChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	in := riff(fmtChunk(1, 2, 48000, 16), data(interleave16(tone(48000, 1234, 0.6, 9600), 2)))
	ref, err := Decode(bytes.NewReader(in), "x")
	if err != nil {
		t.Fatal(err)
	}
	want := Resample(ref.Samples, 48000, TargetRate)
	for trial := range 5 {
		t.Run(fmt.Sprint(trial), func(t *testing.T) {
			sizes := make([]int, 50)
			for i := range sizes {
				sizes[i] = 1 + rng.IntN(1+rng.IntN(3000))
			}
			s, err := NewStream(&chunkyReader{b: in, sizes: sizes}, "x", StreamOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := readAll(s, make([]float32, 1+rng.IntN(500)))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("stream output differs from Decode+Resample (%d vs %d samples)", len(got), len(want))
			}
		})
	}
}
