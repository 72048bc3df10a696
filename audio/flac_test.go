package audio

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// flacFixtures are FLAC files and the WAV files they were made from (see
// ../testdata/README.md and ../testdata/audio/README.md): FLAC is
// lossless, so each must decode to exactly the WAV's samples.
var flacFixtures = []struct {
	file, wav string
	enc       string
	bits      int
	rate, ch  int
}{
	{"../testdata/hello.flac", "../testdata/hello.wav", "flac_s16", 16, 16000, 1},                                         // flac 1.4.2 -8
	{filepath.Join(fixtureDir, "s24_stereo.flac"), filepath.Join(fixtureDir, "s24_stereo.wav"), "flac_s24", 24, 16000, 2}, // ffmpeg 5.1
}

func TestFLACFixtures(t *testing.T) {
	for _, tc := range flacFixtures {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			c, err := ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := ReadFile(tc.wav)
			if err != nil {
				t.Fatal(err)
			}
			want := Info{Container: "flac", Encoding: tc.enc, BitsPerSample: tc.bits, SampleRate: tc.rate, Channels: tc.ch, Frames: int64(len(ref.Samples))}
			if c.Info != want || c.Rate != tc.rate || len(c.Warnings) != 0 {
				t.Errorf("Info = %+v, rate %d, warnings %q; want %+v and none", c.Info, c.Rate, c.Warnings, want)
			}
			if !slices.Equal(c.Samples, ref.Samples) {
				maxLSB, _, _ := diff(c.Samples, ref.Samples)
				t.Errorf("%d samples differ from the WAV's %d (max %.3g 16-bit steps); want them equal", len(c.Samples), len(ref.Samples), maxLSB)
			}
			b := readFixture(t, tc.file)
			if info, err := DecodeInfo(bytes.NewReader(b), tc.file); err != nil || info != want {
				t.Errorf("DecodeInfo = %+v, %v; want %+v", info, err, want)
			}
			for _, r := range []io.Reader{struct{ io.Reader }{bytes.NewReader(b)}, iotest.OneByteReader(bytes.NewReader(b))} {
				d, err := Decode(r, tc.file)
				if err != nil || !slices.Equal(d.Samples, c.Samples) || d.Info != c.Info {
					t.Errorf("Decode from %T differs from ReadFile (err %v)", r, err)
				}
			}
			c16, err := Load16k(tc.file)
			if err != nil || c16.Rate != 16000 || !slices.Equal(c16.Samples, Resample(c.Samples, c.Rate, 16000)) {
				t.Errorf("Load16k differs from Resample(ReadFile) (err %v)", err)
			}
		})
	}
}

// crc8 and crc16 are FLAC's frame header and frame checksums
// (polynomials 0x07 and 0x8005, initial value 0).
func crc8(b []byte) byte {
	var c byte
	for _, v := range b {
		c ^= v
		for range 8 {
			c = c<<1 ^ byte(int(c>>7)*0x07)
		}
	}
	return c
}

func crc16(b []byte) uint16 {
	var c uint16
	for _, v := range b {
		c ^= uint16(v) << 8
		for range 8 {
			c = c<<1 ^ uint16(int(c>>15)*0x8005)
		}
	}
	return c
}

// flacFrame builds a FLAC frame numbered num: fixed block size, sample
// rate from STREAMINFO, independent channels of bps (8, 16 or 24) bits,
// each a VERBATIM subframe of chans[k]. bps 0 writes sample size code
// 000 ("from STREAMINFO") and no sample bits.
func flacFrame(num byte, bps int, chans ...[]int32) []byte {
	code := map[int]byte{0: 0, 8: 1, 16: 4, 24: 6}[bps]
	n := len(chans[0])
	b := []byte{0xFF, 0xF8, 0x60, byte(len(chans)-1)<<4 | code<<1, num, byte(n - 1)}
	b = append(b, crc8(b))
	for _, ch := range chans {
		b = append(b, 0x02) // VERBATIM, no wasted bits
		for _, v := range ch {
			for s := bps - 8; s >= 0; s -= 8 {
				b = append(b, byte(v>>s))
			}
		}
	}
	return binary.BigEndian.AppendUint16(b, crc16(b))
}

// flacFile builds a FLAC file: "fLaC", a STREAMINFO block (block sizes
// 16..16, rate, channels, bits, total samples), then frames.
func flacFile(rate, ch, bps int, total uint64, frames ...[]byte) []byte {
	b := []byte("fLaC\x80\x00\x00\x22\x00\x10\x00\x10\x00\x00\x00\x00\x00\x00")
	v := uint64(rate)<<44 | uint64(ch-1)<<41 | uint64(bps-1)<<36 | total
	b = binary.BigEndian.AppendUint64(b, v)
	b = append(b, make([]byte, 16)...) // MD5: not checked
	return slices.Concat(append([][]byte{b}, frames...)...)
}

// ramp returns n values from start by step.
func ramp(n int, start, step int32) []int32 {
	x := make([]int32, n)
	for i := range x {
		x[i] = start + int32(i)*step
	}
	return x
}

// flacMono is a 16-bit mono file of four 16-sample frames.
func flacMono(total uint64) []byte {
	return flacFile(16000, 1, 16, total,
		flacFrame(0, 16, ramp(16, -32768, 4096)), flacFrame(1, 16, ramp(16, 0, 2047)),
		flacFrame(2, 16, ramp(16, 32767, -1)), flacFrame(3, 16, ramp(16, 5, 0)))
}

// flacTests are hand-built FLAC files that decode, with their samples.
var flacTests = []struct {
	name string
	in   []byte
	want []float32
	info Info
}{
	{
		name: "s16 mono",
		in:   flacFile(16000, 1, 16, 16, flacFrame(0, 16, append([]int32{0, 16384, -32768, 32767}, make([]int32, 12)...))),
		want: append([]float32{0, 0.5, -1, q16}, make([]float32, 12)...),
		info: Info{Container: "flac", Encoding: "flac_s16", BitsPerSample: 16, SampleRate: 16000, Channels: 1, Frames: 16},
	},
	{
		name: "s24 stereo averaged, total unknown",
		in: flacFile(48000, 2, 24, 0, flacFrame(0, 24,
			append([]int32{0x400000, -0x800000, 0x7FFFFF}, make([]int32, 13)...),
			append([]int32{0x400000, 0, 0x7FFFFF}, make([]int32, 13)...))),
		want: append([]float32{0.5, -0.5, 0x7FFFFF / float32(0x800000)}, make([]float32, 13)...),
		info: Info{Container: "flac", Encoding: "flac_s24", BitsPerSample: 24, SampleRate: 48000, Channels: 2, Frames: 16},
	},
	{
		name: "s8 3 channels, short last frame",
		in: flacFile(8000, 3, 8, 18,
			flacFrame(0, 8, ramp(16, 0, 3), ramp(16, 0, 3), ramp(16, 0, 3)),
			flacFrame(1, 8, []int32{-128, 127}, []int32{-128, 127}, []int32{-128, -128})),
		want: append(func() []float32 {
			x := make([]float32, 16)
			for i := range x {
				x[i] = float32(3*i) / 128
			}
			return x
		}(), -1, float32(126.0/3/128)),
		info: Info{Container: "flac", Encoding: "flac_s8", BitsPerSample: 8, SampleRate: 8000, Channels: 3, Frames: 18},
	},
	{
		name: "after an ID3 tag, with an ID3v1 tag at the end",
		in:   slices.Concat([]byte("ID3\x04\x00\x00\x00\x00\x00\x03abc"), flacFile(16000, 1, 16, 16, flacFrame(0, 16, ramp(16, 0, 1024))), []byte("TAG"+strings.Repeat(" ", 125))),
		want: func() []float32 {
			x := make([]float32, 16)
			for i := range x {
				x[i] = float32(i) / 32
			}
			return x
		}(),
		info: Info{Container: "flac", Encoding: "flac_s16", BitsPerSample: 16, SampleRate: 16000, Channels: 1, Frames: 16},
	},
}

func TestFLACDecode(t *testing.T) {
	for _, tc := range flacTests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Decode(struct{ io.Reader }{bytes.NewReader(tc.in)}, "x.flac")
			if err != nil {
				t.Fatal(err)
			}
			if c.Info != tc.info || len(c.Warnings) != 0 {
				t.Errorf("Info = %+v, warnings %q; want %+v and none", c.Info, c.Warnings, tc.info)
			}
			if !slices.Equal(c.Samples, tc.want) {
				t.Errorf("samples = %v, want %v", c.Samples, tc.want)
			}
			info, err := DecodeInfo(bytes.NewReader(tc.in), "x.flac")
			want := tc.info
			if strings.Contains(tc.name, "total unknown") {
				want.Frames = -1
			}
			if err != nil || info != want {
				t.Errorf("DecodeInfo = %+v, %v; want %+v", info, err, want)
			}
		})
	}
}

// flacErrorTests are inputs that Decode rejects; header errors, which
// DecodeInfo gives too, first.
var flacErrorTests = []struct {
	name   string
	in     []byte
	unsup  bool
	errIs  error
	errMsg string
	header bool // DecodeInfo fails alike
}{
	{"signature only", []byte("fLaC"), false, io.ErrUnexpectedEOF, "x.flac: truncated header: file ends inside the FLAC metadata", true},
	{"STREAMINFO cut", flacMono(64)[:20], false, io.ErrUnexpectedEOF, "inside the FLAC metadata", true},
	{"first block not STREAMINFO", []byte("fLaC\x84\x00\x00\x08abcdefgh"), false, nil, "x.flac: first FLAC metadata block is of type 4 and 8 bytes, want STREAMINFO (0) of 34", true},
	{"rate too high", flacFile(384000, 1, 16, 0), true, nil, "x.flac: unsupported sample rate 384000 Hz", true},
	{"32 bits", flacFile(16000, 1, 32, 0), true, nil, "x.flac: unsupported 32-bit FLAC (mewkiz/flac decodes 8, 12, 16, 20 and 24 bits)", true},
	{"zero rate", flacFile(0, 1, 16, 0), false, nil, "x.flac: corrupt FLAC header: ", true},
	{"padding block cut", func() []byte {
		b := flacFile(16000, 1, 16, 0)
		b[4] = 0 // STREAMINFO is not the last block
		return append(b, "\x81\x00\x03\xE8 ten bytes"...)
	}(), false, io.ErrUnexpectedEOF, "inside the FLAC metadata", true},
	{"bad frame CRC", func() []byte {
		b := flacMono(64)
		b[len(b)-3] ^= 1
		return b
	}(), false, nil, "x.flac: corrupt FLAC data after 48 samples: frame.Frame.Parse: CRC-16 checksum mismatch", false},
	{"stereo frame in a mono stream", flacFile(16000, 1, 16, 16, flacFrame(0, 16, ramp(16, 0, 1), ramp(16, 0, 1))), false, nil, "x.flac: corrupt FLAC data: a frame of 2 channels of 16 bits in a stream of 1 of 16", false},
	{"junk after the header", append(flacFile(16000, 1, 16, 16), "no frame here"...), false, nil, "invalid sync-code", false},
	{"frame without a sample size", flacFile(16000, 1, 16, 16, flacFrame(0, 0, make([]int32, 16))), true, nil, "x.flac: unsupported 16-bit FLAC frames (no sample size in the frame header)", false},
}

func TestFLACErrors(t *testing.T) {
	for _, tc := range flacErrorTests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(bytes.NewReader(tc.in), "x.flac")
			checkErrorRow(t, err, "x.flac: ", tc.unsup, tc.errIs, tc.errMsg)
			_, ierr := DecodeInfo(bytes.NewReader(tc.in), "x.flac")
			if tc.header && fmt.Sprint(err) != fmt.Sprint(ierr) || !tc.header && ierr != nil {
				t.Errorf("DecodeInfo error %v (Decode: %v)", ierr, err)
			}
		})
	}
}

// flacDamaged are truncated copies of the four-frame file b (flacMono),
// and one with zeros after it: each decodes the whole frames before the
// cut or the junk, with a warning.
func flacDamaged(b []byte) []struct {
	name    string
	in      []byte
	warning string
	samples int
} {
	frame := (len(b) - 42) / 4 // bytes per frame: all are the same size
	unknown := slices.Clone(b) // total samples (36 bits from byte 21) 0
	unknown[21] &= 0xF0
	copy(unknown[22:26], make([]byte, 4))
	return []struct {
		name    string
		in      []byte
		warning string
		samples int
	}{
		{"cut between frames", b[:42+2*frame], "x.flac: STREAMINFO claims 64 samples but the file holds only 32 (truncated recording?); decoded what is there", 32},
		{"cut inside a frame", b[:42+3*frame-5], "STREAMINFO claims 64 samples but the file holds only 32", 32},
		{"cut inside a frame, total unknown", unknown[:42+frame+9], "x.flac: the file ends inside a FLAC frame (truncated recording?); decoded what is there", 16},
		{"junk after the last frame", append(slices.Clone(b), make([]byte, 100)...), "x.flac: bytes after the last FLAC frame ignored (frame.Frame.parseHeader: invalid sync-code)", 64},
	}
}

func TestFLACDamaged(t *testing.T) {
	b := flacMono(64)
	full, err := Decode(bytes.NewReader(b), "x.flac")
	if err != nil || len(full.Samples) != 64 || len(full.Warnings) != 0 {
		t.Fatalf("intact file: %v, warnings %v", err, full.Warnings)
	}
	for _, tc := range flacDamaged(b) {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Decode(bytes.NewReader(tc.in), "x.flac")
			if err != nil {
				t.Fatal(err)
			}
			checkSamples(t, c, "x.flac: ")
			checkWarnings2(t, c.Warnings, []string{tc.warning})
			if !slices.Equal(c.Samples, full.Samples[:tc.samples]) {
				t.Errorf("%d samples, want the first %d of the intact file", len(c.Samples), tc.samples)
			}
		})
	}
}

// TestFLACCorrupt cuts and overwrites the FLAC fixtures (see
// corruptInputs): a typed error or a warning, never a panic.
func TestFLACCorrupt(t *testing.T) {
	for _, tc := range flacFixtures {
		corruptInputs(t, readFixture(t, tc.file), "x.flac")
	}
}

func FuzzDecodeFLAC(f *testing.F) {
	for _, s := range compressedFuzzSeeds(f, false) {
		f.Add(s.data)
	}
	f.Fuzz(fuzzCompressed)
}
