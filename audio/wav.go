package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

// Supported input limits.
const (
	MinRate     = 8000   // lowest accepted sample rate, Hz
	MaxRate     = 192000 // highest accepted sample rate, Hz
	MaxChannels = 8      // most channels accepted; all are averaged to mono
	TargetRate  = 16000  // rate produced by Load16k and Stream, Hz
)

// Info describes an audio input as stored, before downmixing and
// resampling.
type Info struct {
	Container     string // "wav", "raw", "sphere", "mp3" or "flac"
	Encoding      string // "pcm_u8", "pcm_s16le", "pcm_s24le", "pcm_s32le", "float32" or "float64"; "pcm_s16be" in SPHERE files; "mp3"; "flac_s16", "flac_s24", ... (flac_sN for N-bit FLAC)
	BitsPerSample int    // container bits per sample: 8, 16, 24, 32 or 64; FLAC's 8, 12, 16, 20 or 24; 0 for MP3, which has none
	SampleRate    int    // Hz
	Channels      int    // interleaved channels, 1..8
	Frames        int64  // samples per channel; -1 when unknown
	Extensible    bool   // fmt chunk was WAVE_FORMAT_EXTENSIBLE
}

// Duration returns Frames/SampleRate, or 0 when either is unknown.
func (i Info) Duration() time.Duration {
	if i.Frames < 0 || i.SampleRate <= 0 {
		return 0
	}
	r := int64(i.SampleRate)
	return time.Duration(i.Frames/r)*time.Second + time.Duration(i.Frames%r)*time.Second/time.Duration(r)
}

// Clip is a decoded recording.
type Clip struct {
	Samples  []float32 // mono (channels averaged), in [-1, 1), at Rate
	Rate     int       // sample rate of Samples, Hz
	Info     Info      // the input as stored; Frames is the number of frames actually decoded
	Warnings []string  // non-fatal problems (truncated data, clipped float samples), each prefixed with the file name
}

const (
	maxFmtSize = 1 << 12 // larger fmt chunks are rejected as corrupt
	readBlock  = 1 << 16 // bytes per read of sample data
	// initialCap bounds the samples allocated before data arrives when the
	// input size is unknown; a lying header must not cause a huge allocation.
	initialCap = 1 << 16
)

// wavHeader is what parseRIFF learns before the sample data.
type wavHeader struct {
	info     Info
	enc      encoding
	dataLeft int64  // bytes of sample data still to read from r; -1: read to EOF
	early    []byte // sample data that came before the fmt chunk
	warnings []string
}

// headerMode says what parseRIFF does with a data chunk found before the
// fmt chunk.
type headerMode int

const (
	keepEarlyData headerMode = iota // buffer it (Decode, Stream)
	skipEarlyData                   // count and discard it (DecodeInfo)
)

var guidSuffix = []byte{0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71}

// readFull is io.ReadFull that also turns a clean io.EOF into
// io.ErrUnexpectedEOF: in a header, any EOF is early.
func readFull(r io.Reader, b []byte) error {
	_, err := io.ReadFull(r, b)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// headerErr converts a read error inside the header into a FormatError
// (for an early EOF) or a wrapped I/O error.
func headerErr(name, where string, err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return formatErr(name, io.ErrUnexpectedEOF, "truncated header: file ends inside %s", where)
	}
	return fmt.Errorf("%s: reading %s: %w", fileName(name), where, err)
}

// looksMP3 reports whether an input starting with b looks like MP3: an
// ID3v2 tag ("ID3") or an MPEG audio frame sync (11 set bits).
func looksMP3(b []byte) bool {
	return bytes.HasPrefix(b, []byte("ID3")) || len(b) >= 2 && b[0] == 0xFF && b[1]&0xE0 == 0xE0
}

// looksFLAC reports whether an input starting with b looks like FLAC.
func looksFLAC(b []byte) bool { return bytes.HasPrefix(b, []byte("fLaC")) }

// looksCompressed reports whether an input starting with b is one that
// Decode hands to the MP3 or FLAC decoder.
func looksCompressed(b []byte) bool { return looksMP3(b) || looksFLAC(b) }

// readMagic reads the first 12 bytes of r (fewer, with err, when r ends or
// fails first) and returns them and a reader of all of r, those bytes
// included.
func readMagic(r io.Reader) (magic []byte, whole io.Reader, err error) {
	var b [12]byte
	n, err := io.ReadFull(r, b[:])
	return b[:n], io.MultiReader(bytes.NewReader(b[:n]), r), err
}

// sniff names the format of an input that is neither RIFF nor
// looksCompressed from its first bytes.
func sniff(name string, b []byte) error {
	has := func(p string) bool { return bytes.HasPrefix(b, []byte(p)) }
	switch {
	case has("RIFX"):
		return unsupported(name, "big-endian RIFX WAV")
	case has("RF64"), has("BW64"):
		return unsupported(name, "64-bit RF64/BW64 WAV")
	}
	kind := "no RIFF header"
	switch {
	case has("OggS"):
		kind = "looks like Ogg"
	case has("FORM"):
		kind = "looks like AIFF"
	case has(".snd"):
		kind = "looks like Sun AU"
	case has("caff"):
		kind = "looks like CAF"
	case has("NIST_1A"):
		kind = "looks like NIST SPHERE: convert it, e.g. sox in.sph out.wav; in Go, DecodeSphere reads it"
	case len(b) == 0:
		return formatErr(name, ErrNotWAV, "not a WAV file (empty input)")
	}
	return formatErr(name, ErrNotWAV, "not a WAV file (%s)", kind)
}

// parseRIFF reads the RIFF header and chunks up to the start of the
// sample data, the first 12 bytes of the input already read from r into
// riff (fewer when that read failed with err: see readMagic).
func parseRIFF(r io.Reader, name string, mode headerMode, riff []byte, err error) (*wavHeader, error) {
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		if len(riff) >= 4 && string(riff[:4]) == "RIFF" {
			return nil, headerErr(name, "the RIFF header", io.ErrUnexpectedEOF)
		}
		return nil, sniff(name, riff)
	case err != nil:
		return nil, headerErr(name, "the RIFF header", err)
	case string(riff[:4]) != "RIFF":
		return nil, sniff(name, riff)
	case string(riff[8:12]) != "WAVE":
		return nil, formatErr(name, ErrNotWAV, "not a WAV file (RIFF form type %q, not \"WAVE\")", riff[8:12])
	}

	h := &wavHeader{}
	haveFmt, haveEarly := false, false
	var earlySize int64
	for {
		var ch [8]byte
		if err := readFull(r, ch[:]); err != nil {
			what := "the chunk list before the fmt chunk"
			if haveFmt {
				what = "the chunk list before the data chunk"
			}
			return nil, headerErr(name, what, err)
		}
		id := string(ch[:4])
		size := int64(binary.LittleEndian.Uint32(ch[4:]))
		pad := size & 1
		switch {
		case id == "fmt " && !haveFmt:
			if size < 16 {
				return nil, formatErr(name, nil, "fmt chunk too short (%d bytes, want at least 16)", size)
			}
			if size > maxFmtSize {
				return nil, formatErr(name, nil, "fmt chunk too large (%d bytes)", size)
			}
			b := make([]byte, size+pad)
			if err := readFull(r, b[:size]); err != nil {
				return nil, headerErr(name, "the fmt chunk", err)
			}
			if pad == 1 {
				// A missing pad byte at the very end is harmless here.
				if _, err := io.ReadFull(r, b[size:]); err != nil && err != io.EOF {
					return nil, headerErr(name, "the fmt chunk", err)
				}
			}
			if err := h.parseFmt(name, b[:size]); err != nil {
				return nil, err
			}
			haveFmt = true
			if haveEarly {
				h.dataLeft = 0
				h.info.Frames = earlySize / int64(h.info.Channels*h.enc.size())
				h.warnings = append(h.warnings, fileName(name)+": data chunk comes before the fmt chunk")
				return h, nil
			}
		case id == "data" && haveFmt:
			h.dataLeft = size
			if unknownSize(size) {
				h.dataLeft = -1 // streaming writer: read to EOF
			} else {
				h.info.Frames = size / int64(h.info.Channels*h.enc.size())
			}
			return h, nil
		case id == "data" && !haveEarly:
			if unknownSize(size) {
				return nil, formatErr(name, nil, "data chunk of unknown size before the fmt chunk")
			}
			haveEarly, earlySize = true, size
			if mode == skipEarlyData {
				if err := skip(r, size+pad); err != nil {
					return nil, headerErr(name, "the data chunk before the fmt chunk", err)
				}
				continue
			}
			// Grow as bytes arrive; never trust size for the allocation.
			var buf bytes.Buffer
			m, err := io.Copy(&buf, io.LimitReader(r, size))
			if err != nil {
				return nil, headerErr(name, "the data chunk before the fmt chunk", err)
			}
			if m < size {
				return nil, headerErr(name, "the data chunk before the fmt chunk", io.ErrUnexpectedEOF)
			}
			h.early = buf.Bytes()
			if pad == 1 {
				if err := skip(r, 1); err != nil {
					return nil, headerErr(name, "the data chunk before the fmt chunk", err)
				}
			}
		default: // LIST, fact, cue, bext, junk, a second fmt or data, ...
			if err := skip(r, size+pad); err != nil {
				return nil, headerErr(name, fmt.Sprintf("the %q chunk", id), err)
			}
		}
	}
}

// skip discards n bytes of r, returning io.ErrUnexpectedEOF if r ends
// first.
func skip(r io.Reader, n int64) error {
	if s, ok := r.(io.Seeker); ok && n > readBlock {
		// Seek past large chunks, then check the file really is that long
		// by reading nothing more than we would have.
		cur, err := s.Seek(0, io.SeekCurrent)
		if err == nil {
			end, err := s.Seek(0, io.SeekEnd)
			if err == nil {
				if end-cur < n {
					return io.ErrUnexpectedEOF
				}
				_, err = s.Seek(cur+n, io.SeekStart)
				return err
			}
		}
	}
	m, err := io.CopyN(io.Discard, r, n)
	if m < n && (err == nil || err == io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// encodingName names the common WAVE format tags this package rejects (and
// A-law and mu-law, for messages about their bit depth).
func encodingName(tag uint16) string {
	switch tag {
	case 0x0002:
		return "MS ADPCM"
	case 0x0006:
		return "A-law"
	case 0x0007:
		return "mu-law"
	case 0x0011:
		return "IMA ADPCM"
	case 0x0031:
		return "GSM 6.10"
	case 0x0050:
		return "MPEG"
	case 0x0055:
		return "MP3"
	case 0x0160, 0x0161, 0x0162, 0x0163:
		return "WMA"
	case 0x00FF, 0x1610:
		return "AAC"
	case 0xF1AC:
		return "FLAC"
	}
	return "compressed data"
}

// parseFmt decodes a fmt chunk body (at least 16 bytes) into h.
func (h *wavHeader) parseFmt(name string, b []byte) error {
	le16 := func(o int) int { return int(binary.LittleEndian.Uint16(b[o:])) }
	tag := uint16(le16(0))
	ch := le16(2)
	rate := int(binary.LittleEndian.Uint32(b[4:]))
	align := le16(12)
	bits := le16(14)
	h.info = Info{Container: "wav", BitsPerSample: bits, SampleRate: rate, Channels: ch, Frames: -1}
	if tag == 0xFFFE {
		h.info.Extensible = true
		if len(b) < 40 || le16(16) < 22 {
			return formatErr(name, nil, "WAVE_FORMAT_EXTENSIBLE fmt chunk too short (%d bytes, want 40)", len(b))
		}
		if !bytes.Equal(b[26:40], guidSuffix) {
			return unsupported(name, "WAVE_FORMAT_EXTENSIBLE sub-format GUID %x", b[24:40])
		}
		if valid := le16(18); valid > bits {
			return formatErr(name, nil, "%d valid bits per sample in a %d-bit container", valid, bits)
		}
		tag = binary.LittleEndian.Uint16(b[24:])
	}
	if tag != 1 && tag != 3 && tag != 6 && tag != 7 {
		return unsupported(name, "encoding %s (format tag 0x%04x)", encodingName(tag), tag)
	}
	switch {
	case ch == 0:
		return formatErr(name, nil, "zero channels")
	case rate == 0:
		return formatErr(name, nil, "zero sample rate")
	case bits == 0:
		return formatErr(name, nil, "zero bits per sample")
	}
	switch {
	case tag == 1 && bits == 8:
		h.enc = encU8
	case tag == 1 && bits == 16:
		h.enc = encS16
	case tag == 1 && bits == 24:
		h.enc = encS24
	case tag == 1 && bits == 32:
		h.enc = encS32
	case tag == 3 && bits == 32:
		h.enc = encF32
	case tag == 3 && bits == 64:
		h.enc = encF64
	case tag == 6 && bits == 8:
		h.enc = encALaw
	case tag == 7 && bits == 8:
		h.enc = encMuLaw
	case tag == 6 || tag == 7:
		return unsupported(name, "%d-bit %s (want 8)", bits, encodingName(tag))
	case tag == 1:
		return unsupported(name, "%d-bit PCM (want 8, 16, 24 or 32)", bits)
	default:
		return unsupported(name, "%d-bit float (want 32 or 64)", bits)
	}
	if ch > MaxChannels {
		return unsupported(name, "%d channels (at most %d)", ch, MaxChannels)
	}
	if rate < MinRate || rate > MaxRate {
		return unsupported(name, "sample rate %d Hz (want %d..%d)", rate, MinRate, MaxRate)
	}
	if want := ch * h.enc.size(); align != want {
		if align != 0 {
			return formatErr(name, nil, "block align %d, want %d for %d channels of %d bits", align, want, ch, bits)
		}
		h.warnings = append(h.warnings, fmt.Sprintf("%s: block align 0 in fmt chunk, using %d", fileName(name), want))
	}
	h.info.Encoding = h.enc.String()
	return nil
}

// sizeHint returns how many bytes r has left when that is cheap to learn,
// or -1.
func sizeHint(r io.Reader) int64 {
	switch v := r.(type) {
	case interface{ Len() int }: // bytes.Reader, strings.Reader, bytes.Buffer
		return int64(v.Len())
	case *os.File:
		st, err := v.Stat()
		if err != nil || !st.Mode().IsRegular() {
			return -1
		}
		cur, err := v.Seek(0, io.SeekCurrent)
		if err != nil {
			return -1
		}
		return max(0, st.Size()-cur)
	}
	return -1
}

// DecodeInfo reads only the header of a WAV, MP3 or FLAC file from r and
// describes the audio. For WAV, Frames is what the data chunk claims (-1
// when its size is 0 or 0xFFFFFFFF, as streaming writers leave it); for
// MP3, what a Xing/Info tag claims, less the encoder delay and padding
// of a LAME tag (-1 without one); for FLAC, what STREAMINFO claims (-1
// when 0). name labels errors. Errors are *FormatError, *UnsupportedError
// or a wrapped read error.
func DecodeInfo(r io.Reader, name string) (Info, error) {
	magic, whole, err := readMagic(r)
	if looksCompressed(magic) {
		c, err := openCompressed(whole, name, "")
		if err != nil {
			return Info{}, err
		}
		return c.info, nil
	}
	h, err := parseRIFF(r, name, skipEarlyData, magic, err)
	if err != nil {
		return Info{}, err
	}
	return h.info, nil
}

// Decode reads a whole audio file from r, at the file's own rate with its
// channels averaged to mono; the format is told by its first bytes, not
// by name. Read are WAV (PCM u8/s16/s24/s32, IEEE float 32/64, A-law,
// mu-law, plain or WAVE_FORMAT_EXTENSIBLE, 1..8 channels, 8000..192000
// Hz), MP3 (MPEG-1 and MPEG-2 Layer III, after any ID3v2 tag) and FLAC
// (8 to 24 bits, 1..8 channels); see the package doc. name labels errors
// and warnings (usually the file path).
//
// A WAV data chunk that claims more bytes than r holds is decoded as far
// as it goes, with a warning; a size of 0, 0xFFFFFFFF or 0x7FFFF000 (sox
// writing to a pipe) means "up to EOF". An MP3 or FLAC file cut short is
// decoded up to its last whole frame, with a warning.
// Errors are *FormatError, *UnsupportedError or a wrapped read error.
func Decode(r io.Reader, name string) (*Clip, error) {
	return decode(r, name, sizeHint(r), 0)
}

// ReadFile decodes the WAV, MP3 or FLAC file at path like Decode; path
// "-" reads standard input.
func ReadFile(path string) (*Clip, error) { return readPath(path, 0) }

// Load16k is ReadFile followed by Resample to TargetRate (16000 Hz). The
// clip's Info still describes the file (its own rate and frame count);
// Rate is 16000. Resampling runs while the file is read, so the full-rate
// signal is never held in memory; the samples equal those of
// Resample(ReadFile(path).Samples, rate, 16000) exactly.
func Load16k(path string) (*Clip, error) { return readPath(path, TargetRate) }

func readPath(path string, to int) (*Clip, error) {
	if path == "-" {
		return decode(os.Stdin, "stdin", sizeHint(os.Stdin), to)
	}
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // "x.wav: no such file or directory", not "open x.wav: ..."
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	return decode(f, path, sizeHint(f), to)
}

// decode reads a WAV, MP3 or FLAC file, converting to mono and, when to >
// 0, resampling to the rate to while reading. hint is the number of bytes
// r holds, or -1.
func decode(r io.Reader, name string, hint int64, to int) (*Clip, error) {
	magic, whole, err := readMagic(r)
	if looksCompressed(magic) {
		return decodeCompressed(whole, name, hint, to)
	}
	h, err := parseRIFF(r, name, keepEarlyData, magic, err)
	if err != nil {
		return nil, err
	}
	rate := h.info.SampleRate
	c := &Clip{Rate: rate, Info: h.info, Warnings: h.warnings}
	conv := newConverter(h.enc, h.info.Channels)
	var rs *Resampler
	if to > 0 && to != rate {
		rs = NewResampler(rate, to)
		c.Rate = to
	}

	left := h.dataLeft
	if h.early != nil {
		r, left, hint = bytes.NewReader(h.early), int64(len(h.early)), int64(len(h.early))
	}
	// Size the output from what the input can really hold.
	frames := int64(initialCap)
	if left >= 0 {
		frames = min(frames, left/int64(conv.frame)+1)
	}
	if hint >= 0 {
		frames = hint/int64(conv.frame) + 1
		if left >= 0 {
			frames = min(frames, left/int64(conv.frame)+1)
		}
	}
	if rs != nil {
		frames = rs.fb.outLen(frames)
	}
	c.Samples = make([]float32, 0, frames)

	buf := make([]byte, readBlock/conv.frame*conv.frame)
	var mono []float32
	var got int64 // bytes of sample data read
	for left != 0 {
		want := int64(len(buf))
		if left > 0 {
			want = min(want, left)
		}
		n, err := io.ReadFull(r, buf[:want])
		got += int64(n)
		if left > 0 {
			left -= int64(n)
		}
		whole := n / conv.frame * conv.frame
		if rs == nil {
			c.Samples = conv.appendFrames(c.Samples, buf[:whole])
		} else {
			mono = conv.appendFrames(mono[:0], buf[:whole])
			c.Samples = rs.Process(c.Samples, mono)
		}
		if whole < n {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: data ends with a partial frame; last %d bytes ignored", fileName(name), n-whole))
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			if left > 0 {
				c.Warnings = append(c.Warnings, fmt.Sprintf("%s: data chunk claims %d bytes but the file holds only %d (truncated recording?); decoded what is there", fileName(name), got+left, got))
			}
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: reading sample data: %w", fileName(name), err)
		}
	}
	if rs != nil {
		c.Samples = rs.Flush(c.Samples)
	}
	c.Info.Frames = got / int64(conv.frame)
	c.Warnings = append(c.Warnings, conv.warnings(name)...)
	return c, nil
}

// warnings reports float samples that had to be changed.
func (c *converter) warnings(name string) []string {
	var w []string
	if c.clipped > 0 {
		w = append(w, fmt.Sprintf("%s: %d float samples outside [-1, 1] were clipped", fileName(name), c.clipped))
	}
	if c.nonFinite > 0 {
		w = append(w, fmt.Sprintf("%s: %d NaN or infinite float samples were set to 0", fileName(name), c.nonFinite))
	}
	return w
}

// unknownSize reports whether a data chunk size is a placeholder that a
// streaming writer put there because it did not know the length: 0,
// 0xFFFFFFFF, or 0x7FFFF000 as sox writes to a pipe. Such data runs to EOF.
func unknownSize(size int64) bool {
	return size == 0 || size == 0xFFFFFFFF || size == 0x7FFFF000
}

// clipSink collects the mono samples of a decoder that yields them a block
// at a time (MP3, FLAC) into a Clip, resampling them on the way when a
// target rate is asked for, as decode does for WAV.
type clipSink struct {
	c  *Clip
	rs *Resampler // nil: keep the native rate
	n  int64      // native-rate samples added
}

// newClipSink starts a Clip for info, resampled to the rate to when to > 0
// and differs. capFrames is how many native-rate samples to allocate room
// for: never a header's claim alone, which may lie.
func newClipSink(info Info, warnings []string, to int, capFrames int64) *clipSink {
	s := &clipSink{c: &Clip{Rate: info.SampleRate, Info: info, Warnings: warnings}}
	if to > 0 && to != info.SampleRate {
		s.rs = NewResampler(info.SampleRate, to)
		s.c.Rate = to
		capFrames = s.rs.fb.outLen(capFrames)
	}
	s.c.Samples = make([]float32, 0, capFrames)
	return s
}

// add appends mono samples at the native rate.
func (s *clipSink) add(mono []float32) {
	s.n += int64(len(mono))
	if s.rs == nil {
		s.c.Samples = append(s.c.Samples, mono...)
	} else {
		s.c.Samples = s.rs.Process(s.c.Samples, mono)
	}
}

// clip flushes the resampler and returns the Clip, its Info.Frames the
// number of native-rate samples added.
func (s *clipSink) clip() *Clip {
	if s.rs != nil {
		s.c.Samples = s.rs.Flush(s.c.Samples)
	}
	s.c.Info.Frames = s.n
	return s.c
}

// claimCap bounds the samples to allocate for a header that claims claim
// samples (-1: no claim) in an input of hint bytes (-1: unknown), when
// no more than perByte samples can come from one byte of the input.
func claimCap(claim, hint, perByte int64) int64 {
	n := int64(initialCap)
	if claim >= 0 {
		n = min(n, claim)
		if hint >= 0 {
			n = min(claim, hint*perByte+initialCap)
		}
	}
	return n
}
