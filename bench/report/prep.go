package main

import (
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/heed-asr/heed/audio"
	"github.com/heed-asr/heed/corpus"
	"github.com/heed-asr/heed/internal/par"
)

// Voices of the synthesized dev sets: flite's 16 kHz English voices and
// festival's Debian voices (festvox-kallpc16k, festvox-kdlpc16k,
// festvox-us-slt-hts). flite's were in the training corpus (with other
// sentences); festival's never were.
var (
	fliteVoices    = []string{"kal16", "awb", "rms", "slt"}
	festivalVoices = []string{"kal_diphone", "ked_diphone", "cmu_us_slt_arctic_hts"}
)

// testSet is one source's utterances before noise is added: each either has
// audio already (Audio) or is synthesized from its text by synth.
type testSet struct {
	name  string
	utts  []corpus.Utterance
	synth func(u corpus.Utterance, wav string) error // nil: u.Audio exists
}

func prep(args []string) error {
	fs := flag.NewFlagSet("prep", flag.ContinueOnError)
	corpusDir := fs.String("corpus", "", "corpus directory (dev.jsonl, fsdd_test.jsonl)")
	realDir := fs.String("real", "", "directory of real speakers' *_dev.jsonl manifests (optional)")
	out := fs.String("out", "", "output directory")
	n := fs.Int("n", 30, "utterances per dev set")
	nFSDD := fs.Int("fsdd", 100, "FSDD test utterances")
	snrs := fs.String("snr", "20,10", "comma-separated SNRs in dB of the noisy copies")
	jobs := fs.Int("jobs", runtime.NumCPU(), "files made in parallel")
	dict := fs.String("dict", "", "pronouncing dictionary (pocketsphinx's cmudict-en-us.dict): also write OUT/dev_indict.jsonl, the dev utterances whose words it all has")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *corpusDir == "" || *out == "" {
		return fmt.Errorf("-corpus and -out are required")
	}
	var snr []float64
	for _, s := range strings.Split(*snrs, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("-snr: %v", err)
		}
		snr = append(snr, v)
	}
	dev, err := corpus.ReadManifest(filepath.Join(*corpusDir, "dev.jsonl"))
	if err != nil {
		return err
	}
	if len(dev) < 3**n {
		return fmt.Errorf("dev.jsonl has %d utterances; -n %d needs %d", len(dev), *n, 3**n)
	}
	fsdd, err := corpus.ReadManifest(filepath.Join(*corpusDir, "fsdd_test.jsonl"))
	if err != nil {
		return err
	}
	sets := []testSet{
		{name: "espeak", utts: dev[:*n]},
		{name: "flite", utts: voiced(dev[*n:2**n], "flite", fliteVoices), synth: flite},
		{name: "festival", utts: voiced(dev[2**n:3**n], "festival", festivalVoices), synth: festival},
	}
	if *realDir != "" {
		real, err := realSets(*realDir, *n)
		if err != nil {
			return err
		}
		sets = append(sets, real...)
	}
	sets = append(sets, testSet{name: "fsdd", utts: fsdd[:min(*nFSDD, len(fsdd))]})
	for _, s := range sets {
		if err := s.write(*out, snr, *jobs); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	if *dict != "" {
		return writeInDict(*dict, dev, filepath.Join(*out, "dev_indict.jsonl"))
	}
	return nil
}

// writeInDict writes the utterances of dev whose words are all in the
// dictionary at path (lines "WORD PHONES...", variants as "WORD(2)"), so
// that pocketsphinx can align recordings glued from them.
func writeInDict(path string, dev []corpus.Utterance, out string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lex := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		w, _, _ := strings.Cut(line, " ")
		w, _, _ = strings.Cut(w, "(")
		lex[w] = true
	}
	var keep []corpus.Utterance
	for _, u := range dev {
		ok := true
		for _, w := range strings.Fields(u.Text) {
			ok = ok && lex[w]
		}
		if ok {
			keep = append(keep, u)
		}
	}
	fmt.Fprintf(os.Stderr, "report prep: %d of %d dev utterances have every word in %s\n", len(keep), len(dev), path)
	return corpus.WriteManifest(out, keep)
}

// realSets reads the *_dev.jsonl manifests under dir and returns one set
// per source (a manifest may mix sources, and sources may repeat across
// manifests: each is taken once, from the first manifest in name order
// that has it), of n utterances spread evenly over the source's, so that
// they cover its speakers.
func realSets(dir string, n int) ([]testSet, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*_dev.jsonl"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var sets []testSet
	seen := map[string]bool{}
	for _, m := range paths {
		utts, err := corpus.ReadManifest(m)
		if err != nil {
			return nil, err
		}
		bySource := map[string][]corpus.Utterance{}
		var order []string
		for _, u := range utts {
			src := u.Source
			if src == "" {
				src = strings.TrimSuffix(filepath.Base(m), "_dev.jsonl")
			}
			if seen[src] {
				continue
			}
			if bySource[src] == nil {
				order = append(order, src)
			}
			bySource[src] = append(bySource[src], u)
		}
		for _, src := range order {
			seen[src] = true
			all := bySource[src]
			k := min(n, len(all))
			pick := make([]corpus.Utterance, k)
			for i := range pick {
				pick[i] = all[i*len(all)/k]
			}
			sets = append(sets, testSet{name: src, utts: pick})
		}
	}
	return sets, nil
}

// voiced labels utts as spoken by source's voices in turn, with no audio
// or word times yet.
func voiced(utts []corpus.Utterance, source string, voices []string) []corpus.Utterance {
	out := make([]corpus.Utterance, len(utts))
	for i, u := range utts {
		out[i] = corpus.Utterance{Text: u.Text, Source: source, Speaker: voices[i%len(voices)]}
	}
	return out
}

func flite(u corpus.Utterance, wav string) error {
	return run(exec.Command("flite", "-voice", u.Speaker, "-t", u.Text, "-o", wav))
}

func festival(u corpus.Utterance, wav string) error {
	txt := wav + ".txt"
	if err := os.WriteFile(txt, []byte(u.Text+"\n"), 0o644); err != nil {
		return err
	}
	defer os.Remove(txt)
	return run(exec.Command("text2wave", "-eval", "(voice_"+u.Speaker+")", "-o", wav, txt))
}

func run(cmd *exec.Cmd) error {
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %v: %s", strings.Join(cmd.Args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// condName names the clean condition and each SNR.
func condName(snr float64) string { return fmt.Sprintf("snr%g", snr) }

// write makes the set's WAV files and manifests: OUT/sets/NAME_clean.jsonl
// and OUT/sets/NAME_snrX.jsonl.
func (s testSet) write(out string, snrs []float64, jobs int) error {
	conds := []string{"clean"}
	for _, v := range snrs {
		conds = append(conds, condName(v))
	}
	for _, c := range conds {
		if err := os.MkdirAll(filepath.Join(out, "wav", s.name, c), 0o755); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Join(out, "sets"), 0o755); err != nil {
		return err
	}
	byCond := make([][]corpus.Utterance, len(conds))
	for i := range byCond {
		byCond[i] = make([]corpus.Utterance, len(s.utts))
	}
	err := par.ForEach(context.Background(), len(s.utts), jobs, func(i int) error {
		u := s.utts[i]
		src := u.Audio
		if s.synth != nil {
			src = filepath.Join(out, "wav", s.name, fmt.Sprintf("%04d.synth.wav", i))
			if err := s.synth(u, src); err != nil {
				return err
			}
			defer os.Remove(src)
		}
		c, err := audio.Load16k(src)
		if err != nil {
			return err
		}
		u.Duration = float64(len(c.Samples)) / audio.TargetRate
		h := fnv.New64a()
		fmt.Fprintf(h, "%s/%d", s.name, i)
		rng := rand.New(rand.NewPCG(h.Sum64(), 1))
		noise := make([]float32, len(c.Samples))
		corpus.PinkNoise(noise, rng)
		for k, cond := range conds {
			x := c.Samples
			if k > 0 {
				x = corpus.AddNoise(nil, c.Samples, noise, snrs[k-1], audio.TargetRate)
			}
			path, err := filepath.Abs(filepath.Join(out, "wav", s.name, cond, fmt.Sprintf("%04d.wav", i)))
			if err != nil {
				return err
			}
			if err := writeWAV(path, x); err != nil {
				return err
			}
			v := u
			v.Audio = path
			if k > 0 {
				v.Aug = fmt.Sprintf("pink%gdB", snrs[k-1])
			}
			byCond[k][i] = v
		}
		return nil
	})
	if err != nil {
		return err
	}
	for k, c := range conds {
		if err := corpus.WriteManifest(filepath.Join(out, "sets", s.name+"_"+c+".jsonl"), byCond[k]); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "report prep: %s: %d utterances x %d conditions\n", s.name, len(s.utts), len(conds))
	return nil
}

func writeWAV(path string, x []float32) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := audio.WriteWAV(f, x, audio.TargetRate); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
