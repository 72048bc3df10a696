package heed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/heed-asr/heed/align"
	"github.com/heed-asr/heed/align/normalize"
	"github.com/heed-asr/heed/audio"
	"github.com/heed-asr/heed/model"
	"github.com/heed-asr/heed/model/english"
)

// SampleRate is the rate of the samples every method takes: mono float32
// in [-1, 1) at 16000 Hz, as LoadAudio and ReadAudio return them.
const SampleRate = audio.TargetRate

// Model is a loaded recognizer and aligner. It is safe for concurrent use.
type Model struct {
	b    *model.Bundle
	name string // "embedded model" or the file it was read from
}

// Default returns the embedded English model, decoded on the first call
// (about 70 ms) and shared afterwards.
func Default() (*Model, error) {
	b, err := english.Load()
	if err != nil {
		return nil, &Error{Op: "load model", Path: "embedded model", Err: err}
	}
	return &Model{b: b, name: "embedded model"}, nil
}

// Load reads a model file (written by heed train or heed lm) and checks it
// completely.
func Load(path string) (*Model, error) {
	b, err := model.LoadFile(path)
	if err != nil {
		return nil, &Error{Op: "load model", Path: path, Err: err}
	}
	return &Model{b: b, name: path}, nil
}

// LoadBytes reads a model file held in memory, such as one embedded with
// go:embed.
func LoadBytes(data []byte) (*Model, error) {
	b, err := model.LoadBytes(data)
	if err != nil {
		return nil, &Error{Op: "load model", Err: err}
	}
	return &Model{b: b, name: "model"}, nil
}

// Bundle returns the underlying network and metadata, for what this
// package does not wrap (package model). Treat it as read-only.
func (m *Model) Bundle() *model.Bundle { return m.b }

// Error is the error of every function of this package: the operation, the
// file when there is one, and the cause, which Unwrap returns for errors.Is
// and errors.As.
type Error struct {
	Op   string // "load model", "read audio", "transcribe", "align", "stream" or "write"
	Path string // the file concerned; "" when none
	Err  error
}

func (e *Error) Error() string {
	// The causes from package audio and model.LoadFile already name the
	// file.
	if e.Path == "" || strings.Contains(e.Err.Error(), e.Path) {
		return "heed: " + e.Op + ": " + e.Err.Error()
	}
	return "heed: " + e.Op + ": " + e.Path + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// ErrNoWords is the cause of an Align error when the transcript has no
// words to place.
var ErrNoWords = errors.New("the transcript has no words")

// LoadAudio reads a WAV, MP3 or FLAC file (or standard input for "-") as
// mono samples at SampleRate. Problems with the file are
// *audio.FormatError or *audio.UnsupportedError inside the returned
// *Error.
func LoadAudio(path string) ([]float32, error) {
	c, err := audio.Load16k(path)
	if err != nil {
		return nil, &Error{Op: "read audio", Path: path, Err: err}
	}
	return c.Samples, nil
}

// ReadAudio reads a WAV, MP3 or FLAC stream from r to its end as mono
// samples at SampleRate; name labels errors.
func ReadAudio(r io.Reader, name string) ([]float32, error) {
	c, err := audio.Decode(r, name)
	if err != nil {
		return nil, &Error{Op: "read audio", Path: name, Err: err}
	}
	return audio.Resample(c.Samples, c.Rate, SampleRate), nil
}

// Word is one word with its times in seconds, confidence in [0, 1], status
// ("aligned", or "interpolated" when the model could not place it) and
// characters. It is align.Word.
type Word = align.Word

// TranscribeOptions chooses how Transcribe searches. The zero value is
// heed's default: a beam of 16 with the model's language model, text only.
type TranscribeOptions struct {
	// Beam is the beam width; 0 means the default (16), 1 greedy decoding
	// (about ten times faster, more errors).
	Beam int
	// NoLM leaves the model's character language model out of the search.
	NoLM bool
	// Words asks for the time of every recognized word too (one alignment
	// pass more).
	Words bool
}

func (o TranscribeOptions) decode() model.DecodeOptions {
	d := model.DefaultDecodeOptions()
	if o.Beam > 0 {
		d.Beam = o.Beam
	}
	if o.NoLM {
		d.LMWeight = 0
	}
	return d
}

// Transcript is what Transcribe found: the text in lowercase spoken form
// (a-z, apostrophe, single spaces) and, when asked for, its timed words.
type Transcript struct {
	File     string  // the file transcribed; "" for samples
	Duration float64 // seconds of audio
	Text     string
	Words    []Word // nil unless TranscribeOptions.Words
}

// Transcribe recognizes the speech in samples (mono, SampleRate). Audio
// longer than 12 s is split at pauses and recognized piece by piece; ctx is
// checked before each piece.
func (m *Model) Transcribe(ctx context.Context, samples []float32, opt TranscribeOptions) (*Transcript, error) {
	t, err := m.transcribe(ctx, samples, opt)
	if err != nil {
		return nil, &Error{Op: "transcribe", Err: err}
	}
	return t, nil
}

// TranscribeFile reads a WAV, MP3 or FLAC file with LoadAudio and
// transcribes it.
func (m *Model) TranscribeFile(ctx context.Context, path string, opt TranscribeOptions) (*Transcript, error) {
	samples, err := LoadAudio(path)
	if err != nil {
		return nil, err
	}
	t, err := m.transcribe(ctx, samples, opt)
	if err != nil {
		return nil, &Error{Op: "transcribe", Path: path, Err: err}
	}
	t.File = path
	return t, nil
}

func (m *Model) transcribe(ctx context.Context, samples []float32, opt TranscribeOptions) (*Transcript, error) {
	dec := opt.decode()
	if dec.LMWeight != 0 {
		if _, err := m.b.LanguageModel(); err != nil {
			return nil, fmt.Errorf("%s: %w", m.name, err)
		}
	}
	a := m.aligner(ctx)
	text, words, err := a.Transcribe(samples, dec, opt.Words)
	if err != nil {
		return nil, err
	}
	return &Transcript{Duration: seconds(len(samples)), Text: text, Words: words}, nil
}

// aligner returns an aligner with heed's defaults that stops when ctx is
// done.
func (m *Model) aligner(ctx context.Context) *align.Aligner {
	a := align.NewAligner(m.b)
	a.Check = ctx.Err
	return a
}

func seconds(n int) float64 { return float64(n) / SampleRate }

// AlignOptions tunes Align. The zero value is heed's default.
type AlignOptions struct {
	// CTCWeight weighs the CTC head's frame posteriors against the
	// attention in the path score: 0 means the default (0.5), a negative
	// value attention alone.
	CTCWeight float64
	// NoVariants aligns every token in its most common reading ("2019":
	// "twenty nineteen") instead of letting the audio choose among its
	// readings ("two thousand nineteen"); Word.Spoken gives the reading
	// aligned.
	NoVariants bool
}

// Alignment is a transcript timed against its audio: one Word per
// whitespace-separated token of the transcript, in order and spelled as
// given.
type Alignment struct {
	File     string  // written into exports that name the audio (JSON, CTM); may be ""
	Duration float64 // seconds of audio
	Words    []Word
	// AlignedShare is the share (0..1) of the words with a spoken form
	// whose status is "aligned"; a low share means the transcript does not
	// match the audio or the audio holds no speech.
	AlignedShare *float64
}

// Align times every token of text against samples (mono, SampleRate).
// Written text is fine: numbers, currency, dates and common abbreviations
// are read as spoken. Audio longer than 12 s is aligned in pieces split at
// pauses, in bounded memory; ctx is checked before each piece.
func (m *Model) Align(ctx context.Context, samples []float32, text string, opt AlignOptions) (*Alignment, error) {
	txt, err := normalize.Normalize(text)
	if err == nil && len(txt.Tokens) == 0 {
		err = ErrNoWords
	}
	if err != nil {
		return nil, &Error{Op: "align", Err: err}
	}
	a := m.aligner(ctx)
	switch {
	case opt.CTCWeight > 0:
		a.CTCWeight = opt.CTCWeight
	case opt.CTCWeight < 0:
		a.CTCWeight = 0
	}
	a.Variants = !opt.NoVariants
	words, _, err := a.Align(samples, text)
	if err != nil {
		return nil, &Error{Op: "align", Err: err}
	}
	placed, spoken := align.AlignedShare(words)
	share := 1.0
	if spoken > 0 {
		share = float64(placed) / float64(spoken)
	}
	return &Alignment{Duration: seconds(len(samples)), Words: words, AlignedShare: &share}, nil
}

// Formats returns the names of the export formats: audacity, ctm, json,
// srt, textgrid, tsv, vtt.
func Formats() []string { return align.FormatNames() }

// Write writes a in the named format (one of Formats) to w.
func (a *Alignment) Write(w io.Writer, format string) error {
	f, ok := align.Formats[format]
	if !ok {
		return &Error{Op: "write", Err: fmt.Errorf("unknown format %q (want one of %s)", format, strings.Join(Formats(), ", "))}
	}
	r := align.Result(*a)
	if err := f.Write(w, &r); err != nil {
		return &Error{Op: "write", Err: err}
	}
	return nil
}

// WriteFile writes a to path in the named format, atomically: into a
// temporary file renamed over path, so an existing file survives a failure.
func (a *Alignment) WriteFile(path, format string) error {
	r := align.Result(*a)
	if err := align.WriteFile(path, format, &r); err != nil {
		return &Error{Op: "write", Path: path, Err: err}
	}
	return nil
}
