package audio

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Compressed input: what the MP3 (mp3.go) and FLAC (flac.go) decoders
// share. Decode, DecodeInfo and Stream all read them through a
// compressed, which reads the header when it is opened and then hands out
// the mono samples of one frame at a time: Decode collects them, Stream
// resamples them as they arrive.

// frameDecoder is the part of a compressed that knows the format.
type frameDecoder interface {
	// decode appends to dst the mono samples, at the stream's own rate,
	// of the next frame (none when all of them are trimmed), n samples
	// having come before. It returns io.EOF after the last frame, a
	// *FormatError or *UnsupportedError for data it cannot decode.
	decode(dst []float32, n int64) ([]float32, error)
	// finish returns the warnings about the end of a stream that gave n
	// samples (a cut recording, skipped bytes).
	finish(n int64) []string
	// capFrames returns how many samples to allocate room for when the
	// whole input is hint bytes long (-1: unknown).
	capFrames(hint int64) int64
}

// compressed reads an MP3 or FLAC stream frame by frame; open one with
// openCompressed.
type compressed struct {
	name string
	info Info // as the header describes the stream: DecodeInfo's answer
	trap *readTrap
	dec  frameDecoder
	n    int64    // samples returned so far
	warn []string // non-fatal problems met so far
}

// openCompressed reads the header of the MP3 or FLAC stream r (after any
// ID3v2 tags), and no further. format is "mp3" or "flac" to accept only
// that format, "" for either. Errors are as for Decode.
func openCompressed(r io.Reader, name, format string) (*compressed, error) {
	trap := &readTrap{r: r}
	br := bufio.NewReader(trap)
	tagged, err := skipID3(br, name)
	if err != nil {
		return nil, err
	}
	c := &compressed{name: name, trap: trap}
	b, _ := br.Peek(4)
	switch {
	case format == "flac" && !looksFLAC(b):
		err = formatErr(name, nil, "not a FLAC stream (no fLaC signature)")
	case format == "mp3" && looksFLAC(b):
		err = formatErr(name, nil, "not an MP3 stream (it is FLAC)")
	case looksFLAC(b):
		if c.info, err = readFLACHeader(br, name); err == nil {
			c.dec = newFLACDecoder(br, name, c.info)
		}
	default:
		var st *mp3Start
		if st, err = readMP3Start(br, name, tagged, format == "mp3" && !tagged); err == nil {
			c.info, c.dec = st.info, newMP3Decoder(br, name, st)
			if st.junk > 0 {
				c.warn = append(c.warn, fmt.Sprintf("%s: skipped %d bytes before the first MP3 frame", fileName(name), st.junk))
			}
		}
	}
	switch {
	case err != nil && trap.err != nil && !errors.Is(err, trap.err):
		return nil, trap.readErr(name) // not a damaged header, nor a truncated one
	case err != nil:
		return nil, err
	}
	return c, nil
}

// read appends the mono samples of the next frame to dst (none at times:
// MP3 drops its encoder delay). At the end of the stream it returns
// io.EOF, having added the warnings about the end to c.warn. A read error
// of the underlying reader is returned wrapped, as for WAV; damage that
// the decoding library meets, a panic in it included, is a *FormatError.
// read must not be called again after an error.
func (c *compressed) read(dst []float32) ([]float32, error) {
	out, err := c.decode(dst)
	c.n += int64(len(out) - len(dst))
	switch {
	case err == nil:
	case c.trap.err != nil: // the decoder took a failing disk or pipe for the end or for damage
		err = c.trap.readErr(c.name)
	case err == io.EOF:
		c.warn = append(c.warn, c.dec.finish(c.n)...)
	}
	return out, err
}

// decode is c.dec.decode, with a panic in the decoding library turned
// into an error: go-mp3 and mewkiz/flac do not check everything a damaged
// frame can get wrong, and such a panic is corrupt input, not a bug of
// ours.
func (c *compressed) decode(dst []float32) (out []float32, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = dst, formatErr(c.name, nil, "corrupt %s data after %d samples: %v", strings.ToUpper(c.info.Container), c.n, p)
		}
	}()
	return c.dec.decode(dst, c.n)
}

// decodeCompressed decodes an input that looksCompressed: after any ID3v2
// tags, FLAC or MP3. hint is the number of bytes r holds, or -1; to as
// for decode.
func decodeCompressed(r io.Reader, name string, hint int64, to int) (*Clip, error) {
	c, err := openCompressed(r, name, "")
	if err != nil {
		return nil, err
	}
	sink := newClipSink(c.info, nil, to, c.dec.capFrames(hint))
	var mono []float32
	for err == nil {
		mono, err = c.read(mono[:0])
		sink.add(mono)
	}
	if err != io.EOF {
		return nil, err
	}
	clip := sink.clip()
	clip.Warnings = c.warn
	return clip, nil
}

// readTrap passes reads through and keeps the first error other than
// io.EOF, so that a failing disk or pipe is not taken for a decoder
// library's complaint about the data.
type readTrap struct {
	r   io.Reader
	err error
}

func (t *readTrap) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if err != nil && err != io.EOF && t.err == nil {
		t.err = err
	}
	return n, err
}

// readErr returns the read error met, if any, as decode words it.
func (t *readTrap) readErr(name string) error {
	if t.err == nil {
		return nil
	}
	return fmt.Errorf("%s: reading sample data: %w", fileName(name), t.err)
}
