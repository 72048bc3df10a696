package audio

import (
	"bytes"
	"fmt"
	"io"
)

// StreamOptions selects the input format of a Stream.
type StreamOptions struct {
	// Format is "wav" (the default when empty), "mp3", "flac", "s16le"
	// (headerless signed 16-bit little-endian PCM) or "f32le" (headerless
	// 32-bit little-endian IEEE float). "wav" also reads MP3 and FLAC,
	// told by their first bytes as Decode tells them (an ID3v2 tag or an
	// MPEG frame sync, "fLaC"); "mp3" and "flac" accept only that format.
	// Raw samples are interleaved when Channels > 1.
	Format string
	// Rate is the sample rate in Hz of a raw stream (required, 8000..192000).
	// Channels is its channel count (1..8; 0 means 1). Both are ignored for
	// WAV, MP3 and FLAC, whose headers say.
	Rate, Channels int
}

// maxZeroReads is how many consecutive (0, nil) reads a Stream tolerates
// before giving up with io.ErrNoProgress.
const maxZeroReads = 100

// Stream decodes audio from a reader as it arrives and returns it as mono
// samples at TargetRate (16000 Hz). It never waits for the end of the
// input: each Read returns what the bytes read so far make computable
// (output lags input by about a millisecond of filter look-ahead, and by
// up to a frame for MP3 and FLAC, which are decoded a frame at a time). A
// partial frame left by a short read is kept for the next call. Memory
// stays bounded whatever the length of the input.
//
// The samples equal Resample(Decode(same bytes).Samples, rate, 16000)
// exactly, whatever the read sizes. A Stream is not safe for concurrent
// use.
type Stream struct {
	r     io.Reader
	name  string
	info  Info
	dec   *compressed // MP3 or FLAC; nil for WAV and raw input
	conv  converter
	left  int64  // bytes of sample data still expected; -1: until EOF
	raw   []byte // read buffer; raw[:carry] is a partial frame
	carry int
	got   int64 // bytes of sample data read
	mono  []float32
	rs    *Resampler
	out   []float32 // output samples not yet returned: out[pos:]
	pos   int
	err   error // sticky: io.EOF after the final flush, or a read error
	zero  int   // consecutive empty reads
	warn  []string
}

// NewStream starts decoding r. It reads the header now (WAV's from a
// non-seekable reader without reading ahead into the samples; for MP3, up
// to the first frame, and the whole frame when it is a Xing/Info tag; for
// FLAC, the metadata blocks); errors are then as for Decode. name labels
// errors and warnings.
func NewStream(r io.Reader, name string, opt StreamOptions) (*Stream, error) {
	s := &Stream{r: r, name: name, left: -1}
	var enc encoding
	var err error
	switch opt.Format {
	case "mp3", "flac":
		s.dec, err = openCompressed(r, name, opt.Format)
	case "", "wav":
		magic, whole, rerr := readMagic(r)
		if looksCompressed(magic) {
			s.dec, err = openCompressed(whole, name, "")
		} else if h, herr := parseRIFF(r, name, keepEarlyData, magic, rerr); herr != nil {
			err = herr
		} else {
			s.info, enc, s.left, s.warn = h.info, h.enc, h.dataLeft, h.warnings
			if h.early != nil {
				s.r, s.left = bytes.NewReader(h.early), int64(len(h.early))
			}
		}
	case "s16le", "f32le":
		enc = encS16
		if opt.Format == "f32le" {
			enc = encF32
		}
		ch := opt.Channels
		if ch == 0 {
			ch = 1
		}
		switch {
		case opt.Rate == 0:
			return nil, fmt.Errorf("%s: raw %s stream needs a sample rate", fileName(name), opt.Format)
		case ch < 0:
			return nil, fmt.Errorf("%s: raw %s stream with %d channels", fileName(name), opt.Format, ch)
		case ch > MaxChannels:
			return nil, unsupported(name, "%d channels (at most %d)", ch, MaxChannels)
		case opt.Rate < MinRate || opt.Rate > MaxRate:
			return nil, unsupported(name, "sample rate %d Hz (want %d..%d)", opt.Rate, MinRate, MaxRate)
		}
		s.info = Info{Container: "raw", Encoding: enc.String(), BitsPerSample: 8 * enc.size(),
			SampleRate: opt.Rate, Channels: ch, Frames: -1}
	default:
		return nil, unsupported(name, "stream format %q (want wav, mp3, flac, s16le or f32le)", opt.Format)
	}
	if err != nil {
		return nil, err
	}
	if s.dec != nil {
		s.info = s.dec.info
	} else {
		s.conv = newConverter(enc, s.info.Channels)
		s.raw = make([]byte, readBlock/2)
	}
	s.rs = NewResampler(s.info.SampleRate, TargetRate)
	return s, nil
}

// Info describes the input as stored (its own rate and channels). Frames
// is what the header claims, -1 when unknown: for WAV, the data chunk's
// size; for MP3, a Xing/Info tag's frame count less the encoder delay and
// padding of a LAME tag; for FLAC, STREAMINFO's count. For raw input it is
// -1.
func (s *Stream) Info() Info { return s.info }

// Warnings returns the non-fatal problems met so far (truncated data,
// clipped float samples, bytes skipped in MP3), each prefixed with the
// stream's name.
func (s *Stream) Warnings() []string {
	if s.dec != nil {
		return s.dec.warn
	}
	return s.warn
}

// Read fills dst with up to len(dst) mono 16 kHz samples and returns how
// many it wrote. It reads from the underlying reader only when no decoded
// samples are pending, and returns as soon as one read (for MP3 and FLAC,
// one frame) yields output. At the end of the input it returns 0, io.EOF.
// An error (a read error from the underlying reader, wrapped; MP3 or FLAC
// data that cannot be decoded, as a *FormatError or *UnsupportedError) is
// returned after all the samples before it.
func (s *Stream) Read(dst []float32) (int, error) {
	if len(dst) == 0 {
		return 0, nil
	}
	for s.pos == len(s.out) {
		if s.err != nil {
			return 0, s.err
		}
		s.fill()
	}
	n := copy(dst, s.out[s.pos:])
	s.pos += n
	return n, nil
}

// fill decodes one read from the input (one frame of MP3 or FLAC) into
// s.out. At the end of the input or at an error it flushes the resampler,
// so that the samples before an error come out too.
func (s *Stream) fill() {
	s.out, s.pos = s.out[:0], 0
	var err error
	if s.dec != nil {
		s.mono, err = s.dec.read(s.mono[:0])
	} else {
		err = s.readPCM()
	}
	s.out = s.rs.Process(s.out, s.mono)
	if err != nil {
		s.out = s.rs.Flush(s.out)
		s.err = err
	}
}

// readPCM makes one read of WAV or raw sample data and converts the whole
// frames it completes into s.mono. At the end of the data it returns
// io.EOF, having added the warnings about it to s.warn.
func (s *Stream) readPCM() error {
	want := len(s.raw) - s.carry
	if s.left >= 0 {
		want = int(min(int64(want), s.left))
	}
	n, err := 0, io.EOF
	if want > 0 {
		n, err = s.r.Read(s.raw[s.carry : s.carry+want])
		if n < 0 || n > want {
			n, err = 0, fmt.Errorf("invalid Read count %d", n)
		}
	}
	s.got += int64(n)
	if s.left > 0 {
		s.left -= int64(n)
	}
	tot := s.carry + n
	whole := tot / s.conv.frame * s.conv.frame
	s.mono = s.conv.appendFrames(s.mono[:0], s.raw[:whole])
	s.carry = copy(s.raw, s.raw[whole:tot])
	if s.left == 0 && err == nil {
		err = io.EOF
	}
	switch {
	case err == io.EOF:
		name := fileName(s.name)
		if s.left > 0 {
			s.warn = append(s.warn, fmt.Sprintf("%s: data chunk claims %d bytes but the stream holds only %d (truncated recording?); decoded what is there", name, s.got+s.left, s.got))
		}
		if s.carry > 0 {
			s.warn = append(s.warn, fmt.Sprintf("%s: data ends with a partial frame; last %d bytes ignored", name, s.carry))
		}
		s.warn = append(s.warn, s.conv.warnings(s.name)...)
		return io.EOF
	case err != nil:
		return fmt.Errorf("%s: reading sample data: %w", fileName(s.name), err)
	case n == 0:
		if s.zero++; s.zero >= maxZeroReads {
			return io.ErrNoProgress
		}
	default:
		s.zero = 0
	}
	return nil
}
