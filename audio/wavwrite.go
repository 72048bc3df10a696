package audio

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// WriteWAV writes samples (mono, nominally in [-1, 1]) as a 16-bit PCM WAV
// file at the given rate. Samples outside [-1, 1] are clipped.
func WriteWAV(w io.Writer, samples []float32, rate int) error {
	if rate <= 0 {
		return fmt.Errorf("audio: WriteWAV: bad sample rate %d", rate)
	}
	n := len(samples)
	if uint64(n)*2 > math.MaxUint32-36 {
		return fmt.Errorf("audio: WriteWAV: %d samples do not fit in a WAV file", n)
	}
	buf := make([]byte, 44+2*n)
	copy(buf[0:], "RIFF")
	binary.LittleEndian.PutUint32(buf[4:], uint32(36+2*n))
	copy(buf[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(buf[16:], 16)
	binary.LittleEndian.PutUint16(buf[20:], 1) // PCM
	binary.LittleEndian.PutUint16(buf[22:], 1) // mono
	binary.LittleEndian.PutUint32(buf[24:], uint32(rate))
	binary.LittleEndian.PutUint32(buf[28:], uint32(rate*2))
	binary.LittleEndian.PutUint16(buf[32:], 2)
	binary.LittleEndian.PutUint16(buf[34:], 16)
	copy(buf[36:], "data")
	binary.LittleEndian.PutUint32(buf[40:], uint32(2*n))
	for i, s := range samples {
		v := math.Round(float64(s) * 32767)
		v = max(-32768, min(32767, v))
		binary.LittleEndian.PutUint16(buf[44+2*i:], uint16(int16(v)))
	}
	_, err := w.Write(buf)
	return err
}
