package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/heed-asr/heed/audio"
	"github.com/heed-asr/heed/corpus"
	"github.com/heed-asr/heed/internal/par"
)

// Real-speech import: heed-corpus -out DIR -speechocean D -kathleen D
// -wakeword D reads local copies of those corpora (as their upstream
// repositories lay them out) and writes
//
//	DIR/real_train.jsonl     every training clip, clean, plus -real-copies
//	                         augmented copies of each (speed 0.85-1.15 always,
//	                         then reverb, noise, babble, telephone, gain)
//	DIR/so762_dev.jsonl      speechocean762 speakers held out (-so762-dev
//	                         speakers of its test split, none reserved)
//	DIR/kathleen_dev.jsonl   Kathleen's held-out ARCTIC prompts (whole
//	                         prompts: every take of a held-out prompt)
//
// and, from -mfa D, -precise D, -audiomnist D, -commonvoice D, -vctk D,
// -librispeech D and -an4 D, manifests
// of their own (so that a training run can weigh them apart):
//
//	DIR/mfa_train.jsonl         the Montreal Forced Aligner's English test
//	                            recordings (corpus.ReadMFA), all training
//	DIR/precise_train.jsonl     Mycroft Precise-Community-Data's public-domain
//	                            English recordings (corpus.ReadPrecise), all
//	                            training
//	DIR/audiomnist_train.jsonl  AudioMNIST's spoken digits
//	DIR/audiomnist_dev.jsonl    AudioMNIST's held-out speakers (-audiomnist-dev
//	                            of them, by a fixed hash order), clean only
//	DIR/commonvoice_train.jsonl Common Voice's validated English clips
//	                            (corpus.ReadCommonVoice; MP3, decoded by ffmpeg)
//	DIR/commonvoice_dev.jsonl   its held-out sentences (-commonvoice-dev of
//	                            them by a fixed hash, every take of each),
//	                            clean only; Common Voice 1 names no speakers,
//	                            so a voice may be in both sets
//	DIR/vctk_train.jsonl        the CSTR VCTK Corpus (corpus.ReadVCTK)
//	DIR/vctk_dev.jsonl          its held-out speakers (-vctk-dev of them, by
//	                            a fixed hash order), clean only
//	DIR/librispeech_train.jsonl LibriSpeech's train-* subsets
//	                            (corpus.ReadLibriSpeech)
//	DIR/librispeech_dev.jsonl   its dev-* and test-* subsets, and
//	                            -librispeech-dev speakers of the train-*
//	                            subsets by a fixed hash order, clean only
//	DIR/an4_train.jsonl         CMU's AN4 census database, its training
//	                            speakers (corpus.ReadAN4; NIST SPHERE, read
//	                            by audio.DecodeSphere)
//	DIR/an4_dev.jsonl           its test speakers, clean only
//
// each training clip with -real-copies augmented copies too, and the manifests
// of a group written only when one of its flags is given. The audio is 16 kHz
// 16-bit WAV under DIR/wav/real/SOURCE/. Transcripts go through
// the normaliser heed align uses (align/normalize); a clip whose text has a
// token that cannot be spoken (nothing in a-z after normalising although it
// has letters or digits), markup ("<cutoff-forced>", "[laughter]") or, in
// the aligner's recordings, a hesitation heed's other transcripts never
// write ("uh", "um") is logged and skipped, never guessed, and so is a
// Common Voice clip longer than cvMaxSeconds (the longest are mostly
// silence around a sentence). The speechocean762 speakers reserved for
// independent evaluation are never read (corpus.ReservedSO762).

// realClip is a clip planned for import: where it goes and how.
type realClip struct {
	corpus.RealClip
	set  string // a set of realSets: "train", "so762_dev", "mfa_train", ...
	text string // spoken form
}

// realSets lists the sets of the real-speech import with their manifests,
// in the order the summary prints them.
var realSets = []struct{ set, file string }{
	{"train", "real_train.jsonl"},
	{"so762_dev", "so762_dev.jsonl"},
	{"kathleen_dev", "kathleen_dev.jsonl"},
	{"mfa_train", "mfa_train.jsonl"},
	{"precise_train", "precise_train.jsonl"},
	{"audiomnist_train", "audiomnist_train.jsonl"},
	{"audiomnist_dev", "audiomnist_dev.jsonl"},
	{"commonvoice_train", "commonvoice_train.jsonl"},
	{"commonvoice_dev", "commonvoice_dev.jsonl"},
	{"vctk_train", "vctk_train.jsonl"},
	{"vctk_dev", "vctk_dev.jsonl"},
	{"librispeech_train", "librispeech_train.jsonl"},
	{"librispeech_dev", "librispeech_dev.jsonl"},
	{"an4_train", "an4_train.jsonl"},
	{"an4_dev", "an4_dev.jsonl"},
}

// cvMaxSeconds is the longest Common Voice clip imported.
const cvMaxSeconds = 20

// wantedSets reports which sets' manifests an import with options o writes.
func wantedSets(o *options) map[string]bool {
	w := map[string]bool{}
	if o.speechocean != "" || o.kathleen != "" || o.wakeword != "" {
		w["train"], w["so762_dev"], w["kathleen_dev"] = true, true, true
	}
	if o.mfa != "" {
		w["mfa_train"] = true
	}
	if o.precise != "" {
		w["precise_train"] = true
	}
	if o.audiomnist != "" {
		w["audiomnist_train"], w["audiomnist_dev"] = true, true
	}
	if o.commonvoice != "" {
		w["commonvoice_train"], w["commonvoice_dev"] = true, true
	}
	if o.vctk != "" {
		w["vctk_train"], w["vctk_dev"] = true, true
	}
	if o.libri != "" {
		w["librispeech_train"], w["librispeech_dev"] = true, true
	}
	if o.an4 != "" {
		w["an4_train"], w["an4_dev"] = true, true
	}
	return w
}

// isTrainSet reports whether clips of set get augmented copies.
func isTrainSet(set string) bool { return set == "train" || strings.HasSuffix(set, "_train") }

// hesitations are the fillers that the aligner's transcripts write and
// heed's other training transcripts never do.
var hesitations = map[string]bool{"uh": true, "um": true, "hm": true, "mm": true, "er": true, "ah": true, "yknow": true}

// usableText says why a clip's written transcript cannot be used as it
// stands, or returns nil: markup in any source, hesitations in the
// aligner's recordings.
func usableText(c corpus.RealClip) error {
	if i := strings.IndexAny(c.Text, "<>[]{}"); i >= 0 {
		return fmt.Errorf("transcript has markup (%q)", c.Text[i:i+1])
	}
	if c.Source == "mfa" {
		for _, w := range strings.Fields(strings.ToLower(c.Text)) {
			if w = strings.Trim(w, "'\".,;:!?-"); hesitations[w] {
				return fmt.Errorf("transcript has the hesitation %q", w)
			}
		}
	}
	return nil
}

// heldOut reports whether key falls in the held-out share frac, by a hash
// independent of the seed (so that dev sets never move).
func heldOut(key string, frac float64) bool {
	return float64(fnvHash(key)%10000) < frac*10000
}

// planReal lists the sources and assigns every usable clip to a set.
func planReal(o *options, log io.Writer) ([]realClip, error) {
	var all []corpus.RealClip
	if o.speechocean != "" {
		c, err := corpus.ReadSpeechOcean(o.speechocean)
		if err != nil {
			return nil, err
		}
		all = append(all, c...)
	}
	if o.kathleen != "" {
		c, err := corpus.ReadKathleen(o.kathleen)
		if err != nil {
			return nil, err
		}
		all = append(all, c...)
	}
	if o.wakeword != "" {
		c, err := corpus.ReadWakeWord(o.wakeword)
		if err != nil {
			return nil, err
		}
		all = append(all, c...)
	}
	for _, src := range []struct {
		dir  string
		read func(string) ([]corpus.RealClip, error)
	}{{o.mfa, corpus.ReadMFA}, {o.precise, corpus.ReadPrecise}, {o.audiomnist, corpus.ReadAudioMNIST},
		{o.commonvoice, corpus.ReadCommonVoice}, {o.vctk, corpus.ReadVCTK}, {o.libri, corpus.ReadLibriSpeech},
		{o.an4, corpus.ReadAN4}} {
		if src.dir == "" {
			continue
		}
		c, err := src.read(src.dir)
		if err != nil {
			return nil, err
		}
		all = append(all, c...)
	}
	devSpk := so762DevSpeakers(all, o.so762Dev)
	amnistDev := hashedSpeakers(all, o.amnistDev, func(c corpus.RealClip) bool { return c.Source == "audiomnist" })
	vctkDev := hashedSpeakers(all, o.vctkDev, func(c corpus.RealClip) bool { return c.Source == "vctk" })
	libriAsTrain := strings.Split(o.libriTrain, ",")
	libriDev := hashedSpeakers(all, o.libriDev, func(c corpus.RealClip) bool {
		return c.Source == "librispeech" && !libriDevSplit(c.Split, libriAsTrain)
	})
	var out []realClip
	for _, c := range all {
		if err := usableText(c); err != nil {
			fmt.Fprintf(log, "heed-corpus: %s %s: skipped: %v\n", c.Source, c.ID, err)
			continue
		}
		s, err := corpus.SpokenText(c.Text)
		if err != nil {
			fmt.Fprintf(log, "heed-corpus: %s %s: skipped: %v\n", c.Source, c.ID, err)
			continue
		}
		set := "train"
		switch {
		case c.Source == "so762" && devSpk[c.Speaker]:
			set = "so762_dev"
		case c.Source == "kathleen" && heldOut(c.Prompt, o.kathleenDev):
			set = "kathleen_dev"
		case c.Source == "audiomnist" && amnistDev[c.Speaker]:
			set = "audiomnist_dev"
		case c.Source == "commonvoice" && heldOut("cv:"+c.Prompt, o.cvDev):
			set = "commonvoice_dev"
		case c.Source == "vctk" && vctkDev[c.Speaker]:
			set = "vctk_dev"
		case c.Source == "librispeech" && (libriDevSplit(c.Split, libriAsTrain) || libriDev[c.Speaker]):
			set = "librispeech_dev"
		case c.Source == "an4" && c.Split == "test":
			set = "an4_dev"
		case c.Source == "mfa" || c.Source == "precise" || c.Source == "audiomnist" || c.Source == "commonvoice" || c.Source == "vctk" || c.Source == "librispeech" || c.Source == "an4":
			set = c.Source + "_train"
		}
		out = append(out, realClip{RealClip: c, set: set, text: s})
	}
	return out, nil
}

// libriDevSplit reports whether a LibriSpeech subset is one of its dev or
// test sets, whose speakers no train-* subset has, and not among asTrain
// (the subsets of heed-corpus -librispeech-train).
func libriDevSplit(split string, asTrain []string) bool {
	if slices.Contains(asTrain, split) {
		return false
	}
	return strings.HasPrefix(split, "dev-") || strings.HasPrefix(split, "test-")
}

// so762DevSpeakers picks n speakers of speechocean762's test split (the
// reserved ones are already gone) by a fixed hash order.
func so762DevSpeakers(clips []corpus.RealClip, n int) map[string]bool {
	return hashedSpeakers(clips, n, func(c corpus.RealClip) bool { return c.Source == "so762" && c.Split == "test" })
}

// hashedSpeakers picks n speakers of the clips that keep holds for, by a
// fixed hash order (the same for every seed, so that a dev set never moves).
func hashedSpeakers(clips []corpus.RealClip, n int, keep func(corpus.RealClip) bool) map[string]bool {
	seen := map[string]bool{}
	var spk []string
	for _, c := range clips {
		if keep(c) && c.Speaker != "" && !seen[c.Speaker] {
			seen[c.Speaker] = true
			spk = append(spk, c.Speaker)
		}
	}
	sort.Slice(spk, func(i, j int) bool { return fnvHash("dev:"+spk[i]) < fnvHash("dev:"+spk[j]) })
	dev := map[string]bool{}
	for _, s := range spk[:min(n, len(spk))] {
		dev[s] = true
	}
	return dev
}

// audioLoader reads the clips' audio.
type audioLoader struct {
	ffmpeg  string
	decoded map[string]string // MP3 path -> its 16 kHz WAV decoded by predecode
}

// isMP3 reports whether path names an MP3 file.
func isMP3(path string) bool { return strings.EqualFold(filepath.Ext(path), ".mp3") }

// mp3Batch is how many MP3s one ffmpeg process decodes: starting ffmpeg
// costs far more than decoding a sentence.
const mp3Batch = 64

// predecode decodes the MP3s among paths into 16 kHz mono 16-bit WAV files
// in dir, mp3Batch files per ffmpeg run, jobs runs at a time. A batch that
// fails is retried in halves (decodeSplitting); a file that fails alone is
// left out of the map, so that load reports its error.
func (l *audioLoader) predecode(ctx context.Context, paths []string, dir string, jobs int) error {
	var mp3s []string
	for _, p := range paths {
		if isMP3(p) {
			mp3s = append(mp3s, p)
		}
	}
	if len(mp3s) == 0 {
		return nil
	}
	l.decoded = map[string]string{}
	var mu sync.Mutex
	nb := (len(mp3s) + mp3Batch - 1) / mp3Batch
	return par.ForEach(ctx, nb, jobs, func(b int) error {
		in := mp3s[b*mp3Batch : min((b+1)*mp3Batch, len(mp3s))]
		outs := make([]string, len(in))
		for i := range in {
			outs[i] = filepath.Join(dir, fmt.Sprintf("%06d.wav", b*mp3Batch+i))
		}
		done := map[string]string{}
		l.decodeSplitting(ctx, in, outs, done)
		mu.Lock()
		for k, v := range done {
			l.decoded[k] = v
		}
		mu.Unlock()
		return ctx.Err()
	})
}

// decodeSplitting decodes in to outs with one ffmpeg run, or, when that
// fails, each half the same way, down to single files; what was decoded
// goes into done.
func (l *audioLoader) decodeSplitting(ctx context.Context, in, outs []string, done map[string]string) {
	if err := l.ffmpegToWAV(ctx, in, outs); err == nil {
		for i := range in {
			done[in[i]] = outs[i]
		}
		return
	}
	if len(in) == 1 || ctx.Err() != nil {
		return
	}
	h := len(in) / 2
	l.decodeSplitting(ctx, in[:h], outs[:h], done)
	l.decodeSplitting(ctx, in[h:], outs[h:], done)
}

// ffmpegToWAV decodes the files in to the WAV files outs with one ffmpeg
// run.
func (l *audioLoader) ffmpegToWAV(ctx context.Context, in, outs []string) error {
	args := []string{"-nostdin", "-v", "error", "-y"}
	for _, p := range in {
		args = append(args, "-i", p)
	}
	for i, o := range outs {
		args = append(args, "-map", fmt.Sprintf("%d:a:0", i), "-ac", "1", "-ar", fmt.Sprint(rate), "-c:a", "pcm_s16le", "-f", "wav", o)
	}
	var errb bytes.Buffer
	cmd := exec.CommandContext(ctx, l.ffmpeg, args...)
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("ffmpeg: %v: %s", err, strings.TrimSpace(errb.String()))
	}
	return nil
}

// load reads a clip's audio at 16 kHz mono: WAV directly, FLAC through the
// flac(1) decoder (Debian package flac), MP3 from what predecode wrote or
// else through ffmpeg (Debian package ffmpeg).
func (l *audioLoader) load(path string) ([]float32, error) {
	if isMP3(path) {
		if w, ok := l.decoded[path]; ok {
			c, err := audio.Load16k(w)
			if err != nil {
				return nil, err
			}
			return c.Samples, nil
		}
		return decodeWith(context.Background(), exec.Command(l.ffmpeg, "-nostdin", "-v", "error", "-i", path,
			"-ac", "1", "-ar", fmt.Sprint(rate), "-f", "f32le", "-"))
	}
	return loadRealAudio(path)
}

// loadRealAudio reads a WAV, FLAC or NIST SPHERE clip at 16 kHz mono: WAV
// and SPHERE (.sph) directly, FLAC through the flac(1) decoder (Debian
// package flac). A SPHERE file whose sample_checksum does not match its
// samples is refused (damaged, or its byte order mislabelled).
func loadRealAudio(path string) ([]float32, error) {
	if strings.EqualFold(filepath.Ext(path), ".sph") {
		c, err := audio.ReadSphereFile(path)
		if err != nil {
			return nil, err
		}
		if len(c.Warnings) > 0 {
			return nil, errors.New(strings.Join(c.Warnings, "; "))
		}
		return audio.Resample(c.Samples, c.Rate, audio.TargetRate), nil
	}
	if strings.EqualFold(filepath.Ext(path), ".flac") {
		var out, errb bytes.Buffer
		cmd := exec.Command("flac", "--decode", "--stdout", "--silent", path)
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("%s: flac: %v: %s", path, err, strings.TrimSpace(errb.String()))
		}
		c, err := audio.Decode(&out, path)
		if err != nil {
			return nil, err
		}
		return audio.Resample(c.Samples, c.Rate, audio.TargetRate), nil
	}
	c, err := audio.Load16k(path)
	if err != nil {
		return nil, err
	}
	return c.Samples, nil
}

// speakerAug draws the augmentation of one copy: a speed change always
// (tempo, pitch and formants together, 0.85-1.15), then the channel
// augmentations of corpus.RandomAug (reverb, noise or babble, telephone
// band, gain) with their usual odds; babble only when there are babble
// sources.
func speakerAug(rng *rand.Rand, babble bool) corpus.AugSpec {
	a := corpus.RandomAug(rng, babble)
	f := 0.85 + 0.3*rng.Float64()
	a.Speed = float64(int(f*100+0.5)) / 100
	if a.Speed == 1 {
		a.Speed = 1.01
	}
	return a
}

// importReal writes the real-speech manifests and audio.
func importReal(ctx context.Context, o *options, stderr io.Writer) error {
	start := time.Now()
	clips, err := planReal(o, stderr)
	if err != nil {
		return err
	}
	out, err := filepath.Abs(o.out)
	if err != nil {
		return err
	}
	made := map[string]bool{}
	for _, c := range clips {
		if !made[c.Source] {
			made[c.Source] = true
			if err := os.MkdirAll(filepath.Join(out, "wav", "real", c.Source), 0o755); err != nil {
				return err
			}
		}
	}
	// MP3s (Common Voice) are decoded first, many to one ffmpeg run, into a
	// scratch folder removed at the end.
	ld := &audioLoader{ffmpeg: o.ffmpeg}
	var paths []string
	for _, c := range clips {
		if isMP3(c.Path) {
			paths = append(paths, c.Path)
		}
	}
	if len(paths) > 0 {
		scratch, err := os.MkdirTemp(out, "mp3-decoded-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(scratch)
		if err := ld.predecode(ctx, paths, scratch, o.jobs); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "heed-corpus: decoded %d of %d MP3s, %s\n", len(ld.decoded), len(paths), time.Since(start).Round(time.Second))
	}
	// Babble comes from training clips of other speakers: the first 24
	// training clips in a fixed hash order, leaving out the sources of
	// single words.
	var babble [][]float32
	var bcands []realClip
	for _, c := range clips {
		if isTrainSet(c.set) && c.Source != "wakeword" && c.Source != "precise" && c.Source != "audiomnist" {
			bcands = append(bcands, c)
		}
	}
	sort.Slice(bcands, func(i, j int) bool { return fnvHash("babble:"+bcands[i].ID) < fnvHash("babble:"+bcands[j].ID) })
	for _, c := range bcands {
		if len(babble) == 24 {
			break
		}
		if x, err := ld.load(c.Path); err == nil { // a clip that cannot be read is logged below
			babble = append(babble, x)
		}
	}
	results := make([][]corpus.Utterance, len(clips))
	var mu sync.Mutex
	done := 0
	err = par.ForEach(ctx, len(clips), o.jobs, func(i int) error {
		c := clips[i]
		x, err := ld.load(c.Path)
		if err == nil && c.Source == "commonvoice" && len(x) > cvMaxSeconds*rate {
			err = fmt.Errorf("%.1f s long, over %d s", float64(len(x))/rate, cvMaxSeconds)
		}
		if err != nil {
			mu.Lock()
			fmt.Fprintf(stderr, "heed-corpus: %s %s: skipped: %v\n", c.Source, c.ID, err)
			mu.Unlock()
			return nil
		}
		name := strings.ReplaceAll(c.ID, "/", "_")
		name = strings.ReplaceAll(name, " ", "-")
		base := filepath.Join(out, "wav", "real", c.Source, name)
		u := corpus.Utterance{Audio: base + ".wav", Text: c.text, Source: c.Source, Speaker: c.Speaker,
			Duration: roundSec(float64(len(x)) / rate)}
		if err := writeWAV(u.Audio, x); err != nil {
			return err
		}
		utts := []corpus.Utterance{u}
		if isTrainSet(c.set) {
			rng := rand.New(rand.NewPCG(o.seed, fnvHash(c.Source+"/"+c.ID)))
			for k := 1; k <= o.realCopies; k++ {
				a := speakerAug(rng, len(babble) > 0)
				y, _, used, err := a.Apply(x, rate, nil, babble)
				if err != nil {
					return fmt.Errorf("%s %s: %w", c.Source, c.ID, err)
				}
				v := u
				v.Audio = fmt.Sprintf("%s.a%d.wav", base, k)
				v.Aug = used.String()
				v.Duration = roundSec(float64(len(y)) / rate)
				if err := writeWAV(v.Audio, y); err != nil {
					return err
				}
				utts = append(utts, v)
			}
		}
		results[i] = utts
		mu.Lock()
		done++
		if done%500 == 0 || done == len(clips) {
			fmt.Fprintf(stderr, "heed-corpus: real speech %d/%d clips, %s\n", done, len(clips), time.Since(start).Round(time.Second))
		}
		mu.Unlock()
		return nil
	})
	if err != nil {
		return err
	}
	sets := map[string][]corpus.Utterance{}
	for i, utts := range results {
		sets[clips[i].set] = append(sets[clips[i].set], utts...)
	}
	want := wantedSets(o)
	var order []string
	for _, rs := range realSets {
		if !want[rs.set] {
			continue
		}
		if err := corpus.WriteManifest(filepath.Join(out, rs.file), sets[rs.set]); err != nil {
			return err
		}
		order = append(order, rs.set)
	}
	summarizeSets(stderr, sets, order)
	fmt.Fprintf(stderr, "heed-corpus: real speech imported in %s\n", time.Since(start).Round(time.Second))
	return nil
}

// summarizeSets prints clips, hours and speakers per set and source.
func summarizeSets(w io.Writer, sets map[string][]corpus.Utterance, order []string) {
	for _, set := range order {
		type agg struct {
			n, clean int
			secs     float64
			spk      map[string]bool
		}
		by := map[string]*agg{}
		var order []string
		for _, u := range sets[set] {
			a := by[u.Source]
			if a == nil {
				a = &agg{spk: map[string]bool{}}
				by[u.Source] = a
				order = append(order, u.Source)
			}
			a.n++
			a.secs += u.Duration
			if u.Aug == "" {
				a.clean++
			}
			if u.Speaker != "" {
				a.spk[u.Speaker] = true
			}
		}
		for _, src := range order {
			a := by[src]
			fmt.Fprintf(w, "heed-corpus: %-12s %-9s %5d clips (%d clean), %6.2f h, %d speakers\n", set, src, a.n, a.clean, a.secs/3600, len(a.spk))
		}
	}
}

func fnvHash(s string) uint64 { h := fnv.New64a(); h.Write([]byte(s)); return h.Sum64() }
