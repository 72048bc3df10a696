package corpus

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/heed-asr/heed/audio"
)

// FSDDClip is one recording of the Free Spoken Digit Dataset (Zohar
// Jackson et al., CC BY-SA 4.0), file "{digit}_{speaker}_{index}.wav".
type FSDDClip struct {
	Path    string
	Digit   int    // 0..9
	Speaker string // e.g. "george"
	Index   int    // take number; upstream uses 0-4 for test, 5-49 for training
	// Samples is the recording resampled to the rate given to LoadFSDD.
	Samples []float32
	// Start and End bound the sound of the recording in Samples (sample
	// indexes, [Start, End)), found by energy (see TrimBounds): the span a
	// glued string keeps.
	Start, End int
	// WordStart and WordEnd bound the spoken digit itself (SpeechBounds):
	// Start and End without a click or breath far from it. They are the
	// gold times.
	WordStart, WordEnd int
}

// ParseFSDDName splits an FSDD file name "{digit}_{speaker}_{index}.wav".
func ParseFSDDName(name string) (digit int, speaker string, index int, ok bool) {
	base, found := strings.CutSuffix(filepath.Base(name), ".wav")
	if !found {
		return 0, "", 0, false
	}
	parts := strings.Split(base, "_")
	if len(parts) != 3 || parts[1] == "" {
		return 0, "", 0, false
	}
	d, err1 := strconv.Atoi(parts[0])
	i, err2 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || d < 0 || d > 9 || i < 0 {
		return 0, "", 0, false
	}
	return d, parts[1], i, true
}

// LoadFSDD reads the FSDD clips in dir whose index satisfies keep (all when
// keep is nil); see ReadFSDDClip. The clips are sorted by speaker, digit
// and index.
func LoadFSDD(dir string, rate int, keep func(index int) bool) ([]FSDDClip, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("corpus: FSDD: %w", err)
	}
	var clips []FSDDClip
	for _, e := range ents {
		if _, _, idx, ok := ParseFSDDName(e.Name()); !ok || (keep != nil && !keep(idx)) {
			continue
		}
		c, err := ReadFSDDClip(filepath.Join(dir, e.Name()), rate)
		if err != nil {
			return nil, err
		}
		clips = append(clips, c)
	}
	if len(clips) == 0 {
		return nil, fmt.Errorf("corpus: FSDD: no clips in %s", dir)
	}
	sort.Slice(clips, func(i, j int) bool {
		a, b := clips[i], clips[j]
		if a.Speaker != b.Speaker {
			return a.Speaker < b.Speaker
		}
		if a.Digit != b.Digit {
			return a.Digit < b.Digit
		}
		return a.Index < b.Index
	})
	return clips, nil
}

// ReadFSDDClip reads one FSDD recording (named as ParseFSDDName expects),
// resamples it to rate Hz and finds the digit's bounds with TrimBounds.
func ReadFSDDClip(path string, rate int) (FSDDClip, error) {
	d, spk, idx, ok := ParseFSDDName(path)
	if !ok {
		return FSDDClip{}, fmt.Errorf("corpus: FSDD: %s: not named {digit}_{speaker}_{index}.wav", path)
	}
	clip, err := audio.ReadFile(path)
	if err != nil {
		return FSDDClip{}, fmt.Errorf("corpus: FSDD: %w", err)
	}
	x := audio.Resample(clip.Samples, clip.Rate, rate)
	a, b := TrimBounds(x, rate)
	wa, wb := SpeechBounds(x, rate)
	return FSDDClip{Path: path, Digit: d, Speaker: spk, Index: idx, Samples: x, Start: a, End: b, WordStart: wa, WordEnd: wb}, nil
}

// TrimBounds returns the [start, end) sample range of x holding sound:
// the first and last 10 ms frames whose energy is within 30 dB of the
// loudest frame. A silent x gives (0, len(x)).
func TrimBounds(x []float32, rate int) (int, int) { return soundBounds(x, rate, 0) }

// speechGap is the quiet that separates a digit from other sound in its
// recording (SpeechBounds): longer than the closure before a stop's
// release ("eight", "six"), shorter than the pause before a click of the
// recording's end (5_lucas_1: 0.6 s after "five").
const speechGap = 0.25

// SpeechBounds is TrimBounds for the spoken digit: the loud frames (within
// 30 dB of the loudest) are grouped where less than speechGap seconds of
// quiet lies between them, and the group that holds the loudest frame is
// the digit. A click, knock or breath a quarter second or more from it is
// left out.
func SpeechBounds(x []float32, rate int) (int, int) {
	return soundBounds(x, rate, int(speechGap*float64(rate)))
}

// soundBounds returns the first and last 10 ms frames of x within 30 dB of
// the loudest; with gap > 0, only those of the loudest frame's group, where
// a quiet stretch of gap samples or more ends a group.
func soundBounds(x []float32, rate, gap int) (int, int) {
	frame := max(1, rate/100)
	peak := 0.0
	for i := 0; i < len(x); i += frame {
		peak = max(peak, MeanSquare(x[i:min(len(x), i+frame)]))
	}
	if peak == 0 {
		return 0, len(x)
	}
	thr := peak * 1e-3
	a, b := -1, 0
	peakIn := false // the current group holds the loudest frame
	for i := 0; i < len(x); i += frame {
		e := min(len(x), i+frame)
		ms := MeanSquare(x[i:e])
		if ms < thr {
			continue
		}
		if gap > 0 && a >= 0 && i-b >= gap {
			if peakIn {
				break // the loudest frame's group has ended
			}
			a = -1 // a new group begins
		}
		if a < 0 {
			a = i
		}
		b = e
		peakIn = peakIn || ms == peak
	}
	return a, b
}

// GlueConfig controls Glue.
type GlueConfig struct {
	Rate      int     // sample rate of the clips, Hz
	MinGap    float64 // shortest gap between digits, seconds (e.g. 0.05)
	MaxGap    float64 // longest gap, seconds (e.g. 0.3)
	Margin    float64 // audio kept around each digit's trimmed bounds, seconds (e.g. 0.01)
	EdgeLead  float64 // quiet before the first and after the last digit, seconds
	NoiseDBFS float64 // level of the low noise in the gaps, dBFS RMS (e.g. -60); below -150 for silence
}

// Glue joins clips (one per spoken digit) into one utterance: each clip's
// trimmed span plus cfg.Margin on both sides, separated by random gaps of
// cfg.MinGap..cfg.MaxGap seconds filled with low white noise. It returns the
// samples, the text ("four five two") and the word times, which are the
// clips' digit bounds (WordStart, WordEnd) in the glued audio.
func Glue(clips []FSDDClip, cfg GlueConfig, rng *rand.Rand) ([]float32, string, []Word) {
	margin := int(cfg.Margin * float64(cfg.Rate))
	lead := int(cfg.EdgeLead * float64(cfg.Rate))
	noise := math.Pow(10, cfg.NoiseDBFS/20)
	var out []float32
	quiet := func(n int) {
		for range n {
			out = append(out, float32(noise*rng.NormFloat64()))
		}
	}
	words := make([]Word, len(clips))
	names := make([]string, len(clips))
	quiet(lead)
	for i, c := range clips {
		if i > 0 {
			gap := cfg.MinGap + (cfg.MaxGap-cfg.MinGap)*rng.Float64()
			quiet(int(gap * float64(cfg.Rate)))
		}
		a := max(0, c.Start-margin)
		b := min(len(c.Samples), c.End+margin)
		base := len(out) - a
		out = append(out, c.Samples[a:b]...)
		names[i] = digitNames[c.Digit]
		words[i] = Word{
			Word:  names[i],
			Start: roundTime(float64(base+c.WordStart) / float64(cfg.Rate)),
			End:   roundTime(float64(base+c.WordEnd) / float64(cfg.Rate)),
		}
	}
	quiet(lead)
	return out, strings.Join(names, " "), words
}

// DigitStringLength draws the length of a glued digit string: phone-number
// lengths (7, 10), years (4), and codes of 2-10 digits.
func DigitStringLength(rng *rand.Rand) int {
	switch rng.IntN(5) {
	case 0:
		return 7
	case 1:
		return 10
	case 2:
		return 4
	default:
		return 2 + rng.IntN(9)
	}
}
