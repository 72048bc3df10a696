// Command calibrate fits the map from a word's evidence to its confidence
// (align.Calibration) on dev sets with gold word times.
//
//	calibrate dump [-jobs N] MANIFEST... > words.tsv
//	calibrate fit [-half even|odd|all] words.tsv...
//
// dump aligns every utterance of the manifests (corpus format, gold
// "words") with heed's aligner and the embedded model, and writes one line
// per token: its manifest, utterance number, status, confidence, evidence
// (align.Evidence), gold duration and boundary error (the larger of the
// start and end errors, seconds).
//
// fit reads such lines (of the utterances of the chosen half, by utterance
// number), labels a word 1 when its error is at most 50 ms and 0 when it is
// more than 100 ms (others are left out), fits a logistic regression on
// align.Features by Newton's method with both labels weighted equally, and
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
const header = "manifest\tutt\tword\tstatus\tconfidence\tattention\tsegment\tapart\tmoved\tcontrast\tduration\tgold_duration\terror"

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
				ev := align.Evidence{Apart: math.NaN(), Attention: math.NaN(), Segment: math.NaN(), Moved: math.NaN(), Contrast: math.NaN()}
				if h.Evidence != nil {
					ev = *h.Evidence
				}
				lines[i] = append(lines[i], fmt.Sprintf("%s\t%d\t%s\t%s\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.1f\t%.4f\t%.4f\t%.4f",
					path, i, h.Word, h.Status, h.Confidence, ev.Attention, ev.Segment, ev.Apart, ev.Moved, ev.Contrast, h.End-h.Start, g.End-g.Start, e))
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
		if len(c) != 13 {
			return nil, fmt.Errorf("%s:%d: %d columns, want 13", path, n, len(c))
		}
		var v [10]float64
		for i, s := range append([]string{c[1]}, c[4:]...) {
			if v[i], err = strconv.ParseFloat(s, 64); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, n, err)
			}
		}
		r := row{file: c[0], utt: int(v[0]), conf: v[1], hypDur: v[7], goldDur: v[8], err: v[9]}
		if !math.IsNaN(v[2]) {
			r.ev = &align.Evidence{Attention: v[2], Segment: v[3], Apart: v[4], Moved: v[5], Contrast: v[6]}
		}
		rows = append(rows, r)
	}
	return rows, sc.Err()
}

func fit(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("fit", flag.ContinueOnError)
	half := fs.String("half", "even", "utterances fitted on: even, odd or all (by utterance number)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 || (*half != "even" && *half != "odd" && *half != "all") {
		return errors.New("fit: want -half even|odd|all and at least one words.tsv")
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
	var x [][2]float64
	var y []float64
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
		x = append(x, align.Features(*r.ev))
	}
	c, err := Fit(x, y)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "fitted on %d words (%s half): align.Calibration{Bias: %.3g, Moved: %.3g, Apart: %.3g}\n", len(y), *half, c.Bias, c.Moved, c.Apart)
	files := map[string]bool{}
	var order []string
	for _, r := range all {
		if !files[r.file] {
			files[r.file] = true
			order = append(order, r.file)
		}
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

// Fit returns the Calibration that maximises the equally weighted
// log-likelihood of labels y (1: placed right, 0: off) given features x
// (align.Features), by Newton's method with a small ridge (1e-3) on the
// feature weights. It returns an error without both labels, or when
// Newton's method meets a singular system or does not converge in 100
// steps. It panics if len(x) != len(y).
func Fit(x [][2]float64, y []float64) (align.Calibration, error) {
	if len(x) != len(y) {
		panic("calibrate: Fit: length mismatch")
	}
	var n1, n0 float64
	for _, v := range y {
		if v == 1 {
			n1++
		} else {
			n0++
		}
	}
	if n1 == 0 || n0 == 0 {
		return align.Calibration{}, fmt.Errorf("fit: need words of both labels (%v right, %v off)", n1, n0)
	}
	w1, w0 := 0.5*float64(len(y))/n1, 0.5*float64(len(y))/n0
	const ridge = 1e-3
	var b [3]float64 // z = b·[1 f0 f1]
	for it := 0; it < 100; it++ {
		var g [3]float64
		var H [3][3]float64
		for i, f := range x {
			v := [3]float64{1, f[0], f[1]}
			z := b[0] + b[1]*v[1] + b[2]*v[2]
			p := 1 / (1 + math.Exp(-z))
			wt := w0
			if y[i] == 1 {
				wt = w1
			}
			for j := range v {
				g[j] += wt * (y[i] - p) * v[j]
				for k := range v {
					H[j][k] += wt * p * (1 - p) * v[j] * v[k]
				}
			}
		}
		for j := 1; j < 3; j++ {
			g[j] -= ridge * b[j]
			H[j][j] += ridge
		}
		d, ok := solve3(H, g)
		if !ok {
			return align.Calibration{}, errors.New("fit: singular system (a feature without variation?)")
		}
		step := 0.0
		for j := range b {
			b[j] += d[j]
			step = math.Max(step, math.Abs(d[j]))
		}
		if step < 1e-9 {
			// Calibration's z = Bias − Moved·f0 − Apart·f1.
			return align.Calibration{Bias: b[0], Moved: -b[1], Apart: -b[2]}, nil
		}
	}
	return align.Calibration{}, errors.New("fit: Newton's method did not converge in 100 steps")
}

// solve3 solves A x = v by Gaussian elimination with partial pivoting; ok
// is false for a (nearly) singular A.
func solve3(A [3][3]float64, v [3]float64) (x [3]float64, ok bool) {
	const n = 3
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
