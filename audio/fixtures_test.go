package audio

import (
	"errors"
	"math"
	"path/filepath"
	"testing"
)

// fixtureDir holds WAV files made by sox; see its README.md.
const fixtureDir = "../testdata/audio"

// TestFixtures decodes each sox-made fixture and compares it with the
// 16-bit master s16.wav, after resampling to 16 kHz (Load16k).
func TestFixtures(t *testing.T) {
	master, err := ReadFile(filepath.Join(fixtureDir, "s16.wav"))
	if err != nil {
		t.Fatal(err)
	}
	if master.Rate != 16000 || len(master.Samples) != 4000 {
		t.Fatalf("s16.wav: rate %d, %d samples; want 16000, 4000", master.Rate, len(master.Samples))
	}
	const lsb16 = 1.0 / 32768
	tests := []struct {
		file string
		enc  string
		ch   int
		rate int
		ext  bool
		gain float64 // expected signal = gain × master
		tol  float64 // max |difference|
		trim int     // samples at each end left out of the comparison
	}{
		{"s16.wav", "pcm_s16le", 1, 16000, false, 1, 0, 0},
		{"u8.wav", "pcm_u8", 1, 16000, false, 1, 1.0/256 + lsb16, 0}, // 8-bit rounding
		{"s24.wav", "pcm_s24le", 1, 16000, false, 1, 0, 0},           // exact widening
		{"s24_ext.wav", "pcm_s24le", 1, 16000, true, 1, 0, 0},
		{"s32_ext.wav", "pcm_s32le", 1, 16000, true, 1, 0, 0},
		{"f32.wav", "float32", 1, 16000, false, 1, 0, 0},
		{"f64.wav", "float64", 1, 16000, false, 1, 0, 0},
		{"stereo.wav", "pcm_s16le", 2, 16000, false, 0.75, lsb16, 0},    // L = x, R = x/2 rounded
		{"ch3_ext.wav", "pcm_s16le", 3, 16000, true, 1.0 / 3, lsb16, 0}, // x, x/2, -x/2
		// Resampled by sox, then back to 16 kHz by Load16k: two different
		// filters, both flat over the 300-3000 Hz sweep; ends excluded.
		{"r44k.wav", "pcm_s16le", 1, 44100, false, 1, 3e-4, 160}, // measured 1.0e-4
		{"r8k.wav", "pcm_s16le", 1, 8000, false, 1, 1.5e-3, 160}, // measured 6.4e-4
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			c, err := Load16k(filepath.Join(fixtureDir, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			in := c.Info
			if in.Encoding != tc.enc || in.Channels != tc.ch || in.SampleRate != tc.rate || in.Extensible != tc.ext {
				t.Errorf("Info = %+v, want %s, %d channels, %d Hz, extensible %v", in, tc.enc, tc.ch, tc.rate, tc.ext)
			}
			if want := int64(tc.rate) / 4; in.Frames != want {
				t.Errorf("Frames = %d, want %d", in.Frames, want)
			}
			if len(c.Samples) != len(master.Samples) {
				t.Fatalf("%d samples, want %d", len(c.Samples), len(master.Samples))
			}
			var worst float64
			for i := tc.trim; i < len(c.Samples)-tc.trim; i++ {
				d := math.Abs(float64(c.Samples[i]) - tc.gain*float64(master.Samples[i]))
				worst = max(worst, d)
			}
			t.Logf("max |difference| = %.3g", worst)
			if worst > tc.tol {
				t.Errorf("max |difference| from %g × s16.wav = %.3g, want <= %.3g", tc.gain, worst, tc.tol)
			}
		})
	}
}

func TestFixturesUnsupported(t *testing.T) {
	for _, file := range []string{"alaw.wav", "ima_adpcm.wav"} {
		t.Run(file, func(t *testing.T) {
			_, err := ReadFile(filepath.Join(fixtureDir, file))
			var ue *UnsupportedError
			if !errors.As(err, &ue) {
				t.Errorf("error = %v, want *UnsupportedError", err)
			}
		})
	}
}
