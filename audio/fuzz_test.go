package audio

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var updateCorpus = flag.Bool("update-corpus", false, "rewrite the seed files under testdata/fuzz")

type fuzzSeed struct {
	name string
	data []byte
	mode byte // FuzzStream only
}

// seedName turns a test row's name into a seed file name: lower-case
// letters and digits, anything else an underscore.
func seedName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return '_'
	}, s)
}

// fuzzSeeds are the committed seed inputs: every decodeTests row (valid
// files of each kind and broken ones) plus a few longer signals.
func fuzzSeeds() []fuzzSeed {
	var seeds []fuzzSeed
	for i, tc := range decodeTests {
		seeds = append(seeds, fuzzSeed{seedName(tc.name), tc.in, byte(i) << 2})
	}
	seeds = append(seeds,
		fuzzSeed{"tone_44k_stereo", riff(fmtChunk(1, 2, 44100, 16), data(interleave16(tone(44100, 1000, 0.5, 300), 2))), 5 << 2},
		fuzzSeed{"tone_8k_f64", riff(fmtChunk(3, 1, 8000, 64), data(f64(0, 0.5, 0.25, -1, 0.75, 0.125))), 1 << 2},
		fuzzSeed{"raw_s16le", s16(1, -2, 300, -32768, 32767, 0, 5), 2 | 3<<2},
		fuzzSeed{"raw_f32le", f32(0.5, -0.5, 2, 0.25, 0), 3 | 7<<2},
	)
	return seeds
}

func seedFile(vals ...any) string {
	var b strings.Builder
	b.WriteString("go test fuzz v1\n")
	for _, v := range vals {
		switch v := v.(type) {
		case []byte:
			fmt.Fprintf(&b, "[]byte(%s)\n", strconv.Quote(string(v)))
		case byte:
			fmt.Fprintf(&b, "byte(%q)\n", v)
		}
	}
	return b.String()
}

// TestFuzzCorpus checks that the committed seed corpus matches fuzzSeeds;
// run with -update-corpus to rewrite it.
func TestFuzzCorpus(t *testing.T) {
	for _, s := range fuzzSeeds() {
		files := map[string]string{
			filepath.Join("testdata", "fuzz", "FuzzStream", s.name): seedFile(s.data, s.mode),
		}
		if !strings.HasPrefix(s.name, "raw_") {
			files[filepath.Join("testdata", "fuzz", "FuzzDecode", s.name)] = seedFile(s.data)
		}
		checkSeedFiles(t, files, "TestFuzzCorpus")
	}
}

// checkSeedFiles checks that each file (path: want) of a committed seed
// corpus holds want, or with -update-corpus writes it; test names the test
// that rewrites them.
func checkSeedFiles(t *testing.T, files map[string]string, test string) {
	t.Helper()
	for path, want := range files {
		if *updateCorpus {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want {
			t.Errorf("%s is missing or stale (err %v); run go test -run %s -update-corpus", path, err, test)
		}
	}
}

// checkClip verifies the invariants of a successful decode of n input bytes.
func checkClip(t *testing.T, c *Clip, n int) {
	t.Helper()
	in := c.Info
	if in.SampleRate < MinRate || in.SampleRate > MaxRate || in.Channels < 1 || in.Channels > MaxChannels {
		t.Fatalf("bad Info %+v", in)
	}
	if int64(len(c.Samples)) != in.Frames || len(c.Samples) > n {
		t.Fatalf("%d samples, Frames %d, input %d bytes", len(c.Samples), in.Frames, n)
	}
	for i, v := range c.Samples {
		if !(v >= -1 && v < 1) {
			t.Fatalf("sample %d = %v outside [-1, 1)", i, v)
		}
	}
}

func checkDecodeErr(t *testing.T, err error) {
	t.Helper()
	var fe *FormatError
	var ue *UnsupportedError
	if !errors.As(err, &fe) && !errors.As(err, &ue) {
		t.Fatalf("error %v (%T) is neither FormatError nor UnsupportedError", err, err)
	}
	if !strings.HasPrefix(err.Error(), "fuzz: ") {
		t.Fatalf("error %q does not start with the name", err)
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s.data)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Decode(bytes.NewReader(b), "fuzz")
		info, ierr := DecodeInfo(bytes.NewReader(b), "fuzz")
		// An MP3 or FLAC file can be damaged past its header, which is all
		// DecodeInfo reads; and it can hold more samples than bytes.
		compressed := looksCompressed(b)
		if fmt.Sprint(err) != fmt.Sprint(ierr) && !(compressed && ierr == nil) {
			t.Fatalf("Decode error %v, DecodeInfo error %v", err, ierr)
		}
		if err != nil {
			checkDecodeErr(t, err)
			return
		}
		n := len(b)
		if compressed {
			n = math.MaxInt
		}
		checkClip(t, c, n)
		if info.SampleRate != c.Info.SampleRate || info.Encoding != c.Info.Encoding || info.Channels != c.Info.Channels {
			t.Fatalf("DecodeInfo %+v disagrees with Decode %+v", info, c.Info)
		}
	})
}

// FuzzStream reads b through a Stream with short reads and compares with
// Decode + Resample (checkStream). mode&3 picks the format (0, 1: wav,
// which reads MP3 and FLAC too; 2: s16le 44.1 kHz stereo; 3: f32le 8 kHz
// mono); mode>>2 sets the read size.
func FuzzStream(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s.data, s.mode)
	}
	f.Fuzz(func(t *testing.T, b []byte, mode byte) {
		switch mode & 3 {
		case 2:
			checkStream(t, riff(fmtChunk(1, 2, 44100, 16), data(b)), b, StreamOptions{Format: "s16le", Rate: 44100, Channels: 2}, mode)
		case 3:
			checkStream(t, riff(fmtChunk(3, 1, 8000, 32), data(b)), b, StreamOptions{Format: "f32le", Rate: 8000}, mode)
		default:
			checkStream(t, b, b, StreamOptions{}, mode)
		}
	})
}

// FuzzStreamCompressed is FuzzStream of the default format, seeded with
// MP3 and FLAC inputs (those of FuzzDecodeMP3 and FuzzDecodeFLAC).
func FuzzStreamCompressed(f *testing.F) {
	for _, s := range streamCompressedSeeds(f) {
		f.Add(s.data, s.mode)
	}
	f.Fuzz(func(t *testing.T, b []byte, mode byte) {
		checkStream(t, b, b, StreamOptions{}, mode)
		// --input mp3 also searches for a frame in the middle of the
		// stream, which Decode does not: it must fail cleanly or decode.
		if s, err := NewStream(bytes.NewReader(b), "x", StreamOptions{Format: "mp3"}); err == nil {
			if _, err := readAll(s, make([]float32, 1000)); err != nil && !strings.HasPrefix(err.Error(), "x: ") {
				t.Errorf("error %q does not name the input", err)
			}
		} else if !strings.HasPrefix(err.Error(), "x: ") {
			t.Errorf("error %q does not name the input", err)
		}
	})
}

// streamCompressedSeeds are the seeds of FuzzStreamCompressed: those of
// compressedFuzzSeeds, named mp3_* and flac_*, with varied read sizes.
func streamCompressedSeeds(t testing.TB) []fuzzSeed {
	var seeds []fuzzSeed
	for _, mp3 := range []bool{true, false} {
		prefix := map[bool]string{true: "mp3_", false: "flac_"}[mp3]
		for _, s := range compressedFuzzSeeds(t, mp3) {
			seeds = append(seeds, fuzzSeed{prefix + s.name, s.data, byte(len(seeds) * 13)})
		}
	}
	return seeds
}

// checkStream reads in through a Stream with options opt, short reads
// and a dst size picked by mode>>2, and compares with Decode of ref (in
// itself, or a WAV file of the same samples for raw input). NewStream
// fails as Decode does, or the Stream gives Resample of Decode's samples
// and as many warnings (for MP3 and FLAC, the same ones and the same
// Info as DecodeInfo); where Decode fails after the header (MP3 or FLAC
// data it cannot decode), Read fails with the same error.
func checkStream(t *testing.T, ref, in []byte, opt StreamOptions, mode byte) {
	t.Helper()
	c, err := Decode(bytes.NewReader(ref), "fuzz")
	s, serr := NewStream(&chunkyReader{b: in, sizes: []int{1 + int(mode>>2), 1, 3}}, "fuzz", opt)
	if serr != nil || err != nil && !looksCompressed(ref) {
		if fmt.Sprint(err) != fmt.Sprint(serr) {
			t.Fatalf("Decode error %v, NewStream error %v", err, serr)
		}
		checkDecodeErr(t, err)
		return
	}
	got, rerr := readAll(s, make([]float32, 1+int(mode)%7*37))
	if err != nil {
		if fmt.Sprint(err) != fmt.Sprint(rerr) {
			t.Fatalf("Decode error %v, Stream error %v after %d samples", err, rerr, len(got))
		}
		checkDecodeErr(t, rerr)
		return
	}
	if rerr != nil {
		t.Fatal(rerr)
	}
	n := len(ref)
	if looksCompressed(ref) { // MP3 and FLAC can hold more samples than bytes
		n = math.MaxInt
	}
	checkClip(t, c, n)
	want := Resample(c.Samples, c.Rate, TargetRate)
	if !slices.Equal(got, want) {
		t.Fatalf("stream gave %d samples, Decode+Resample %d (or values differ)", len(got), len(want))
	}
	if len(s.Warnings()) != len(c.Warnings) {
		t.Fatalf("stream warnings %q, Decode warnings %q", s.Warnings(), c.Warnings)
	}
	if info := s.Info(); info.Container == "mp3" || info.Container == "flac" {
		want, _ := DecodeInfo(bytes.NewReader(ref), "fuzz")
		if info != want || !slices.Equal(s.Warnings(), c.Warnings) {
			t.Fatalf("stream Info %+v, warnings %q; DecodeInfo %+v, Decode warnings %q", info, s.Warnings(), want, c.Warnings)
		}
	}
}
