package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/heed-asr/heed/corpus"
)

// TestMain lets the test binary act as heed-corpus when it re-executes
// itself as a worker (see TestBuildDeterministic).
func TestMain(m *testing.M) {
	if os.Getenv("HEED_CORPUS_AS_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// testSources writes a small fortune file and word list and returns
// options using them, without flite and FSDD.
func testSources(t *testing.T) *options {
	t.Helper()
	dir := t.TempDir()
	fdir := filepath.Join(dir, "fortunes")
	if err := os.Mkdir(fdir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	words := []string{"the", "cat", "sat", "on", "a", "mat", "dog", "ran", "far", "away", "from", "home", "and", "then", "slept"}
	for i := range 400 {
		n := 3 + i%9
		var s []string
		for j := range n {
			s = append(s, words[(i*7+j*3+i/9)%len(words)])
		}
		b.WriteString(strings.Join(s, " ") + ".\n%\n")
	}
	if err := os.WriteFile(filepath.Join(fdir, "test"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	dict := filepath.Join(dir, "words")
	if err := os.WriteFile(dict, []byte(strings.Join(append(words, "zebra", "quokka", "aardvark", "ibex"), "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	o := &options{}
	fs := newFlagSet(o, &bytes.Buffer{})
	if err := fs.Parse([]string{"-out", filepath.Join(dir, "out"), "-fortunes", fdir, "-dict", dict, "-flite", "", "-fsdd", "", "-hours", "0.05", "-noisy-hours", "0.01", "-dev-minutes", "0.5", "-dev-fraction", "0.2"}); err != nil {
		t.Fatal(err)
	}
	return o
}

func TestPlan(t *testing.T) {
	o := testSources(t)
	p1, err := makePlan(o)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := makePlan(o)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p1.jobs, p2.jobs) {
		t.Fatal("plan is not deterministic")
	}
	trainText := make(map[string]bool)
	trainVoice := make(map[string]bool)
	est := make(map[string]float64)
	for _, j := range p1.jobs {
		est[j.Set] += j.Est
		if j.Set == setTrain {
			trainText[j.Text] = true
			trainVoice[j.Voice.Name+"+"+j.Voice.Variant] = true
			if j.Voice.Rate < 110 || j.Voice.Rate > 260 || j.Voice.Pitch < 20 || j.Voice.Pitch > 90 {
				t.Errorf("job %d: voice settings out of range: %+v", j.ID, j.Voice)
			}
		}
	}
	for _, j := range p1.jobs {
		if j.Set != setDev {
			continue
		}
		if trainText[j.Text] {
			t.Errorf("dev text %q also in training", j.Text)
		}
		if trainVoice[j.Voice.Name+"+"+j.Voice.Variant] {
			t.Errorf("dev voice %s also in training", j.Voice)
		}
		if j.Noisy.Noise == "" || j.Noisy.SNR != 10 {
			t.Errorf("dev job %d: noisy copy %+v", j.ID, j.Noisy)
		}
	}
	// The estimates reach the targets and overshoot by at most one utterance.
	if got := est[setTrain]; got < 0.05*3600 || got > 0.05*3600+20 {
		t.Errorf("training estimate %.1f s, want about %.1f", got, 0.05*3600)
	}
	if got := est[setDev]; got < 30 || got > 50 {
		t.Errorf("dev estimate %.1f s, want about 30", got)
	}
	for _, j := range p1.jobs {
		if j.Set != setTrainNoisy {
			continue
		}
		if !trainText[j.Text] && corpus.IsDev(j.Text, o.devFrac) {
			t.Errorf("noisy training job %d speaks dev text %q", j.ID, j.Text)
		}
		if a := j.Aug; a.Noise == "" || a.SNR < 0 || a.SNR > 20 || a.Speed != 0 || a.RT60 != 0 || a.Telephone || a.GainDB != 0 {
			t.Errorf("noisy training job %d: augmentation %+v, want noise only", j.ID, a)
		}
	}
	if got := est[setTrainNoisy]; got < 0.01*3600 || got > 0.01*3600+20 {
		t.Errorf("noisy training estimate %.1f s, want about %.1f", got, 0.01*3600)
	}
	// The other sets do not depend on -noisy-hours.
	o.noisyHours = 0
	p3, err := makePlan(o)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p3.jobs, p1.jobs[:len(p3.jobs)]) {
		t.Error("-noisy-hours changes the other sets")
	}
	train, dev := voiceCombos()
	if len(dev) == 0 || len(train) < 5*len(dev) {
		t.Errorf("%d train and %d dev voice combinations", len(train), len(dev))
	}
}

func TestRunUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want error
	}{
		{"help", []string{"-help"}, flag.ErrHelp},
		{"no out", []string{}, errUsage},
		{"bad flag", []string{"-out", "x", "-nope"}, errUsage},
		{"extra arg", []string{"-out", "x", "extra"}, errUsage},
		{"bad hours", []string{"-out", "x", "-hours", "-1"}, errUsage},
		{"bad shares", []string{"-out", "x", "-flite-share", "0.6", "-fsdd-share", "0.6"}, errUsage},
		{"bad worker", []string{"-out", "x", "-worker=maybe"}, errUsage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			err := run(context.Background(), tc.args, &bytes.Buffer{}, &stderr)
			if !errors.Is(err, tc.want) {
				t.Errorf("error %v, want %v", err, tc.want)
			}
		})
	}
	var stderr bytes.Buffer
	run(context.Background(), []string{"-help"}, &bytes.Buffer{}, &stderr)
	for _, s := range []string{"-hours float", "(default 20)", "-dev-minutes", "(default 30)", "-seed", "-jobs", "-fsdd", "../shared/data/fsdd"} {
		if !strings.Contains(stderr.String(), s) {
			t.Errorf("usage lacks %q:\n%s", s, stderr.String())
		}
	}
}
