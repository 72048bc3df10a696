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

// decodeFLAC decodes the FLAC stream of br (positioned at "fLaC"). See
// decodeCompressed.
func decodeFLAC(br *bufio.Reader, name string, hint int64, to int) (c *Clip, err error) {
	info, err := readFLACHeader(br, name)
	if err != nil {
		return nil, err
	}
	// mewkiz/flac does not check everything a damaged frame can get
	// wrong; a panic in it is corrupt input, not a bug of ours.
	defer func() {
		if p := recover(); p != nil {
			c, err = nil, formatErr(name, nil, "corrupt FLAC data: %v", p)
		}
	}()
	sink := newClipSink(info, nil, to, claimCap(info.Frames, hint, flacSamplesPerByte))
	scale := 1 / (float64(int64(1)<<(info.BitsPerSample-1)) * float64(info.Channels))
	var mono []float32
	cut := false
	for {
		if b, _ := br.Peek(3); string(b) == "TAG" {
			break // an ID3v1 tag that some taggers append
		}
		f, err := frame.Parse(br)
		if err == io.EOF {
			break
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			cut = true
			break
		}
		if err != nil && info.Frames > 0 && sink.n >= info.Frames {
			// Every sample STREAMINFO promised is there: what follows
			// (padding, a tag of another kind) is no frame.
			sink.c.Warnings = append(sink.c.Warnings, fmt.Sprintf("%s: bytes after the last FLAC frame ignored (%v)", fileName(name), err))
			break
		}
		if err != nil {
			return nil, formatErr(name, err, "corrupt FLAC data after %d samples: %v", sink.n, err)
		}
		switch {
		case f.BitsPerSample == 0:
			return nil, unsupported(name, "%d-bit FLAC frames (no sample size in the frame header)", info.BitsPerSample)
		case int(f.BitsPerSample) != info.BitsPerSample || len(f.Subframes) != info.Channels:
			return nil, formatErr(name, nil, "corrupt FLAC data: a frame of %d channels of %d bits in a stream of %d of %d",
				len(f.Subframes), f.BitsPerSample, info.Channels, info.BitsPerSample)
		}
		// The channels summed, then scaled as the WAV converter does, so
		// that a FLAC file decodes to exactly the samples of its WAV.
		mono = mono[:0]
		for i := range int(f.BlockSize) {
			var s int64
			for _, sf := range f.Subframes {
				s += int64(sf.Samples[i])
			}
			mono = append(mono, min(float32(float64(s)*scale), belowOne))
		}
		sink.add(mono)
	}
	c = sink.clip()
	switch {
	case info.Frames > c.Info.Frames:
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s: STREAMINFO claims %d samples but the file holds only %d (truncated recording?); decoded what is there", fileName(name), info.Frames, c.Info.Frames))
	case cut:
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s: the file ends inside a FLAC frame (truncated recording?); decoded what is there", fileName(name)))
	}
	return c, nil
}
