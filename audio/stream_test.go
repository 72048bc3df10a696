package audio

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
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

// streamInput is an input that a Stream reads as Decode does.
type streamInput struct {
	name string
	in   []byte
}

func streamInputs(t testing.TB) []streamInput {
	ins := []streamInput{
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
			ins = append(ins, streamInput{tc.name, tc.in})
		}
	}
	return append(ins, compressedInputs(t)...)
}

// compressedInputs are MP3 and FLAC inputs that Decode reads: the
// fixtures, the hand-built FLAC files, and the damaged copies of
// mp3Damaged and flacDamaged, which decode with warnings.
func compressedInputs(t testing.TB) []streamInput {
	ins := []streamInput{{"hello.mp3", readFixture(t, "../testdata/hello.mp3")}}
	for _, f := range mp3Fixtures {
		ins = append(ins, streamInput{f.file, readFixture(t, filepath.Join(fixtureDir, f.file))})
	}
	for _, f := range flacFixtures {
		ins = append(ins, streamInput{filepath.Base(f.file), readFixture(t, f.file)})
	}
	for _, tc := range flacTests {
		ins = append(ins, streamInput{"flac " + tc.name, tc.in})
	}
	for _, tc := range flacDamaged(flacMono(64)) {
		ins = append(ins, streamInput{"flac " + tc.name, tc.in})
	}
	for _, tc := range mp3Damaged(readFixture(t, filepath.Join(fixtureDir, "speech16k.mp3"))) {
		ins = append(ins, streamInput{"mp3 " + tc.name, tc.in})
	}
	return ins
}

// TestStreamMatchesDecode reads each input through odd-sized short reads
// and small dst buffers and compares with Decode + Resample. MP3 and FLAC
// are read as the default format and as their own.
func TestStreamMatchesDecode(t *testing.T) {
	const tol = 0 // the same arithmetic on the same values
	chunkings := [][]int{{1}, {3}, {7}, {1, 3, 7, 2, 5}, {4096}, {1 << 20}}
	dsts := []int{1, 5, 160, 4096}
	for _, tc := range streamInputs(t) {
		ref, err := Decode(bytes.NewReader(tc.in), "x.wav")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		want := Resample(ref.Samples, ref.Rate, TargetRate)
		wantInfo, _ := DecodeInfo(bytes.NewReader(tc.in), "x.wav")
		compressed := wantInfo.Container == "mp3" || wantInfo.Container == "flac"
		formats := []string{""}
		if compressed {
			formats = append(formats, wantInfo.Container)
		}
		for i, sizes := range chunkings {
			for _, format := range formats {
				t.Run(fmt.Sprintf("%s/reads%v/format%q", tc.name, sizes, format), func(t *testing.T) {
					s, err := NewStream(&chunkyReader{b: tc.in, sizes: sizes}, "x.wav", StreamOptions{Format: format})
					if err != nil {
						t.Fatal(err)
					}
					if s.Info() != wantInfo {
						t.Errorf("Info = %+v, want %+v", s.Info(), wantInfo)
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
					// A WAV stream words some warnings as a stream's.
					if w := s.Warnings(); len(w) != len(ref.Warnings) || compressed && !slices.Equal(w, ref.Warnings) {
						t.Errorf("warnings %q, Decode gave %q", w, ref.Warnings)
					}
				})
			}
		}
	}
}

func TestStreamErrors(t *testing.T) {
	for _, tc := range decodeTests {
		if tc.err == noErr {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewStream(&chunkyReader{b: tc.in, sizes: []int{3}}, "x.wav", StreamOptions{})
			checkErr(t, err, tc)
		})
	}
	// Every MP3 error is in the header: NewStream gives it.
	for _, tc := range mp3ErrorTests {
		t.Run("mp3 "+tc.name, func(t *testing.T) {
			_, err := NewStream(&chunkyReader{b: tc.in, sizes: []int{3}}, "x.mp3", StreamOptions{})
			checkErrorRow(t, err, "x.mp3: ", tc.unsup, tc.errIs, tc.errMsg)
		})
	}
	// FLAC errors in the header come from NewStream, those in the frames
	// from Read (after the samples before them: TestStreamCorrupt).
	for _, tc := range flacErrorTests {
		t.Run("flac "+tc.name, func(t *testing.T) {
			s, err := NewStream(&chunkyReader{b: tc.in, sizes: []int{3}}, "x.flac", StreamOptions{})
			if !tc.header {
				if err != nil {
					t.Fatalf("NewStream: %v; want the error from Read", err)
				}
				_, err = readAll(s, make([]float32, 100))
			}
			checkErrorRow(t, err, "x.flac: ", tc.unsup, tc.errIs, tc.errMsg)
		})
	}
	opts := []struct {
		name   string
		opt    StreamOptions
		in     []byte
		unsup  bool
		errMsg string
	}{
		{"unknown format", StreamOptions{Format: "ogg"}, nil, true, `x.wav: unsupported stream format "ogg" (want wav, mp3, flac, s16le or f32le)`},
		{"raw without rate", StreamOptions{Format: "s16le"}, nil, false, "x.wav: raw s16le stream needs a sample rate"},
		{"raw negative channels", StreamOptions{Format: "f32le", Rate: 16000, Channels: -1}, nil, false, "-1 channels"},
		{"raw 9 channels", StreamOptions{Format: "f32le", Rate: 16000, Channels: 9}, nil, true, "9 channels"},
		{"raw rate too high", StreamOptions{Format: "s16le", Rate: 200000}, nil, true, "sample rate 200000 Hz"},
		{"mp3 asked, WAV given", StreamOptions{Format: "mp3"}, riff(fmtChunk(1, 1, 16000, 16), data(s16(1, 2))), false, "x.wav: not an MP3 stream (no MPEG frame in its 48 bytes)"},
		{"mp3 asked, noise given", StreamOptions{Format: "mp3"}, noiseBytes(maxMP3Junk + 5000), false, "x.wav: not an MP3 stream (no two MPEG frames in a row in its first 65536 bytes)"},
		{"mp3 asked, FLAC given", StreamOptions{Format: "mp3"}, flacMono(64), false, "x.wav: not an MP3 stream (it is FLAC)"},
		{"mp3 asked, FLAC after ID3 given", StreamOptions{Format: "mp3"}, slices.Concat([]byte("ID3\x04\x00\x00\x00\x00\x00\x00"), flacMono(64)), false, "x.wav: not an MP3 stream (it is FLAC)"},
		{"flac asked, MP3 given", StreamOptions{Format: "flac"}, []byte("\xFF\xF3\x58\xC4"), false, "x.wav: not a FLAC stream (no fLaC signature)"},
		{"flac asked, nothing given", StreamOptions{Format: "flac"}, nil, false, "x.wav: not a FLAC stream (no fLaC signature)"},
	}
	for _, tc := range opts {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewStream(bytes.NewReader(tc.in), "x.wav", tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.errMsg) {
				t.Fatalf("error = %v, want one containing %q", err, tc.errMsg)
			}
			if got := errors.Is(err, errors.ErrUnsupported); got != tc.unsup {
				t.Errorf("errors.Is(err, ErrUnsupported) = %v, want %v", got, tc.unsup)
			}
		})
	}
}

// noiseBytes returns n bytes of seeded noise with no 0xFF byte, so no
// MPEG frame sync.
func noiseBytes(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.IntN(255))
	}
	return b
}

// TestStreamMP3Joined: an MP3 stream joined in the middle of a frame (an
// internet radio's) is read from its next frame with --input mp3, with a
// warning, and gives the samples Decode gives from that frame on; the
// default format does not take it for MP3.
func TestStreamMP3Joined(t *testing.T) {
	mp3 := readFixture(t, filepath.Join(fixtureDir, "stereo44k_id3.mp3"))
	// The first frame after the ID3 tag and the Xing frame, and a cut 100
	// bytes into it.
	st, err := readMP3Start(bufio.NewReader(bytes.NewReader(mp3)), "x.mp3", true, false)
	if err != nil {
		t.Fatal(err)
	}
	tag := bytes.Index(mp3, []byte{0xFF, 0xFB})
	frame := tag + st.first.size()
	if h := mp3Header(binary.BigEndian.Uint32(mp3[frame:])); !h.sameStream(st.first) {
		t.Fatalf("no frame at %d after the Xing frame at %d", frame, tag)
	}
	cut := mp3[frame+100:]
	s, err := NewStream(&chunkyReader{b: cut, sizes: []int{7, 500}}, "-", StreamOptions{Format: "mp3"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(s, make([]float32, 333))
	if err != nil {
		t.Fatal(err)
	}
	next := bytes.Index(cut[1:], []byte{0xFF, 0xFB}) + 1
	want, err := Decode(bytes.NewReader(cut[next:]), "x.mp3")
	if err != nil {
		t.Fatal(err)
	}
	if w := Resample(want.Samples, want.Rate, TargetRate); len(got) == 0 || !slices.Equal(got, w) {
		t.Errorf("joined stream: %d samples, want %d equal to Decode's from the next frame", len(got), len(w))
	}
	if w := s.Warnings(); len(w) == 0 || !strings.Contains(w[0], fmt.Sprintf("skipped %d bytes before the first MP3 frame", next)) {
		t.Errorf("warnings %q, want one about %d skipped bytes", w, next)
	}
	if _, err := NewStream(bytes.NewReader(cut), "-", StreamOptions{}); err == nil {
		t.Error("the default format took a stream joined mid-frame for MP3")
	}
}

// TestStreamCorrupt: MP3 and FLAC data damaged after some frames give the
// samples of the frames before the damage, all of them (the resampler is
// flushed), then the error Decode gives, again at every later Read.
func TestStreamCorrupt(t *testing.T) {
	mp3 := readFixture(t, filepath.Join(fixtureDir, "speech16k.mp3"))
	mp3Bad := slices.Clone(mp3)
	mp3Bad[mp3Frame(mp3, 10)+6] = 0xFF // side information of the 10th audio frame: more bits than it holds
	// Eight FLAC frames of 256 samples at 44.1 kHz, the same size each.
	frames := make([][]byte, 8)
	for i := range frames {
		frames[i] = flacFrame(byte(i), 16, ramp(256, int32(i)*1000-20000, 100))
	}
	flac := flacFile(44100, 1, 16, 0, frames...)
	frame := len(frames[0])
	flacBad := slices.Clone(flac)
	flacBad[42+5*frame+20] ^= 1 // a sample of the 6th frame: its CRC-16 fails
	tests := []struct {
		name       string
		in, before []byte // the damaged input; the frames before the damage
		errMsg     string
	}{
		{"mp3", mp3Bad, mp3[:mp3Frame(mp3, 10)], "x.wav: corrupt MP3 data after 4079 samples: mp3: is_pos was too big"},
		{"flac", flacBad, flac[:42+5*frame], "x.wav: corrupt FLAC data after 1280 samples: frame.Frame.Parse: CRC-16 checksum mismatch"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, want := Decode(bytes.NewReader(tc.in), "x.wav")
			prefix, err := Decode(bytes.NewReader(tc.before), "x.wav")
			if err != nil {
				t.Fatal(err)
			}
			s, err := NewStream(&chunkyReader{b: tc.in, sizes: []int{1, 500}}, "x.wav", StreamOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := readAll(s, make([]float32, 333))
			if err == nil || want == nil || err.Error() != want.Error() || !strings.HasPrefix(err.Error(), tc.errMsg) {
				t.Fatalf("error %v, want Decode's %v, starting %q", err, want, tc.errMsg)
			}
			checkTyped(t, err, "x.wav: ")
			if !slices.Equal(got, Resample(prefix.Samples, prefix.Rate, TargetRate)) {
				t.Errorf("%d samples, not those of the %d before the damage", len(got), len(prefix.Samples))
			}
			if _, err2 := s.Read(make([]float32, 1)); err2 != err {
				t.Errorf("error not sticky: %v then %v", err, err2)
			}
		})
	}
}

// TestStreamCorruptFixtures reads the corruptCopies of the MP3 and FLAC
// fixtures as checkStream does: never a panic; Decode's samples, or the
// same error as Decode.
func TestStreamCorruptFixtures(t *testing.T) {
	var files []string
	for _, f := range mp3Fixtures {
		files = append(files, filepath.Join(fixtureDir, f.file))
	}
	for _, f := range flacFixtures {
		files = append(files, f.file)
	}
	for _, file := range files {
		for i, in := range corruptCopies(readFixture(t, file)) {
			t.Run(fmt.Sprintf("%s/%d", filepath.Base(file), i), func(t *testing.T) {
				checkStream(t, in, in, StreamOptions{}, byte(i))
			})
		}
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
// still holding the pipe open, and that all of them come out in the end.
func TestStreamNoWaitForEOF(t *testing.T) {
	tests := []streamInput{
		{"wav", riff(fmtChunk(1, 2, 44100, 16), chunk{"data", 0xFFFFFFFF, interleave16(tone(44100, 440, 0.5, 4410), 2)})},
		{"mp3", readFixture(t, "../testdata/hello.mp3")},
		{"flac", readFixture(t, "../testdata/hello.flac")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ref, err := Decode(bytes.NewReader(tc.in), "pipe")
			if err != nil {
				t.Fatal(err)
			}
			pr, pw := io.Pipe()
			release := make(chan struct{})
			go func() {
				pw.Write(tc.in[:len(tc.in)/2+1]) // the header and half the audio, cut mid-frame
				<-release
				pw.Write(tc.in[len(tc.in)/2+1:])
				pw.Close()
			}()
			defer func() {
				select {
				case <-release:
				default:
					close(release)
				}
			}()
			s, err := NewStream(pr, "pipe", StreamOptions{})
			if err != nil {
				t.Fatal(err)
			}
			first := make(chan []float32, 1)
			go func() {
				var got []float32
				buf := make([]float32, 8192)
				for len(got) < 100 {
					n, err := s.Read(buf)
					got = append(got, buf[:n]...)
					if err != nil {
						break
					}
				}
				first <- got
			}()
			var got []float32
			select {
			case got = <-first:
				if len(got) < 100 {
					t.Fatalf("only %d samples before the writer finished", len(got))
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Read blocked waiting for EOF")
			}
			close(release)
			rest, err := readAll(s, make([]float32, 100))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(append(got, rest...), Resample(ref.Samples, ref.Rate, TargetRate)) {
				t.Errorf("%d + %d samples, not those of Decode + Resample", len(got), len(rest))
			}
		})
	}
}

// errReader fails every read.
type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

// TestStreamReadError: a read error of the underlying reader comes after
// all the samples before it (those Decode gets from the bytes before it),
// again at every later Read.
func TestStreamReadError(t *testing.T) {
	mp3 := readFixture(t, "../testdata/hello.mp3")
	flac := readFixture(t, "../testdata/hello.flac")
	tests := []streamInput{
		{"wav", riff(fmtChunk(1, 1, 16000, 16), chunk{"data", 0xFFFFFFFF, make([]byte, 2000)})},
		{"mp3", mp3[:len(mp3)/2]},
		{"flac", flac[:len(flac)/2]},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ref, err := Decode(bytes.NewReader(tc.in), "x.wav")
			if err != nil {
				t.Fatal(err)
			}
			s, err := NewStream(io.MultiReader(bytes.NewReader(tc.in), errReader{}), "x.wav", StreamOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := readAll(s, make([]float32, 300))
			if err == nil || err.Error() != "x.wav: reading sample data: disk on fire" {
				t.Fatalf("error = %v", err)
			}
			if want := Resample(ref.Samples, ref.Rate, TargetRate); !slices.Equal(got, want) || len(got) == 0 {
				t.Errorf("got %d samples before the error, want %d", len(got), len(want))
			}
			if _, err2 := s.Read(make([]float32, 1)); err2 != err {
				t.Errorf("error not sticky: %v then %v", err, err2)
			}
		})
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

// TestStreamRandomChunks uses random read sizes on longer signals.
func TestStreamRandomChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	tests := []streamInput{
		{"wav", riff(fmtChunk(1, 2, 48000, 16), data(interleave16(tone(48000, 1234, 0.6, 9600), 2)))},
		{"hello.mp3", readFixture(t, "../testdata/hello.mp3")},
		{"stereo44k_id3.mp3", readFixture(t, filepath.Join(fixtureDir, "stereo44k_id3.mp3"))},
		{"hello.flac", readFixture(t, "../testdata/hello.flac")},
		{"s24_stereo.flac", readFixture(t, filepath.Join(fixtureDir, "s24_stereo.flac"))},
	}
	for _, tc := range tests {
		ref, err := Decode(bytes.NewReader(tc.in), "x")
		if err != nil {
			t.Fatal(err)
		}
		want := Resample(ref.Samples, ref.Rate, TargetRate)
		for trial := range 5 {
			t.Run(fmt.Sprintf("%s/%d", tc.name, trial), func(t *testing.T) {
				sizes := make([]int, 50)
				for i := range sizes {
					sizes[i] = 1 + rng.IntN(1+rng.IntN(3000))
				}
				s, err := NewStream(&chunkyReader{b: tc.in, sizes: sizes}, "x", StreamOptions{})
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
}
