package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/heed-asr/heed/align"
)

// record is one line of the results file: an asrResult (kind "asr"), a row
// of heed eval align --json or psalign -json (kind "align") or a
// measurement (kind "speed" or "scale").
type record struct {
	Kind   string `json:"kind"`
	System string `json:"system"`
	Set    string `json:"set"`
	Cond   string `json:"cond"`
	Task   string `json:"task"`
	Mode   string `json:"mode"`
	Source string `json:"source"`

	Utts      int     `json:"utts"`
	Missing   int     `json:"missing"`
	Failed    int     `json:"failed"`
	Words     int     `json:"words"`
	WER       float64 `json:"wer"`
	CER       float64 `json:"cer"`
	ScliteWER float64 `json:"sclite_wer"`

	Boundaries *align.BoundaryStats `json:"boundaries"`

	AudioSec float64 `json:"audio_s"`
	WallSec  float64 `json:"wall_s"`
	CPUSec   float64 `json:"cpu_s"`
	RSSMB    float64 `json:"rss_mb"`
	Command  string  `json:"command"`
}

func write(args []string) error {
	fs := flag.NewFlagSet("write", flag.ContinueOnError)
	resultsPath := fs.String("results", "", "results file (JSON Lines)")
	envPath := fs.String("env", "", "environment (JSON object)")
	cmdsPath := fs.String("commands", "", "the commands run, one a line")
	out := fs.String("out", "", "report file (Markdown)")
	charts := fs.String("charts", "", "directory for the PNG charts")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *resultsPath == "" || *envPath == "" || *out == "" || *charts == "" {
		return fmt.Errorf("-results, -env, -out and -charts are required")
	}
	recs, err := readRecords(*resultsPath)
	if err != nil {
		return err
	}
	var env map[string]string
	b, err := os.ReadFile(*envPath)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &env); err != nil {
		return fmt.Errorf("%s: %v", *envPath, err)
	}
	var cmds []byte
	if *cmdsPath != "" {
		if cmds, err = os.ReadFile(*cmdsPath); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(*charts, 0o755); err != nil {
		return err
	}
	rel, err := filepath.Rel(filepath.Dir(*out), *charts)
	if err != nil {
		rel = *charts
	}
	var md bytes.Buffer
	r := &reporter{w: &md, recs: recs, env: env, charts: *charts, rel: rel}
	if err := r.write(cmds); err != nil {
		return err
	}
	tmp := *out + ".tmp"
	if err := os.WriteFile(tmp, md.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, *out)
}

func readRecords(path string) ([]record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var recs []record
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		recs = append(recs, r)
	}
	return recs, sc.Err()
}

type reporter struct {
	w      *bytes.Buffer
	recs   []record
	env    map[string]string
	charts string // directory of the charts
	rel    string // the same, relative to the report
}

func (r *reporter) p(format string, args ...any) { fmt.Fprintf(r.w, format, args...) }

func (r *reporter) kind(k string) []record {
	var out []record
	for _, x := range r.recs {
		if x.Kind == k {
			out = append(out, x)
		}
	}
	return out
}

func (r *reporter) write(cmds []byte) error {
	e := r.env
	r.p("# heed benchmark report\n\n")
	if e["quick"] == "1" {
		r.p("**Quick mode (`--quick`): tiny sets, a smoke test of the pipeline. These figures mean nothing.**\n\n")
	}
	r.p("Written by `%s` (bench/run) on %s in %s s. heed and pocketsphinx read the same 16 kHz WAV files; every figure below comes from the commands listed at the end.\n\n", e["invocation"], e["date"], e["took"])
	r.p("| | |\n|---|---|\n")
	for _, kv := range [][2]string{
		{"machine", e["cpu"] + ", " + e["cores"] + " cores, " + e["mem"]},
		{"system", e["os"]},
		{"load average at the end", e["load"]},
		{"Go", e["go"]},
		{"heed", "commit " + e["commit"] + ", model " + e["model"]},
		{"pocketsphinx", e["ps"] + " (acoustic model en-us, 3-gram LM en-us.lm.bin, cmudict-en-us.dict)"},
		{"scoring", e["sctk"] + " (sclite), and our own Levenshtein word and character counts"},
		{"synthesis", e["synth"]},
		{"data", "corpus " + e["corpus"] + ", real speech " + e["real"] + "; " + e["n"] + " utterances per dev set, " + e["fsdd"] + " FSDD test digits, " + e["align_n"] + " utterances per alignment set; noise: pink, at " + e["snr"] + " dB SNR"},
	} {
		r.p("| %s | %s |\n", kv[0], kv[1])
	}
	r.p("\n")
	for _, section := range []func() error{r.headline, r.accuracy, r.alignment, r.speed, r.scaling} {
		if err := section(); err != nil {
			return err
		}
	}
	if len(cmds) > 0 {
		r.p("## Commands\n\nIn the order run (OUT is the work directory, `%s` in this run):\n\n```sh\n%s```\n", e["work"], cmds)
	}
	return nil
}

// asrKey identifies an accuracy row.
type asrKey struct{ set, cond string }

// asrTable returns the accuracy results by set and condition, then system,
// and the keys in order: sets as first seen, clean before the SNRs.
func (r *reporter) asrTable() (map[asrKey]map[string]record, []asrKey) {
	m := map[asrKey]map[string]record{}
	var keys []asrKey
	for _, x := range r.kind("asr") {
		k := asrKey{x.Set, x.Cond}
		if m[k] == nil {
			m[k] = map[string]record{}
			keys = append(keys, k)
		}
		m[k][x.System] = x
	}
	order := map[string]int{}
	for _, k := range keys {
		if _, ok := order[k.set]; !ok {
			order[k.set] = len(order)
		}
	}
	condRank := func(c string) float64 {
		var v float64
		if _, err := fmt.Sscanf(c, "snr%g", &v); err == nil {
			return -v
		}
		return math.Inf(-1) // clean first
	}
	sort.SliceStable(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.set != b.set {
			return order[a.set] < order[b.set]
		}
		return condRank(a.cond) < condRank(b.cond)
	})
	return m, keys
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

func (r *reporter) headline() error {
	m, keys := r.asrTable()
	r.p("## Headline\n\n")
	r.p("| set | heed WER | pocketsphinx WER | heed alignment mean | pocketsphinx alignment mean |\n|---|---|---|---|---|\n")
	al := r.alignBySet()
	for _, k := range keys {
		if k.cond != "clean" {
			continue
		}
		h, p := m[k]["heed"], m[k]["pocketsphinx"]
		ha, pa := "-", "-"
		if a, ok := al[k.set]["heed"]; ok && a.Boundaries != nil {
			ha = fmt.Sprintf("%.1f ms", 1000*a.Boundaries.Mean)
		}
		if a, ok := al[k.set]["pocketsphinx"]; ok && a.Boundaries != nil {
			pa = fmt.Sprintf("%.1f ms", 1000*a.Boundaries.Mean)
		}
		r.p("| %s (clean) | %s | %s | %s | %s |\n", k.set, pct(h.WER), pct(p.WER), ha, pa)
	}
	sp := map[[3]string]record{}
	for _, x := range r.kind("speed") {
		sp[[3]string{x.System, x.Task, x.Mode}] = x
	}
	r.p("\nSpeed on one core, as a multiple of real time (audio seconds per CPU second): ")
	var parts []string
	for _, task := range []string{"transcribe", "align", "stream"} {
		h, okh := sp[[3]string{"heed", task, "1 core"}]
		p, okp := sp[[3]string{"pocketsphinx", task, "1 core"}]
		if okh && okp {
			parts = append(parts, fmt.Sprintf("%s heed %.0f×, pocketsphinx %.0f×", task, h.AudioSec/h.CPUSec, p.AudioSec/p.CPUSec))
		}
	}
	r.p("%s.\n\n", strings.Join(parts, "; "))
	return nil
}

func (r *reporter) accuracy() error {
	m, keys := r.asrTable()
	r.p("## Accuracy\n\n")
	r.p("Word and character error rates of the same files; the noisy copies add pink noise at the given SNR over the speech frames. sclite's WER (`sclite -i rm -o sum`) is scored from the same normalised words as ours (lowercase a-z and apostrophes).\n\n")
	r.p("| set | condition | utterances | words | heed WER | heed CER | pocketsphinx WER | pocketsphinx CER | sclite WER heed / pocketsphinx |\n|---|---|---|---|---|---|---|---|---|\n")
	var names []string
	var heed, ps []float64
	for _, k := range keys {
		h, p := m[k]["heed"], m[k]["pocketsphinx"]
		miss := ""
		if h.Missing+p.Missing > 0 {
			miss = fmt.Sprintf(" (%d / %d without output)", h.Missing, p.Missing)
		}
		r.p("| %s | %s | %d | %d | %s | %s | %s | %s | %s / %s%s |\n", k.set, k.cond, h.Utts, h.Words,
			pct(h.WER), pct(h.CER), pct(p.WER), pct(p.CER), scl(h.ScliteWER), scl(p.ScliteWER), miss)
		names = append(names, k.set+" "+k.cond)
		heed = append(heed, 100*h.WER)
		ps = append(ps, 100*p.WER)
	}
	if len(names) == 0 {
		return nil
	}
	file := "accuracy.png"
	if err := barChart(filepath.Join(r.charts, file), "Word error rate (lower is better)", "WER %", names,
		[]string{"heed", "pocketsphinx"}, [][]float64{heed, ps}); err != nil {
		return err
	}
	r.p("\n![word error rate per set](%s)\n\n", filepath.Join(r.rel, file))
	return nil
}

func scl(x float64) string {
	if x < 0 {
		return "-"
	}
	return pct(x)
}

// alignBySet returns the first alignment row (the whole manifest) of each
// set and system.
func (r *reporter) alignBySet() map[string]map[string]record {
	m := map[string]map[string]record{}
	for _, x := range r.kind("align") {
		if m[x.Set] == nil {
			m[x.Set] = map[string]record{}
		}
		if _, ok := m[x.Set][x.System]; !ok {
			m[x.Set][x.System] = x
		}
	}
	return m
}

func (r *reporter) alignment() error {
	m := r.alignBySet()
	var sets []string
	seen := map[string]bool{}
	for _, x := range r.kind("align") {
		if !seen[x.Set] {
			seen[x.Set] = true
			sets = append(sets, x.Set)
		}
	}
	r.p("## Alignment\n\n")
	r.p("Word-boundary error (start and end of every word against the gold times: espeak-ng's word events, FSDD clip boundaries). pocketsphinx aligns with a JSGF grammar of the transcript (bench/psalign); it fails on utterances with a word missing from its dictionary and on some others, which are left out of its figures, so heed is also scored on the utterances pocketsphinx aligned. The long recordings are dev utterances glued with 0.3–1 s pauses (bench/longaudio.py), from those whose words pocketsphinx's dictionary has.\n\n")
	r.p("| set | system | aligned | failed | mean | median | p90 | ≤ 20 ms | ≤ 50 ms | ≤ 100 ms |\n|---|---|---|---|---|---|---|---|---|---|\n")
	systems := []string{"heed", "heed (pocketsphinx subset)", "pocketsphinx"}
	var names []string
	vals := make([][]float64, 2)
	for _, s := range sets {
		for _, sys := range systems {
			x, ok := m[s][sys]
			if !ok {
				continue
			}
			if x.Boundaries == nil || x.Boundaries.N == 0 {
				r.p("| %s | %s | %d | %d | - | - | - | - | - | - |\n", s, sys, x.Utts, x.Failed)
				continue
			}
			b := x.Boundaries
			r.p("| %s | %s | %d | %d | %.1f ms | %.1f ms | %.1f ms | %s | %s | %s |\n", s, sys, x.Utts, x.Failed,
				1000*b.Mean, 1000*b.Median, 1000*b.P90, pct(b.Within20), pct(b.Within50), pct(b.Within100))
		}
		names = append(names, s)
		for i, sys := range []string{"heed", "pocketsphinx"} {
			v := math.NaN()
			if x, ok := m[s][sys]; ok && x.Boundaries != nil && x.Boundaries.N > 0 {
				v = 1000 * x.Boundaries.Mean
			}
			vals[i] = append(vals[i], v)
		}
	}
	if len(names) == 0 {
		return nil
	}
	file := "alignment.png"
	if err := barChart(filepath.Join(r.charts, file), "Mean word-boundary error (lower is better)", "ms", names,
		[]string{"heed", "pocketsphinx"}, vals); err != nil {
		return err
	}
	r.p("\n![mean boundary error per set](%s)\n\n", filepath.Join(r.rel, file))
	return nil
}

func (r *reporter) speed() error {
	recs := r.kind("speed")
	if len(recs) == 0 {
		return nil
	}
	r.p("## Speed and memory\n\n")
	r.p("transcribe and align: the espeak-ng clean dev set, one process for all files (heed transcribe, heed eval align, pocketsphinx_batch; psalign starts one pocketsphinx process per file, as JSGF alignment needs). stream: one glued recording read as a stream (heed stream from standard input, pocketsphinx_continuous -infile). Start-up: one process on the shortest file (an FSDD digit), model loading included. CPU is user + system time of every process; real-time factor = CPU (or wall) seconds per audio second; RSS is the peak of the largest process.\n\n")
	r.p("| task | system | run | audio | wall | CPU | CPU s / audio s | wall s / audio s | peak RSS |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, x := range recs {
		r.p("| %s | %s | %s | %.1f s | %.2f s | %.2f s | %.4f | %.4f | %.0f MB |\n", x.Task, x.System, x.Mode, x.AudioSec, x.WallSec, x.CPUSec,
			x.CPUSec/x.AudioSec, x.WallSec/x.AudioSec, x.RSSMB)
	}
	r.p("\n")
	return nil
}

func (r *reporter) scaling() error {
	by := map[string][]record{}
	var tasks []string
	for _, x := range r.kind("scale") {
		if by[x.Task] == nil {
			tasks = append(tasks, x.Task)
		}
		by[x.Task] = append(by[x.Task], x)
	}
	if len(tasks) == 0 {
		return nil
	}
	r.p("## Scaling with audio length\n\n")
	r.p("One process on one core (GOMAXPROCS=1) per recording of glued dev utterances: heed transcribe FILE, heed align FILE TEXT. The straight line is a least-squares fit; R² near 1 means time (or memory) grows linearly with the audio.\n\n")
	r.p("| task | audio | CPU | CPU s / audio s | peak RSS |\n|---|---|---|---|---|\n")
	var cpu, rss []series
	for _, t := range tasks {
		xs := by[t]
		sort.Slice(xs, func(i, j int) bool { return xs[i].AudioSec < xs[j].AudioSec })
		var sc, sr series
		sc.name, sr.name = t, t
		for _, x := range xs {
			r.p("| %s | %.0f s | %.2f s | %.4f | %.0f MB |\n", t, x.AudioSec, x.CPUSec, x.CPUSec/x.AudioSec, x.RSSMB)
			sc.x, sc.y = append(sc.x, x.AudioSec), append(sc.y, x.CPUSec)
			sr.x, sr.y = append(sr.x, x.AudioSec), append(sr.y, x.RSSMB)
		}
		cpu, rss = append(cpu, sc), append(rss, sr)
	}
	r.p("\n| task | CPU time fit | R² | memory fit | R² |\n|---|---|---|---|---|\n")
	for i, t := range tasks {
		a, b, r2 := cpu[i].fit()
		c, d, r2m := rss[i].fit()
		r.p("| %s | %.3f s + %.4f s per audio s | %.4f | %.0f MB + %.3f MB per audio s | %.4f |\n", t, a, b, r2, c, d, r2m)
	}
	for _, c := range []struct {
		file, title, y string
		s              []series
	}{
		{"scaling_time.png", "CPU time against audio length (one core)", "CPU seconds", cpu},
		{"scaling_memory.png", "Peak memory against audio length", "peak RSS, MB", rss},
	} {
		if err := linePlot(filepath.Join(r.charts, c.file), c.title, "audio seconds", c.y, c.s); err != nil {
			return err
		}
		r.p("\n![%s](%s)\n", c.title, filepath.Join(r.rel, c.file))
	}
	r.p("\n")
	return nil
}

// series is one line of a plot.
type series struct {
	name string
	x, y []float64
}

// fit returns the least-squares line y = a + b x and its R².
func (s series) fit() (a, b, r2 float64) {
	n := float64(len(s.x))
	var mx, my float64
	for i := range s.x {
		mx += s.x[i] / n
		my += s.y[i] / n
	}
	var sxy, sxx, syy float64
	for i := range s.x {
		dx, dy := s.x[i]-mx, s.y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 {
		return my, 0, math.NaN()
	}
	b = sxy / sxx
	a = my - b*mx
	if syy == 0 {
		return a, b, 1
	}
	return a, b, sxy * sxy / (sxx * syy)
}

var palette = []color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
}

// barChart draws groups of bars, one group per name and one bar per system.
// NaN values are drawn as empty bars.
func barChart(path, title, ylabel string, names, systems []string, vals [][]float64) error {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = ylabel
	w := vg.Points(10)
	for i, sys := range systems {
		v := make(plotter.Values, len(vals[i]))
		for j, x := range vals[i] {
			if !math.IsNaN(x) {
				v[j] = x
			}
		}
		b, err := plotter.NewBarChart(v, w)
		if err != nil {
			return err
		}
		b.Color = palette[i%len(palette)]
		b.LineStyle.Width = 0
		b.Offset = w * vg.Length(2*i-len(systems)+1) / 2
		p.Add(b)
		p.Legend.Add(sys, b)
	}
	p.Legend.Top = true
	top := 0.0
	for _, v := range vals {
		for _, x := range v {
			if !math.IsNaN(x) {
				top = max(top, x)
			}
		}
	}
	p.Y.Min, p.Y.Max = 0, 1.25*top+1e-9 // headroom for the legend
	p.NominalX(names...)
	p.X.Tick.Label.Rotation = math.Pi / 4
	p.X.Tick.Label.XAlign = -1
	p.X.Tick.Label.YAlign = -0.5
	p.Add(plotter.NewGrid())
	width := vg.Length(max(6, 0.45*float64(len(names)))) * vg.Inch
	return p.Save(width, 4*vg.Inch, path)
}

// linePlot draws each series as points joined by lines, with its
// least-squares line dashed, on linear axes.
func linePlot(path, title, xlabel, ylabel string, ss []series) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	for i, s := range ss {
		xy := make(plotter.XYs, len(s.x))
		for j := range s.x {
			xy[j] = plotter.XY{X: s.x[j], Y: s.y[j]}
		}
		l, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return err
		}
		c := palette[i%len(palette)]
		l.Color, pts.Color = c, c
		p.Add(l, pts)
		p.Legend.Add(s.name, l, pts)
		if len(s.x) >= 2 {
			a, b, _ := s.fit()
			f := plotter.NewFunction(func(x float64) float64 { return a + b*x })
			f.Color = c
			f.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			p.Add(f)
		}
	}
	p.Legend.Top = true
	p.Legend.Left = true
	p.X.Min, p.Y.Min = 0, 0
	p.Y.Max *= 1.15 // headroom for the legend
	return p.Save(6*vg.Inch, 4*vg.Inch, path)
}
