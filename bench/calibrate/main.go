// Command calibrate fits the map from a word's evidence to its confidence
// (align.Calibration) on dev sets with gold word times.
//
//	calibrate dump [-jobs N] MANIFEST... > words.tsv
//	calibrate fit [-half even|odd|all] [-keep SHARE] words.tsv...
//
// dump aligns every utterance of the manifests (corpus format, gold
// "words") with heed's aligner and the embedded model, and writes one line
// per token: its manifest, utterance number, status, confidence, evidence
// (align.Evidence), duration, gold duration and boundary error (the larger
// of the start and end errors, seconds), and its start and end errors
// (heed's time minus the gold's).
//
// fit reads such lines (of the utterances of the chosen half, by utterance
// number), labels a word 1 when its error is at most 50 ms and 0 when it is
// more than 100 ms (others are left out), fits a logistic regression on
// align.Features by Newton's method (every manifest weighing the same, and
// both labels within it; see Fit), raises the bias until every manifest
// keeps at least -keep of its words within 50 ms (see KeepBias), and
// prints the weights as an align.Calibration and, per file, the flag's
// precision and recall (flag: confidence under 0.5; off: more than 100 ms)
// and the share of words within 50 ms kept (confidence at least 0.5),
// with the weights fitted and with the confidences in the file.
//
// Words that no path placed (interpolated: no evidence) are left out of
// the fit and counted with their confidence as given.
//
//	go run ./bench/calibrate dump corpus/dev.jsonl corpus/dev_noisy.jsonl corpus/fsdd_test_strings.jsonl > /tmp/words.tsv
//	go run ./bench/calibrate fit -half even /tmp/words.tsv
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/heed-asr/heed/align"
	"github.com/heed-asr/heed/audio"
	"github.com/heed-asr/heed/corpus"
	"github.com/heed-asr/heed/internal/par"
	"github.com/heed-asr/heed/model/english"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: calibrate dump|fit [flags] FILE...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "dump":
		err = dump(os.Args[2:], os.Stdout)
	case "fit":
		err = fit(os.Args[2:], os.Stdout)
	default:
		fmt.Fprintf(os.Stderr, "calibrate: unknown command %q (want dump or fit)\n", os.Args[1])
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "calibrate: %v\n", err)
		os.Exit(1)
	}
}

// header names the columns dump writes.
const header = "manifest\tutt\tword\tstatus\tconfidence\tattention\tsegment\tapart\tsettled\tmoved\tcontrast\tpause" +
	"\tduration\tgold_duration\terror\tstart_error\tend_error"

// columns is the number of columns of header.
var columns = len(strings.Split(header, "\t"))

func dump(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("dump", flag.ContinueOnError)
	jobs := fs.Int("jobs", runtime.NumCPU(), "utterances aligned in parallel")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 || *jobs < 1 {
		return errors.New("dump: want -jobs >= 1 and at least one MANIFEST")
	}
	b, err := english.Load()
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, header)
	for _, path := range fs.Args() {
		utts, err := corpus.ReadManifest(path)
		if err != nil {
			return err
		}
		lines := make([][]string, len(utts))
		err = par.ForEach(context.Background(), len(utts), *jobs, func(i int) error {
			u := utts[i]
			if len(u.Words) == 0 {
				return nil
			}
			clip, err := audio.Load16k(u.Audio)
			if err != nil {
				return err
			}
			words, _, err := align.NewAligner(b).Align(clip.Samples, u.Text)
			if err != nil {
				return fmt.Errorf("%s: %w", u.Audio, err)
			}
			if len(words) != len(u.Words) {
				return fmt.Errorf("%s: %d gold words but the transcript has %d tokens", u.Audio, len(u.Words), len(words))
			}
			for j, h := range words {
				if len(h.Chars) == 0 {
					continue
				}
				g := u.Words[j]
				e := math.Max(math.Abs(h.Start-g.Start), math.Abs(h.End-g.End))
				nan := math.NaN()
				ev := align.Evidence{Attention: nan, Segment: nan, Apart: nan, Settled: nan, Moved: nan, Contrast: nan, Pause: nan}
				if h.Evidence != nil {
					ev = *h.Evidence
				}
				lines[i] = append(lines[i], fmt.Sprintf("%s\t%d\t%s\t%s\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.1f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f",
					path, i, h.Word, h.Status, h.Confidence, ev.Attention, ev.Segment, ev.Apart, ev.Settled, ev.Moved, ev.Contrast, ev.Pause,
					h.End-h.Start, g.End-g.Start, e, h.Start-g.Start, h.End-g.End))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, ls := range lines {
			for _, l := range ls {
				fmt.Fprintln(bw, l)
			}
		}
	}
	return bw.Flush()
}

// row is one word read back from dump's output.
type row struct {
	file    string
	utt     int
	conf    float64
	ev      *align.Evidence // nil for a word without evidence
	err     float64
	goldDur float64
	hypDur  float64
}

func readRows(path string) ([]row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []row
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if n == 1 {
			if sc.Text() != header {
				return nil, fmt.Errorf("%s: not calibrate dump output", path)
			}
			continue
		}
		c := strings.Split(sc.Text(), "\t")
		if len(c) != columns {
			return nil, fmt.Errorf("%s:%d: %d columns, want %d", path, n, len(c), columns)
		}
		var v [12]float64 // utt, then the numbers from confidence to error
		for i, s := range append([]string{c[1]}, c[4:15]...) {
			if v[i], err = strconv.ParseFloat(s, 64); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, n, err)
			}
		}
		r := row{file: c[0], utt: int(v[0]), conf: v[1], hypDur: v[9], goldDur: v[10], err: v[11]}
		if !math.IsNaN(v[2]) {
			r.ev = &align.Evidence{Attention: v[2], Segment: v[3], Apart: v[4], Settled: v[5], Moved: v[6], Contrast: v[7], Pause: v[8]}
		}
		rows = append(rows, r)
	}
	return rows, sc.Err()
}

func fit(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("fit", flag.ContinueOnError)
	half := fs.String("half", "even", "utterances fitted on: even, odd or all (by utterance number)")
	keep := fs.Float64("keep", 0.9, "least share of the words within 50 ms that every manifest keeps (confidence at least 0.5) on the half fitted; 0: the bias as fitted")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 || (*half != "even" && *half != "odd" && *half != "all") || !(*keep >= 0 && *keep < 1) {
		return errors.New("fit: want -half even|odd|all, -keep in [0, 1) and at least one words.tsv")
	}
	var all []row
	for _, p := range fs.Args() {
		r, err := readRows(p)
		if err != nil {
			return err
		}
		all = append(all, r...)
	}
	in := func(r row) bool {
		return *half == "all" || (r.utt%2 == 0) == (*half == "even")
	}
	group := map[string]int{} // manifest -> its number, in order of appearance
	var order []string
	for _, r := range all {
		if _, ok := group[r.file]; !ok {
			group[r.file] = len(order)
			order = append(order, r.file)
		}
	}
	var (
		x [][align.NumFeatures]float64
		y []float64
		g []int
	)
	for _, r := range all {
		if !in(r) || r.ev == nil {
			continue
		}
		switch {
		case r.err <= 0.05+1e-9:
			y = append(y, 1)
		case r.err > 0.1+1e-9:
			y = append(y, 0)
		default:
			continue
		}
		x, g = append(x, align.Features(*r.ev)), append(g, group[r.file])
	}
	c, err := Fit(x, y, g)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "fitted on %d words (%s half): align.Calibration{Bias: %.3g, Moved: %.3g, Settled: %.3g, Pause: %.3g}\n", len(y), *half, c.Bias, c.Moved, c.Settled, c.Pause)
	if *keep > 0 {
		c.Bias = KeepBias(c, x, y, g, *keep)
		fmt.Fprintf(w, "bias raised to keep %g of every manifest's right words: align.Calibration{Bias: %.3g, Moved: %.3g, Settled: %.3g, Pause: %.3g}\n", *keep, c.Bias, c.Moved, c.Settled, c.Pause)
	}
	fmt.Fprintf(w, "%-40s %-5s %6s %5s | %-30s | %-30s\n", "manifest", "half", "words", "off", "fitted: prec rec kept %", "as dumped: prec rec kept %")
	for _, file := range order {
		for _, h := range []string{"fit", "other"} {
			var fitted, dumped align.WordStats
			for _, r := range all {
				if r.file != file || in(r) != (h == "fit") {
					continue
				}
				conf := r.conf
				if r.ev != nil {
					conf = c.Confidence(*r.ev)
				}
				fitted.Count(r.err, r.hypDur, r.goldDur, conf)
				dumped.Count(r.err, r.hypDur, r.goldDur, r.conf)
			}
			if fitted.Words == 0 {
				continue
			}
			fmt.Fprintf(w, "%-40s %-5s %6d %5d | %8.1f %6.1f %6.1f        | %8.1f %6.1f %6.1f\n", file, h, fitted.Words, fitted.Off,
				100*fitted.Precision(), 100*fitted.Recall(), 100*fitted.Kept(), 100*dumped.Precision(), 100*dumped.Recall(), 100*dumped.Kept())
		}
	}
	return nil
}

// Fit returns the Calibration that maximises the weighted log-likelihood
// of labels y (1: placed right, 0: off) given features x (align.Features),
// by Newton's method with a small ridge (1e-3) on the feature weights.
// Words come in groups (group[i], one per dev set): every group weighs as
// much as any other, and within a group both labels weigh the same, so
// that neither a large set nor the many words placed right drown the rest.
// It returns an error when a group lacks one of the labels, or when
// Newton's method meets a singular system or does not converge in 100
// steps. It panics if x, y and group differ in length.
func Fit(x [][align.NumFeatures]float64, y []float64, group []int) (align.Calibration, error) {
	if len(x) != len(y) || len(y) != len(group) {
		panic("calibrate: Fit: length mismatch")
	}
	type key struct {
		group int
		label float64
	}
	count := map[key]float64{}
	groups := map[int]bool{}
	for i, v := range y {
		count[key{group[i], v}]++
		groups[group[i]] = true
	}
	for gr := range groups {
		if count[key{gr, 0}] == 0 || count[key{gr, 1}] == 0 {
			return align.Calibration{}, fmt.Errorf("fit: group %d needs words of both labels (%v right, %v off)", gr, count[key{gr, 1}], count[key{gr, 0}])
		}
	}
	if len(groups) == 0 {
		return align.Calibration{}, errors.New("fit: no words")
	}
	const n = align.NumFeatures + 1
	const ridge = 1e-3
	var b [n]float64 // z = b·[1 f...]
	for it := 0; it < 100; it++ {
		var gr [n]float64
		var H [n][n]float64
		for i, f := range x {
			var v [n]float64
			v[0] = 1
			copy(v[1:], f[:])
			z := 0.0
			for j := range v {
				z += b[j] * v[j]
			}
			p := 1 / (1 + math.Exp(-z))
			wt := float64(len(y)) / (2 * float64(len(groups)) * count[key{group[i], y[i]}])
			for j := range v {
				gr[j] += wt * (y[i] - p) * v[j]
				for k := range v {
					H[j][k] += wt * p * (1 - p) * v[j] * v[k]
				}
			}
		}
		for j := 1; j < n; j++ {
			gr[j] -= ridge * b[j]
			H[j][j] += ridge
		}
		d, ok := solve(H, gr)
		if !ok {
			return align.Calibration{}, errors.New("fit: singular system (a feature without variation?)")
		}
		step := 0.0
		for j := range b {
			b[j] += d[j]
			step = math.Max(step, math.Abs(d[j]))
		}
		if step < 1e-9 {
			// Calibration's z = Bias − Σ weight·feature.
			return align.Calibration{Bias: b[0], Moved: -b[1], Settled: -b[2], Pause: -b[3]}, nil
		}
	}
	return align.Calibration{}, errors.New("fit: Newton's method did not converge in 100 steps")
}

// KeepBias returns the least bias, no less than c.Bias, at which every
// group of words (as in Fit) keeps at least a share keep of its words
// labelled 1 (placed right) at a confidence of 0.5 or more.
func KeepBias(c align.Calibration, x [][align.NumFeatures]float64, y []float64, group []int, keep float64) float64 {
	w := c.Weights()
	need := map[int][]float64{} // per group: the bias each right word needs
	for i, f := range x {
		if y[i] != 1 {
			continue
		}
		s := 0.0
		for j := range f {
			s += w[j] * f[j]
		}
		need[group[i]] = append(need[group[i]], s)
	}
	bias := c.Bias
	for _, s := range need {
		sort.Float64s(s)
		k := int(math.Ceil(keep*float64(len(s)))) - 1
		bias = math.Max(bias, s[max(k, 0)])
	}
	return bias
}

// solve solves A x = v by Gaussian elimination with partial pivoting; ok
// is false for a (nearly) singular A.
func solve(A [align.NumFeatures + 1][align.NumFeatures + 1]float64, v [align.NumFeatures + 1]float64) (x [align.NumFeatures + 1]float64, ok bool) {
	const n = align.NumFeatures + 1
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(A[r][c]) > math.Abs(A[p][c]) {
				p = r
			}
		}
		if math.Abs(A[p][c]) < 1e-12 {
			return x, false
		}
		A[c], A[p] = A[p], A[c]
		v[c], v[p] = v[p], v[c]
		for r := c + 1; r < n; r++ {
			m := A[r][c] / A[c][c]
			for k := c; k < n; k++ {
				A[r][k] -= m * A[c][k]
			}
			v[r] -= m * v[c]
		}
	}
	for r := n - 1; r >= 0; r-- {
		s := v[r]
		for k := r + 1; k < n; k++ {
			s -= A[r][k] * x[k]
		}
		x[r] = s / A[r][r]
	}
	return x, true
}
