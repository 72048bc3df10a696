package main

import (
	"bytes"
	"context"
	"encoding/json"
	stdpng "image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heed-asr/heed/corpus"
	"github.com/heed-asr/heed/model"
	"github.com/heed-asr/heed/model/train"
)

// tinyCorpus writes three short utterances and a manifest listing them
// (texts "a", "b c", "d", with word times and two sources) into a fresh
// directory and returns the manifest's path.
func tinyCorpus(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	wavs := writeUtterances(t, dir, 0.5, 0.8, 0.6)
	utts := []corpus.Utterance{
		{Audio: wavs[0], Text: "a", Source: "tone", Duration: 0.5,
			Words: []corpus.Word{{Word: "a", Start: 0.1, End: 0.4}}},
		{Audio: wavs[1], Text: "b c", Source: "noise", Duration: 0.8,
			Words: []corpus.Word{{Word: "b", Start: 0.1, End: 0.35}, {Word: "c", Start: 0.4, End: 0.7}}},
		{Audio: wavs[2], Text: "d", Source: "tone", Duration: 0.6,
			Words: []corpus.Word{{Word: "d", Start: 0.15, End: 0.5}}},
	}
	return writeManifest(t, filepath.Join(dir, "m.jsonl"), utts)
}

// writeManifest writes utts as JSON Lines with audio paths relative to the
// manifest's directory, as a corpus on disk would have them.
func writeManifest(t *testing.T, path string, utts []corpus.Utterance) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, u := range utts {
		rel, err := filepath.Rel(filepath.Dir(path), u.Audio)
		if err != nil {
			t.Fatal(err)
		}
		u.Audio = rel
		if err := enc.Encode(u); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// tinyTrainFlags shrink the network and the machine share so that a step
// takes milliseconds.
var tinyTrainFlags = []string{"--enc-layers", "1", "--enc-hidden", "16", "--dec-hidden", "16", "--workers", "1", "--warmup", "2"}

// trainLog reads train.jsonl and returns its records.
func trainLog(t *testing.T, dir string) []map[string]any {
	t.Helper()
	var recs []map[string]any
	for i, l := range lines(string(readAll(t, filepath.Join(dir, "train.jsonl")))) {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("train.jsonl line %d: %v: %s", i+1, err, l)
		}
		recs = append(recs, r)
	}
	return recs
}

// trainSteps returns the "step" of each "train" record in order.
func trainSteps(recs []map[string]any) []int {
	var steps []int
	for _, r := range recs {
		if r["kind"] == "train" {
			s, _ := r["step"].(float64)
			steps = append(steps, int(s))
		}
	}
	return steps
}

func TestTrain(t *testing.T) {
	m := tinyCorpus(t)
	out := filepath.Join(t.TempDir(), "run")
	base := []string{"train", "--train", m, "--dev", m, "--out", out, "--batch-frames", "2000", "--log-every", "1", "--eval-every", "0"}
	base = append(base, tinyTrainFlags...)

	t.Run("three steps", func(t *testing.T) {
		r := heed(t, "", append(base, "--steps", "3")...)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if r.stdout != "" {
			t.Errorf("train wrote to stdout: %q", r.stdout)
		}
		for _, f := range []string{"checkpoint.heed", "model.heed", "train.jsonl", "curves.png"} {
			fi, err := os.Stat(filepath.Join(out, f))
			if err != nil || fi.Size() == 0 {
				t.Errorf("%s: %v (size %v)", f, err, fi)
			}
		}
		if png := readAll(t, filepath.Join(out, "curves.png")); !bytes.HasPrefix(png, []byte("\x89PNG")) {
			t.Errorf("curves.png is not a PNG")
		}
		recs := trainLog(t, out)
		if got := trainSteps(recs); len(got) != 3 || got[0] != 1 || got[2] != 3 {
			t.Errorf("train records at steps %v, want [1 2 3]", got)
		}
		for _, k := range []string{"loss", "att", "ctc", "lr", "grad_norm"} {
			if _, ok := recs[0][k].(float64); !ok {
				t.Errorf("train record lacks number %q: %v", k, recs[0])
			}
		}
		// --eval-every 0 evaluates the dev set once, at the end.
		var dev []map[string]any
		for _, r := range recs {
			if r["kind"] == "dev" {
				dev = append(dev, r)
			}
		}
		if len(dev) != 1 || dev[0]["step"] != 3.0 {
			t.Errorf("dev records %v, want one at step 3", dev)
		}
		b, err := model.LoadFile(filepath.Join(out, "model.heed"))
		if err != nil {
			t.Fatal(err)
		}
		if b.Meta.Training.Steps != 3 || b.Net.Cfg.EncHidden != 16 || b.Net.Cfg.EncLayers != 1 {
			t.Errorf("model.heed: %d steps, enc %dx%d; want 3 steps, enc 1x16", b.Meta.Training.Steps, b.Net.Cfg.EncLayers, b.Net.Cfg.EncHidden)
		}
	})

	t.Run("resume", func(t *testing.T) {
		r := heed(t, "", "train", "--resume", "--out", out, "--steps", "5", "--log-every", "1", "--eval-every", "0", "--batch-frames", "2000", "--workers", "1")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, "resumed at update 3") {
			t.Errorf("progress does not say where it resumed:\n%s", r.stderr)
		}
		if got := trainSteps(trainLog(t, out)); len(got) != 5 || got[len(got)-1] != 5 {
			t.Errorf("train records at steps %v, want [1 2 3 4 5]", got)
		}
		b, err := model.LoadFile(filepath.Join(out, "model.heed"))
		if err != nil {
			t.Fatal(err)
		}
		if b.Meta.Training.Steps != 5 {
			t.Errorf("model.heed says %d steps, want 5", b.Meta.Training.Steps)
		}
	})

	t.Run("resume with a warp at every update", func(t *testing.T) {
		args := []string{"train", "--resume", "--out", out, "--log-every", "1", "--eval-every", "0", "--batch-frames", "2000", "--workers", "1"}
		if r := heed(t, "", append(args, "--steps", "5", "--warp", "0.6")...); r.code != 2 || !strings.Contains(r.stderr, "--warp") {
			t.Fatalf("--warp 0.6: exit %d, stderr:\n%s", r.code, r.stderr)
		}
		r := heed(t, "", append(args, "--steps", "5", "--warp", "0.1")...)
		if r.code != 0 || !strings.Contains(r.stderr, "perturbation drawn at every update (up to 10%)") {
			t.Fatalf("--warp 0.1: exit %d, stderr:\n%s", r.code, r.stderr)
		}
		// At update 5 already, so nothing trains; the checkpoint keeps the
		// setting, and --warp 0 turns it off.
		if r := heed(t, "", append(args, "--steps", "5")...); !strings.Contains(r.stderr, "up to 10%") {
			t.Errorf("plain resume after --warp 0.1: exit %d, stderr:\n%s", r.code, r.stderr)
		}
		if r := heed(t, "", append(args, "--steps", "5", "--warp", "0")...); r.code != 0 || strings.Contains(r.stderr, "perturbation drawn") {
			t.Errorf("--warp 0: exit %d, stderr:\n%s", r.code, r.stderr)
		}
	})

	t.Run("resume with stronger SpecAugment", func(t *testing.T) {
		args := []string{"train", "--resume", "--out", out, "--log-every", "1", "--eval-every", "0", "--batch-frames", "2000", "--workers", "1", "--steps", "5"}
		if r := heed(t, "", append(args, "--specaug-masks-per-s", "-1")...); r.code != 2 || !strings.Contains(r.stderr, "--specaug-masks-per-s") {
			t.Fatalf("--specaug-masks-per-s -1: exit %d, stderr:\n%s", r.code, r.stderr)
		}
		r := heed(t, "", append(args, "--specaug-freq-width", "27", "--specaug-masks-per-s", "1")...)
		if r.code != 0 || !strings.Contains(r.stderr, "2 frequency masks of up to 27 bins, 2 time masks of up to 40 frames (1 a second at least)") {
			t.Fatalf("--specaug-freq-width 27 --specaug-masks-per-s 1: exit %d, stderr:\n%s", r.code, r.stderr)
		}
		// The checkpoint keeps the policy; --specaug alone restores the default.
		if r := heed(t, "", args...); !strings.Contains(r.stderr, "up to 27 bins") {
			t.Errorf("plain resume: exit %d, stderr:\n%s", r.code, r.stderr)
		}
		if r := heed(t, "", append(args, "--specaug")...); r.code != 0 || strings.Contains(r.stderr, "27 bins") {
			t.Errorf("--specaug: exit %d, stderr:\n%s", r.code, r.stderr)
		}
	})

	t.Run("resume with a new schedule", func(t *testing.T) {
		// A resumed run may restart the learning rate: warm-up to update 5
		// (already past), then cosine from 1e-3 to 1e-3/20 at update 7.
		r := heed(t, "", "train", "--resume", "--out", out, "--decay", "cosine", "--warmup", "5", "--steps", "7", "--lr", "1e-3",
			"--log-every", "1", "--eval-every", "0", "--batch-frames", "2000", "--workers", "1")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		lr := map[int]float64{}
		for _, rec := range trainLog(t, out) {
			if rec["kind"] == "train" {
				lr[int(rec["step"].(float64))], _ = rec["lr"].(float64)
			}
		}
		for step, want := range map[int]float64{6: 5e-5 + (1e-3-5e-5)*0.5, 7: 5e-5} {
			if math.Abs(lr[step]-want) > 1e-12 {
				t.Errorf("update %d: lr %g, want %g", step, lr[step], want)
			}
		}
	})

	t.Run("resume on new data", func(t *testing.T) {
		// A manifest with one utterance more than the checkpoint's.
		ls := lines(string(readAll(t, m)))
		m2 := filepath.Join(filepath.Dir(m), "more.jsonl")
		if err := os.WriteFile(m2, []byte(strings.Join(append(ls, ls[0]), "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"train", "--resume", "--train", m2, "--out", out, "--steps", "8", "--log-every", "1", "--eval-every", "0", "--batch-frames", "2000", "--workers", "1"}
		r := heed(t, "", args...)
		if r.code != 1 || !strings.Contains(r.stderr, "--new-data") {
			t.Fatalf("other data without --new-data: exit %d, stderr:\n%s", r.code, r.stderr)
		}
		r = heed(t, "", append(args, "--new-data")...)
		if r.code != 0 || !strings.Contains(r.stderr, "new training data") {
			t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
		}
		if got := trainSteps(trainLog(t, out)); got[len(got)-1] != 8 {
			t.Errorf("train records end at step %d, want 8", got[len(got)-1])
		}
		// The checkpoint now names the new data: a plain resume works.
		r = heed(t, "", "train", "--resume", "--out", out, "--steps", "9", "--eval-every", "0", "--batch-frames", "2000", "--workers", "1")
		if r.code != 0 {
			t.Fatalf("plain resume after --new-data: exit %d: %s", r.code, r.stderr)
		}
	})

	t.Run("interrupted", func(t *testing.T) {
		// Ctrl-C cancels the context: train stops at once, still writes a
		// checkpoint and exits 0; a resumed run then continues from it.
		dir := filepath.Join(t.TempDir(), "int")
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		r := heedCtx(t, ctx, "", append([]string{"train", "--train", m, "--out", dir, "--steps", "2", "--batch-frames", "2000", "--log-every", "1"}, tinyTrainFlags...)...)
		if r.code != 0 || !strings.Contains(r.stderr, "interrupted") {
			t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, "checkpoint.heed")); err != nil {
			t.Fatal(err)
		}
		r = heed(t, "", "train", "--resume", "--out", dir, "--steps", "2", "--batch-frames", "2000", "--log-every", "1", "--workers", "1")
		if r.code != 0 {
			t.Fatalf("resume: exit %d: %s", r.code, r.stderr)
		}
		if got := trainSteps(trainLog(t, dir)); len(got) != 2 || got[1] != 2 {
			t.Errorf("train records at steps %v, want [1 2]", got)
		}
	})

	t.Run("trained model transcribes", func(t *testing.T) {
		wav := filepath.Join(filepath.Dir(m), "a.wav")
		r := heed(t, "", "transcribe", "--model", filepath.Join(out, "model.heed"), "--beam", "1", wav)
		if r.code != 0 || len(lines(r.stdout)) != 1 {
			t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
	})

	t.Run("init from model", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "ft")
		r := heed(t, "", "train", "--train", m, "--out", dir, "--init", filepath.Join(out, "model.heed"), "--steps", "1", "--batch-frames", "2000", "--log-every", "1", "--workers", "1")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if got := trainSteps(trainLog(t, dir)); len(got) != 1 {
			t.Errorf("train records at steps %v, want one", got)
		}
	})

	t.Run("per utterance", func(t *testing.T) {
		// The pre-batching path stays selectable, and a resume keeps it.
		dir := filepath.Join(t.TempDir(), "pu")
		r := heed(t, "", append([]string{"train", "--train", m, "--out", dir, "--per-utterance", "--steps", "1", "--batch-frames", "2000", "--log-every", "1"}, tinyTrainFlags...)...)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		r = heed(t, "", "train", "--resume", "--out", dir, "--steps", "2", "--batch-frames", "2000", "--log-every", "1")
		if r.code != 0 {
			t.Fatalf("resume: exit %d: %s", r.code, r.stderr)
		}
		if got := trainSteps(trainLog(t, dir)); len(got) != 2 {
			t.Errorf("train records at steps %v, want [1 2]", got)
		}
		if ck := readAll(t, filepath.Join(dir, "checkpoint.heed")); !bytes.Contains(ck, []byte(`"per_utterance":true`)) {
			t.Errorf("checkpoint does not keep per_utterance")
		}
	})

	t.Run("widen the encoder", func(t *testing.T) {
		// model/train's TestResumeWiden checks that the widened network
		// computes the same; here the flag reaches it, on resume and --init.
		dir := filepath.Join(t.TempDir(), "wide")
		r := heed(t, "", append([]string{"train", "--train", m, "--out", dir, "--steps", "1", "--batch-frames", "2000", "--log-every", "1"}, tinyTrainFlags...)...)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		r = heed(t, "", "train", "--resume", "--out", dir, "--widen-enc", "20", "--steps", "2", "--batch-frames", "2000", "--log-every", "1", "--workers", "1")
		if r.code != 0 || !strings.Contains(r.stderr, "widened the encoder from 16 to 20 units") || !strings.Contains(r.stderr, "resumed at update 1") {
			t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
		}
		b, err := model.LoadFile(filepath.Join(dir, "model.heed"))
		if err != nil {
			t.Fatal(err)
		}
		if b.Net.Cfg.EncHidden != 20 || b.Meta.Training.Steps != 2 {
			t.Errorf("model.heed: %d units, %d updates; want 20 and 2", b.Net.Cfg.EncHidden, b.Meta.Training.Steps)
		}
		r = heed(t, "", "train", "--resume", "--out", dir, "--widen-enc", "18", "--steps", "3", "--batch-frames", "2000", "--workers", "1")
		if r.code != 1 || !strings.Contains(r.stderr, "--widen-enc 18: the encoder has 20 units") {
			t.Errorf("narrowing: exit %d, stderr:\n%s", r.code, r.stderr)
		}
		ft := filepath.Join(t.TempDir(), "ft")
		r = heed(t, "", "train", "--train", m, "--out", ft, "--init", filepath.Join(dir, "model.heed"), "--widen-enc", "24", "--steps", "1", "--batch-frames", "2000", "--workers", "1")
		if r.code != 0 || !strings.Contains(r.stderr, "widened the encoder from 20 to 24 units") {
			t.Errorf("--init: exit %d, stderr:\n%s", r.code, r.stderr)
		}
		r = heed(t, "", append([]string{"train", "--train", m, "--out", t.TempDir(), "--widen-enc", "24", "--steps", "1"}, tinyTrainFlags...)...)
		if r.code != 2 || !strings.Contains(r.stderr, "--widen-enc needs --resume or --init") {
			t.Errorf("without a model: exit %d, stderr:\n%s", r.code, r.stderr)
		}
	})

	dir := filepath.Dir(m)
	other := writeManifest(t, filepath.Join(dir, "two.jsonl"), []corpus.Utterance{
		{Audio: filepath.Join(dir, "a.wav"), Text: "a"}, {Audio: filepath.Join(dir, "b.wav"), Text: "b c"}})
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte(`{"audio": "a.wav", "text": "a"}`+"\n"+`{"audio": "b.wav", "text": "Hello"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missingAudio := writeManifest(t, filepath.Join(dir, "missing.jsonl"), []corpus.Utterance{
		{Audio: filepath.Join(dir, "a.wav"), Text: "a"}, {Audio: filepath.Join(dir, "nope.wav"), Text: "b"}})
	empty := t.TempDir()
	runCases(t, []cliCase{
		{name: "resume other data", args: append([]string{"train", "--resume", "--train", other, "--out", out, "--steps", "6"}, tinyTrainFlags...), code: 1,
			stderr: []string{"heed: train: resume:", "2 utterances"}},
		{name: "resume without checkpoint", args: []string{"train", "--resume", "--out", empty, "--steps", "1"}, code: 1,
			stderr: []string{"heed: train: resume:", "checkpoint.heed"}},
		{name: "bad manifest", args: append([]string{"train", "--train", bad, "--out", t.TempDir(), "--steps", "1"}, tinyTrainFlags...), code: 1,
			stderr: []string{"heed: train:", "bad.jsonl:2:"}},
		{name: "missing manifest", args: append([]string{"train", "--train", filepath.Join(dir, "nope.jsonl"), "--out", t.TempDir(), "--steps", "1"}, tinyTrainFlags...), code: 1,
			stderr: []string{"heed: train:", "nope.jsonl"}},
		{name: "missing audio", args: append([]string{"train", "--train", missingAudio, "--out", t.TempDir(), "--steps", "1"}, tinyTrainFlags...), code: 1,
			stderr: []string{"heed: train:", "nope.wav"}},
		{name: "missing init", args: append([]string{"train", "--train", m, "--init", filepath.Join(dir, "nope.heed"), "--out", t.TempDir(), "--steps", "1"}, tinyTrainFlags...), code: 1,
			stderr: []string{"heed: train: --init:", "nope.heed"}},
		{name: "out is a file", args: append([]string{"train", "--train", m, "--out", m, "--steps", "1"}, tinyTrainFlags...), code: 1,
			stderr: []string{"heed: train:", m}},
	})
}

// evalRows decodes heed eval --json output.
func evalRows(t *testing.T, out string) []evalRow {
	t.Helper()
	var rows []evalRow
	for i, l := range lines(out) {
		var r evalRow
		dec := json.NewDecoder(strings.NewReader(l))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("line %d: %v: %s", i+1, err, l)
		}
		rows = append(rows, r)
	}
	return rows
}

func TestEval(t *testing.T) {
	m := tinyCorpus(t)
	mod := writeTinyModel(t)
	dir := filepath.Dir(m)
	noTimes := writeManifest(t, filepath.Join(dir, "notimes.jsonl"), []corpus.Utterance{
		{Audio: filepath.Join(dir, "a.wav"), Text: "a"}})
	missingAudio := writeManifest(t, filepath.Join(dir, "missing.jsonl"), []corpus.Utterance{
		{Audio: filepath.Join(dir, "a.wav"), Text: "a", Words: []corpus.Word{{Word: "a", Start: 0, End: 0.1}}},
		{Audio: filepath.Join(dir, "nope.wav"), Text: "b", Words: []corpus.Word{{Word: "b", Start: 0, End: 0.1}}}})

	runCases(t, []cliCase{
		{name: "asr table", args: []string{"eval", "asr", "--model", mod, "--beam", "1", m}, code: 0,
			stdout: []string{"manifest", "source", "CER %", "WER %", "all", "tone", "noise", m}},
		{name: "align table", args: []string{"eval", "align", "--model", mod, m}, code: 0,
			stdout: []string{"manifest", "boundaries", "mean ms", "median ms", "p90 ms", "<=20ms %", "all", "tone", "noise"}},
		{name: "align without gold times", args: []string{"eval", "align", "--model", mod, noTimes}, code: 1,
			stderr: []string{"heed:", "notimes.jsonl", "no utterance has gold word times"}, noStdout: true},
		{name: "asr missing audio", args: []string{"eval", "asr", "--model", mod, missingAudio}, code: 1,
			stderr: []string{"heed:", "nope.wav"}, noStdout: true},
		{name: "align missing audio", args: []string{"eval", "align", "--model", mod, missingAudio}, code: 1,
			stderr: []string{"heed:", "nope.wav"}, noStdout: true},
		{name: "missing manifest", args: []string{"eval", "asr", "--model", mod, filepath.Join(dir, "nope.jsonl")}, code: 1,
			stderr: []string{"heed:", "nope.jsonl"}, noStdout: true},
	})

	t.Run("asr json", func(t *testing.T) {
		r := heed(t, "", "eval", "asr", "--model", mod, "--json", "--beam", "1", m, noTimes)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		rows := evalRows(t, r.stdout)
		// m has two sources, so "all" comes first; notimes.jsonl has one
		// unnamed source and gets one row.
		want := []struct {
			manifest, source string
			utts, chars      int
		}{{m, "all", 3, 5}, {m, "noise", 1, 3}, {m, "tone", 2, 2}, {noTimes, "", 1, 1}}
		if len(rows) != len(want) {
			t.Fatalf("%d rows, want %d:\n%s", len(rows), len(want), r.stdout)
		}
		for i, w := range want {
			g := rows[i]
			if g.Manifest != w.manifest || g.Source != w.source || g.Utts != w.utts || g.Chars != w.chars {
				t.Errorf("row %d = %+v, want manifest %s source %q utts %d chars %d", i, g, w.manifest, w.source, w.utts, w.chars)
			}
			if g.CER < 0 || g.WER < 0 || g.Boundaries != nil {
				t.Errorf("row %d = %+v: bad rates or boundaries in an asr row", i, g)
			}
		}
	})

	t.Run("align json", func(t *testing.T) {
		r := heed(t, "", "eval", "align", "--model", mod, "--json", m)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		rows := evalRows(t, r.stdout)
		if len(rows) != 3 || rows[0].Source != "all" {
			t.Fatalf("rows %+v, want all, noise, tone", rows)
		}
		// Each word has a start and an end boundary: 4 words, 8 boundaries.
		if b := rows[0].Boundaries; b == nil || b.N != 8 || rows[0].Utts != 3 {
			t.Errorf("all row %+v, want 3 utterances and 8 boundaries", rows[0])
		} else if !(b.Mean >= 0 && b.Median >= 0 && b.P90 >= b.Median && b.Within20 <= b.Within50 && b.Within50 <= b.Within100 && b.Within100 <= 1) {
			t.Errorf("inconsistent boundary statistics %+v", *b)
		}
	})

	t.Run("align reliability", func(t *testing.T) {
		png := filepath.Join(t.TempDir(), "rel.png")
		r := heed(t, "", "eval", "align", "--model", mod, "--json", "--reliability", png, m)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		rows := evalRows(t, r.stdout)
		for _, row := range rows {
			ws := row.WordStats
			if ws == nil {
				t.Fatalf("row %+v has no word_stats", row)
			}
			n := 0
			for _, b := range ws.Bins {
				n += b.Words
				if b.Within50 > b.Within100 || b.Within100 > b.Words {
					t.Errorf("row %s: bin %+v inconsistent", row.Source, b)
				}
			}
			if n != ws.Words || ws.Words != 4 && row.Source == "all" {
				t.Errorf("row %s: bins hold %d words, word_stats %d (want 4 in all)", row.Source, n, ws.Words)
			}
		}
		f, err := os.Open(png)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if cfg, err := stdpng.DecodeConfig(f); err != nil || cfg.Width < 100 || cfg.Height < 100 {
			t.Errorf("--reliability wrote no usable PNG: %v, %+v", err, cfg)
		}
	})

	t.Run("asr agrees with transcribe", func(t *testing.T) {
		// The CER eval reports must be the edit distance between the
		// manifest texts and what heed transcribe prints for the same
		// files with the same decoding options.
		const tol = 1e-12
		wavs := []string{filepath.Join(dir, "a.wav"), filepath.Join(dir, "b.wav"), filepath.Join(dir, "c.wav")}
		refs := []string{"a", "b c", "d"}
		tr := heed(t, "", append([]string{"transcribe", "--model", mod, "--beam", "1", "--format", "json"}, wavs...)...)
		if tr.code != 0 {
			t.Fatalf("transcribe: exit %d: %s", tr.code, tr.stderr)
		}
		errs, chars := 0, 0
		for i, l := range lines(tr.stdout) {
			var got transcript
			if err := json.Unmarshal([]byte(l), &got); err != nil {
				t.Fatal(err)
			}
			errs += train.EditDistance([]rune(refs[i]), []rune(got.Text))
			chars += len([]rune(refs[i]))
		}
		ev := heed(t, "", "eval", "asr", "--model", mod, "--beam", "1", "--json", m)
		if ev.code != 0 {
			t.Fatalf("eval: exit %d: %s", ev.code, ev.stderr)
		}
		rows := evalRows(t, ev.stdout)
		want := float64(errs) / float64(chars)
		if len(rows) == 0 || rows[0].Source != "all" || math.Abs(rows[0].CER-want) > tol {
			t.Errorf("eval rows %+v; want CER %v (%d edits / %d chars) from transcribe's output", rows, want, errs, chars)
		}
	})

	t.Run("limit", func(t *testing.T) {
		r := heed(t, "", "eval", "asr", "--model", mod, "--json", "--beam", "1", "--limit", "1", m)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if rows := evalRows(t, r.stdout); len(rows) != 1 || rows[0].Utts != 1 {
			t.Errorf("--limit 1 gave rows %+v, want one row of 1 utterance", rows)
		}
	})
}
