package audio

import (
	"encoding/binary"
	"math"
)

// Hand-built WAV files for table tests and fuzz seeds.

// chunk is one RIFF chunk. size < 0 means len(body); otherwise size is
// written as the chunk size whatever the body holds (a lying header).
type chunk struct {
	id   string
	size int64
	body []byte
}

// riff assembles a RIFF/WAVE file, adding pad bytes after odd-sized bodies.
func riff(chunks ...chunk) []byte {
	b := []byte("RIFF\x00\x00\x00\x00WAVE")
	for _, c := range chunks {
		size := c.size
		if size < 0 {
			size = int64(len(c.body))
		}
		b = append(b, c.id...)
		b = binary.LittleEndian.AppendUint32(b, uint32(size))
		b = append(b, c.body...)
		if len(c.body)%2 == 1 && c.size < 0 {
			b = append(b, 0)
		}
	}
	binary.LittleEndian.PutUint32(b[4:], uint32(len(b)-8))
	return b
}

// fmtBody is a 16-byte fmt chunk body with block align computed.
func fmtBody(tag, ch, rate, bits int) []byte {
	b := binary.LittleEndian.AppendUint16(nil, uint16(tag))
	b = binary.LittleEndian.AppendUint16(b, uint16(ch))
	b = binary.LittleEndian.AppendUint32(b, uint32(rate))
	b = binary.LittleEndian.AppendUint32(b, uint32(rate*ch*bits/8))
	b = binary.LittleEndian.AppendUint16(b, uint16(ch*bits/8))
	return binary.LittleEndian.AppendUint16(b, uint16(bits))
}

func fmtChunk(tag, ch, rate, bits int) chunk {
	return chunk{id: "fmt ", size: -1, body: fmtBody(tag, ch, rate, bits)}
}

// fmtExt is a 40-byte WAVE_FORMAT_EXTENSIBLE fmt chunk whose SubFormat is
// the standard GUID for format tag sub.
func fmtExt(sub, ch, rate, bits, valid int) chunk {
	b := fmtBody(0xFFFE, ch, rate, bits)
	b = binary.LittleEndian.AppendUint16(b, 22)
	b = binary.LittleEndian.AppendUint16(b, uint16(valid))
	b = binary.LittleEndian.AppendUint32(b, 0x3) // channel mask FL|FR
	b = binary.LittleEndian.AppendUint16(b, uint16(sub))
	b = append(b, guidSuffix...)
	return chunk{id: "fmt ", size: -1, body: b}
}

func data(b []byte) chunk { return chunk{id: "data", size: -1, body: b} }

func s16(v ...int16) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint16(b, uint16(x))
	}
	return b
}

func s24(v ...int32) []byte {
	var b []byte
	for _, x := range v {
		b = append(b, byte(x), byte(x>>8), byte(x>>16))
	}
	return b
}

func s32(v ...int32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, uint32(x))
	}
	return b
}

func f32(v ...float32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

func f64(v ...float64) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

// wavS16 is a mono 16-bit WAV of samples at rate.
func wavS16(rate int, samples []float32) []byte {
	v := make([]int16, len(samples))
	for i, s := range samples {
		v[i] = int16(max(-32768, min(32767, math.Round(float64(s)*32768))))
	}
	return riff(fmtChunk(1, 1, rate, 16), data(s16(v...)))
}
