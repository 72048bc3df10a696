package audio

import (
	"errors"
	"fmt"
)

// ErrNotWAV is wrapped by the FormatError returned for input that is not a
// RIFF/WAVE file at all (empty, another container, random bytes), nor an
// MP3 or FLAC file that Decode reads (an ID3 tag with no audio after it, a
// broken MPEG frame header).
var ErrNotWAV = errors.New("not a WAV file")

// FormatError reports input that is not a valid WAV, MP3 or FLAC (or, from
// DecodeSphere, SPHERE) file: no RIFF header, a truncated header, zero
// channels or sample rate, inconsistent fields, MP3 or FLAC data that the
// decoder fails on. Err, when set, is the underlying cause:
// io.ErrUnexpectedEOF when the input ends inside the header (or, in a
// SPHERE file, before the last sample), ErrNotWAV, ErrNotSphere, or the
// MP3 or FLAC library's error.
type FormatError struct {
	File    string // name given to Decode, ReadFile or NewStream
	Problem string // what is wrong, e.g. "not a WAV file (no RIFF header)"
	Err     error  // cause for errors.Is, may be nil
}

func (e *FormatError) Error() string { return fileName(e.File) + ": " + e.Problem }

// Unwrap returns the cause, so that errors.Is(err, io.ErrUnexpectedEOF),
// errors.Is(err, ErrNotWAV) and errors.Is(err, ErrNotSphere) work.
func (e *FormatError) Unwrap() error { return e.Err }

// UnsupportedError reports a well-formed file that uses a feature this
// package does not decode: compressed encodings in a WAV (MP3, ADPCM,
// ...), MPEG audio other than MPEG-1/2 Layer III, odd bit depths, more
// than 8 channels, or a sample rate outside 8000..192000 Hz.
// errors.Is(err, errors.ErrUnsupported) is true.
type UnsupportedError struct {
	File string // name given to Decode, ReadFile or NewStream
	What string // the unsupported feature, e.g. "encoding MP3 (format tag 0x0055)"
}

func (e *UnsupportedError) Error() string {
	return fileName(e.File) + ": unsupported " + e.What
}

// Is reports whether target is errors.ErrUnsupported.
func (e *UnsupportedError) Is(target error) bool { return target == errors.ErrUnsupported }

func fileName(name string) string {
	if name == "" {
		return "audio"
	}
	return name
}

func formatErr(name string, err error, format string, args ...any) error {
	return &FormatError{File: name, Problem: fmt.Sprintf(format, args...), Err: err}
}

func unsupported(name, format string, args ...any) error {
	return &UnsupportedError{File: name, What: fmt.Sprintf(format, args...)}
}
