package audio

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/mewkiz/flac/frame"
	"github.com/mewkiz/flac/meta"
)

// FLAC decoding: this file reads the metadata blocks (keeping STREAMINFO,
// skipping the rest without parsing them) and walks the frames;
// github.com/mewkiz/flac/frame decodes each frame, checking its CRCs.

// flacSamplesPerByte is how many samples per channel a byte of FLAC is
// assumed to hold at most when sizing the output from STREAMINFO's claim.
// Real recordings hold about 1; silence can hold far more, and then the
// output grows as it is decoded.
const flacSamplesPerByte = 4

// readFLACHeader reads the "fLaC" signature and the metadata blocks of br,
// up to the first frame, and describes the stream.
func readFLACHeader(br *bufio.Reader, name string) (info Info, err error) {
	defer func() {
		if p := recover(); p != nil {
			info, err = Info{}, formatErr(name, nil, "corrupt FLAC header: %v", p)
		}
	}()
	if _, err := br.Discard(4); err != nil { // "fLaC", seen by the caller
		return Info{}, headerErr(name, "the FLAC signature", io.ErrUnexpectedEOF)
	}
	block, err := meta.New(br)
	if err != nil {
		return Info{}, flacHeaderErr(name, err)
	}
	if block.Type != meta.TypeStreamInfo || block.Length != 34 {
		return Info{}, formatErr(name, nil, "first FLAC metadata block is of type %d and %d bytes, want STREAMINFO (0) of 34", block.Type, block.Length)
	}
	if err := block.Parse(); err != nil {
		return Info{}, flacHeaderErr(name, err)
	}
	si := block.Body.(*meta.StreamInfo)
	for !block.IsLast {
		// Other blocks (seek table, tags, pictures, ...) are skipped
		// unparsed: their sizes are claims, never allocated.
		if block, err = meta.New(br); err != nil {
			return Info{}, flacHeaderErr(name, err)
		}
		if err := skip(br, block.Length); err != nil {
			return Info{}, flacHeaderErr(name, err)
		}
	}
	info = Info{Container: "flac", Encoding: fmt.Sprintf("flac_s%d", si.BitsPerSample), BitsPerSample: int(si.BitsPerSample),
		SampleRate: int(si.SampleRate), Channels: int(si.NChannels), Frames: int64(si.NSamples)}
	if info.Frames == 0 {
		info.Frames = -1 // unknown
	}
	switch info.BitsPerSample { // 1..8 channels are all FLAC can say
	case 8, 12, 16, 20, 24:
	default:
		return Info{}, unsupported(name, "%d-bit FLAC (mewkiz/flac decodes 8, 12, 16, 20 and 24 bits)", info.BitsPerSample)
	}
	if info.SampleRate < MinRate || info.SampleRate > MaxRate {
		return Info{}, unsupported(name, "sample rate %d Hz (want %d..%d)", info.SampleRate, MinRate, MaxRate)
	}
	return info, nil
}

// flacHeaderErr is the error for err from the metadata blocks.
func flacHeaderErr(name string, err error) error {
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return headerErr(name, "the FLAC metadata", io.ErrUnexpectedEOF)
	}
	return formatErr(name, err, "corrupt FLAC header: %v", err)
}

// flacDecoder is the frameDecoder of FLAC: mewkiz/flac parses each
// frame, checking its CRCs, and the channels are mixed here.
type flacDecoder struct {
	br    *bufio.Reader
	name  string
	info  Info    // from STREAMINFO
	scale float64 // from the sum of the channels to [-1, 1)
	cut   bool    // the input ended inside a frame
	tail  error   // what the bytes after all of STREAMINFO's samples gave
}

// newFLACDecoder decodes the frames of br, which readFLACHeader read up
// to them.
func newFLACDecoder(br *bufio.Reader, name string, info Info) *flacDecoder {
	// The channels summed, then scaled as the WAV converter does, so that
	// a FLAC file decodes to exactly the samples of its WAV.
	scale := 1 / (float64(int64(1)<<(info.BitsPerSample-1)) * float64(info.Channels))
	return &flacDecoder{br: br, name: name, info: info, scale: scale}
}

func (d *flacDecoder) decode(dst []float32, n int64) ([]float32, error) {
	if b, _ := d.br.Peek(3); string(b) == "TAG" {
		return dst, io.EOF // an ID3v1 tag that some taggers append
	}
	f, err := frame.Parse(d.br)
	switch {
	case err == io.EOF:
		return dst, io.EOF
	case errors.Is(err, io.ErrUnexpectedEOF):
		d.cut = true
		return dst, io.EOF
	case err != nil && d.info.Frames > 0 && n >= d.info.Frames:
		// Every sample STREAMINFO promised is there: what follows
		// (padding, a tag of another kind) is no frame.
		d.tail = err
		return dst, io.EOF
	case err != nil:
		return dst, formatErr(d.name, err, "corrupt FLAC data after %d samples: %v", n, err)
	case f.BitsPerSample == 0:
		return dst, unsupported(d.name, "%d-bit FLAC frames (no sample size in the frame header)", d.info.BitsPerSample)
	case int(f.BitsPerSample) != d.info.BitsPerSample || len(f.Subframes) != d.info.Channels:
		return dst, formatErr(d.name, nil, "corrupt FLAC data: a frame of %d channels of %d bits in a stream of %d of %d",
			len(f.Subframes), f.BitsPerSample, d.info.Channels, d.info.BitsPerSample)
	}
	for i := range int(f.BlockSize) {
		var s int64
		for _, sf := range f.Subframes {
			s += int64(sf.Samples[i])
		}
		dst = append(dst, min(float32(float64(s)*d.scale), belowOne))
	}
	return dst, nil
}

func (d *flacDecoder) finish(n int64) []string {
	name := fileName(d.name)
	switch {
	case d.tail != nil:
		return []string{fmt.Sprintf("%s: bytes after the last FLAC frame ignored (%v)", name, d.tail)}
	case d.info.Frames > n:
		return []string{fmt.Sprintf("%s: STREAMINFO claims %d samples but the file holds only %d (truncated recording?); decoded what is there", name, d.info.Frames, n)}
	case d.cut:
		return []string{fmt.Sprintf("%s: the file ends inside a FLAC frame (truncated recording?); decoded what is there", name)}
	}
	return nil
}

func (d *flacDecoder) capFrames(hint int64) int64 {
	return claimCap(d.info.Frames, hint, flacSamplesPerByte)
}
