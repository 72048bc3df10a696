package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"os/exec"
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
		// G.711 steps double per segment: from half scale up a step is
		// 1024 of 32768 (A-law) or 1024 (mu-law), so the error is at most
		// half a step, plus the dither sox added to alaw.wav (made
		// without -D; measured 0.0158 and 0.0151).
		{"alaw.wav", "pcm_alaw", 1, 16000, false, 1, 512.0/32768 + 8*lsb16, 0},
		{"mulaw.wav", "pcm_mulaw", 1, 16000, false, 1, 512.0/32768 + lsb16, 0},
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
	for _, file := range []string{"ima_adpcm.wav"} {
		t.Run(file, func(t *testing.T) {
			_, err := ReadFile(filepath.Join(fixtureDir, file))
			var ue *UnsupportedError
			if !errors.As(err, &ue) {
				t.Errorf("error = %v, want *UnsupportedError", err)
			}
		})
	}
}

// TestG711Tables compares the A-law and mu-law expansion of all 256 bytes
// with SoX's (skipped without sox unless HEED_REQUIRE_TOOLS is set).
func TestG711Tables(t *testing.T) {
	sox, err := exec.LookPath("sox")
	if err != nil {
		if os.Getenv("HEED_REQUIRE_TOOLS") != "" {
			t.Fatal("sox not found and HEED_REQUIRE_TOOLS is set")
		}
		t.Skip("sox not found")
	}
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	for _, tc := range []struct {
		enc   string
		table *[256]int16
	}{{"a-law", &aLawTable}, {"u-law", &muLawTable}} {
		t.Run(tc.enc, func(t *testing.T) {
			cmd := exec.Command(sox, "-D", "-t", "raw", "-e", tc.enc, "-b", "8", "-r", "8000", "-c", "1", "-",
				"-t", "raw", "-e", "signed-integer", "-b", "16", "-L", "-")
			cmd.Stdin = bytes.NewReader(all)
			out, err := cmd.Output()
			if err != nil || len(out) != 512 {
				t.Fatalf("sox: %v, %d bytes", err, len(out))
			}
			for i := range 256 {
				if want := int16(binary.LittleEndian.Uint16(out[2*i:])); tc.table[i] != want {
					t.Errorf("byte 0x%02x: %d, sox %d", i, tc.table[i], want)
				}
			}
		})
	}
}
