package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Hand-built NIST SPHERE files for table tests and fuzz seeds.

// sphereSize builds a SPHERE file with the given header size: "NIST_1A",
// the size line, the field lines, "end_head", space padding, then body.
func sphereSize(size int, fields string, body []byte) []byte {
	h := fmt.Sprintf("NIST_1A\n%7d\n%send_head\n", size, fields)
	if len(h) < size {
		h += strings.Repeat(" ", size-len(h)-1) + "\n"
	}
	return append([]byte(h), body...)
}

// sphere is sphereSize with the usual 1024-byte header.
func sphere(fields string, body []byte) []byte { return sphereSize(1024, fields, body) }

// sphereFields are the header lines of a mono 16-bit file at 16 kHz, with
// the byte format and sample count given.
func sphereFields(byteFormat string, count int) string {
	return fmt.Sprintf("sample_count -i %d\nsample_rate -i 16000\nsample_n_bytes -i 2\n"+
		"sample_byte_format -s2 %s\nchannel_count -i 1\nsample_coding -s3 pcm\n", count, byteFormat)
}

func be16(v ...int16) []byte {
	var b []byte
	for _, x := range v {
		b = binary.BigEndian.AppendUint16(b, uint16(x))
	}
	return b
}

// checksum16 is SPHERE's sample_checksum: the 16-bit sum of the samples.
func checksum16(v ...int16) uint16 {
	var s uint16
	for _, x := range v {
		s += uint16(x)
	}
	return s
}

var sphereSamples = []int16{0, 16384, -32768, 32767, -1}

var sphereWant = []float32{0, 0.5, -1, q16, -1.0 / 32768}

var sphereInfo = func(enc string, frames int64) Info {
	return Info{Container: "sphere", Encoding: enc, BitsPerSample: 16, SampleRate: 16000, Channels: 1, Frames: frames}
}

var sphereTests = []decodeTest{
	{
		name: "little endian",
		in:   sphere(sphereFields("01", 5)+fmt.Sprintf("sample_checksum -i %d\n", checksum16(sphereSamples...)), s16(sphereSamples...)),
		want: sphereWant,
		info: sphereInfo("pcm_s16le", 5),
	},
	{
		name: "big endian",
		in:   sphere(sphereFields("10", 5)+fmt.Sprintf("sample_checksum -i %d\n", checksum16(sphereSamples...)), be16(sphereSamples...)),
		want: sphereWant,
		info: sphereInfo("pcm_s16be", 5),
	},
	{
		name: "AN4 header, sample_coding absent, comments, strings with spaces",
		in: sphere("; a comment\nsample_count -i 2\nsample_rate -r 8000.0\nsample_n_bytes -i 2\nsample_byte_format -s2 10\n"+
			"database_id -s9 AN4 CMU 1\nsample_max -i 16000\n", be16(256, -256)),
		want: []float32{256.0 / 32768, -256.0 / 32768},
		info: Info{Container: "sphere", Encoding: "pcm_s16be", BitsPerSample: 16, SampleRate: 8000, Channels: 1, Frames: 2},
	},
	{
		name: "2048-byte header, trailing bytes ignored",
		in:   sphereSize(2048, sphereFields("01", 2), s16(100, -100, 7, 7, 7)),
		want: []float32{100.0 / 32768, -100.0 / 32768},
		info: sphereInfo("pcm_s16le", 2),
	},
	{
		name: "no samples",
		in:   sphere(sphereFields("01", 0), nil),
		want: []float32{},
		info: sphereInfo("pcm_s16le", 0),
	},
	{
		name:     "checksum mismatch",
		in:       sphere(sphereFields("01", 2)+"sample_checksum -i 5\n", s16(1, 2)),
		want:     []float32{1.0 / 32768, 2.0 / 32768},
		info:     sphereInfo("pcm_s16le", 2),
		warnings: []string{"sample_checksum 5 does not match the data (3)"},
	},
	{
		name:     "checksum matching swapped bytes",
		in:       sphere(sphereFields("01", 2)+fmt.Sprintf("sample_checksum -i %d\n", checksum16(256, 512)), s16(1, 2)),
		want:     []float32{1.0 / 32768, 2.0 / 32768},
		info:     sphereInfo("pcm_s16le", 2),
		warnings: []string{"matches the data only with the bytes swapped"},
	},
	{name: "empty input", in: nil, err: fmtErr, errIs: ErrNotSphere, errMsg: "not a NIST SPHERE file"},
	{name: "a WAV file", in: wavS16(16000, []float32{0, 0.5}), err: fmtErr, errIs: ErrNotSphere, errMsg: "no NIST_1A line"},
	{name: "cut in the magic", in: []byte("NIST_"), err: fmtErr, errIs: io.ErrUnexpectedEOF, errMsg: "truncated header"},
	{name: "cut in the size line", in: []byte("NIST_1A\n   10"), err: fmtErr, errIs: io.ErrUnexpectedEOF, errMsg: "header size line"},
	{name: "size not a number", in: []byte("NIST_1A\n   1x24\nend_head\n"), err: fmtErr, errMsg: "is not a number"},
	{name: "absurd header size", in: []byte("NIST_1A\n9999999\nend_head\n"), err: fmtErr, errMsg: "header size 9999999 is outside"},
	{name: "header cut short", in: sphere(sphereFields("01", 0), nil)[:300], err: fmtErr, errIs: io.ErrUnexpectedEOF, errMsg: "truncated header"},
	{name: "no end_head", in: append([]byte("NIST_1A\n   1024\n"+sphereFields("01", 0)), bytes.Repeat([]byte(" "), 1024)...)[:1024], err: fmtErr, errMsg: "no end_head"},
	{name: "line without type", in: sphere("sample_rate 16000\n", nil), err: fmtErr, errMsg: "unknown type"},
	{name: "line without value", in: sphere("sample_rate\n", nil), err: fmtErr, errMsg: "want \"name -type value\""},
	{name: "integer that is not", in: sphere("sample_rate -i 16k\n", nil), err: fmtErr, errMsg: "is not an integer"},
	{name: "string too short", in: sphere("sample_coding -s9 pcm\n", nil), err: fmtErr, errMsg: "not a string of that length"},
	{name: "repeated field", in: sphere(sphereFields("01", 0)+"sample_rate -i 8000\n", nil), err: fmtErr, errMsg: "sample_rate repeated"},
	{name: "shorten", in: sphere(strings.Replace(sphereFields("01", 2), "-s3 pcm", "-s26 pcm,embedded-shorten-v2.00", 1), nil),
		err: unsupErr, errMsg: "sample_coding \"pcm,embedded-shorten-v2.00\""},
	{name: "mu-law", in: sphere(strings.Replace(sphereFields("01", 2), "-s3 pcm", "-s4 ulaw", 1), nil), err: unsupErr, errMsg: "sample_coding \"ulaw\""},
	{name: "one-byte samples", in: sphere(strings.Replace(sphereFields("01", 2), "n_bytes -i 2", "n_bytes -i 1", 1), nil), err: unsupErr, errMsg: "sample_n_bytes 1"},
	{name: "no sample_n_bytes", in: sphere(strings.Replace(sphereFields("01", 2), "sample_n_bytes -i 2\n", "", 1), nil), err: fmtErr, errMsg: "no sample_n_bytes"},
	{name: "stereo", in: sphere(strings.Replace(sphereFields("01", 2), "channel_count -i 1", "channel_count -i 2", 1), nil), err: unsupErr, errMsg: "channel_count 2"},
	{name: "zero channels", in: sphere(strings.Replace(sphereFields("01", 2), "channel_count -i 1", "channel_count -i 0", 1), nil), err: fmtErr, errMsg: "channel_count 0"},
	{name: "no byte format", in: sphere(strings.Replace(sphereFields("01", 2), "sample_byte_format -s2 01\n", "", 1), nil), err: fmtErr, errMsg: "byte order unknown"},
	{name: "shortpack", in: sphere(strings.Replace(sphereFields("01", 2), "-s2 01", "-s12 shortpack-v0", 1), nil), err: unsupErr, errMsg: "shortpack-v0"},
	{name: "one-byte byte format", in: sphere(strings.Replace(sphereFields("01", 2), "-s2 01", "-s1 1", 1), nil), err: fmtErr, errMsg: "is not 01 or 10"},
	{name: "no rate", in: sphere(strings.Replace(sphereFields("01", 2), "sample_rate -i 16000\n", "", 1), nil), err: fmtErr, errMsg: "no sample_rate"},
	{name: "rate too low", in: sphere(strings.Replace(sphereFields("01", 2), "-i 16000", "-i 4000", 1), nil), err: unsupErr, errMsg: "sample rate 4000 Hz"},
	{name: "fractional rate", in: sphere(strings.Replace(sphereFields("01", 2), "-i 16000", "-r 16000.5", 1), nil), err: fmtErr, errMsg: "is not an integer"},
	{name: "no count", in: sphere(strings.Replace(sphereFields("01", 2), "sample_count -i 2\n", "", 1), nil), err: fmtErr, errMsg: "no sample_count"},
	{name: "negative count", in: sphere(sphereFields("01", -5), nil), err: fmtErr, errMsg: "sample_count -5 is outside"},
	{name: "absurd count", in: sphere(sphereFields("01", 1<<40), s16(1, 2)), err: fmtErr, errMsg: "sample_count 1099511627776 is outside"},
	{name: "truncated data", in: sphere(sphereFields("10", 10), be16(1, 2, 3, 4)), err: fmtErr, errIs: io.ErrUnexpectedEOF,
		errMsg: "truncated data: header claims 10 samples, file holds 4"},
}

// noHint hides a reader's length, so that DecodeSphere reads as from a
// pipe.
type noHint struct{ r io.Reader }

func (n noHint) Read(p []byte) (int, error) { return n.r.Read(p) }

func TestDecodeSphere(t *testing.T) {
	for _, tc := range sphereTests {
		t.Run(tc.name, func(t *testing.T) {
			for _, r := range []io.Reader{bytes.NewReader(tc.in), noHint{&chunkyReader{b: tc.in, sizes: []int{1, 7, 300}}}} {
				c, err := DecodeSphere(r, "x.wav") // the name checkErr and checkWarnings expect
				checkErr(t, err, tc)
				if tc.err != noErr {
					continue
				}
				if !slices.Equal(c.Samples, tc.want) {
					t.Errorf("samples %v, want %v", c.Samples, tc.want)
				}
				if c.Info != tc.info || c.Rate != tc.info.SampleRate {
					t.Errorf("info %+v rate %d, want %+v", c.Info, c.Rate, tc.info)
				}
				checkWarnings(t, c.Warnings, tc.warnings)
			}
		})
	}
}

func TestReadSphereFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.sph")
	if err := os.WriteFile(path, sphereTests[0].in, 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := ReadSphereFile(path)
	if err != nil || !slices.Equal(c.Samples, sphereWant) {
		t.Fatalf("ReadSphereFile: %v, %v", c, err)
	}
	_, err = ReadSphereFile(filepath.Join(t.TempDir(), "missing.sph"))
	if !errors.Is(err, os.ErrNotExist) || !strings.HasSuffix(err.Error(), "missing.sph: no such file or directory") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := Decode(bytes.NewReader(sphereTests[0].in), "x.wav"); err == nil || !strings.Contains(err.Error(), "looks like NIST SPHERE") {
		t.Errorf("Decode of a SPHERE file: %v", err)
	}
}

// sphereFuzzSeeds are the committed seeds of FuzzReadSphere: every
// sphereTests row.
func sphereFuzzSeeds() []fuzzSeed {
	var seeds []fuzzSeed
	for _, tc := range sphereTests {
		name := strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
				return r
			}
			if r >= 'A' && r <= 'Z' {
				return r + 'a' - 'A'
			}
			return '_'
		}, tc.name)
		seeds = append(seeds, fuzzSeed{name: name, data: tc.in})
	}
	return seeds
}

// TestSphereFuzzCorpus checks that testdata/fuzz/FuzzReadSphere matches
// sphereFuzzSeeds; run with -update-corpus to rewrite it.
func TestSphereFuzzCorpus(t *testing.T) {
	files := map[string]string{}
	for _, s := range sphereFuzzSeeds() {
		files[filepath.Join("testdata", "fuzz", "FuzzReadSphere", s.name)] = seedFile(s.data)
	}
	checkSeedFiles(t, files, "TestSphereFuzzCorpus")
}

// FuzzReadSphere checks that DecodeSphere never panics, returns only typed
// errors, reads the same from a pipe as from memory, and that what it
// accepts is what the header says.
func FuzzReadSphere(f *testing.F) {
	for _, s := range sphereFuzzSeeds() {
		f.Add(s.data)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := DecodeSphere(bytes.NewReader(b), "fuzz")
		c2, err2 := DecodeSphere(noHint{&chunkyReader{b: b, sizes: []int{3, 1, 1000}}}, "fuzz")
		if fmt.Sprint(err) != fmt.Sprint(err2) {
			t.Fatalf("in memory: %v; from a pipe: %v", err, err2)
		}
		if err != nil {
			checkDecodeErr(t, err)
			return
		}
		if !slices.Equal(c.Samples, c2.Samples) || c.Info != c2.Info || !slices.Equal(c.Warnings, c2.Warnings) {
			t.Fatal("in memory and from a pipe differ")
		}
		in := c.Info
		if in.Container != "sphere" || in.Channels != 1 || in.BitsPerSample != 16 || c.Rate != in.SampleRate ||
			in.SampleRate < MinRate || in.SampleRate > MaxRate || (in.Encoding != "pcm_s16le" && in.Encoding != "pcm_s16be") {
			t.Fatalf("bad Info %+v, rate %d", in, c.Rate)
		}
		if int64(len(c.Samples)) != in.Frames || 16+2*len(c.Samples) > len(b) {
			t.Fatalf("%d samples, Frames %d, input %d bytes", len(c.Samples), in.Frames, len(b))
		}
		for i, v := range c.Samples {
			if !(v >= -1 && v < 1) {
				t.Fatalf("sample %d = %v outside [-1, 1)", i, v)
			}
		}
	})
}
