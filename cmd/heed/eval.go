package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"

	"github.com/heed-asr/heed/align"
	"github.com/heed-asr/heed/audio"
	"github.com/heed-asr/heed/corpus"
	"github.com/heed-asr/heed/internal/par"
	"github.com/heed-asr/heed/model"
	"github.com/heed-asr/heed/model/train"
	"github.com/heed-asr/heed/speech"
)

func init() {
	register(&command{
		Name:  "eval",
		Usage: "heed eval asr|align [--model FILE] [--json] MANIFEST...",
		Short: "measure recognition (CER/WER) or alignment (boundary) error on manifests",
		Long: `Eval measures heed on manifests in the training-corpus format (JSON Lines
with "audio", "text" and, for alignment, gold "words" with "start"/"end").
Alignment aligns an utterance's "written" text when it has one (its gold
words are then the written tokens), else its "text".

  heed eval asr MANIFEST...    character and word error rates, per source
  heed eval align MANIFEST...  word boundary errors (start and end, absolute):
                               mean, median, 90th percentile and the share
                               within 20, 50 and 100 ms, per source; and
                               the flag (confidence under 0.5, which the
                               aligner gives exactly the words that are not
                               "aligned"): its precision and recall for words
                               more than 100 ms off, and the share of words
                               within 50 ms it leaves unflagged; the share of
                               collapsed words (under 40 ms where the gold
                               word is not); with --reliability PNG, a
                               reliability diagram: per confidence bin, the
                               share of words within 50 and 100 ms

Utterances are decoded in parallel on --jobs goroutines. --json prints one
JSON object per manifest and source instead of a table.`,
		Flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			modelPath := fs.String("model", "", "model file (default: the embedded English model)")
			asJSON := fs.Bool("json", false, "print JSON Lines instead of a table")
			jobs := fs.Int("jobs", runtime.NumCPU(), "utterances decoded in parallel")
			limit := fs.Int("limit", 0, "evaluate at most this many utterances per manifest (0: all)")
			dec := model.DefaultDecodeOptions()
			fs.IntVar(&dec.Beam, "beam", dec.Beam, "beam width (asr)")
			fs.Float64Var(&dec.CTCWeight, "ctc-weight", dec.CTCWeight, "CTC weight in the beam (asr)")
			fs.Float64Var(&dec.LengthBonus, "length-bonus", dec.LengthBonus, "score bonus per character (asr)")
			fs.Float64Var(&dec.LMWeight, "lm-weight", dec.LMWeight, "weight of the model's character LM in the beam (asr; negative: the model's tuned weight, 0: off)")
			fs.Float64Var(&dec.ScoreBeam, "score-beam", dec.ScoreBeam, "drop hypotheses scoring more than this (log-probability) below the best of their step (asr; 0: the exact search)")
			alignCTC := fs.Float64("align-ctc-weight", 0.5, "weight of CTC posteriors in the alignment path (align)")
			alignOffset := fs.Float64("align-offset", math.NaN(), "seconds added to the path's times before refinement (align; default: the aligner's)")
			noRefine := fs.Bool("no-refine", false, "do not refine word boundaries to pauses in the audio (align)")
			variants := fs.Bool("variants", true, "let the audio choose among a token's readings (align)")
			priorMargin := fs.Float64("align-prior-margin", math.NaN(), "encoder frames a character may stray from its word's CTC segment at no cost (align; default: the aligner's)")
			priorSlope := fs.Float64("align-prior-slope", math.NaN(), "cost per encoder frame beyond the margin (align; 0: no CTC segment prior; default: the aligner's)")
			reliability := fs.String("reliability", "", "also draw a reliability diagram of the word confidences (one line per manifest) to this PNG (align)")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) < 2 || (args[0] != "asr" && args[0] != "align") {
					return usagef("want asr or align and at least one MANIFEST")
				}
				if *jobs < 1 {
					return usagef("--jobs must be at least 1")
				}
				if *limit < 0 {
					return usagef("--limit must be at least 0")
				}
				if *reliability != "" && args[0] != "align" {
					return usagef("--reliability is for heed eval align")
				}
				if err := checkDecodeFlags(dec); err != nil {
					return err
				}
				if !(*alignCTC >= 0 && *alignCTC <= 1) {
					return usagef("--align-ctc-weight %g out of range [0, 1]", *alignCTC)
				}
				if math.IsInf(*alignOffset, 0) || math.Abs(*alignOffset) > 1 {
					return usagef("--align-offset %g out of range [-1, 1] seconds", *alignOffset)
				}
				b, err := loadModel(*modelPath, args[0] == "asr")
				if err != nil {
					return err
				}
				var rows []evalRow
				for _, path := range args[1:] {
					utts, err := corpus.ReadManifest(path)
					if err != nil {
						return err
					}
					if *limit > 0 && len(utts) > *limit {
						utts = utts[:*limit]
					}
					var r []evalRow
					if args[0] == "asr" {
						r, err = evalASR(ctx, b, path, utts, *jobs, dec)
					} else {
						a := align.NewAligner(b)
						a.CTCWeight, a.Refine, a.Variants = *alignCTC, !*noRefine, *variants
						if !math.IsNaN(*alignOffset) {
							a.Offset = *alignOffset
						}
						if !math.IsNaN(*priorMargin) {
							a.PriorMargin = *priorMargin
						}
						if !math.IsNaN(*priorSlope) {
							a.PriorSlope = *priorSlope
						}
						r, err = evalAlign(ctx, a, path, utts, *jobs)
					}
					if err != nil {
						return err
					}
					rows = append(rows, r...)
				}
				if *reliability != "" {
					var names []string
					var stats []align.WordStats
					for _, r := range rows {
						if r.WordStats != nil && (r.Source == "all" || !hasAllRow(rows, r.Manifest)) {
							names = append(names, filepath.Base(r.Manifest))
							stats = append(stats, *r.WordStats)
						}
					}
					if err := align.PlotReliability(*reliability, names, stats); err != nil {
						return fileErr(*reliability, err)
					}
				}
				return printEval(e.Stdout, args[0], rows, *asJSON)
			}
		},
	})
}

// evalRow is one line of an evaluation report: a manifest and a source
// ("all" for the whole manifest).
type evalRow struct {
	Manifest string  `json:"manifest"`
	Source   string  `json:"source"`
	Utts     int     `json:"utts"`
	CER      float64 `json:"cer,omitempty"`
	WER      float64 `json:"wer,omitempty"`
	Chars    int     `json:"chars,omitempty"`
	Words    int     `json:"words,omitempty"`
	// Non-speech utterances (manifest "nonspeech": music, noise), which
	// should give no words, and how many of them gave some. They count in
	// Utts but not in CER, WER, Chars or Words.
	NonSpeech      int `json:"nonspeech,omitempty"`
	NonSpeechWords int `json:"nonspeech_with_words,omitempty"`
	// Alignment.
	Boundaries *align.BoundaryStats `json:"boundaries,omitempty"`
	Bias       float64              `json:"bias,omitempty"` // mean signed boundary error (heed - gold), seconds
	// WordStats counts what the flag (confidence under 0.5) says about
	// words more than 100 ms off and within 50 ms, the collapsed words
	// (under 40 ms where the gold word is not) and the words per confidence
	// bin (reliability).
	WordStats *align.WordStats `json:"word_stats,omitempty"`
}

func evalASR(ctx context.Context, b *model.Bundle, path string, utts []corpus.Utterance, jobs int, dec model.DecodeOptions) ([]evalRow, error) {
	// ns counts non-speech utterances (manifest "nonspeech"), nsw those of
	// them that gave any word; they add nothing to the CER and WER counts.
	type counts struct{ ce, c, we, w, n, ns, nsw int }
	per := make([]counts, len(utts))
	err := par.ForEach(ctx, len(utts), jobs, func(i int) error {
		u := utts[i]
		clip, err := audio.Load16k(u.Audio)
		if err != nil {
			return err
		}
		// As heed transcribe does it: speech found first, each segment
		// decoded on its own.
		hyp, _, err := speech.Transcribe(align.NewAligner(b), clip.Samples, dec, false, 1)
		if err != nil {
			return fmt.Errorf("%s: %w", u.Audio, err)
		}
		if u.NonSpeech {
			per[i] = counts{n: 1, ns: 1}
			if strings.TrimSpace(hyp) != "" {
				per[i].nsw = 1
			}
			return nil
		}
		ref := u.Text
		per[i] = counts{
			ce: train.EditDistance([]rune(ref), []rune(hyp)), c: len([]rune(ref)),
			we: train.EditDistance(strings.Fields(ref), strings.Fields(hyp)), w: len(strings.Fields(ref)), n: 1,
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	bySrc := map[string]*counts{"all": {}}
	for i, u := range utts {
		for _, k := range sourceKeys(u.Source) {
			if bySrc[k] == nil {
				bySrc[k] = &counts{}
			}
			c := bySrc[k]
			c.ce += per[i].ce
			c.c += per[i].c
			c.we += per[i].we
			c.w += per[i].w
			c.ns += per[i].ns
			c.nsw += per[i].nsw
			c.n++
		}
	}
	var rows []evalRow
	for _, src := range align.ReportSources(bySrc) {
		c := bySrc[src]
		rows = append(rows, evalRow{Manifest: path, Source: src, Utts: c.n,
			CER: float64(c.ce) / float64(max(1, c.c)), WER: float64(c.we) / float64(max(1, c.w)), Chars: c.c, Words: c.w,
			NonSpeech: c.ns, NonSpeechWords: c.nsw})
	}
	return rows, nil
}

func evalAlign(ctx context.Context, a *align.Aligner, path string, utts []corpus.Utterance, jobs int) ([]evalRow, error) {
	errs := make([][]float64, len(utts))
	signed := make([]float64, len(utts)) // sum of signed boundary errors
	ws := make([]align.WordStats, len(utts))
	err := par.ForEach(ctx, len(utts), jobs, func(i int) error {
		u := utts[i]
		if len(u.Words) == 0 {
			return nil
		}
		clip, err := audio.Load16k(u.Audio)
		if err != nil {
			return err
		}
		text := u.Text
		if u.Written != "" {
			text = u.Written // gold words are its tokens
		}
		words, _, err := a.Align(clip.Samples, text)
		if err != nil {
			return fmt.Errorf("%s: %w", u.Audio, err)
		}
		gold := make([]align.Word, len(u.Words))
		for j, w := range u.Words {
			gold[j] = align.Word{Word: w.Word, Start: w.Start, End: w.End}
		}
		if len(gold) != len(words) {
			return fmt.Errorf("%s: %d gold words but the transcript has %d tokens", u.Audio, len(gold), len(words))
		}
		errs[i] = align.BoundaryErrors(gold, words)
		ws[i].Add(gold, words)
		for j := range gold {
			signed[i] += words[j].Start - gold[j].Start + words[j].End - gold[j].End
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	bySrc := map[string][]float64{}
	nBy := map[string]int{}
	biasBy := map[string]float64{}
	wsBy := map[string]*align.WordStats{}
	for i, u := range utts {
		if errs[i] == nil {
			continue
		}
		for _, k := range sourceKeys(u.Source) {
			bySrc[k] = append(bySrc[k], errs[i]...)
			nBy[k]++
			biasBy[k] += signed[i]
			if wsBy[k] == nil {
				wsBy[k] = &align.WordStats{}
			}
			wsBy[k].Merge(ws[i])
		}
	}
	if len(bySrc) == 0 {
		return nil, fmt.Errorf("%s: no utterance has gold word times", path)
	}
	var rows []evalRow
	for _, src := range align.ReportSources(bySrc) {
		st := align.Summarize(bySrc[src])
		rows = append(rows, evalRow{Manifest: path, Source: src, Utts: nBy[src], Boundaries: &st, Bias: biasBy[src] / float64(max(1, st.N)), WordStats: wsBy[src]})
	}
	return rows, nil
}

// hasAllRow reports whether rows hold an "all" row for manifest.
func hasAllRow(rows []evalRow, manifest string) bool {
	for _, r := range rows {
		if r.Manifest == manifest && r.Source == "all" {
			return true
		}
	}
	return false
}

// sourceKeys returns the report rows an utterance of source src counts in:
// "all" and its own source (once, should a source be called "all").
func sourceKeys(src string) []string {
	if src == "all" {
		return []string{"all"}
	}
	return []string{"all", src}
}

func printEval(w io.Writer, kind string, rows []evalRow, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		for _, r := range rows {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	if kind == "asr" {
		fmt.Fprintf(tw, "manifest\tsource\tutts\tCER %%\tWER %%\tchars\twords\t\n")
		for _, r := range rows {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%.2f\t%.2f\t%d\t%d\t\n", r.Manifest, r.Source, r.Utts, 100*r.CER, 100*r.WER, r.Chars, r.Words)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, r := range rows {
			if r.NonSpeech > 0 {
				fmt.Fprintf(w, "%s %s: %d of %d non-speech clips gave words (should give none)\n", r.Manifest, r.Source, r.NonSpeechWords, r.NonSpeech)
			}
		}
	} else {
		fmt.Fprintf(tw, "manifest\tsource\tutts\tboundaries\tmean ms\tmedian ms\tp90 ms\t<=20ms %%\t<=50ms %%\t<=100ms %%\tbias ms\tcollapsed %%\tflag prec %%\tflag rec %%\tright kept %%\t\n")
		for _, r := range rows {
			s, w := r.Boundaries, r.WordStats
			if w == nil {
				w = &align.WordStats{}
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%+.1f\t%.2f\t%.1f\t%.1f\t%.1f\t\n", r.Manifest, r.Source, r.Utts, s.N,
				1000*s.Mean, 1000*s.Median, 1000*s.P90, 100*s.Within20, 100*s.Within50, 100*s.Within100, 1000*r.Bias,
				100*w.CollapsedShare(), 100*w.Precision(), 100*w.Recall(), 100*w.Kept())
		}
	}
	return tw.Flush()
}
