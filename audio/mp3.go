package audio

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/hajimehoshi/go-mp3"
)

// MP3 decoding: this file finds the frames (after any ID3v2 tag, past junk
// and tags between them) and reads the Xing/Info and LAME tags itself;
// github.com/hajimehoshi/go-mp3 decodes the frames it is handed.

// MP3 limits.
const (
	maxMP3Junk = 1 << 16 // bytes searched for the first frame after an ID3v2 tag
	// mp3DecoderDelay is the delay of the Layer III synthesis filter bank,
	// in samples: go-mp3's output, like every standard decoder's, starts
	// this late. ffmpeg (and LAME's gapless players) drop it together with
	// the encoder delay that a LAME tag records.
	mp3DecoderDelay = 529
	// mp3SamplesPerByte bounds the samples per channel one byte of MP3 can
	// carry: the smallest Layer III frame, 24 bytes (8 kbit/s at 24 kHz),
	// holds 576.
	mp3SamplesPerByte = 24
)

// mp3Header is the 4-byte header of an MPEG audio frame: 11 sync bits,
// version (2), layer (2), no-CRC bit, bitrate index (4), rate index (2),
// padding, private, mode (2), mode extension (2), copyright, original,
// emphasis (2).
type mp3Header uint32

func (h mp3Header) version() int      { return int(h>>19) & 3 }   // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5, 1: reserved
func (h mp3Header) layer() int        { return 4 - int(h>>17)&3 } // 1, 2 or 3; 4: reserved
func (h mp3Header) bitrateIndex() int { return int(h>>12) & 15 }
func (h mp3Header) rateIndex() int    { return int(h>>10) & 3 }

// channels is 1 for single-channel mode, 2 for stereo, joint and dual.
func (h mp3Header) channels() int {
	if h>>6&3 == 3 {
		return 1
	}
	return 2
}

// valid reports whether h is an MPEG audio frame header: sync, and no
// reserved or forbidden field.
func (h mp3Header) valid() bool {
	return h>>21 == 0x7FF && h.version() != 1 && h.layer() != 4 &&
		h.bitrateIndex() != 15 && h.rateIndex() != 3 && h&3 != 2
}

// nextFrameFollows reports whether the frame whose header h starts br is
// followed by another frame of its stream: a frame sync found in the middle
// of a stream is otherwise as likely a chance pattern in the audio data.
func nextFrameFollows(br *bufio.Reader, h mp3Header) bool {
	b, _ := br.Peek(h.size() + 4)
	return len(b) == h.size()+4 && mp3Header(binary.BigEndian.Uint32(b[h.size():])).sameStream(h)
}

// sameStream reports whether h is a Layer III frame of the stream whose
// first frame is first: same version and rate, and a bitrate.
func (h mp3Header) sameStream(first mp3Header) bool {
	return h.valid() && h&0xFFFE0C00 == first&0xFFFE0C00 && h.bitrateIndex() != 0
}

func (h mp3Header) rate() int {
	r := [3]int{44100, 48000, 32000}[h.rateIndex()]
	switch h.version() {
	case 2:
		return r / 2
	case 0:
		return r / 4
	}
	return r
}

// samples is the number of samples per channel in a Layer III frame.
func (h mp3Header) samples() int {
	if h.version() == 3 {
		return 1152
	}
	return 576
}

// size is the length of a Layer III frame in bytes, header included.
func (h mp3Header) size() int {
	kbps := [15]int{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320}
	if h.version() != 3 {
		kbps = [15]int{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160}
	}
	return h.samples()/8*kbps[h.bitrateIndex()]*1000/h.rate() + int(h>>9&1)
}

// check returns the error for a first frame header h that this package
// does not decode, or nil.
func (h mp3Header) check(name string) error {
	switch {
	case h>>20 == 0xFFF && h.layer() == 4:
		return unsupported(name, "AAC audio (ADTS)")
	case !h.valid():
		return formatErr(name, ErrNotWAV, "not a WAV file (no RIFF header, nor a valid MP3 frame header)")
	case h.layer() != 3:
		return unsupported(name, "MPEG-%s Layer %s audio (only Layer III, MP3, is read)",
			[4]string{"2.5", "", "2", "1"}[h.version()], [3]string{"", "I", "II"}[h.layer()])
	case h.version() == 0:
		return unsupported(name, "MPEG-2.5 MP3 (%d Hz): go-mp3 reads MPEG-1 and MPEG-2 Layer III", h.rate())
	case h.bitrateIndex() == 0:
		return unsupported(name, "free-format MP3 (no bitrate in the frame header)")
	}
	return nil
}

// skipID3 discards the ID3v2 tags at the start of r: "ID3", version (2
// bytes), flags, a 28-bit syncsafe size, that many bytes, and 10 more when
// flag 0x10 says a footer follows. It reports whether there was one.
func skipID3(r *bufio.Reader, name string) (bool, error) {
	tagged := false
	for {
		b, err := r.Peek(10)
		if len(b) < 3 || string(b[:3]) != "ID3" {
			return tagged, nil
		}
		if len(b) < 10 {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return tagged, headerErr(name, "the ID3 tag", err)
		}
		size := int64(b[6]&0x7F)<<21 | int64(b[7]&0x7F)<<14 | int64(b[8]&0x7F)<<7 | int64(b[9]&0x7F)
		if b[5]&0x10 != 0 {
			size += 10
		}
		if err := skip(r, 10+size); err != nil {
			return tagged, headerErr(name, "the ID3 tag", err)
		}
		tagged = true
	}
}

// mp3Start is what readMP3Start learns from the first frame.
type mp3Start struct {
	info   Info
	first  mp3Header
	frames int64 // audio frames a Xing/Info tag claims; 0: no claim
	// skip and keep trim the decoded samples as a LAME tag says: skip the
	// encoder delay and decoder delay, then keep at most keep (-1: all).
	skip, keep int64
	junk       int64 // bytes before the first frame that were not one
}

// readMP3Start finds the first frame of br, and if that frame is a
// Xing/Info tag reads and consumes it. The frame is right at the start of
// br, or within maxMP3Junk bytes after an ID3v2 tag when tagged, or, with
// resync (a stream joined in the middle, as from an internet radio), the
// first of two frames of one stream that follow each other within
// maxMP3Junk bytes.
func readMP3Start(br *bufio.Reader, name string, tagged, resync bool) (*mp3Start, error) {
	st := &mp3Start{keep: -1}
	var h mp3Header
	for {
		b, err := br.Peek(4)
		if len(b) < 4 {
			if err != nil && err != io.EOF {
				return nil, headerErr(name, "the first MP3 frame", err)
			}
			if tagged {
				return nil, formatErr(name, ErrNotWAV, "not a WAV file (an ID3 tag with no MP3 audio after it)")
			}
			if resync && st.junk > 0 {
				return nil, formatErr(name, nil, "not an MP3 stream (no MPEG frame in its %d bytes)", st.junk+int64(len(b)))
			}
			return nil, mp3Header(0).check(name) // too short for a frame header
		}
		h = mp3Header(binary.BigEndian.Uint32(b))
		if !tagged && !resync || h.valid() && (!resync || st.junk == 0 || nextFrameFollows(br, h)) {
			break
		}
		if st.junk++; st.junk > maxMP3Junk {
			if tagged {
				return nil, formatErr(name, ErrNotWAV, "not a WAV file (an ID3 tag, then %d bytes with no MP3 frame)", maxMP3Junk)
			}
			return nil, formatErr(name, nil, "not an MP3 stream (no two MPEG frames in a row in its first %d bytes)", maxMP3Junk)
		}
		br.Discard(1)
	}
	if err := h.check(name); err != nil {
		return nil, err
	}
	st.first = h
	st.info = Info{Container: "mp3", Encoding: "mp3", SampleRate: h.rate(), Channels: h.channels(), Frames: -1}
	b, err := br.Peek(h.size())
	if len(b) < h.size() {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, headerErr(name, "the first MP3 frame", err)
	}

	// A Xing ("Xing": VBR, "Info": CBR) tag sits where the first frame's
	// main data would start, after the side information; LAME (and ffmpeg,
	// "Lavf"/"Lavc") extend it with the encoder delay and padding. The
	// offsets and the rules for using them are ffmpeg's
	// (libavformat/mp3dec.c, mp3_parse_info_tag), so that the samples kept
	// are those ffmpeg gives.
	off := 4 + [2][2]int{{32, 17}, {17, 9}}[min(1, 3-h.version())][h.channels()%2]
	be32 := func(o int) int64 {
		if o+4 > len(b) {
			return 0
		}
		return int64(binary.BigEndian.Uint32(b[o:]))
	}
	if off+4 > len(b) || string(b[off:off+4]) != "Xing" && string(b[off:off+4]) != "Info" {
		return st, nil
	}
	flags := be32(off + 4)
	o := off + 8
	var frames, bytes int64
	if flags&1 != 0 {
		frames, o = be32(o), o+4
	}
	if flags&2 != 0 {
		bytes, o = be32(o), o+4
	}
	if flags&4 != 0 {
		o += 100 // table of contents
	}
	if flags&8 != 0 {
		o += 4 // quality
	}
	spf := int64(h.samples())
	if o+24 <= len(b) {
		switch string(b[o : o+4]) {
		case "LAME", "Lavf", "Lavc":
			// Encoder (9 bytes), revision, lowpass, peak (4), two gains (2
			// each), flags, bitrate, then 12 bits of delay, 12 of padding.
			v := int64(b[o+21])<<16 | int64(b[o+22])<<8 | int64(b[o+23])
			delay, pad := v>>12, v&0xFFF
			st.skip = delay + mp3DecoderDelay
			if frames > 0 {
				st.keep = max(0, frames*spf-delay-pad)
			}
		}
	}
	if frames == 0 && bytes == 0 {
		return st, nil // ffmpeg then decodes the frame as audio
	}
	br.Discard(h.size())
	st.frames = frames
	if frames > 0 {
		st.info.Frames = frames * spf
		if st.keep >= 0 {
			st.info.Frames = st.keep
		}
	}
	return st, nil
}

// mp3Frames hands go-mp3 the whole Layer III frames of one stream: those
// of the first frame's version and rate. Anything else between them (a
// damaged stretch, a frame of another stream) is skipped as junk, and
// ID3v1 ("TAG", 128 bytes) and ID3v2 tags silently. A read error ends
// the input like EOF (compressed.read reports it).
type mp3Frames struct {
	r      *bufio.Reader
	name   string
	first  mp3Header
	frame  []byte // the frame being handed on; frame[off:] is left
	off    int
	frames int64 // frames handed on
	junk   int64 // bytes skipped that were neither frames nor tags
	cut    bool  // the input ended inside a frame
}

// Read implements io.Reader for go-mp3.
func (m *mp3Frames) Read(p []byte) (int, error) {
	for m.off == len(m.frame) {
		if !m.next() {
			return 0, io.EOF
		}
	}
	n := copy(p, m.frame[m.off:])
	m.off += n
	return n, nil
}

// next loads the next frame; false at the end of the input.
func (m *mp3Frames) next() bool {
	for {
		b, _ := m.r.Peek(4)
		if len(b) < 4 {
			m.junk += int64(len(b))
			return false
		}
		switch h := mp3Header(binary.BigEndian.Uint32(b)); {
		case h.sameStream(m.first):
			size := h.size()
			fr, _ := m.r.Peek(size)
			if len(fr) < size {
				m.cut = true
				return false
			}
			m.frame, m.off = append(m.frame[:0], fr...), 0
			m.r.Discard(size)
			m.frames++
			return true
		case string(b[:3]) == "TAG":
			m.r.Discard(128)
		case string(b[:3]) == "ID3":
			if _, err := skipID3(m.r, m.name); err != nil {
				m.cut = true // a tag cut short ends the input
				return false
			}
		default:
			m.r.Discard(1)
			m.junk++
		}
	}
}

// mp3Decoder is the frameDecoder of MP3: go-mp3 decodes the frames
// that mp3Frames hands it, and the samples are trimmed as a LAME tag says.
type mp3Decoder struct {
	name   string
	st     *mp3Start
	frames *mp3Frames
	dec    *mp3.Decoder // made by the first decode: it reads a frame
	conv   converter    // go-mp3 always gives 16-bit stereo
	pcm    []byte       // go-mp3's output: one frame at most
	skip   int64        // samples still to drop at the start
	keep   int64        // samples still to keep; -1: all
}

// newMP3Decoder decodes the frames of br after its first, as
// readMP3Start found it.
func newMP3Decoder(br *bufio.Reader, name string, st *mp3Start) *mp3Decoder {
	return &mp3Decoder{name: name, st: st, frames: &mp3Frames{r: br, name: name, first: st.first},
		conv: newConverter(encS16, 2), pcm: make([]byte, 4*1152), skip: st.skip, keep: st.keep}
}

func (d *mp3Decoder) decode(dst []float32, n int64) ([]float32, error) {
	if d.dec == nil {
		dec, err := mp3.NewDecoder(d.frames)
		if err == io.EOF { // no audio frame
			return dst, io.EOF
		}
		if err != nil {
			return dst, formatErr(d.name, err, "corrupt MP3 data after %d samples: %v", n, err)
		}
		d.dec = dec
	}
	// A Read decodes one frame when the last one's output is used up.
	k, err := d.dec.Read(d.pcm)
	if err != nil && err != io.EOF {
		return dst, formatErr(d.name, err, "corrupt MP3 data after %d samples: %v", n, err)
	}
	start := len(dst)
	dst = d.conv.appendFrames(dst, d.pcm[:k/4*4])
	if cut := min(d.skip, int64(len(dst)-start)); cut > 0 {
		dst, d.skip = append(dst[:start], dst[start+int(cut):]...), d.skip-cut
	}
	if d.keep >= 0 {
		kept := min(d.keep, int64(len(dst)-start))
		dst, d.keep = dst[:start+int(kept)], d.keep-kept
	}
	return dst, err
}

func (d *mp3Decoder) finish(int64) []string {
	var w []string
	if f := d.frames; d.st.frames > f.frames || f.cut {
		msg := "the file ends inside an MP3 frame"
		if d.st.frames > f.frames {
			msg = fmt.Sprintf("the Xing tag claims %d MP3 frames but the file holds only %d", d.st.frames, f.frames)
		}
		w = append(w, fmt.Sprintf("%s: %s (truncated recording?); decoded what is there", fileName(d.name), msg))
	}
	if d.frames.junk > 0 {
		w = append(w, fmt.Sprintf("%s: skipped %d bytes between MP3 frames that are not frames of the stream (damaged file?)", fileName(d.name), d.frames.junk))
	}
	return w
}

func (d *mp3Decoder) capFrames(hint int64) int64 {
	claim := d.st.info.Frames
	if claim < 0 && hint >= 0 { // no tag: a constant bitrate's count
		claim = hint / int64(d.st.first.size()) * int64(d.st.first.samples())
	}
	return claimCap(claim, hint, mp3SamplesPerByte)
}
