package audio

import (
	"encoding/binary"
	"math"
	"slices"
)

// encoding is a sample encoding that this package decodes.
type encoding uint8

const (
	encU8 encoding = iota + 1
	encS16
	encS24
	encS32
	encF32
	encF64
	encALaw  // ITU-T G.711 A-law, 8 bits
	encMuLaw // ITU-T G.711 μ-law, 8 bits
)

// String returns the Info.Encoding name.
func (e encoding) String() string {
	switch e {
	case encU8:
		return "pcm_u8"
	case encS16:
		return "pcm_s16le"
	case encS24:
		return "pcm_s24le"
	case encS32:
		return "pcm_s32le"
	case encF32:
		return "float32"
	case encF64:
		return "float64"
	case encALaw:
		return "pcm_alaw"
	case encMuLaw:
		return "pcm_mulaw"
	}
	return "unknown"
}

// size is the number of bytes per sample.
func (e encoding) size() int {
	switch e {
	case encU8, encALaw, encMuLaw:
		return 1
	case encS16:
		return 2
	case encS24:
		return 3
	case encS32, encF32:
		return 4
	case encF64:
		return 8
	}
	panic("audio: unknown encoding")
}

// belowOne is the largest float32 below 1; decoded samples lie in
// [-1, belowOne].
const belowOne = float32(1 - 1.0/(1<<24))

// converter turns interleaved little-endian frames into mono float32
// samples in [-1, 1) by averaging the channels.
type converter struct {
	enc       encoding
	ch        int   // channels, 1..8
	frame     int   // bytes per frame
	clipped   int64 // float samples whose channel average was outside [-1, 1]
	nonFinite int64 // float samples that were NaN or ±Inf, replaced by 0
}

func newConverter(enc encoding, channels int) converter {
	return converter{enc: enc, ch: channels, frame: enc.size() * channels}
}

// appendFrames decodes the len(src)/frame whole frames of src and appends
// one mono sample per frame to dst. len(src) must be a multiple of the
// frame size.
func (c *converter) appendFrames(dst []float32, src []byte) []float32 {
	n := len(src) / c.frame
	if n*c.frame != len(src) {
		panic("audio: appendFrames: partial frame")
	}
	dst = slices.Grow(dst, n)
	ch, fr := c.ch, c.frame
	switch c.enc {
	case encS16:
		if ch == 1 {
			for i := 0; i+2 <= len(src); i += 2 {
				dst = append(dst, float32(int16(binary.LittleEndian.Uint16(src[i:])))*(1.0/32768))
			}
			return dst
		}
		if ch == 2 {
			for i := 0; i+4 <= len(src); i += 4 {
				s := int32(int16(binary.LittleEndian.Uint16(src[i:]))) + int32(int16(binary.LittleEndian.Uint16(src[i+2:])))
				dst = append(dst, float32(s)*(1.0/65536))
			}
			return dst
		}
		scale := 1 / (32768 * float64(ch))
		for f := 0; f < n; f++ {
			b := src[f*fr : f*fr+fr]
			var s int32
			for k := 0; k < ch; k++ {
				s += int32(int16(binary.LittleEndian.Uint16(b[2*k:])))
			}
			dst = append(dst, float32(float64(s)*scale))
		}
	case encALaw, encMuLaw:
		table := &aLawTable
		if c.enc == encMuLaw {
			table = &muLawTable
		}
		scale := 1 / (32768 * float64(ch))
		for f := 0; f < n; f++ {
			var s int32
			for _, v := range src[f*fr : f*fr+fr] {
				s += int32(table[v])
			}
			dst = append(dst, float32(float64(s)*scale))
		}
	case encU8:
		scale := 1 / (128 * float64(ch))
		for f := 0; f < n; f++ {
			var s int32
			for _, v := range src[f*fr : f*fr+fr] {
				s += int32(v) - 128
			}
			dst = append(dst, float32(float64(s)*scale))
		}
	case encS24:
		scale := 1 / (8388608 * float64(ch))
		for f := 0; f < n; f++ {
			b := src[f*fr : f*fr+fr]
			var s int32
			for k := 0; k+3 <= len(b); k += 3 {
				s += int32(uint32(b[k])<<8|uint32(b[k+1])<<16|uint32(b[k+2])<<24) >> 8
			}
			dst = append(dst, float32(float64(s)*scale))
		}
	case encS32:
		scale := 1 / (2147483648 * float64(ch))
		for f := 0; f < n; f++ {
			b := src[f*fr : f*fr+fr]
			var s int64
			for k := 0; k+4 <= len(b); k += 4 {
				s += int64(int32(binary.LittleEndian.Uint32(b[k:])))
			}
			dst = append(dst, min(float32(float64(s)*scale), belowOne))
		}
	case encF32:
		inv := 1 / float64(ch)
		for f := 0; f < n; f++ {
			b := src[f*fr : f*fr+fr]
			var s float64
			for k := 0; k+4 <= len(b); k += 4 {
				s += float64(math.Float32frombits(binary.LittleEndian.Uint32(b[k:])))
			}
			dst = append(dst, c.clamp(s*inv))
		}
	case encF64:
		inv := 1 / float64(ch)
		for f := 0; f < n; f++ {
			b := src[f*fr : f*fr+fr]
			var s float64
			for k := 0; k+8 <= len(b); k += 8 {
				s += math.Float64frombits(binary.LittleEndian.Uint64(b[k:]))
			}
			dst = append(dst, c.clamp(s*inv))
		}
	default:
		panic("audio: unknown encoding")
	}
	return dst
}

// clamp maps a float sample into [-1, 1), counting NaN/Inf (set to 0) and
// values beyond ±1 (clipped). Exactly +1 maps to belowOne silently.
func (c *converter) clamp(v float64) float32 {
	switch {
	case v >= -1 && v <= 1:
		return min(float32(v), belowOne)
	case math.IsNaN(v) || math.IsInf(v, 0):
		c.nonFinite++
		return 0
	case v > 1:
		c.clipped++
		return belowOne
	default:
		c.clipped++
		return -1
	}
}

// aLawTable and muLawTable expand ITU-T G.711 A-law and μ-law bytes to
// 16-bit linear PCM, as SoX and ffmpeg do.
var aLawTable, muLawTable = func() (a, u [256]int16) {
	for i := range 256 {
		// A-law: even bits inverted; sign, 3-bit segment, 4-bit step.
		b := byte(i) ^ 0x55
		t := int(b&0x0f)<<4 + 8
		if seg := int(b&0x70) >> 4; seg > 0 {
			t = (t + 0x100) << (seg - 1)
		}
		if b&0x80 == 0 {
			t = -t
		}
		a[i] = int16(t)
		// μ-law: all bits inverted; bias 0x84 (132) removed.
		m := ^byte(i)
		v := (int(m&0x0f)<<3 + 0x84) << (int(m&0x70) >> 4)
		if m&0x80 != 0 {
			u[i] = int16(0x84 - v)
		} else {
			u[i] = int16(v - 0x84)
		}
	}
	return a, u
}()
