package corpus

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"

	"github.com/heed-asr/heed/audio"
)

// FliteVoices are the voices of Debian's flite package that run at 16 kHz.
var FliteVoices = []string{"kal16", "awb", "rms", "slt"}

// FliteVoice selects a flite voice and speaking rate.
type FliteVoice struct {
	Name    string  // built-in voice: "kal16", "awb", "rms" or "slt"
	Stretch float64 // duration stretch (flite's duration_stretch), >1 slower; 0 means 1
}

// String is the voice label used as the manifest speaker, e.g. "flite-slt".
func (v FliteVoice) String() string { return "flite-" + v.Name }

// FliteSynthesize speaks text with the flite binary bin (e.g. "flite"),
// writing a temporary WAV file in tmpDir. It returns the samples and their
// rate in Hz. flite gives no word times.
func FliteSynthesize(ctx context.Context, bin, text string, v FliteVoice, tmpDir string) ([]float32, int, error) {
	if err := CheckText(text); err != nil {
		return nil, 0, fmt.Errorf("corpus: flite: %w", err)
	}
	f, err := os.CreateTemp(tmpDir, "flite-*.wav")
	if err != nil {
		return nil, 0, fmt.Errorf("corpus: flite: %w", err)
	}
	path := f.Name()
	f.Close()
	defer os.Remove(path)
	stretch := v.Stretch
	if stretch == 0 {
		stretch = 1
	}
	cmd := exec.CommandContext(ctx, bin, "-voice", v.Name,
		"--setf", "duration_stretch="+strconv.FormatFloat(stretch, 'f', 3, 64),
		"-t", text, "-o", path)
	return runSynth(cmd, path, "flite -voice "+v.Name, text)
}

// runSynth runs a synthesizer command that writes a WAV file at path and
// returns its samples and rate; what names the synthesizer in errors.
func runSynth(cmd *exec.Cmd, path, what, text string) ([]float32, int, error) {
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, 0, fmt.Errorf("corpus: %s: %w: %s", what, err, bytes.TrimSpace(stderr.Bytes()))
	}
	clip, err := audio.ReadFile(path)
	if err != nil {
		return nil, 0, fmt.Errorf("corpus: %s: %w", what, err)
	}
	if len(clip.Samples) == 0 {
		return nil, 0, fmt.Errorf("corpus: %s: no audio for %q", what, text)
	}
	return clip.Samples, clip.Rate, nil
}
