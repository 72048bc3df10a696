//go:build espeak

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/heed-asr/heed/corpus"
)

// TestBuildDeterministic builds a tiny corpus with one and with two
// workers and checks that the manifests and WAV files are identical and
// valid.
func TestBuildDeterministic(t *testing.T) {
	t.Setenv("HEED_CORPUS_AS_MAIN", "1")
	defer func(n int) { chunkSize = n }(chunkSize)
	chunkSize = 7 // several chunks, handed out differently with 1 and 2 workers
	o := testSources(t)
	base := filepath.Dir(o.out)
	args := func(out string, jobs string) []string {
		return []string{"-out", out, "-fortunes", o.fortunes, "-dict", o.dict, "-flite", "", "-fsdd", "",
			"-hours", "0.02", "-noisy-hours", "0.01", "-dev-minutes", "0.3", "-dev-fraction", "0.2", "-jobs", jobs, "-seed", "5"}
	}
	outs := []string{filepath.Join(base, "c1"), filepath.Join(base, "c2")}
	for i, jobs := range []string{"1", "2"} {
		var stderr bytes.Buffer
		if err := run(context.Background(), args(outs[i], jobs), &bytes.Buffer{}, &stderr); err != nil {
			t.Fatalf("-jobs %s: %v\n%s", jobs, err, stderr.String())
		}
		if !strings.Contains(stderr.String(), "train.jsonl") {
			t.Errorf("no summary on stderr:\n%s", stderr.String())
		}
	}
	for _, set := range []string{setTrain, setTrainNoisy, setDev, setDevNoisy} {
		m1, err := corpus.ReadManifest(filepath.Join(outs[0], set+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		m2, err := corpus.ReadManifest(filepath.Join(outs[1], set+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if len(m1) == 0 || len(m1) != len(m2) {
			t.Fatalf("%s: %d and %d utterances", set, len(m1), len(m2))
		}
		for i := range m1 {
			a1, a2 := m1[i].Audio, m2[i].Audio
			b1, err1 := os.ReadFile(a1)
			b2, err2 := os.ReadFile(a2)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if !bytes.Equal(b1, b2) {
				t.Errorf("%s %d: WAV files differ", set, i)
			}
			m1[i].Audio, m2[i].Audio = filepath.Base(a1), filepath.Base(a2)
			if !reflect.DeepEqual(m1[i], m2[i]) {
				t.Errorf("%s %d: %+v vs %+v", set, i, m1[i], m2[i])
			}
			if want := float64(len(b1)-44) / 2 / rate; abs(m1[i].Duration-want) > 1e-4 {
				t.Errorf("%s %d: duration %v, file has %v s", set, i, m1[i].Duration, want)
			}
			if set == setDev && len(m1[i].Words) == 0 {
				t.Errorf("dev utterance %d has no word times", i)
			}
		}
	}
}

func abs(v float64) float64 { return max(v, -v) }
