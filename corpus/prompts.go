package corpus

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Prompt kinds.
const (
	KindSentence = "sentence" // a sentence from the text sources
	KindWords    = "words"    // a list of 3-8 rare dictionary words
	KindDigits   = "digits"   // a digit string read digit by digit
	KindNumber   = "number"   // a number read as a cardinal (or year)
)

// Prompt is one text to be spoken.
type Prompt struct {
	Text string // spoken form, passes CheckText
	Kind string // one of the Kind* constants
}

// PromptConfig controls BuildPrompts.
type PromptConfig struct {
	// FortuneFiles are fortune(6) data files to take sentences from.
	FortuneFiles []string
	// Dict is the word list (one word per line) used to filter sentences
	// and to draw rare words from; "" disables both.
	Dict string
	// Numbers spells a token holding digits, see CleanOptions.Numbers; nil
	// drops such sentences.
	Numbers func(tok string) (string, bool)
	// NumberWords spells the integer n as words; nil disables number
	// prompts.
	NumberWords        func(n int) string
	MinWords, MaxWords int // sentence length limits in words

	WordLists     int // number of rare-word list prompts to draw
	DigitStrings  int // number of digit-string prompts to draw
	NumberPrompts int // number of number prompts to draw

	// DevFraction is the share of prompts (by hash of their text) that go
	// to the dev set, 0..1.
	DevFraction float64
	Seed        uint64
}

// FortuneFiles lists the fortune data files in dir: regular files without
// an extension (the .dat and .u8 companions are skipped), sorted by name.
func FortuneFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() && !strings.Contains(e.Name(), ".") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	return out, nil
}

// IsDev reports whether the prompt text belongs to the dev set: a 64-bit
// FNV-1a hash of text, scaled to [0, 1), is below frac. The split depends
// only on the text, so a sentence is on the same side in every corpus.
func IsDev(text string, frac float64) bool {
	h := fnv.New64a()
	h.Write([]byte(text))
	return float64(h.Sum64()>>11)/(1<<53) < frac
}

// digitNames are the spoken digits 0-9.
var digitNames = [10]string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}

// DigitWord is the spoken name of digit d (0..9); it panics otherwise.
func DigitWord(d int) string {
	if d < 0 || d > 9 {
		panic("corpus: DigitWord: not a digit")
	}
	return digitNames[d]
}

// BuildPrompts reads the text sources of cfg and returns deduplicated
// prompts split into train and dev by IsDev, each in a deterministic order
// shuffled by cfg.Seed. Sentences come first in the underlying list, then
// the drawn word lists, digit strings and numbers; duplicates across kinds
// are kept once.
func BuildPrompts(cfg PromptConfig) (train, dev []Prompt, err error) {
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x70726f6d707473))
	var dict map[string]bool
	if cfg.Dict != "" {
		if dict, err = LoadDict(cfg.Dict); err != nil {
			return nil, nil, err
		}
	}
	opt := CleanOptions{MinWords: cfg.MinWords, MaxWords: cfg.MaxWords, Dict: dict, Numbers: cfg.Numbers}
	seen := make(map[string]bool)
	var all []Prompt
	add := func(text, kind string) {
		if text == "" || seen[text] || CheckText(text) != nil {
			return
		}
		seen[text] = true
		all = append(all, Prompt{Text: text, Kind: kind})
	}
	used := make(map[string]bool) // words seen in sentences
	for _, path := range cfg.FortuneFiles {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, fmt.Errorf("corpus: %w", err)
		}
		entries, err := ParseFortunes(f)
		f.Close()
		if err != nil {
			return nil, nil, fmt.Errorf("corpus: reading %s: %w", path, err)
		}
		for _, e := range entries {
			for _, s := range SplitSentences(e) {
				if c, ok := CleanSentence(s, opt); ok {
					add(c, KindSentence)
					for _, w := range strings.Fields(c) {
						used[w] = true
					}
				}
			}
		}
	}
	if cfg.WordLists > 0 && dict != nil {
		var rare []string
		for w := range dict {
			if !used[w] && len(w) > 1 && !strings.Contains(w, "'") {
				rare = append(rare, w)
			}
		}
		sort.Strings(rare)
		if len(rare) > 0 {
			for range cfg.WordLists {
				n := 3 + rng.IntN(6)
				ws := make([]string, n)
				for j := range ws {
					ws[j] = rare[rng.IntN(len(rare))]
				}
				add(strings.Join(ws, " "), KindWords)
			}
		}
	}
	for range cfg.DigitStrings {
		n := 2 + rng.IntN(9)
		ws := make([]string, n)
		for j := range ws {
			ws[j] = digitNames[rng.IntN(10)]
		}
		add(strings.Join(ws, " "), KindDigits)
	}
	if cfg.NumberWords != nil {
		for range cfg.NumberPrompts {
			add(cfg.NumberWords(RandomNumber(rng)), KindNumber)
		}
	}
	for _, p := range all {
		if IsDev(p.Text, cfg.DevFraction) {
			dev = append(dev, p)
		} else {
			train = append(train, p)
		}
	}
	rng.Shuffle(len(train), func(i, j int) { train[i], train[j] = train[j], train[i] })
	rng.Shuffle(len(dev), func(i, j int) { dev[i], dev[j] = dev[j], dev[i] })
	return train, dev, nil
}

// RandomNumber draws a non-negative integer with a spread of magnitudes:
// small counts, two- and three-digit numbers, years, and larger amounts.
func RandomNumber(rng *rand.Rand) int {
	switch rng.IntN(6) {
	case 0:
		return rng.IntN(20)
	case 1:
		return 20 + rng.IntN(80)
	case 2:
		return 100 + rng.IntN(900)
	case 3:
		return 1100 + rng.IntN(1000) // years
	case 4:
		return 1000 + rng.IntN(99000)
	default:
		return 100000 + rng.IntN(9900000)
	}
}
