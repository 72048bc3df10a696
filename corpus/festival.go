package corpus

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
)

// FestivalVoices are the English voices of Debian's festival packages that
// heed trains on: festvox-kallpc16k, festvox-kdlpc16k and
// festvox-us-slt-hts.
var FestivalVoices = []string{"kal_diphone", "ked_diphone", "cmu_us_slt_arctic_hts"}

// FestivalVoice selects a festival voice and speaking rate.
type FestivalVoice struct {
	Name    string  // one of FestivalVoices
	Stretch float64 // duration stretch (Duration_Stretch), >1 slower; 0 means 1
}

// String is the voice label used as the manifest speaker, e.g.
// "festival-kal_diphone".
func (v FestivalVoice) String() string { return "festival-" + v.Name }

// FestivalSynthesize speaks text with festival's text2wave (bin, e.g.
// "text2wave"), through temporary files in tmpDir. It returns the samples
// and their rate in Hz.
func FestivalSynthesize(ctx context.Context, bin, text string, v FestivalVoice, tmpDir string) ([]float32, int, error) {
	if err := CheckText(text); err != nil {
		return nil, 0, fmt.Errorf("corpus: festival: %w", err)
	}
	dir, err := os.MkdirTemp(tmpDir, "festival-*")
	if err != nil {
		return nil, 0, fmt.Errorf("corpus: festival: %w", err)
	}
	defer os.RemoveAll(dir)
	in, out := dir+"/in.txt", dir+"/out.wav"
	if err := os.WriteFile(in, []byte(text+"\n"), 0o600); err != nil {
		return nil, 0, fmt.Errorf("corpus: festival: %w", err)
	}
	stretch := v.Stretch
	if stretch == 0 {
		stretch = 1
	}
	cmd := exec.CommandContext(ctx, bin, "-eval", "(voice_"+v.Name+")",
		"-eval", "(Parameter.set 'Duration_Stretch "+strconv.FormatFloat(stretch, 'f', 3, 64)+")", in, "-o", out)
	return runSynth(cmd, out, "festival voice "+v.Name, text)
}
