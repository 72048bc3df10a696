package corpus

import (
	"fmt"
	"os"

	"github.com/go-audio/wav"
)

// readWAV reads a mono PCM WAV file and returns its samples scaled to
// [-1, 1) and its sample rate in Hz.
func readWAV(path string) ([]float32, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	d := wav.NewDecoder(f)
	if !d.IsValidFile() {
		return nil, 0, fmt.Errorf("%s: not a valid WAV file", path)
	}
	buf, err := d.FullPCMBuffer()
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	if buf.Format == nil || buf.Format.NumChannels != 1 {
		return nil, 0, fmt.Errorf("%s: not mono", path)
	}
	bits := int(d.BitDepth)
	if bits < 8 || bits > 32 {
		return nil, 0, fmt.Errorf("%s: unsupported bit depth %d", path, bits)
	}
	scale := 1 / float32(int64(1)<<(bits-1))
	x := make([]float32, len(buf.Data))
	for i, v := range buf.Data {
		if bits == 8 {
			v -= 128 // 8-bit WAV is unsigned
		}
		x[i] = float32(v) * scale
	}
	return x, buf.Format.SampleRate, nil
}
