package main

// End-to-end tests of the heed command line. Every test calls run in
// process with its own env, except the stream protocol tests, which start
// this test binary as heed (see TestMain in batch_test.go) behind real
// pipes.
// The rows of each table give the arguments, standard input, the wanted
// exit status and substrings wanted in standard output and standard error.
//
// Models used here are untrained and tiny (see writeTinyModel): the tests
// check the command line's contract (exit status, output shape, token
// order, files written), not recognition accuracy. Only english_test.go
// and stream_test.go (which needs a model that tells speech from noise)
// touch the embedded model.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// Paths of the shared fixtures, relative to this package's directory.
var (
	audioDir = filepath.Join("..", "..", "testdata", "audio")
	cliDir   = filepath.Join("..", "..", "testdata", "cli")
)

// result is what one heed invocation produced.
type result struct {
	code           int
	stdout, stderr string
}

// heed runs the CLI with args and stdin and returns what it produced. A
// panic inside run fails the test (the CLI must never panic) instead of
// crashing the whole package. Every call is bounded by a deadline so that
// a hang shows up as a failure naming the arguments.
func heed(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return heedCtx(t, ctx, stdin, args...)
}

// heedCtx is heed with the caller's context (to test cancellation).
func heedCtx(t *testing.T, ctx context.Context, stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb}
	code := func() (code int) {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("heed %q panicked: %v\n%s", args, p, debug.Stack())
			}
		}()
		return run(ctx, e, args)
	}()
	r := result{code: code, stdout: out.String(), stderr: errb.String()}
	checkStderr(t, args, r)
	return r
}

// checkStderr enforces the rules every invocation follows: nothing looks
// like a Go panic or stack trace, a failure (status 1) says why on stderr
// in a "heed:" message, and a usage error (status 2) says something.
func checkStderr(t *testing.T, args []string, r result) {
	t.Helper()
	for _, bad := range []string{"panic:", "goroutine ", "runtime error", ".go:"} {
		if strings.Contains(r.stderr, bad) || strings.Contains(r.stdout, bad) {
			t.Errorf("heed %q: output contains %q, looks like a crash:\nstdout:\n%s\nstderr:\n%s", args, bad, r.stdout, r.stderr)
		}
	}
	if r.code == 1 && !strings.Contains(r.stderr, "heed:") {
		t.Errorf("heed %q: exit 1 without a \"heed:\" message on stderr:\n%s", args, r.stderr)
	}
	if r.code == 2 && r.stderr == "" {
		t.Errorf("heed %q: exit 2 with nothing on stderr", args)
	}
}

// cliCase is one row of a command-line table.
type cliCase struct {
	name       string
	args       []string
	stdin      string
	code       int
	stdout     []string // substrings wanted in stdout
	stderr     []string // substrings wanted in stderr
	noStdout   bool     // stdout must be empty
	wantOutput []string // substrings wanted in stdout or stderr
}

// runCases runs each row under t.Run and checks status and substrings.
func runCases(t *testing.T, cases []cliCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := heed(t, c.stdin, c.args...)
			checkResult(t, c, r)
		})
	}
}

func checkResult(t *testing.T, c cliCase, r result) {
	t.Helper()
	if r.code != c.code {
		t.Errorf("heed %q: exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", c.args, r.code, c.code, clip(r.stdout), clip(r.stderr))
	}
	for _, s := range c.stdout {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("heed %q: stdout lacks %q:\n%s", c.args, s, clip(r.stdout))
		}
	}
	for _, s := range c.stderr {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("heed %q: stderr lacks %q:\n%s", c.args, s, clip(r.stderr))
		}
	}
	for _, s := range c.wantOutput {
		if !strings.Contains(r.stdout+r.stderr, s) {
			t.Errorf("heed %q: output lacks %q:\nstdout:\n%s\nstderr:\n%s", c.args, s, clip(r.stdout), clip(r.stderr))
		}
	}
	if c.noStdout && r.stdout != "" {
		t.Errorf("heed %q: stdout not empty:\n%s", c.args, clip(r.stdout))
	}
}

// clip shortens long output in failure messages.
func clip(s string) string {
	const limit = 2000
	if len(s) > limit {
		return s[:limit] + fmt.Sprintf("... (%d bytes in all)", len(s))
	}
	return s
}

// allCommands are the verbs the CLI must offer.
var allCommands = []string{"adapt", "align", "eval", "features", "info", "lm", "stream", "train", "transcribe", "version"}

// commandFlags are flags each verb's usage text must mention.
var commandFlags = map[string][]string{
	"adapt":      {"-model", "-out", "-force", "-epochs", "-hold", "-lr", "-dtype"},
	"align":      {"-format", "-o", "-plot", "-model", "-ctc-weight", "-variants"},
	"eval":       {"-model", "-json", "-jobs", "-limit", "-beam", "-lm-weight", "-score-beam", "-variants"},
	"features":   {"-format"},
	"info":       {},
	"lm":         {"-model", "-out", "-order", "-weight", "-exclude", "-dtype"},
	"stream":     {"-input", "-rate", "-channels", "-model", "-max-segment", "-min-pause", "-beam", "-score-beam"},
	"train":      {"-train", "-dev", "-out", "-resume", "-steps", "-batch-frames", "-log-every", "-eval-every"},
	"transcribe": {"-model", "-format", "-jobs", "-beam", "-lm-weight", "-score-beam"},
	"version":    {"-model"},
}

func TestCommandsRegistered(t *testing.T) {
	for name := range commands {
		if _, ok := commandFlags[name]; !ok {
			t.Errorf("command %q is registered but not covered by these tests (add it to allCommands and commandFlags)", name)
		}
	}
	for _, name := range allCommands {
		t.Run(name, func(t *testing.T) {
			c, ok := commands[name]
			if !ok {
				t.Fatalf("command %q not registered", name)
			}
			if c.Usage == "" || c.Short == "" || c.Long == "" || !strings.HasPrefix(c.Usage, "heed "+name) {
				t.Errorf("command %q: incomplete help: Usage %q, Short %q, Long %d bytes", name, c.Usage, c.Short, len(c.Long))
			}
		})
	}
}

func TestHelp(t *testing.T) {
	cases := []cliCase{
		{name: "no arguments", args: nil, code: 2, stderr: []string{"usage: heed <command>", "transcribe", "align"}, noStdout: true},
		{name: "help", args: []string{"help"}, code: 0, stdout: append([]string{"usage: heed <command>"}, allCommands...)},
		{name: "-h", args: []string{"-h"}, code: 0, stdout: []string{"usage: heed <command>"}},
		{name: "--help", args: []string{"--help"}, code: 0, stdout: []string{"usage: heed <command>"}},
		{name: "help unknown", args: []string{"help", "frobnicate"}, code: 2, stderr: []string{"heed:", `"frobnicate"`}},
		{name: "unknown command", args: []string{"frobnicate"}, code: 2, stderr: []string{"heed:", `unknown command "frobnicate"`}, noStdout: true},
		{name: "unknown command with flags", args: []string{"--model", "x"}, code: 2, stderr: []string{"heed:", "unknown command"}},
	}
	for _, name := range allCommands {
		want := append([]string{"usage: heed " + name}, commandFlags[name]...)
		cases = append(cases,
			cliCase{name: "help " + name, args: []string{"help", name}, code: 0, stdout: want},
			cliCase{name: name + " --help", args: []string{name, "--help"}, code: 0, wantOutput: want},
			cliCase{name: name + " -h", args: []string{name, "-h"}, code: 0, wantOutput: want},
			cliCase{name: name + " bad flag", args: []string{name, "--no-such-flag"}, code: 2,
				stderr: []string{"flag provided but not defined: -no-such-flag", "usage: heed " + name}, noStdout: true},
		)
	}
	runCases(t, cases)
}

// TestUsageErrors covers missing arguments and bad flag values: all exit 2
// with the verb's usage line on stderr and nothing on stdout.
func TestUsageErrors(t *testing.T) {
	s16 := filepath.Join(audioDir, "s16.wav")
	cases := []cliCase{
		{name: "info no file", args: []string{"info"}, code: 2, stderr: []string{"heed info:", "no AUDIO", "usage: heed info"}},
		{name: "features no file", args: []string{"features"}, code: 2, stderr: []string{"heed features:", "usage: heed features"}},
		{name: "features two files", args: []string{"features", s16, s16}, code: 2, stderr: []string{"exactly one AUDIO"}},
		{name: "features bad format", args: []string{"features", "--format", "csv", s16}, code: 2, stderr: []string{`"csv"`}},
		{name: "transcribe no file", args: []string{"transcribe"}, code: 2, stderr: []string{"heed transcribe:", "no AUDIO"}},
		{name: "transcribe bad format", args: []string{"transcribe", "--format", "xml", s16}, code: 2, stderr: []string{`"xml"`}},
		{name: "transcribe jobs 0", args: []string{"transcribe", "--jobs", "0", s16}, code: 2, stderr: []string{"--jobs"}},
		{name: "transcribe beam 0", args: []string{"transcribe", "--beam", "0", s16}, code: 2, stderr: []string{"--beam"}},
		{name: "transcribe ctc weight 2", args: []string{"transcribe", "--ctc-weight", "2", s16}, code: 2, stderr: []string{"--ctc-weight"}},
		{name: "transcribe jobs not a number", args: []string{"transcribe", "--jobs", "many", s16}, code: 2, stderr: []string{"invalid value"}},
		{name: "align no args", args: []string{"align"}, code: 2, stderr: []string{"heed align:", "want AUDIO and TRANSCRIPT", "usage: heed align"}},
		{name: "align one arg", args: []string{"align", s16}, code: 2, stderr: []string{"got 1 arguments"}},
		{name: "align three args", args: []string{"align", s16, "a.txt", "b.txt"}, code: 2, stderr: []string{"got 3 arguments"}},
		{name: "align bad format", args: []string{"align", "--format", "docx", s16, "a.txt"}, code: 2, stderr: []string{`"docx"`, "srt"}},
		{name: "align both stdin", args: []string{"align", "-", "-"}, code: 2, stderr: []string{"standard input"}},
		{name: "align -o without value", args: []string{"align", s16, "a.txt", "-o"}, code: 2, stderr: []string{"flag needs an argument"}},
		{name: "train no out", args: []string{"train", "--train", "m.jsonl"}, code: 2, stderr: []string{"heed train:", "--out is required"}},
		{name: "train no train", args: []string{"train", "--out", "d"}, code: 2, stderr: []string{"--train is required"}},
		{name: "train extra argument", args: []string{"train", "--out", "d", "--train", "m.jsonl", "extra"}, code: 2, stderr: []string{`"extra"`}},
		{name: "train resume and init", args: []string{"train", "--out", "d", "--resume", "--init", "m.heed"}, code: 2, stderr: []string{"exclude"}},
		{name: "train new data without resume", args: []string{"train", "--out", "d", "--train", "x.jsonl", "--new-data"}, code: 2, stderr: []string{"--new-data needs"}},
		{name: "train bad config", args: []string{"train", "--out", "d", "--train", "m.jsonl", "--enc-hidden", "0"}, code: 2, stderr: []string{"enc_hidden"}},
		{name: "train bad dropout", args: []string{"train", "--out", "d", "--train", "m.jsonl", "--dropout", "1.5"}, code: 2, stderr: []string{"dropout"}},
		{name: "train log-every 0", args: []string{"train", "--out", "d", "--train", "m.jsonl", "--log-every", "0"}, code: 2, stderr: []string{"--log-every"}},
		{name: "train cosine without steps", args: []string{"train", "--out", "d", "--train", "m.jsonl", "--decay", "cosine"}, code: 2, stderr: []string{"cosine"}},
		{name: "train bad decay", args: []string{"train", "--out", "d", "--train", "m.jsonl", "--decay", "linear"}, code: 2, stderr: []string{"linear"}},
		{name: "lm no model", args: []string{"lm", "--out", "o.heed", "t.txt"}, code: 2, stderr: []string{"heed lm:", "--model and --out are required"}},
		{name: "lm no out", args: []string{"lm", "--model", "m.heed", "t.txt"}, code: 2, stderr: []string{"--model and --out are required"}},
		{name: "lm no source", args: []string{"lm", "--model", "m.heed", "--out", "o.heed"}, code: 2, stderr: []string{"no text SOURCE"}},
		{name: "lm order 0", args: []string{"lm", "--model", "m.heed", "--out", "o.heed", "--order", "0", "t.txt"}, code: 2, stderr: []string{"--order"}},
		{name: "lm order 11", args: []string{"lm", "--model", "m.heed", "--out", "o.heed", "--order", "11", "t.txt"}, code: 2, stderr: []string{"--order"}},
		{name: "lm bad dtype", args: []string{"lm", "--model", "m.heed", "--out", "o.heed", "--dtype", "f8", "t.txt"}, code: 2, stderr: []string{"--dtype"}},
		{name: "eval nothing", args: []string{"eval"}, code: 2, stderr: []string{"heed eval:", "asr or align"}},
		{name: "eval no manifest", args: []string{"eval", "asr"}, code: 2, stderr: []string{"asr or align"}},
		{name: "eval bad kind", args: []string{"eval", "wer", "m.jsonl"}, code: 2, stderr: []string{"asr or align"}},
		{name: "eval jobs 0", args: []string{"eval", "asr", "--jobs", "0", "m.jsonl"}, code: 2, stderr: []string{"--jobs"}},
	}
	for i := range cases {
		cases[i].noStdout = true
	}
	runCases(t, cases)
}

// TestDoubleDash checks that "--" ends the flags, so a file named like a
// flag can be given.
func TestDoubleDash(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join(audioDir, "s16.wav"))
	if err != nil {
		t.Fatal(err)
	}
	odd := filepath.Join(dir, "-odd.wav")
	if err := os.WriteFile(odd, src, 0o644); err != nil {
		t.Fatal(err)
	}
	// Run from dir so the argument really starts with "-".
	t.Chdir(dir)
	runCases(t, []cliCase{
		{name: "after --", args: []string{"info", "--", "-odd.wav"}, code: 0, stdout: []string{"-odd.wav: container=wav"}},
		{name: "without --", args: []string{"info", "-odd.wav"}, code: 2, stderr: []string{"flag provided but not defined"}},
	})
}

// readAll is io.ReadAll on a file, failing the test on error.
func readAll(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
