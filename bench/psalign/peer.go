package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/heed-asr/heed/align"
)

// frameRate is pocketsphinx's frame rate in frames per second (its -frate
// default, which psalign does not change): word times are frame indices
// divided by it.
const frameRate = 100

// Failure kinds of one utterance, the keys of uttResult.fail.
const (
	failOOV     = "oov"      // a transcript word is missing from the dictionary
	failNoAlign = "no-align" // pocketsphinx gave no complete word sequence
	failError   = "error"    // pocketsphinx exited with an error or timed out
)

// peer runs pocketsphinx_continuous as a forced aligner: one process per
// utterance, with a JSGF grammar that accepts exactly the transcript
// (optional silences and fillers between words are added by pocketsphinx
// itself, -fsgusefiller).
type peer struct {
	bin  string          // path of pocketsphinx_continuous
	hmm  string          // acoustic model directory (-hmm)
	dict string          // pronunciation dictionary (-dict)
	lex  map[string]bool // words of dict, lowercase, without "(n)" variants
	// beam, when > 0, replaces the default beams (-beam, -pbeam, -wbeam)
	// of the first try.
	beam float64
	// retryBeam, when > 0, is the beam (-beam, -pbeam, -wbeam) of a second
	// try for an utterance the first try could not align.
	retryBeam float64
	timeout   time.Duration // per pocketsphinx run; 0 means none
	tmp       string        // directory for per-utterance grammar and audio files
}

// psWord is one word of pocketsphinx's segmentation.
type psWord struct {
	word       string  // as printed, with a "(n)" variant suffix removed
	start, end float64 // seconds; end is exclusive (one frame past the last)
}

// uttResult is what aligning one utterance produced.
type uttResult struct {
	words    []align.Word  // one per transcript word; nil when it failed
	fail     string        // failure kind (failOOV, ...), "" on success
	detail   string        // what went wrong, for -v
	retried  bool          // the default beams failed, the retry beam was used
	nonfinal bool          // accepted, but pocketsphinx logged that the final grammar state was not reached
	cpu      time.Duration // user+system time of the pocketsphinx processes
	ran      bool          // pocketsphinx was run (false for OOV skips)
}

// readLexicon returns the words of a CMU-format pronunciation dictionary
// ("word PH ON ES" per line, alternates written "word(2)"), lowercased.
func readLexicon(path string) (map[string]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("psalign: dictionary: %w", err)
	}
	defer f.Close()
	lex := make(map[string]bool, 1<<17)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		w, _, _ := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		if w == "" || strings.HasPrefix(w, ";;") {
			continue
		}
		lex[strings.ToLower(baseWord(w))] = true
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("psalign: dictionary %s: %w", path, err)
	}
	if len(lex) == 0 {
		return nil, fmt.Errorf("psalign: dictionary %s holds no words", path)
	}
	return lex, nil
}

// baseWord strips a pronunciation-variant suffix: "read(2)" -> "read".
func baseWord(w string) string {
	if i := strings.LastIndexByte(w, '('); i > 0 && strings.HasSuffix(w, ")") {
		if _, err := strconv.Atoi(w[i+1 : len(w)-1]); err == nil {
			return w[:i]
		}
	}
	return w
}

// oov returns the words of words missing from lex, each once, in order.
func oov(lex map[string]bool, words []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range words {
		if !lex[w] && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// grammar returns a JSGF grammar whose only sentence is words in order.
// Words are written unquoted: sphinxbase keeps the quotes of a quoted token
// as part of the word, and a manifest transcript holds only a-z and the
// apostrophe, which need none.
func grammar(words []string) string {
	return "#JSGF V1.0;\ngrammar heed;\npublic <utt> = " + strings.Join(words, " ") + ";\n"
}

// rawPCM returns samples (in [-1, 1)) as headerless 16-bit little-endian
// PCM, rounded and clipped.
func rawPCM(samples []float32) []byte {
	b := make([]byte, 2*len(samples))
	for i, s := range samples {
		v := math.Round(float64(s) * 32768)
		v = max(-32768, min(32767, v))
		binary.LittleEndian.PutUint16(b[2*i:], uint16(int16(v)))
	}
	return b
}

// parseTimes reads the word times that pocketsphinx_continuous -time yes
// prints: after each hypothesis line, one line "WORD START END CONF" per
// segment, START and END in seconds (frame index / frame rate, END being
// the last frame, inclusive). Silence and filler segments (<s>, </s>,
// <sil>, [NOISE], ++GARBAGE++, ...) are dropped and "(n)" variant suffixes
// removed. The returned end is one frame past the printed one, so that
// adjacent words share a boundary. Lines of other shapes (the hypothesis
// text) are skipped.
func parseTimes(out []byte) []psWord {
	var words []psWord
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 {
			continue
		}
		start, err1 := strconv.ParseFloat(f[1], 64)
		end, err2 := strconv.ParseFloat(f[2], 64)
		_, err3 := strconv.ParseFloat(f[3], 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		if isFiller(f[0]) {
			continue
		}
		// The printed times are rounded to ms; go back to frames.
		sf := math.Round(start * frameRate)
		ef := math.Round(end * frameRate)
		words = append(words, psWord{word: baseWord(f[0]), start: sf / frameRate, end: (ef + 1) / frameRate})
	}
	return words
}

// isFiller reports whether a pocketsphinx segment word is silence, a
// sentence marker or a noise filler rather than a word of the transcript.
func isFiller(w string) bool {
	return strings.HasPrefix(w, "<") || strings.HasPrefix(w, "[") || strings.HasPrefix(w, "+")
}

// match pairs pocketsphinx's words with the transcript. It returns nil
// unless they are the same sequence.
func match(transcript []string, got []psWord) []align.Word {
	if len(got) != len(transcript) {
		return nil
	}
	out := make([]align.Word, len(got))
	for i, w := range got {
		if w.word != transcript[i] {
			return nil
		}
		out[i] = align.Word{Word: transcript[i], Start: w.start, End: w.end, Confidence: 1, Status: align.StatusAligned}
	}
	return out
}

// align aligns one utterance: samples at 16 kHz and its transcript words.
// name keeps the temporary files of concurrent calls apart. Failures of
// pocketsphinx are reported in the result; the error is only for problems
// of psalign's own (temporary files, a cancelled ctx).
func (p *peer) align(ctx context.Context, name string, samples []float32, words []string) (uttResult, error) {
	var r uttResult
	if miss := oov(p.lex, words); len(miss) > 0 {
		r.fail, r.detail = failOOV, "not in the dictionary: "+strings.Join(miss, " ")
		return r, nil
	}
	gram := filepath.Join(p.tmp, name+".jsgf")
	raw := filepath.Join(p.tmp, name+".raw") // not .wav: pocketsphinx reads it as headerless PCM
	if err := os.WriteFile(gram, []byte(grammar(words)), 0o644); err != nil {
		return r, fmt.Errorf("psalign: %w", err)
	}
	defer os.Remove(gram)
	if err := os.WriteFile(raw, rawPCM(samples), 0o644); err != nil {
		return r, fmt.Errorf("psalign: %w", err)
	}
	defer os.Remove(raw)

	r.ran = true
	beams := []float64{p.beam}
	if p.retryBeam > 0 {
		beams = append(beams, p.retryBeam)
	}
	for try, beam := range beams {
		out, log, cpu, err := p.run(ctx, gram, raw, beam)
		r.cpu += cpu
		if ctx.Err() != nil {
			return r, ctx.Err()
		}
		r.retried = try > 0
		if err != nil {
			r.fail, r.detail = failError, fmt.Sprintf("%v: %s", err, lastError(log))
			continue
		}
		if w := match(words, parseTimes(out)); w != nil {
			r.words, r.fail, r.detail = w, "", ""
			r.nonfinal = bytes.Contains(log, []byte("does not match the grammar"))
			return r, nil
		}
		r.fail, r.detail = failNoAlign, lastError(log)
	}
	return r, nil
}

// run runs pocketsphinx_continuous once on a raw 16 kHz file with a
// grammar; beam > 0 widens -beam, -pbeam and -wbeam to it. It returns
// stdout, the log (stderr) and the CPU time used.
func (p *peer) run(ctx context.Context, gram, raw string, beam float64) (out, log []byte, cpu time.Duration, err error) {
	if p.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, p.timeout)
		defer cancel()
	}
	args := []string{
		"-hmm", p.hmm, "-dict", p.dict,
		"-jsgf", gram, "-infile", raw,
		"-samprate", "16000", "-time", "yes",
		// Without this the voice-activity detector drops silent frames
		// and splits the file into utterances, each decoded against the
		// whole grammar.
		"-remove_silence", "no",
	}
	if beam > 0 {
		b := strconv.FormatFloat(beam, 'g', -1, 64)
		args = append(args, "-beam", b, "-pbeam", b, "-wbeam", b)
	}
	cmd := exec.CommandContext(ctx, p.bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if cmd.ProcessState != nil {
		cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("timed out after %v", p.timeout)
	}
	return stdout.Bytes(), stderr.Bytes(), cpu, err
}

// lastError returns the last "ERROR:" line of a pocketsphinx log, or a
// placeholder when there is none.
func lastError(log []byte) string {
	last := "no error in the log"
	for _, l := range strings.Split(string(log), "\n") {
		if strings.HasPrefix(l, "ERROR:") {
			last = strings.TrimSpace(l)
		}
	}
	return last
}
