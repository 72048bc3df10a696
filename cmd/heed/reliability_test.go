package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFlagValues covers flag values that used to panic or were accepted
// silently (issue 16, defect 1): every one is now a usage error naming the
// flag, exit 2, nothing on stdout.
func TestFlagValues(t *testing.T) {
	wav := filepath.Join("..", "..", "testdata", "hello.wav")
	cases := []cliCase{}
	add := func(name string, args []string, want string) {
		cases = append(cases, cliCase{name: name, args: args, code: 2, stderr: []string{want}, noStdout: true})
	}
	for _, v := range []string{"-1", "nan", "inf", "1000"} {
		add("transcribe length-bonus "+v, []string{"transcribe", "--length-bonus", v, wav}, "length bonus")
		add("eval length-bonus "+v, []string{"eval", "asr", "--length-bonus", v, "m.jsonl"}, "length bonus")
	}
	for _, v := range []string{"nan", "inf", "1e9"} {
		add("transcribe lm-weight "+v, []string{"transcribe", "--lm-weight", v, wav}, "LM weight")
	}
	for _, v := range []string{"-1", "nan", "inf", "1e9"} {
		add("transcribe score-beam "+v, []string{"transcribe", "--score-beam", v, wav}, "score beam")
		add("eval score-beam "+v, []string{"eval", "asr", "--score-beam", v, "m.jsonl"}, "score beam")
		add("stream score-beam "+v, []string{"stream", "--score-beam", v}, "score beam")
	}
	for _, v := range []string{"nan", "-1", "5", "inf"} {
		add("transcribe ctc-weight "+v, []string{"transcribe", "--ctc-weight", v, wav}, "CTC weight")
		add("align ctc-weight "+v, []string{"align", "--ctc-weight", v, wav, "t.txt"}, "--ctc-weight")
		add("eval align-ctc-weight "+v, []string{"eval", "align", "--align-ctc-weight", v, "m.jsonl"}, "--align-ctc-weight")
	}
	add("transcribe beam 100000", []string{"transcribe", "--beam", "100000", wav}, "beam 100000 out of range [1, 256]")
	add("stream beam 100000", []string{"stream", "--beam", "100000"}, "beam 100000")
	add("stream beam 0", []string{"stream", "--beam", "0"}, "--beam")
	add("stream channels 0", []string{"stream", "--input", "s16le", "--channels", "0"}, "--channels")
	add("stream channels -3", []string{"stream", "--input", "s16le", "--channels", "-3"}, "--channels")
	add("stream channels 9", []string{"stream", "--input", "s16le", "--channels", "9"}, "--channels")
	add("stream rate 0", []string{"stream", "--input", "s16le", "--rate", "0"}, "--rate")
	add("eval beam 0", []string{"eval", "asr", "--beam", "0", "m.jsonl"}, "--beam")
	add("eval limit -1", []string{"eval", "asr", "--limit", "-1", "m.jsonl"}, "--limit")
	add("eval asr reliability", []string{"eval", "asr", "--reliability", "r.png", "m.jsonl"}, "--reliability is for heed eval align")
	add("eval align-offset inf", []string{"eval", "align", "--align-offset", "inf", "m.jsonl"}, "--align-offset")
	add("lm weight nan", []string{"lm", "--model", "m.heed", "--out", "o.heed", "--weight", "nan", "t.txt"}, "--weight")
	train := []string{"train", "--out", "d", "--train", "m.jsonl"}
	for _, f := range [][3]string{{"--lr", "nan", "--lr"}, {"--lr", "-1", "schedule peak"}, {"--clip", "nan", "--clip"}, {"--clip", "inf", "--clip"},
		{"--workers", "0", "--workers"}, {"--steps", "-1", "--steps"}, {"--warmup", "-5", "schedule"}, {"--dev-max", "-1", "--dev-max"},
		{"--eval-every", "-1", "--eval-every"}, {"--checkpoint-every", "0s", "--checkpoint-every"}, {"--time", "-1h", "--time"},
		{"--enc-hidden", "100000", "enc_hidden = 100000, at most 4096"}, {"--enc-layers", "1000", "enc_layers = 1000"}} {
		add("train "+f[0]+" "+f[1], append(append([]string{}, train...), f[0], f[1]), f[2])
	}
	runCases(t, cases)
}

// TestErrorsNameTheFile checks the "heed: FILE: problem" form for files
// that cannot be opened (issue 16, defect 7).
func TestErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.wav")
	txt := filepath.Join(dir, "missing.txt")
	wav := filepath.Join("..", "..", "testdata", "hello.wav")
	m := filepath.Join(badDir, "models", "tiny.heed")
	runCases(t, []cliCase{
		{name: "info", args: []string{"info", missing}, code: 1, stderr: []string{"heed: " + missing + ": no such file or directory\n"}},
		{name: "features", args: []string{"features", missing}, code: 1, stderr: []string{"heed: " + missing + ": no such file or directory\n"}},
		{name: "transcribe", args: []string{"transcribe", "--model", m, missing}, code: 1, stderr: []string{"heed: " + missing + ": no such file or directory\n"}},
		{name: "align audio", args: []string{"align", "--model", m, missing, filepath.Join(badDir, "text", "hello.txt")}, code: 1, stderr: []string{"heed: " + missing + ": no such file or directory\n"}},
		{name: "align text", args: []string{"align", "--model", m, wav, txt}, code: 1, stderr: []string{"heed: " + txt + ": no such file or directory\n"}},
		{name: "model", args: []string{"transcribe", "--model", missing, wav}, code: 1, stderr: []string{"heed: " + missing + ":"}},
		{name: "version model", args: []string{"version", "--model", missing}, code: 1, stderr: []string{"heed: " + missing + ": no such file or directory\n"}},
	})
}

// TestVersion checks heed version's fields (issue 16, defect 7).
func TestVersion(t *testing.T) {
	r := heed(t, "", "version")
	for _, want := range []string{"heed ", "\ncommit ", "\ngo go1.", "\nmodel embedded English model", "\nmodel sha256 "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("heed version lacks %q:\n%s", want, r.stdout)
		}
	}
	m := filepath.Join(badDir, "models", "tiny.heed")
	r = heed(t, "", "version", "--model", m)
	// sha256sum testdata/bad/models/tiny.heed
	if want := "model " + m + "\nmodel sha256 " + tinySHA256 + "\n"; !strings.HasSuffix(r.stdout, want) {
		t.Errorf("heed version --model: got\n%s\nwant the suffix\n%s", r.stdout, want)
	}
}

// TestOutputModes checks that -o and --plot follow the umask for new files
// and keep the mode of a file they replace (issue 16, defect 5), and that
// --plot on audio split into pieces says what it drew (defect 6).
func TestOutputModes(t *testing.T) {
	defer syscall.Umask(syscall.Umask(0o077))
	dir := t.TempDir()
	m := filepath.Join(badDir, "models", "tiny.heed")
	wav := filepath.Join(dir, "long.wav")
	writeWAV(t, wav, utterance(30, 3), 16000)
	txt := filepath.Join(dir, "long.txt")
	if err := os.WriteFile(txt, []byte(strings.Repeat("one two three four five ", 20)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, png := filepath.Join(dir, "out.json"), filepath.Join(dir, "out.png")
	r := heed(t, "", "align", "--model", m, "-o", out, "--plot", png, wav, txt)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "heed: "+png+": note: the plot shows the first piece aligned, ") || !strings.Contains(r.stderr, " s of 30.00 s") {
		t.Errorf("--plot on 30 s of audio: stderr does not say what was drawn:\n%s", r.stderr)
	}
	for _, p := range []string{out, png} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s under umask 077: %v, %v; want mode 0600", p, fi.Mode().Perm(), err)
		}
		if err := os.Chmod(p, 0o640); err != nil {
			t.Fatal(err)
		}
	}
	syscall.Umask(0o022)
	if r := heed(t, "", "align", "--model", m, "-o", out, "--plot", png, wav, txt); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, p := range []string{out, png} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o640 {
			t.Errorf("%s replaced: %v, %v; want its mode 0640 kept", p, fi.Mode().Perm(), err)
		}
	}
}

// tinySHA256 is the SHA-256 of testdata/bad/models/tiny.heed (sha256sum).
const tinySHA256 = "1bb133e5900f11b85894633dde919da891428173b1ef789ca3b55c33c3b697e4"
