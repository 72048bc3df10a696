package main

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/heed-asr/heed/corpus"
)

// defaultProse lists the text sources that -lm-text reads besides the
// prompts when -lm-prose is not given: English prose from Debian's
// dict-gcide (Webster's 1913 definitions and quotations), dict-devil and
// dict-jargon. Missing files are skipped with a note.
var defaultProse = "/usr/share/dictd/gcide.dict.dz,/usr/share/dictd/devil.dict.dz,/usr/share/dictd/jargon.dict.dz"

// writeLMText writes the text for heed lm to o.lmText, one spoken-form
// sentence per line: every training prompt, then the sentences of the
// -lm-prose files that pass the prompts' cleaning (same word list and
// length limits). A sentence whose text is a dev prompt, or that IsDev
// would put in the dev set, is left out, so the dev set stays unseen.
func writeLMText(o *options, stderr io.Writer) error {
	trainP, devP, err := buildPrompts(o)
	if err != nil {
		return err
	}
	dev := make(map[string]bool, len(devP))
	for _, p := range devP {
		dev[p.Text] = true
	}
	var dict map[string]bool
	if o.dict != "" {
		if dict, err = corpus.LoadDict(o.dict); err != nil {
			return err
		}
	}
	opt := corpus.CleanOptions{MinWords: 1, MaxWords: 40, Dict: dict, Numbers: spellNumber}
	seen := make(map[string]bool)
	var lines []string
	add := func(s string) {
		if !seen[s] && !dev[s] && !corpus.IsDev(s, o.devFrac) {
			seen[s] = true
			lines = append(lines, s)
		}
	}
	for _, p := range trainP {
		add(p.Text)
	}
	fmt.Fprintf(stderr, "heed-corpus: lm text: %d training prompts\n", len(lines))
	for _, path := range strings.Split(o.lmProse, ",") {
		if path == "" {
			continue
		}
		paras, err := readProse(path)
		if os.IsNotExist(err) {
			fmt.Fprintf(stderr, "heed-corpus: lm text: skipping %s (not installed)\n", path)
			continue
		}
		if err != nil {
			return err
		}
		before := len(lines)
		for _, para := range paras {
			for _, s := range corpus.SplitSentences(para) {
				if c, ok := corpus.CleanSentence(s, opt); ok {
					add(c)
				}
			}
		}
		fmt.Fprintf(stderr, "heed-corpus: lm text: %d sentences from %s\n", len(lines)-before, path)
	}
	return writeLines(o.lmText, lines)
}

// readProse reads the paragraphs of a text file (gzip- or dictzip-compressed
// when its name ends in .gz or .dz).
func readProse(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") || strings.HasSuffix(path, ".dz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer zr.Close()
		r = zr
	}
	paras, err := corpus.ParseProse(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return paras, nil
}

// writeLines writes lines to path through a temporary file and a rename.
func writeLines(path string, lines []string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriter(tmp)
	for _, l := range lines {
		w.WriteString(l)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
