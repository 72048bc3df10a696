package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/heed-asr/heed/corpus"
	"github.com/heed-asr/heed/model/train"
)

// asrResult is one system's recognition error on one set and condition.
type asrResult struct {
	Kind      string  `json:"kind"` // "asr"
	System    string  `json:"system"`
	Set       string  `json:"set"`
	Cond      string  `json:"cond"`
	Utts      int     `json:"utts"`
	Missing   int     `json:"missing"` // utterances with no hypothesis line
	Words     int     `json:"words"`
	Chars     int     `json:"chars"`
	WER       float64 `json:"wer"`
	CER       float64 `json:"cer"`
	ScliteWER float64 `json:"sclite_wer"` // -1 when sclite is not installed
	AudioSec  float64 `json:"audio_s"`
}

func score(args []string) error {
	fs := flag.NewFlagSet("score", flag.ContinueOnError)
	manifest := fs.String("manifest", "", "manifest of the set")
	hypPath := fs.String("hyp", "", "hypotheses file")
	format := fs.String("hyp-format", "heed", `"heed" (FILE<TAB>TEXT) or "ps" (pocketsphinx_batch: TEXT (ID SCORE), ID the path without .wav)`)
	r := asrResult{Kind: "asr"}
	fs.StringVar(&r.System, "system", "", "system name")
	fs.StringVar(&r.Set, "set", "", "set name")
	fs.StringVar(&r.Cond, "cond", "", "condition name")
	trnDir := fs.String("trn", "", "directory for sclite's trn files")
	out := fs.String("o", "", "results file (JSON Lines, appended)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *manifest == "" || *hypPath == "" || *out == "" || *trnDir == "" || r.System == "" {
		return fmt.Errorf("-manifest, -hyp, -system, -trn and -o are required")
	}
	utts, err := corpus.ReadManifest(*manifest)
	if err != nil {
		return err
	}
	hyps, err := readHyps(*hypPath, *format, utts)
	if err != nil {
		return err
	}
	var ref, hyp strings.Builder
	var wordErr, charErr int
	for i, u := range utts {
		h, ok := hyps[u.Audio]
		if !ok {
			r.Missing++
		}
		rw, hw := words(u.Text), words(h)
		wordErr += train.EditDistance(rw, hw)
		rc, hc := []rune(strings.Join(rw, " ")), []rune(strings.Join(hw, " "))
		charErr += train.EditDistance(rc, hc)
		r.Words += len(rw)
		r.Chars += len(rc)
		r.AudioSec += u.Duration
		id := fmt.Sprintf("(%s_%04d)", r.Set, i)
		fmt.Fprintln(&ref, strings.Join(rw, " "), id)
		fmt.Fprintln(&hyp, strings.Join(hw, " "), id)
	}
	r.Utts = len(utts)
	r.WER = float64(wordErr) / float64(max(1, r.Words))
	r.CER = float64(charErr) / float64(max(1, r.Chars))
	base := filepath.Join(*trnDir, r.System+"_"+r.Set+"_"+r.Cond)
	if err := os.WriteFile(base+".ref.trn", []byte(ref.String()), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(base+".hyp.trn", []byte(hyp.String()), 0o644); err != nil {
		return err
	}
	r.ScliteWER, err = sclite(base+".ref.trn", base+".hyp.trn")
	if err != nil {
		return err
	}
	return appendJSON(*out, r)
}

// words lowercases s and splits it into words of a-z and apostrophes.
func words(s string) []string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		case r >= 'a' && r <= 'z', r == '\'':
			return r
		}
		return ' '
	}, s)
	return strings.Fields(s)
}

// readHyps returns the hypothesis of each audio path.
func readHyps(path, format string, utts []corpus.Utterance) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	hyps := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		switch format {
		case "heed":
			file, text, ok := strings.Cut(line, "\t")
			if !ok && len(utts) == 1 { // one file: the text alone
				file, text = utts[0].Audio, line
			}
			hyps[file] = text
		case "ps":
			open := strings.LastIndexByte(line, '(')
			if open < 0 || !strings.HasSuffix(line, ")") {
				return nil, fmt.Errorf("%s: bad line %q", path, line)
			}
			id, _, _ := strings.Cut(line[open+1:len(line)-1], " ")
			hyps[id+".wav"] = line[:open]
		default:
			return nil, fmt.Errorf("unknown -hyp-format %q", format)
		}
	}
	return hyps, sc.Err()
}

// sclite scores the trn files with NIST sclite (Debian sctk) and returns
// its word error rate, or -1 when it is not installed.
func sclite(ref, hyp string) (float64, error) {
	var cmd *exec.Cmd
	if p, err := exec.LookPath("sclite"); err == nil {
		cmd = exec.Command(p)
	} else if p, err := exec.LookPath("sctk"); err == nil {
		cmd = exec.Command(p, "sclite")
	} else {
		return -1, nil
	}
	cmd.Args = append(cmd.Args, "-r", ref, "trn", "-h", hyp, "trn", "-i", "rm", "-o", "sum", "stdout")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("sclite: %v: %s", err, out)
	}
	// | Sum/Avg|    2      6 | 66.7   16.7   16.7    0.0   33.3  100.0 |
	for _, line := range strings.Split(string(out), "\n") {
		if !strings.Contains(line, "Sum/Avg") {
			continue
		}
		cols := strings.Split(line, "|")
		if len(cols) < 4 {
			break
		}
		f := strings.Fields(cols[3])
		if len(f) < 5 {
			break
		}
		v, err := strconv.ParseFloat(f[4], 64)
		if err != nil {
			return 0, fmt.Errorf("sclite: %q: %v", line, err)
		}
		return v / 100, nil
	}
	return 0, fmt.Errorf("sclite: no Sum/Avg line in its output:\n%s", out)
}

// appendJSON appends v as one JSON line to path.
func appendJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
