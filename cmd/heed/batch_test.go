package main

// Tests of heed transcribe as a batch tool: directories, lists, shards,
// -o DIR with resume and --force, formats from heed align, failures among
// good files, and outputs that stay whole when the process is killed.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heed-asr/heed/align"
)

// TestMain lets a test run this binary as heed itself (HEED_TEST_MAIN=1),
// to kill a real process in the middle of a batch.
func TestMain(m *testing.M) {
	if os.Getenv("HEED_TEST_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// copyFile copies src to dst, making dst's directory.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, readAll(t, src), 0o644); err != nil {
		t.Fatal(err)
	}
}

// batchTree builds a corpus directory:
//
//	corpus/a/x.wav, corpus/a/y.WAV, corpus/b/x.wav, corpus/c.wav (good)
//	corpus/b/broken.wav (not a WAV), corpus/notes.txt, corpus/.hidden.wav,
//	corpus/.git/z.wav (not audio or hidden: left out)
//
// and returns the corpus directory and the good files in walk order.
func batchTree(t *testing.T) (string, []string) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "corpus")
	tmp := t.TempDir()
	src := writeUtterances(t, tmp, 0.7, 0.5, 0.9, 0.6)
	good := []string{
		filepath.Join(root, "a", "x.wav"),
		filepath.Join(root, "a", "y.WAV"),
		filepath.Join(root, "b", "x.wav"),
		filepath.Join(root, "c.wav"),
	}
	for i, g := range good {
		copyFile(t, src[i], g)
	}
	copyFile(t, filepath.Join(cliDir, "garbage.wav"), filepath.Join(root, "b", "broken.wav"))
	copyFile(t, src[0], filepath.Join(root, ".hidden.wav"))
	copyFile(t, src[0], filepath.Join(root, ".git", "z.wav"))
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("not audio"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, good
}

// outputs lists the files under dir (relative, slash-separated, sorted),
// failing the test on any leftover temporary file.
func outputs(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if strings.Contains(d.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", rel)
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	slices.Sort(out)
	return out
}

var summaryRE = regexp.MustCompile(`heed: (\d+) done, (\d+) failed, [0-9.]+ (h|min|s) of audio in \S+`)

// summary returns the done and failed counts of the summary line.
func summary(t *testing.T, stderr string) (done, failed string) {
	t.Helper()
	m := summaryRE.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no summary line in stderr:\n%s", stderr)
	}
	return m[1], m[2]
}

func TestBatchDirectoryToFiles(t *testing.T) {
	m := writeTinyModel(t)
	root, good := batchTree(t)
	out := filepath.Join(t.TempDir(), "out")
	args := []string{"transcribe", "--model", m, "--format", "json", "--jobs", "2", "-o", out, root}

	r := heed(t, "", args...)
	if r.code != 1 {
		t.Fatalf("exit %d with a broken file among good ones, want 1\n%s", r.code, r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("-o printed on stdout: %q", r.stdout)
	}
	broken := filepath.Join(root, "b", "broken.wav")
	if !strings.Contains(r.stderr, "heed: "+broken+": not a WAV file") {
		t.Errorf("stderr does not name the broken file and why:\n%s", r.stderr)
	}
	if d, f := summary(t, r.stderr); d != "4" || f != "1" {
		t.Errorf("summary says %s done, %s failed, want 4 and 1:\n%s", d, f, r.stderr)
	}
	// Same base name in two directories: the relative path is kept.
	want := []string{"a/x.json", "a/y.json", "b/x.json", "c.json"}
	if got := outputs(t, out); !slices.Equal(got, want) {
		t.Fatalf("outputs %q, want %q", got, want)
	}
	for i, w := range want {
		var tr transcript
		if err := json.Unmarshal(readAll(t, filepath.Join(out, w)), &tr); err != nil {
			t.Fatalf("%s: %v", w, err)
		}
		if tr.File != good[i] {
			t.Errorf("%s: file %q, want %q", w, tr.File, good[i])
		}
	}

	t.Run("resume skips what exists", func(t *testing.T) {
		sentinel := filepath.Join(out, "a", "y.json")
		if err := os.Remove(filepath.Join(out, "b", "x.json")); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(sentinel, []byte("kept\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		r := heed(t, "", args...)
		if r.code != 1 { // the broken file fails again
			t.Fatalf("exit %d, want 1\n%s", r.code, r.stderr)
		}
		if d, f := summary(t, r.stderr); d != "1" || f != "1" {
			t.Errorf("summary says %s done, %s failed, want 1 (the removed output) and 1:\n%s", d, f, r.stderr)
		}
		if !strings.Contains(r.stderr, "3 skipped") {
			t.Errorf("stderr does not count 3 skipped:\n%s", r.stderr)
		}
		if got := string(readAll(t, sentinel)); got != "kept\n" {
			t.Errorf("an existing output was rewritten without --force: %q", got)
		}
		if got := outputs(t, out); !slices.Equal(got, want) {
			t.Errorf("outputs %q, want %q", got, want)
		}

		r = heed(t, "", append(args, "--force")...)
		if d, _ := summary(t, r.stderr); d != "4" {
			t.Errorf("--force: %s done, want 4:\n%s", d, r.stderr)
		}
		if got := string(readAll(t, sentinel)); got == "kept\n" {
			t.Errorf("--force did not rewrite %s", sentinel)
		}
	})

	t.Run("stdout order", func(t *testing.T) {
		r := heed(t, "", "transcribe", "--model", m, "--jobs", "2", root)
		var files []string
		for _, l := range lines(r.stdout) {
			f, _, _ := strings.Cut(l, "\t")
			files = append(files, f)
		}
		if !slices.Equal(files, good) {
			t.Errorf("files in order %q, want %q (hidden and non-WAV files left out)", files, good)
		}
	})
}

// TestBatchFormats checks that every format written under -o is the heed
// align writer applied to the recognized, timed words of the JSON output.
func TestBatchFormats(t *testing.T) {
	m := writeTinyModel(t)
	dir := t.TempDir()
	wavs := writeUtterances(t, dir, 1.2, 0.8)
	out := t.TempDir()
	r := heed(t, "", append([]string{"transcribe", "--model", m, "--format", "json", "-o", out}, wavs...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, f := range transcribeFormats() {
		if f == "json" {
			continue
		}
		t.Run(f, func(t *testing.T) {
			fout := t.TempDir() // text and audacity both write .txt
			r := heed(t, "", append([]string{"transcribe", "--model", m, "--format", f, "-o", fout}, wavs...)...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			for _, w := range wavs {
				base := strings.TrimSuffix(filepath.Base(w), ".wav")
				var tr transcript
				if err := json.Unmarshal(readAll(t, filepath.Join(out, base+".json")), &tr); err != nil {
					t.Fatal(err)
				}
				var want bytes.Buffer
				if f == "text" {
					want.WriteString(tr.Text + "\n")
				} else if err := align.Formats[f].Write(&want, &align.Result{File: tr.File, Duration: tr.Duration, Words: tr.Words}); err != nil {
					t.Fatal(err)
				}
				got := readAll(t, filepath.Join(fout, base+outputExt(f)))
				if !bytes.Equal(got, want.Bytes()) {
					t.Errorf("%s%s:\n%s\nwant (heed align's writer on the JSON words):\n%s", base, outputExt(f), got, want.Bytes())
				}
			}
		})
	}
	t.Run("single input to stdout", func(t *testing.T) {
		r := heed(t, "", "transcribe", "--model", m, "--format", "vtt", wavs[0])
		if r.code != 0 || !strings.HasPrefix(r.stdout, "WEBVTT") {
			t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
	})
}

func TestBatchList(t *testing.T) {
	m := writeTinyModel(t)
	root, good := batchTree(t)
	extra := writeUtterances(t, t.TempDir(), 0.4)[0]
	missing := filepath.Join(root, "missing.wav")
	// Blank lines and CR LF line ends are fine; a directory is walked.
	list := "\r\n" + good[3] + "\r\n\n" + missing + "\n" + filepath.Join(root, "a") + "\n"
	r := heed(t, list, "transcribe", "--model", m, "--list", "-", extra)
	if r.code != 1 {
		t.Fatalf("exit %d with a missing file, want 1\n%s", r.code, r.stderr)
	}
	var files []string
	for _, l := range lines(r.stdout) {
		f, _, _ := strings.Cut(l, "\t")
		files = append(files, f)
	}
	if want := []string{extra, good[3], good[0], good[1]}; !slices.Equal(files, want) {
		t.Errorf("files %q, want %q (arguments, then the list in order)", files, want)
	}
	if !strings.Contains(r.stderr, missing) {
		t.Errorf("stderr does not name %s:\n%s", missing, r.stderr)
	}
	if d, f := summary(t, r.stderr); d != "4" || f != "1" {
		t.Errorf("summary: %s done, %s failed, want 4 and 1", d, f)
	}

	listFile := filepath.Join(t.TempDir(), "list.txt")
	if err := os.WriteFile(listFile, []byte(good[0]+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = heed(t, "", "transcribe", "--model", m, "--list", listFile)
	if r.code != 0 || !strings.HasPrefix(r.stdout, good[0]+"\t") {
		t.Errorf("--list FILE: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestBatchShard checks that the shards K/N for K = 0..N-1 partition the
// inputs: each input in exactly one shard, each shard in input order, and
// that the outputs are named as in the whole batch.
func TestBatchShard(t *testing.T) {
	m := writeTinyModel(t)
	dir := t.TempDir()
	var wavs []string
	for i := range 7 {
		w := filepath.Join(dir, fmt.Sprintf("u%d", i%3), fmt.Sprintf("f%d.wav", i))
		copyFile(t, writeUtterances(t, t.TempDir(), 0.3)[0], w)
		wavs = append(wavs, w)
	}
	for _, n := range []int{1, 2, 3, 7, 9} {
		var all []string
		for k := range n {
			r := heed(t, "", append([]string{"transcribe", "--model", m, "--beam", "1", "--shard", fmt.Sprintf("%d/%d", k, n)}, wavs...)...)
			if r.code != 0 {
				t.Fatalf("shard %d/%d: exit %d: %s", k, n, r.code, r.stderr)
			}
			var got []string
			for _, l := range lines(r.stdout) {
				f, _, _ := strings.Cut(l, "\t")
				got = append(got, f)
			}
			var want []string
			for i := k; i < len(wavs); i += n {
				want = append(want, wavs[i])
			}
			if !slices.Equal(got, want) {
				t.Errorf("shard %d/%d: %q, want %q", k, n, got, want)
			}
			all = append(all, got...)
		}
		slices.Sort(all)
		if !slices.Equal(all, slices.Sorted(slices.Values(wavs))) {
			t.Errorf("N=%d: the shards together hold %q, want each of %q once", n, all, wavs)
		}
	}

	out := t.TempDir()
	for k := range 3 {
		r := heed(t, "", append([]string{"transcribe", "--model", m, "--beam", "1", "-o", out, "--shard", fmt.Sprintf("%d/3", k)}, wavs...)...)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
	}
	want := []string{"u0/f0.txt", "u0/f3.txt", "u0/f6.txt", "u1/f1.txt", "u1/f4.txt", "u2/f2.txt", "u2/f5.txt"}
	if got := outputs(t, out); !slices.Equal(got, want) {
		t.Errorf("outputs of 3 shards %q, want %q", got, want)
	}
}

func TestBatchUsage(t *testing.T) {
	m := writeTinyModel(t)
	dir := t.TempDir()
	wavs := writeUtterances(t, dir, 0.3, 0.3)
	wave := filepath.Join(dir, "a.wave")
	copyFile(t, wavs[0], wave)
	empty := t.TempDir()
	out := t.TempDir()
	runCases(t, []cliCase{
		{name: "bad shard", args: []string{"transcribe", "--model", m, "--shard", "3/3", wavs[0]}, code: 2, stderr: []string{"--shard"}},
		{name: "shard not a fraction", args: []string{"transcribe", "--model", m, "--shard", "1", wavs[0]}, code: 2, stderr: []string{"--shard"}},
		{name: "force without -o", args: []string{"transcribe", "--model", m, "--force", wavs[0]}, code: 2, stderr: []string{"--force needs -o"}},
		{name: "stdin with -o", args: []string{"transcribe", "--model", m, "-o", out, "-"}, code: 2, stderr: []string{"standard input"}},
		{name: "same input twice", args: []string{"transcribe", "--model", m, "-o", out, wavs[0], wavs[0]}, code: 2,
			stderr: []string{"would both be written to " + filepath.Join(out, "a.txt")}},
		{name: "wav and wave", args: []string{"transcribe", "--model", m, "-o", out, wavs[0], wave}, code: 2, stderr: []string{"would both be written"}},
		{name: "captions of several to stdout", args: []string{"transcribe", "--model", m, "--format", "srt", wavs[0], wavs[1]}, code: 2, stderr: []string{"-o DIR"}},
		{name: "unknown format", args: []string{"transcribe", "--model", m, "--format", "docx", wavs[0]}, code: 2, stderr: []string{"docx"}},
		{name: "empty directory", args: []string{"transcribe", "--model", m, "-o", out, empty}, code: 1,
			stderr: []string{"heed: " + empty + ": no audio files"}},
		{name: "list missing", args: []string{"transcribe", "--model", m, "--list", filepath.Join(dir, "nope.txt")}, code: 1, stderr: []string{"heed:", "nope.txt"}},
		{name: "ctm of several to stdout", args: []string{"transcribe", "--model", m, "--format", "ctm", wavs[0], wavs[1]}, code: 0},
	})
}

// TestBatchInterrupted checks that a batch whose context ends (Ctrl-C)
// says how many inputs it left, and that running it again finishes them.
func TestBatchInterrupted(t *testing.T) {
	m := writeTinyModel(t)
	wavs := writeUtterances(t, t.TempDir(), 0.3, 0.3, 0.3)
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	args := append([]string{"transcribe", "--model", m, "--jobs", "1", "-o", out}, wavs...)
	r := heedCtx(t, ctx, "", args...)
	if r.code != 1 || !strings.Contains(r.stderr, "inputs not transcribed (the same command resumes)") {
		t.Fatalf("interrupted: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	// What a kill -9 during a write leaves: removed on resume when it is
	// this batch's, kept when it is another's (a shard writing there).
	stale := filepath.Join(out, ".a.txt.tmp-123")
	other := filepath.Join(out, ".zz.txt.tmp-456")
	for _, p := range []string{stale, other} {
		if err := os.WriteFile(p, []byte("half"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r = heed(t, "", args...)
	if _, err := os.Stat(stale); err == nil {
		t.Errorf("stale temporary file %s left", stale)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another batch's temporary file was removed: %v", err)
	}
	os.Remove(other)
	if r.code != 0 || len(outputs(t, out)) != 3 {
		t.Errorf("resume: exit %d, outputs %q\n%s", r.code, outputs(t, out), r.stderr)
	}
}

// TestBatchKilled kills a real heed process (this test binary run as heed)
// with SIGKILL in the middle of a batch, checks that every output present is
// whole, then resumes and checks that the outputs equal an uninterrupted
// run's.
func TestBatchKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a subprocess")
	}
	m := writeTinyModel(t)
	dir := t.TempDir()
	src := writeUtterances(t, t.TempDir(), 1.5)[0]
	const n = 40
	for i := range n {
		copyFile(t, src, filepath.Join(dir, fmt.Sprintf("%03d.wav", i)))
	}
	heedProc := func(out string) *exec.Cmd {
		c := exec.Command(os.Args[0], "transcribe", "--model", m, "--format", "json", "--jobs", "2", "-o", out, dir)
		c.Env = append(os.Environ(), "HEED_TEST_MAIN=1")
		return c
	}
	ref := t.TempDir()
	if b, err := heedProc(ref).CombinedOutput(); err != nil {
		t.Fatalf("reference run: %v\n%s", err, b)
	}
	out := t.TempDir()
	c := heedProc(out)
	c.Stderr = io.Discard
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill it once some outputs exist.
	deadline := time.Now().Add(30 * time.Second)
	for {
		ents, _ := os.ReadDir(out)
		if len(ents) >= n/4 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	c.Process.Signal(syscall.SIGKILL)
	c.Wait()
	got := 0
	ents, _ := os.ReadDir(out)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			continue // a hidden temporary file may be left; never a partial output
		}
		got++
		if b, want := readAll(t, filepath.Join(out, e.Name())), readAll(t, filepath.Join(ref, e.Name())); !bytes.Equal(b, want) {
			t.Errorf("%s after kill -9: %q, want %q", e.Name(), b, want)
		}
	}
	if got == n {
		t.Logf("the batch finished before the kill: nothing was interrupted")
	}
	if b, err := heedProc(out).CombinedOutput(); err != nil {
		t.Fatalf("resume: %v\n%s", err, b)
	}
	for i := range n {
		name := fmt.Sprintf("%03d.json", i)
		if b, want := readAll(t, filepath.Join(out, name)), readAll(t, filepath.Join(ref, name)); !bytes.Equal(b, want) {
			t.Errorf("%s after resume: %q, want %q", name, b, want)
		}
	}
	t.Logf("killed with %d of %d outputs written", got, n)
}

func TestProgressLine(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b, true, 4, 4000)
	p.Finished(1000, 1800, false)
	p.Finished(1000, 0, true)
	got := p.status(90 * time.Second)
	want := "[==========>         ] 2/4 files (1 failed), 30.0 min audio, 20.0x real time, ETA 1m30s"
	if got != want {
		t.Errorf("status line\n got %q\nwant %q", got, want)
	}
	fmt.Fprintf(p, "heed: x.wav: broken\n")
	p.Close()
	s := b.String()
	// The message is written on a cleared line and the status line is
	// erased at the end: the last thing printed is spaces and a return.
	if !strings.Contains(s, "\rheed: x.wav: broken\n") || !strings.HasSuffix(s, " \r") {
		t.Errorf("terminal output %q", s)
	}
	if sum := p.Summary(); !summaryRE.MatchString(sum) || !strings.HasPrefix(sum, "heed: 1 done, 1 failed, 30.0 min of audio in ") {
		t.Errorf("summary %q", sum)
	}

	var quiet bytes.Buffer
	p = newProgress(&quiet, false, 2, 10)
	p.Finished(5, 1, false)
	fmt.Fprintf(p, "heed: warning\n")
	p.Close()
	if quiet.String() != "heed: warning\n" {
		t.Errorf("not a terminal: wrote %q, want only the message", quiet.String())
	}
}

func TestNameOutputs(t *testing.T) {
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		ins  []input // path and anchor
		want []string
	}{
		{"one file", []input{{path: "x/talk.wav", anchor: "x"}}, []string{"O/talk.json"}},
		{"same directory", []input{{path: "/d/a.wav", anchor: "/d"}, {path: "/d/b.WAV", anchor: "/d"}}, []string{"O/a.json", "O/b.json"}},
		{"same name, two directories", []input{{path: "/d/a/t.wav", anchor: "/d/a"}, {path: "/d/b/t.wav", anchor: "/d/b"}}, []string{"O/a/t.json", "O/b/t.json"}},
		{"walked directory", []input{{path: "/c/s1/u.wav", anchor: "/c"}, {path: "/c/u.wav", anchor: "/c"}}, []string{"O/s1/u.json", "O/u.json"}},
		{"only the root in common", []input{{path: "/a/t.wav", anchor: "/a"}, {path: "/b/t.wav", anchor: "/b"}}, []string{"O/a/t.json", "O/b/t.json"}},
		{"relative and absolute", []input{{path: "t.wav", anchor: "."}, {path: filepath.Join(cwd, "s", "t.wav"), anchor: filepath.Join(cwd, "s")}},
			[]string{"O/t.json", "O/s/t.json"}},
		{"prefix is not a directory", []input{{path: "/ab/t.wav", anchor: "/ab"}, {path: "/abc/t.wav", anchor: "/abc"}}, []string{"O/ab/t.json", "O/abc/t.json"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := nameOutputs(c.ins, "O", ".json"); err != nil {
				t.Fatal(err)
			}
			for i, in := range c.ins {
				if got := filepath.ToSlash(in.out); got != c.want[i] {
					t.Errorf("%s -> %s, want %s", in.path, got, c.want[i])
				}
			}
		})
	}
}

// FuzzReadList checks that a list yields its lines that are not blank, in
// order, without their line ends, and nothing else.
func FuzzReadList(f *testing.F) {
	f.Add("a.wav\nb.wav\n")
	f.Add("\r\n  \n/x/y z.wav\r\nlast")
	f.Add("-\n")
	f.Fuzz(func(t *testing.T, s string) {
		got, err := readList(strings.NewReader(s), "list")
		var want []string
		for _, l := range strings.Split(s, "\n") {
			l = strings.TrimSuffix(l, "\r")
			if strings.TrimSpace(l) != "" {
				want = append(want, l)
			}
		}
		if slices.Contains(want, "-") {
			if err == nil {
				t.Fatalf("%q: no error for a line \"-\"", s)
			}
			return
		}
		if err != nil {
			if len(s) > 1<<20 {
				return // a line too long for the scanner
			}
			t.Fatalf("%q: %v", s, err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%q: got %q, want %q", s, got, want)
		}
	})
}

// FuzzParseShard checks that every K/N accepted has 0 <= K < N and that
// its canonical form parses to the same shard.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/1", "3/4", "4/4", "-1/4", "1/0", "01/2", "1/2/3", "/", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, n, err := parseShard(s)
		if err != nil {
			return
		}
		if k < 0 || k >= n {
			t.Fatalf("%q: accepted K=%d N=%d", s, k, n)
		}
		if k2, n2, err := parseShard(fmt.Sprintf("%d/%d", k, n)); err != nil || k2 != k || n2 != n {
			t.Fatalf("%q: canonical form gives %d/%d, %v", s, k2, n2, err)
		}
	})
}

// TestGatherCompressed: a walked directory yields its .wav, .mp3 and .flac
// files (any case) in lexical order and nothing else, and under -o a WAV
// and an MP3 of one name are an error, not one output written twice.
func TestGatherCompressed(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a.flac", "b.MP3", "c.wav", "d.txt", ".e.mp3", "f.ogg", "talk.mp3", "talk.wav"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ins, err := gatherInputs(&env{}, []string{dir}, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range ins {
		got = append(got, filepath.Base(in.path))
	}
	if want := []string{"a.flac", "b.MP3", "c.wav", "talk.mp3", "talk.wav"}; !slices.Equal(got, want) {
		t.Errorf("walked %v, want %v", got, want)
	}
	err = nameOutputs(ins, "O", ".json")
	if err == nil || !strings.Contains(err.Error(), "talk.mp3 and ") || !strings.Contains(err.Error(), "would both be written to") {
		t.Errorf("talk.mp3 and talk.wav under -o: error %v, want both named", err)
	}
}
