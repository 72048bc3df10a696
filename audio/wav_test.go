package audio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// errKind classifies an expected error.
type errKind int

const (
	noErr errKind = iota
	fmtErr
	unsupErr
)

type decodeTest struct {
	name     string
	in       []byte
	want     []float32 // expected mono samples
	info     Info      // expected Info (Container "wav" implied when zero)
	err      errKind
	errIs    error  // errors.Is target, optional
	errMsg   string // substring of the error message
	warnings []string
}

var q16 = float32(32767.0 / 32768)

var decodeTests = []decodeTest{
	{
		name: "s16 mono",
		in:   riff(fmtChunk(1, 1, 16000, 16), data(s16(0, 16384, -32768, 32767))),
		want: []float32{0, 0.5, -1, q16},
		info: Info{Encoding: "pcm_s16le", BitsPerSample: 16, SampleRate: 16000, Channels: 1, Frames: 4},
	},
	{
		name: "a-law",
		in:   riff(fmtChunk(6, 1, 8000, 8), data([]byte{0xD5, 0x55, 0xAA, 0x2A})),
		want: []float32{8.0 / 32768, -8.0 / 32768, 32256.0 / 32768, -32256.0 / 32768},
		info: Info{Encoding: "pcm_alaw", BitsPerSample: 8, SampleRate: 8000, Channels: 1, Frames: 4},
	},
	{
		name: "mu-law stereo averaged",
		in:   riff(fmtChunk(7, 2, 8000, 8), data([]byte{0xFF, 0x7F, 0x80, 0x80, 0x00, 0x80})),
		want: []float32{0, 32124.0 / 32768, 0},
		info: Info{Encoding: "pcm_mulaw", BitsPerSample: 8, SampleRate: 8000, Channels: 2, Frames: 3},
	},
	{
		name: "extensible a-law",
		in:   riff(fmtExt(6, 1, 8000, 8, 8), data([]byte{0xD5})),
		want: []float32{8.0 / 32768},
		info: Info{Encoding: "pcm_alaw", BitsPerSample: 8, SampleRate: 8000, Channels: 1, Frames: 1, Extensible: true},
	},
	{
		name: "u8 mono",
		in:   riff(fmtChunk(1, 1, 8000, 8), data([]byte{128, 192, 0, 255})),
		want: []float32{0, 0.5, -1, 127.0 / 128},
		info: Info{Encoding: "pcm_u8", BitsPerSample: 8, SampleRate: 8000, Channels: 1, Frames: 4},
	},
	{
		name: "s24 mono",
		in:   riff(fmtChunk(1, 1, 48000, 24), data(s24(0, 0x400000, -0x800000, 0x7FFFFF, -1))),
		want: []float32{0, 0.5, -1, 8388607.0 / 8388608, -1.0 / 8388608},
		info: Info{Encoding: "pcm_s24le", BitsPerSample: 24, SampleRate: 48000, Channels: 1, Frames: 5},
	},
	{
		name: "s32 mono",
		in:   riff(fmtChunk(1, 1, 44100, 32), data(s32(0, 0x40000000, math.MinInt32, math.MaxInt32))),
		want: []float32{0, 0.5, -1, belowOne},
		info: Info{Encoding: "pcm_s32le", BitsPerSample: 32, SampleRate: 44100, Channels: 1, Frames: 4},
	},
	{
		name:     "float32 mono with clipping and NaN",
		in:       riff(fmtChunk(3, 1, 22050, 32), data(f32(0.25, -0.5, 1, 2, -3, float32(math.NaN())))),
		want:     []float32{0.25, -0.5, belowOne, belowOne, -1, 0},
		info:     Info{Encoding: "float32", BitsPerSample: 32, SampleRate: 22050, Channels: 1, Frames: 6},
		warnings: []string{"2 float samples outside [-1, 1] were clipped", "1 NaN or infinite"},
	},
	{
		name: "float64 mono",
		in:   riff(fmtChunk(3, 1, 96000, 64), data(f64(0.125, -1, 0.999999999))),
		want: []float32{0.125, -1, belowOne},
		info: Info{Encoding: "float64", BitsPerSample: 64, SampleRate: 96000, Channels: 1, Frames: 3},
	},
	{
		name: "s16 stereo averaged",
		in:   riff(fmtChunk(1, 2, 44100, 16), data(s16(16384, 0, -32768, -32768, 32767, 32767, 100, -100))),
		want: []float32{0.25, -1, q16, 0},
		info: Info{Encoding: "pcm_s16le", BitsPerSample: 16, SampleRate: 44100, Channels: 2, Frames: 4},
	},
	{
		name: "s16 3 channels",
		in:   riff(fmtChunk(1, 3, 16000, 16), data(s16(3000, 6000, 9000, -32768, -32768, -32768))),
		want: []float32{6000.0 / 32768, -1},
		info: Info{Encoding: "pcm_s16le", BitsPerSample: 16, SampleRate: 16000, Channels: 3, Frames: 2},
	},
	{
		name: "u8 8 channels",
		in:   riff(fmtChunk(1, 8, 8000, 8), data([]byte{128, 128, 128, 128, 255, 255, 255, 255})),
		want: []float32{0.5 * 127 / 128},
		info: Info{Encoding: "pcm_u8", BitsPerSample: 8, SampleRate: 8000, Channels: 8, Frames: 1},
	},
	{
		name: "s32 stereo full scale stays below 1",
		in:   riff(fmtChunk(1, 2, 16000, 32), data(s32(math.MaxInt32, math.MaxInt32-1))),
		want: []float32{belowOne},
		info: Info{Encoding: "pcm_s32le", BitsPerSample: 32, SampleRate: 16000, Channels: 2, Frames: 1},
	},
	{
		name: "float32 stereo averaged",
		in:   riff(fmtChunk(3, 2, 16000, 32), data(f32(0.5, 0.25, -1, 1))),
		want: []float32{0.375, 0},
		info: Info{Encoding: "float32", BitsPerSample: 32, SampleRate: 16000, Channels: 2, Frames: 2},
	},
	{
		name: "extensible pcm s24 stereo",
		in:   riff(fmtExt(1, 2, 48000, 24, 24), data(s24(0x400000, 0x400000, -0x800000, 0))),
		want: []float32{0.5, -0.5},
		info: Info{Encoding: "pcm_s24le", BitsPerSample: 24, SampleRate: 48000, Channels: 2, Frames: 2, Extensible: true},
	},
	{
		name: "extensible 20 valid bits in 24",
		in:   riff(fmtExt(1, 1, 48000, 24, 20), data(s24(0x400000))),
		want: []float32{0.5},
		info: Info{Encoding: "pcm_s24le", BitsPerSample: 24, SampleRate: 48000, Channels: 1, Frames: 1, Extensible: true},
	},
	{
		name: "extensible float32",
		in:   riff(fmtExt(3, 1, 16000, 32, 32), data(f32(-0.75))),
		want: []float32{-0.75},
		info: Info{Encoding: "float32", BitsPerSample: 32, SampleRate: 16000, Channels: 1, Frames: 1, Extensible: true},
	},
	{
		name: "extra chunks in any order, odd sizes padded",
		in: riff(chunk{"LIST", -1, []byte("INFOISFT\x05\x00\x00\x00sox\x00\x00")},
			chunk{"junk", -1, []byte{1, 2, 3}},
			fmtChunk(1, 1, 16000, 16),
			chunk{"fact", -1, []byte{2, 0, 0, 0}},
			chunk{"odd ", -1, []byte{9}},
			data(s16(16384, -16384)),
			chunk{"cue ", -1, make([]byte, 28)}),
		want: []float32{0.5, -0.5},
		info: Info{Encoding: "pcm_s16le", BitsPerSample: 16, SampleRate: 16000, Channels: 1, Frames: 2},
	},
	{
		name:     "data before fmt",
		in:       riff(data(s16(16384, -16384)), chunk{"LIST", -1, []byte("INFO")}, fmtChunk(1, 1, 16000, 16)),
		want:     []float32{0.5, -0.5},
		info:     Info{Encoding: "pcm_s16le", BitsPerSample: 16, SampleRate: 16000, Channels: 1, Frames: 2},
		warnings: []string{"data chunk comes before the fmt chunk"},
	},
	{
		name: "second fmt ignored",
		in:   riff(fmtChunk(1, 1, 16000, 16), fmtChunk(1, 2, 8000, 8), data(s16(16384))),
		want: []float32{0.5},
		info: Info{Encoding: "pcm_s16le", BitsPerSample: 16, SampleRate: 16000, Channels: 1, Frames: 1},
	},
	{
		name: "data size 0 means read to EOF",
		in:   riff(fmtChunk(1, 1, 16000, 16), chunk{"data", 0, s16(16384, 8192)}),
		want: []float32{0.5, 0.25},
		info: Info{Encoding: "pcm_s16le", BitsPerSample: 16, SampleRate: 16000, Channels: 1, Frames: 2},
	},
	{
		name: "data size 0xFFFFFFFF means read to EOF",
		in:   riff(fmtChunk(1, 2, 16000, 16), chunk{"data", 0xFFFFFFFF, s16(16384, 16384, 8192, 8192)}),
		want: []float32{0.5, 0.25},
		info: Info{Encoding: "pcm_s16le", BitsPerSample: 16, SampleRate: 16000, Channels: 2, Frames: 2},
	},
	{
		name: "data size 0x7FFFF000 (sox to a pipe) means read to EOF",
		in:   riff(fmtChunk(1, 1, 16000, 16), chunk{"data", 0x7FFFF000, s16(16384, 8192)}),
		want: []float32{0.5, 0.25},
		info: Info{Encoding: "pcm_s16le", BitsPerSample: 16, SampleRate: 16000, Channels: 1, Frames: 2},
	},
	{
		name:     "truncated data decodes what is there",
		in:       riff(fmtChunk(1, 1, 16000, 16), chunk{"data", 100, s16(16384, 8192)}),
		want:     []float32{0.5, 0.25},
		info:     Info{Encoding: "pcm_s16le", BitsPerSample: 16, SampleRate: 16000, Channels: 1, Frames: 2},
		warnings: []string{"data chunk claims 100 bytes but the file holds only 4"},
	},
	{
		name:     "2 GB claim on a tiny file",
		in:       riff(fmtChunk(1, 1, 16000, 16), chunk{"data", 0x7FFFFFFE, s16(16384)}),
		want:     []float32{0.5},
		info:     Info{Encoding: "pcm_s16le", BitsPerSample: 16, SampleRate: 16000, Channels: 1, Frames: 1},
		warnings: []string{"claims 2147483646 bytes"},
	},
	{
		name:     "partial last frame",
		in:       riff(fmtChunk(1, 2, 16000, 16), data(append(s16(16384, 16384), 1, 2, 3))),
		want:     []float32{0.5},
		info:     Info{Encoding: "pcm_s16le", BitsPerSample: 16, SampleRate: 16000, Channels: 2, Frames: 1},
		warnings: []string{"partial frame; last 3 bytes ignored"},
	},
	{
		name:     "block align 0 tolerated",
		in:       riff(chunk{"fmt ", -1, append(fmtBody(1, 1, 16000, 16)[:12], 0, 0, 16, 0)}, data(s16(16384))),
		want:     []float32{0.5},
		info:     Info{Encoding: "pcm_s16le", BitsPerSample: 16, SampleRate: 16000, Channels: 1, Frames: 1},
		warnings: []string{"block align 0"},
	},
	{
		name: "empty data",
		in:   riff(fmtChunk(1, 1, 16000, 16), chunk{"data", 0, nil}),
		want: []float32{},
		info: Info{Encoding: "pcm_s16le", BitsPerSample: 16, SampleRate: 16000, Channels: 1, Frames: 0},
	},

	// Broken files.
	{name: "empty input", in: nil, err: fmtErr, errIs: ErrNotWAV, errMsg: "x.wav: not a WAV file (empty input)"},
	{name: "text", in: []byte("hello, world\n"), err: fmtErr, errIs: ErrNotWAV, errMsg: "x.wav: not a WAV file (no RIFF header)"},
	// MP3 and FLAC are read (mp3_test.go, flac_test.go), but not these.
	{name: "mp3 file", in: []byte("ID3\x04\x00\x00\x00\x00\x00\x00"), err: fmtErr, errIs: ErrNotWAV, errMsg: "x.wav: not a WAV file (an ID3 tag with no MP3 audio after it)"},
	{name: "flac file", in: []byte("fLaC\x00\x00\x00\x22"), err: fmtErr, errIs: io.ErrUnexpectedEOF, errMsg: "x.wav: truncated header: file ends inside the FLAC metadata"},
	{name: "avi", in: []byte("RIFF\x04\x00\x00\x00AVI "), err: fmtErr, errIs: ErrNotWAV, errMsg: `RIFF form type "AVI "`},
	{name: "RIFF only", in: []byte("RIFF\x24\x00"), err: fmtErr, errIs: io.ErrUnexpectedEOF, errMsg: "x.wav: truncated header"},
	{name: "RIFX", in: []byte("RIFX\x00\x00\x00\x24WAVE"), err: unsupErr, errMsg: "x.wav: unsupported big-endian RIFX"},
	{name: "RF64", in: []byte("RF64\xff\xff\xff\xffWAVE"), err: unsupErr, errMsg: "RF64"},
	{name: "no chunks", in: riff(), err: fmtErr, errIs: io.ErrUnexpectedEOF, errMsg: "before the fmt chunk"},
	{name: "no data chunk", in: riff(fmtChunk(1, 1, 16000, 16)), err: fmtErr, errIs: io.ErrUnexpectedEOF, errMsg: "before the data chunk"},
	{name: "truncated fmt", in: riff(chunk{"fmt ", 16, fmtBody(1, 1, 16000, 16)[:10]}), err: fmtErr, errIs: io.ErrUnexpectedEOF, errMsg: "inside the fmt chunk"},
	{name: "truncated chunk header", in: append(riff(fmtChunk(1, 1, 16000, 16)), 'd', 'a'), err: fmtErr, errIs: io.ErrUnexpectedEOF},
	{name: "truncated LIST", in: riff(fmtChunk(1, 1, 16000, 16), chunk{"LIST", 1000, []byte("INFO")}), err: fmtErr, errIs: io.ErrUnexpectedEOF, errMsg: `"LIST" chunk`},
	{name: "fmt too short", in: riff(chunk{"fmt ", -1, fmtBody(1, 1, 16000, 16)[:14]}), err: fmtErr, errMsg: "fmt chunk too short"},
	{name: "fmt too large", in: riff(chunk{"fmt ", 1 << 30, fmtBody(1, 1, 16000, 16)}), err: fmtErr, errMsg: "fmt chunk too large"},
	{name: "zero channels", in: riff(fmtChunk(1, 0, 16000, 16), data(nil)), err: fmtErr, errMsg: "x.wav: zero channels"},
	{name: "zero rate", in: riff(fmtChunk(1, 1, 0, 16), data(nil)), err: fmtErr, errMsg: "x.wav: zero sample rate"},
	{name: "zero bits", in: riff(fmtChunk(1, 1, 16000, 0), data(nil)), err: fmtErr, errMsg: "zero bits per sample"},
	{name: "bad block align", in: riff(chunk{"fmt ", -1, append(fmtBody(1, 1, 16000, 16)[:12], 4, 0, 16, 0)}, data(nil)), err: fmtErr, errMsg: "block align 4, want 2"},
	{name: "data of unknown size before fmt", in: riff(chunk{"data", 0, s16(1, 2)}), err: fmtErr, errMsg: "before the fmt chunk"},
	{name: "extensible too short", in: riff(chunk{"fmt ", -1, fmtExt(1, 1, 16000, 16, 16).body[:24]}), err: fmtErr, errMsg: "EXTENSIBLE fmt chunk too short"},
	{name: "extensible valid bits too many", in: riff(fmtExt(1, 1, 16000, 16, 20), data(nil)), err: fmtErr, errMsg: "20 valid bits"},
	{name: "16-bit A-law", in: riff(fmtChunk(6, 1, 8000, 16), data([]byte{1, 2})), err: unsupErr, errMsg: "x.wav: unsupported 16-bit A-law (want 8)"},
	{name: "16-bit mu-law", in: riff(fmtChunk(7, 1, 8000, 16), data([]byte{1, 2})), err: unsupErr, errMsg: "mu-law"},
	{name: "MS ADPCM", in: riff(fmtChunk(2, 1, 8000, 4), data([]byte{1})), err: unsupErr, errMsg: "MS ADPCM"},
	{name: "IMA ADPCM", in: riff(fmtChunk(0x11, 1, 8000, 4), data([]byte{1})), err: unsupErr, errMsg: "IMA ADPCM"},
	{name: "MP3 in WAV", in: riff(fmtChunk(0x55, 2, 44100, 0), data([]byte{1})), err: unsupErr, errMsg: "MP3"},
	{name: "extensible unknown GUID", in: riff(chunk{"fmt ", -1, append(fmtExt(1, 1, 16000, 16, 16).body[:39], 0)}, data(nil)), err: unsupErr, errMsg: "sub-format GUID"},
	{name: "12-bit PCM", in: riff(fmtChunk(1, 1, 16000, 12), data(nil)), err: unsupErr, errMsg: "12-bit PCM"},
	{name: "16-bit float", in: riff(fmtChunk(3, 1, 16000, 16), data(nil)), err: unsupErr, errMsg: "16-bit float"},
	{name: "9 channels", in: riff(fmtChunk(1, 9, 16000, 16), data(nil)), err: unsupErr, errMsg: "9 channels (at most 8)"},
	{name: "rate too low", in: riff(fmtChunk(1, 1, 4000, 16), data(nil)), err: unsupErr, errMsg: "sample rate 4000 Hz"},
	{name: "rate too high", in: riff(fmtChunk(1, 1, 384000, 16), data(nil)), err: unsupErr, errMsg: "sample rate 384000 Hz"},
}

// checkErr compares err with the expectations of tc.
func checkErr(t *testing.T, err error, tc decodeTest) {
	t.Helper()
	var fe *FormatError
	var ue *UnsupportedError
	switch tc.err {
	case noErr:
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	case fmtErr:
		if !errors.As(err, &fe) {
			t.Fatalf("error = %v (%T), want *FormatError", err, err)
		}
	case unsupErr:
		if !errors.As(err, &ue) || !errors.Is(err, errors.ErrUnsupported) {
			t.Fatalf("error = %v (%T), want *UnsupportedError", err, err)
		}
	}
	if tc.errIs != nil && !errors.Is(err, tc.errIs) {
		t.Errorf("error %q does not wrap %v", err, tc.errIs)
	}
	if !strings.HasPrefix(err.Error(), "x.wav: ") || !strings.Contains(err.Error(), tc.errMsg) {
		t.Errorf("error = %q, want prefix %q containing %q", err, "x.wav: ", tc.errMsg)
	}
}

func checkWarnings(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("warnings = %q, want %d matching %q", got, len(want), want)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], "x.wav: ") || !strings.Contains(got[i], want[i]) {
			t.Errorf("warning %d = %q, want it to contain %q", i, got[i], want[i])
		}
	}
}

func TestDecode(t *testing.T) {
	const tol = 0 // every expected value is exactly representable
	for _, tc := range decodeTests {
		t.Run(tc.name, func(t *testing.T) {
			// A plain reader (no Len, no Seek) exercises the unknown-size path.
			c, err := Decode(struct{ io.Reader }{bytes.NewReader(tc.in)}, "x.wav")
			checkErr(t, err, tc)
			if err != nil {
				return
			}
			want := tc.info
			want.Container = "wav"
			if c.Info != want {
				t.Errorf("Info = %+v, want %+v", c.Info, want)
			}
			if c.Rate != want.SampleRate {
				t.Errorf("Rate = %d, want %d", c.Rate, want.SampleRate)
			}
			if len(c.Samples) != len(tc.want) {
				t.Fatalf("samples = %v, want %v", c.Samples, tc.want)
			}
			for i := range tc.want {
				if math.Abs(float64(c.Samples[i]-tc.want[i])) > tol {
					t.Errorf("sample %d = %v, want %v", i, c.Samples[i], tc.want[i])
				}
				if c.Samples[i] < -1 || c.Samples[i] >= 1 {
					t.Errorf("sample %d = %v outside [-1, 1)", i, c.Samples[i])
				}
			}
			checkWarnings(t, c.Warnings, tc.warnings)
		})
	}
}

// TestDecodeReaders checks that short reads, one-byte reads and a
// seekable reader all decode the same as a plain reader.
func TestDecodeReaders(t *testing.T) {
	readers := []struct {
		name string
		wrap func([]byte) io.Reader
	}{
		{"bytes.Reader", func(b []byte) io.Reader { return bytes.NewReader(b) }},
		{"one byte", func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) }},
		{"half", func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) }},
		{"data err", func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) }},
	}
	for _, tc := range decodeTests {
		ref, refErr := Decode(struct{ io.Reader }{bytes.NewReader(tc.in)}, "x.wav")
		for _, rd := range readers {
			t.Run(tc.name+"/"+rd.name, func(t *testing.T) {
				c, err := Decode(rd.wrap(tc.in), "x.wav")
				if fmt.Sprint(err) != fmt.Sprint(refErr) {
					t.Fatalf("error = %v, want %v", err, refErr)
				}
				if err != nil {
					return
				}
				if !slices.Equal(c.Samples, ref.Samples) || c.Info != ref.Info || fmt.Sprint(c.Warnings) != fmt.Sprint(ref.Warnings) {
					t.Errorf("got %v %+v %q, want %v %+v %q", c.Samples, c.Info, c.Warnings, ref.Samples, ref.Info, ref.Warnings)
				}
			})
		}
	}
}

func TestDecodeInfo(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want Info
		dur  time.Duration
	}{
		{"s16 1 s", riff(fmtChunk(1, 1, 16000, 16), chunk{"data", 32000, nil}),
			Info{"wav", "pcm_s16le", 16, 16000, 1, 16000, false}, time.Second},
		{"stereo 44.1k", riff(fmtChunk(1, 2, 44100, 16), chunk{"data", 44100 * 4 * 3 / 2, nil}),
			Info{"wav", "pcm_s16le", 16, 44100, 2, 66150, false}, 1500 * time.Millisecond},
		{"streaming size", riff(fmtChunk(3, 1, 48000, 32), chunk{"data", 0xFFFFFFFF, nil}),
			Info{"wav", "float32", 32, 48000, 1, -1, false}, 0},
		{"extensible", riff(fmtExt(1, 2, 96000, 24, 24), chunk{"data", 6 * 96, nil}),
			Info{"wav", "pcm_s24le", 24, 96000, 2, 96, true}, time.Millisecond},
		{"data before fmt, skipped", riff(data(s16(1, 2, 3)), fmtChunk(1, 1, 8000, 16)),
			Info{"wav", "pcm_s16le", 16, 8000, 1, 3, false}, 375 * time.Microsecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeInfo(bytes.NewReader(tc.in), "x.wav")
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("Info = %+v, want %+v", got, tc.want)
			}
			if d := got.Duration(); d != tc.dur {
				t.Errorf("Duration = %v, want %v", d, tc.dur)
			}
		})
	}
	for _, tc := range decodeTests {
		if tc.err == noErr {
			continue
		}
		t.Run("error/"+tc.name, func(t *testing.T) {
			_, err := DecodeInfo(bytes.NewReader(tc.in), "x.wav")
			checkErr(t, err, tc)
		})
	}
}

// TestDecodeLyingHeader checks that a header claiming 2 GB does not make
// Decode allocate anything like it.
func TestDecodeLyingHeader(t *testing.T) {
	const maxBytes = 4 << 20
	tests := []struct {
		name string
		in   []byte
	}{
		{"data claim", riff(fmtChunk(1, 1, 16000, 16), chunk{"data", 0x7FFFFFFE, s16(1, 2, 3)})},
		{"early data claim", riff(chunk{"data", 0x7FFFFFFE, s16(1, 2, 3)})},
		{"chunk claim", riff(fmtChunk(1, 1, 16000, 16), chunk{"LIST", 0xFFFFFFF0, s16(1, 2, 3)})},
	}
	for _, tc := range tests {
		for _, plain := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/plain=%v", tc.name, plain), func(t *testing.T) {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				var r io.Reader = bytes.NewReader(tc.in)
				if plain {
					r = struct{ io.Reader }{r}
				}
				Decode(r, "x.wav")
				runtime.ReadMemStats(&after)
				if n := after.TotalAlloc - before.TotalAlloc; n > maxBytes {
					t.Errorf("allocated %d bytes for a %d-byte input", n, len(tc.in))
				}
			})
		}
	}
}

func TestReadFile(t *testing.T) {
	const tol = 0 // same arithmetic on the same values
	dir := t.TempDir()
	samples := tone(44100, 440, 0.5, 4410)
	wav := riff(fmtChunk(1, 2, 44100, 16), data(func() []byte {
		var b []byte
		for _, s := range samples {
			v := int16(s * 32768)
			b = append(b, s16(v, v)...)
		}
		return b
	}()))
	path := filepath.Join(dir, "tone.wav")
	if err := os.WriteFile(path, wav, 0o644); err != nil {
		t.Fatal(err)
	}
	ref, err := Decode(bytes.NewReader(wav), path)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("ReadFile", func(t *testing.T) {
		c, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(c.Samples, ref.Samples) || c.Info != ref.Info || c.Rate != 44100 {
			t.Errorf("ReadFile differs from Decode: info %+v vs %+v", c.Info, ref.Info)
		}
	})
	t.Run("stdin", func(t *testing.T) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		old := os.Stdin
		os.Stdin = f
		defer func() { os.Stdin = old }()
		c, err := ReadFile("-")
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(c.Samples, ref.Samples) {
			t.Errorf("ReadFile(\"-\") differs from Decode")
		}
	})
	t.Run("Load16k", func(t *testing.T) {
		c, err := Load16k(path)
		if err != nil {
			t.Fatal(err)
		}
		want := Resample(ref.Samples, 44100, 16000)
		if c.Rate != 16000 || c.Info != ref.Info || len(c.Samples) != len(want) {
			t.Fatalf("Load16k: rate %d info %+v len %d, want 16000 %+v %d", c.Rate, c.Info, len(c.Samples), ref.Info, len(want))
		}
		for i := range want {
			if math.Abs(float64(c.Samples[i]-want[i])) > tol {
				t.Fatalf("sample %d = %v, want %v", i, c.Samples[i], want[i])
			}
		}
	})
	t.Run("missing", func(t *testing.T) {
		_, err := ReadFile(filepath.Join(dir, "nope.wav"))
		if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "nope.wav") {
			t.Errorf("error = %v, want a not-exist error naming the file", err)
		}
	})
	t.Run("format error names path", func(t *testing.T) {
		bad := filepath.Join(dir, "bad.wav")
		if err := os.WriteFile(bad, []byte("not audio"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load16k(bad)
		var fe *FormatError
		if !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), bad+": not a WAV file") {
			t.Errorf("error = %v", err)
		}
	})
}

func TestWriteWAVRoundTrip(t *testing.T) {
	const tol = 2.0 / 32768 // WriteWAV scales by 32767, Decode divides by 32768
	tests := []struct {
		name    string
		samples []float32
		rate    int
	}{
		{"empty", nil, 16000},
		{"tone", tone(16000, 440, 0.9, 1600), 16000},
		{"clipped", []float32{1.5, -1.5, 1, -1, 0}, 8000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteWAV(&buf, tc.samples, tc.rate); err != nil {
				t.Fatal(err)
			}
			c, err := Decode(&buf, "x.wav")
			if err != nil {
				t.Fatal(err)
			}
			if c.Rate != tc.rate || len(c.Samples) != len(tc.samples) || len(c.Warnings) != 0 {
				t.Fatalf("rate %d, %d samples, warnings %q", c.Rate, len(c.Samples), c.Warnings)
			}
			for i, v := range tc.samples {
				want := max(-1, min(1, float64(v)))
				if d := math.Abs(float64(c.Samples[i]) - want); d > tol {
					t.Errorf("sample %d = %v, want %v", i, c.Samples[i], want)
				}
			}
		})
	}
}
