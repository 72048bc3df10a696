package corpus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	textnorm "github.com/heed-asr/heed/align/normalize"
)

// Word is the time span of one word of a transcript.
type Word struct {
	Word  string  `json:"word"`  // the word as spelled in the transcript
	Start float64 `json:"start"` // seconds from the start of the audio
	End   float64 `json:"end"`   // seconds from the start of the audio, >= Start
}

// Utterance is one line of a manifest. See the package doc for the format.
type Utterance struct {
	// Audio is the WAV path. ReadManifest resolves a relative path against
	// the manifest's directory; WriteManifest writes paths below the
	// manifest's directory relative to it.
	Audio    string  `json:"audio"`
	Text     string  `json:"text"`               // spoken-form transcript
	Written  string  `json:"written,omitempty"`  // the transcript as written, read as Text; Words are its tokens
	Words    []Word  `json:"words,omitempty"`    // optional word times
	Source   string  `json:"source,omitempty"`   // e.g. "espeak", "flite", "fsdd"
	Speaker  string  `json:"speaker,omitempty"`  // speaker or voice label
	Duration float64 `json:"duration,omitempty"` // seconds; 0 means unknown
	Aug      string  `json:"aug,omitempty"`      // augmentations applied, "+"-joined
	// NonSpeech marks audio holding no speech at all (music, noise): its
	// Text is empty, and a recognizer must give no words for it.
	NonSpeech bool `json:"nonspeech,omitempty"`
}

// Errors reported (wrapped in a *ManifestError) for invalid manifest lines.
var (
	ErrAlphabet  = errors.New("outside the alphabet")
	ErrSpacing   = errors.New("bad spacing")
	ErrNoAudio   = errors.New(`missing "audio"`)
	ErrNoText    = errors.New(`missing "text"`)
	ErrWords     = errors.New("bad word times")
	ErrDuration  = errors.New("bad duration")
	ErrWritten   = errors.New("bad written text")
	ErrNonSpeech = errors.New("non-speech with a transcript")
)

// ManifestError reports an invalid manifest line. Its message has the form
// "train.jsonl:17: text contains "é", outside the alphabet".
type ManifestError struct {
	File string // manifest name as given to the reader
	Line int    // 1-based line number
	Err  error  // what is wrong; may wrap one of the Err* sentinels
}

func (e *ManifestError) Error() string {
	return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
}

func (e *ManifestError) Unwrap() error { return e.Err }

// SpokenText maps a written transcript to the model's alphabet with the
// normaliser heed align uses, or says why it cannot: a token with letters
// or digits but no spoken form (say, in a script the model does not spell)
// is an error, never guessed or dropped.
func SpokenText(written string) (string, error) {
	t, err := textnorm.Normalize(written)
	if err != nil {
		return "", err
	}
	for _, tok := range t.Tokens {
		if len(tok.Spoken) == 0 && strings.IndexFunc(tok.Orig, func(r rune) bool {
			return r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127
		}) >= 0 {
			return "", fmt.Errorf("token %q has no spoken form", tok.Orig)
		}
	}
	s := t.String()
	if err := CheckText(s); err != nil {
		return "", err
	}
	return s, nil
}

// CheckText reports whether s is a valid spoken-form transcript: only a-z,
// apostrophe and space, with words separated by single spaces and no
// leading or trailing space. The empty string is rejected. Errors wrap
// ErrAlphabet or ErrSpacing.
func CheckText(s string) error {
	if s == "" {
		return fmt.Errorf("text is empty: %w", ErrSpacing)
	}
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r == '\'':
		case r == ' ':
			if i == 0 || i == len(s)-1 {
				return fmt.Errorf("text has a leading or trailing space: %w", ErrSpacing)
			}
			if s[i-1] == ' ' {
				return fmt.Errorf("text has a double space at byte %d: %w", i, ErrSpacing)
			}
		default:
			return fmt.Errorf("text contains %q, %w", string(r), ErrAlphabet)
		}
	}
	return nil
}

// Validate checks u against the manifest rules of the package doc. It does
// not look at the audio file. A non-speech utterance (NonSpeech set) must
// have an empty Text and no Written or Words (errors wrap ErrNonSpeech);
// any other must have a non-empty Text.
func (u *Utterance) Validate() error {
	if u.Audio == "" {
		return ErrNoAudio
	}
	if u.NonSpeech {
		if u.Text != "" || u.Written != "" || len(u.Words) > 0 {
			return fmt.Errorf("text %.40q, written %.40q, %d word times: %w", u.Text, u.Written, len(u.Words), ErrNonSpeech)
		}
		if math.IsNaN(u.Duration) || math.IsInf(u.Duration, 0) || u.Duration < 0 {
			return fmt.Errorf("duration %v: %w", u.Duration, ErrDuration)
		}
		return nil
	}
	if u.Text == "" {
		return ErrNoText
	}
	if err := CheckText(u.Text); err != nil {
		return err
	}
	if u.Written != "" && (!utf8.ValidString(u.Written) || strings.TrimSpace(u.Written) == "") {
		return fmt.Errorf("written text %.40q is not valid UTF-8 or is blank: %w", u.Written, ErrWritten)
	}
	if math.IsNaN(u.Duration) || math.IsInf(u.Duration, 0) || u.Duration < 0 {
		return fmt.Errorf("duration %v: %w", u.Duration, ErrDuration)
	}
	if len(u.Words) == 0 {
		return nil
	}
	fields := strings.Split(u.Text, " ")
	if u.Written != "" {
		fields = strings.Fields(u.Written)
	}
	if len(fields) != len(u.Words) {
		return fmt.Errorf("%d word times for %d words: %w", len(u.Words), len(fields), ErrWords)
	}
	// Times are written with millisecond precision or so; allow that much
	// slack against the duration.
	const tol = 1e-3
	prev := 0.0
	for i, w := range u.Words {
		switch {
		case w.Word != fields[i]:
			return fmt.Errorf("word %d is %q but the text has %q: %w", i+1, w.Word, fields[i], ErrWords)
		case math.IsNaN(w.Start) || math.IsNaN(w.End) || w.Start < 0 || w.End < w.Start:
			return fmt.Errorf("word %d %q: times %v..%v: %w", i+1, w.Word, w.Start, w.End, ErrWords)
		case w.Start < prev:
			return fmt.Errorf("word %d %q starts at %v, before the previous word's start %v: %w", i+1, w.Word, w.Start, prev, ErrWords)
		case u.Duration > 0 && w.End > u.Duration+tol:
			return fmt.Errorf("word %d %q ends at %v, after the duration %v: %w", i+1, w.Word, w.End, u.Duration, ErrWords)
		}
		prev = w.Start
	}
	return nil
}

// ReadManifest reads and validates the manifest at path. Relative audio
// paths are joined to the manifest's directory. Errors about a line are
// *ManifestError values naming path and the line.
func ReadManifest(path string) ([]Utterance, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	defer f.Close()
	return ParseManifest(f, path, filepath.Dir(path))
}

// ParseManifest reads and validates a manifest from r. name is used in
// error messages; relative audio paths are joined to dir (left as they are
// when dir is "").
func ParseManifest(r io.Reader, name, dir string) ([]Utterance, error) {
	br := bufio.NewReader(r)
	var out []Utterance
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("corpus: reading %s: %w", name, err)
		}
		if len(bytes.TrimSpace(b)) > 0 {
			u, perr := parseLine(b)
			if perr != nil {
				return nil, &ManifestError{File: name, Line: line, Err: perr}
			}
			if dir != "" && !filepath.IsAbs(u.Audio) {
				u.Audio = filepath.Join(dir, u.Audio)
			}
			out = append(out, u)
		}
		if err == io.EOF {
			return out, nil
		}
	}
}

// parseLine decodes and validates one non-blank manifest line.
func parseLine(b []byte) (Utterance, error) {
	var u Utterance
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&u); err != nil {
		return u, fmt.Errorf("bad JSON: %w", err)
	}
	if dec.More() {
		return u, errors.New("bad JSON: more than one value on the line")
	}
	if err := u.Validate(); err != nil {
		return u, err
	}
	return u, nil
}

// WriteManifest validates utts and writes them to path atomically (through
// a temporary file in the same directory, renamed over path). Audio paths
// inside the manifest's directory are written relative to it, others
// absolute.
func WriteManifest(path string, utts []Utterance) error {
	dir := filepath.Dir(path)
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("corpus: %w", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i, u := range utts {
		if err := u.Validate(); err != nil {
			return fmt.Errorf("corpus: writing %s: utterance %d (%s): %w", path, i+1, u.Audio, err)
		}
		abs, err := filepath.Abs(u.Audio)
		if err != nil {
			return fmt.Errorf("corpus: writing %s: %w", path, err)
		}
		if rel, err := filepath.Rel(absDir, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			u.Audio = filepath.ToSlash(rel)
		} else {
			u.Audio = abs
		}
		if err := enc.Encode(&u); err != nil {
			return fmt.Errorf("corpus: writing %s: %w", path, err)
		}
	}
	return writeFileAtomic(path, buf.Bytes())
}

// writeFileAtomic writes data to a temporary file next to path and renames
// it over path.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("corpus: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("corpus: writing %s: %w", path, err)
	}
	return nil
}
