package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/heed-asr/heed/align/normalize"
	"github.com/heed-asr/heed/corpus"
	"github.com/heed-asr/heed/model"
	"github.com/heed-asr/heed/model/modelfile"
)

func init() {
	register(&command{
		Name:  "lm",
		Usage: "heed lm --model IN --out OUT [--order N] [--weight W] [--exclude DEV.jsonl] SOURCE...",
		Short: "add a character language model to a model file",
		Long: `Lm trains a character n-gram language model (interpolated modified
Kneser-Ney) on text and writes a copy of the model IN with it to OUT. Beam
search then fuses it with weight --weight (heed transcribe --lm-weight
overrides it).

Each SOURCE is a manifest (*.jsonl: the "text" of every utterance) or a text
file with one sentence per line in ordinary written form (it is normalised
to spoken words as heed align does). Lines whose spoken form equals a text
in an --exclude manifest are dropped, so that a dev set stays unseen.

--dtype f16 stores the network and the language model's probabilities in
half precision (its counts and tokens are small integers, exact in f16),
halving the file. The language model is stored as a trie: about 4 bytes
per n-gram.`,
		Flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			in := fs.String("model", "", "model file to add the language model to (required)")
			out := fs.String("out", "", "output model file (required; written atomically)")
			order := fs.Int("order", 6, "n-gram order in characters")
			weight := fs.Float64("weight", 0.3, "fusion weight stored with the model")
			minCount := fs.Int("min-count", 2, "prune n-grams longer than 3 characters seen fewer times than this (1: keep all); raise it to keep a model from a large text small")
			exclude := fs.String("exclude", "", "manifests (comma-separated) whose texts are left out")
			dtype := fs.String("dtype", "f32", "storage of the network and LM probabilities: f32 or f16")
			return func(ctx context.Context, e *env, args []string) error {
				if *in == "" || *out == "" {
					return usagef("--model and --out are required")
				}
				if len(args) == 0 {
					return usagef("no text SOURCE given")
				}
				if *order < 1 || *order > 10 {
					return usagef("--order must be in 1..10")
				}
				if *minCount < 1 {
					return usagef("--min-count must be at least 1")
				}
				if !(*weight >= 0 && *weight <= 100) {
					return usagef("--weight %g out of range [0, 100]", *weight)
				}
				dt := modelfile.F32
				switch *dtype {
				case "f32":
				case "f16":
					dt = modelfile.F16
				default:
					return usagef("--dtype must be f32 or f16")
				}
				b, err := model.LoadFile(*in)
				if err != nil {
					return err
				}
				skip := map[string]bool{}
				if *exclude != "" {
					for _, path := range strings.Split(*exclude, ",") {
						utts, err := corpus.ReadManifest(path)
						if err != nil {
							return err
						}
						for _, u := range utts {
							if !u.NonSpeech {
								skip[u.Text] = true
							}
						}
					}
				}
				var lines []string
				dropped := 0
				for _, src := range args {
					ls, err := readLMSource(src)
					if err != nil {
						return err
					}
					for _, l := range ls {
						if skip[l] {
							dropped++
							continue
						}
						lines = append(lines, l)
					}
				}
				lm, err := model.TrainLM(lines, *order, *minCount)
				if err != nil {
					return err
				}
				b.LM = lm
				b.Meta.LMWeight = *weight
				if err := b.Save(*out, dt); err != nil {
					return err
				}
				chars := 0
				for _, l := range lines {
					chars += len(l)
				}
				fmt.Fprintf(e.Stderr, "heed: lm: %d lines (%d characters; %d excluded), order %d, %d n-grams; wrote %s\n",
					len(lines), chars, dropped, *order, sum(lm.NumNGrams()), *out)
				return nil
			}
		},
	})
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

// readLMSource returns the spoken-form lines of a manifest or text file.
func readLMSource(path string) ([]string, error) {
	if strings.HasSuffix(path, ".jsonl") {
		utts, err := corpus.ReadManifest(path)
		if err != nil {
			return nil, err
		}
		lines := make([]string, 0, len(utts))
		for _, u := range utts {
			if !u.NonSpeech { // music and noise have no text
				lines = append(lines, u.Text)
			}
		}
		return lines, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := normalize.SpokenForm(sc.Text())
		if line != "" {
			lines = append(lines, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return lines, nil
}
