package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// heedBinary builds the heed command once per test run and returns its
// path (signals need a real process).
var heedBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "heed-bin-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "heed")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		return "", &exec.ExitError{Stderr: out}
	}
	return bin, nil
})

// bytesRead is how many bytes process pid has read (rchar of
// /proc/PID/io), 0 when that cannot be read.
func bytesRead(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "rchar: "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}

// signalRun starts heed with args, waits until ready(stdout so far) holds
// (checked every 20 ms, for at most a minute), sends sig, and returns the
// exit status, the outputs and how long heed took to exit after the signal.
func signalRun(t *testing.T, sig syscall.Signal, ready func(stdout string) bool, args ...string) (code int, stdout, stderr string, took time.Duration) {
	t.Helper()
	var out lockedBuffer
	return signalRunOut(t, sig, &out, func(int) bool { return ready(out.String()) }, args...)
}

// signalRunPID is signalRun with a readiness test on heed's process id.
func signalRunPID(t *testing.T, sig syscall.Signal, ready func(pid int) bool, args ...string) (code int, stdout, stderr string, took time.Duration) {
	t.Helper()
	var out lockedBuffer
	return signalRunOut(t, sig, &out, ready, args...)
}

func signalRunOut(t *testing.T, sig syscall.Signal, out *lockedBuffer, ready func(pid int) bool, args ...string) (code int, stdout, stderr string, took time.Duration) {
	t.Helper()
	bin, err := heedBinary()
	if err != nil {
		t.Fatalf("go build: %v", err)
	}
	cmd := exec.Command(bin, args...)
	var errb lockedBuffer
	cmd.Stdout, cmd.Stderr = out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(time.Minute)
	for !ready(cmd.Process.Pid) {
		select {
		case err := <-done:
			t.Fatalf("heed %q ended (%v) before it was ready for the signal:\nstdout:\n%s\nstderr:\n%s", args, err, clip(out.String()), errb.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("heed %q: not ready after a minute", args)
		}
	}
	start := time.Now()
	cmd.Process.Signal(sig)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("heed %q still running 10 s after %v", args, sig)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String(), time.Since(start)
}

// TestSignals sends SIGINT and SIGTERM to heed transcribe, heed align and
// heed info while they work (issue 16): each exits within 2 s with status
// 1, outputs already written stay whole and none is half written.
func TestSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("builds heed and runs the embedded model")
	}
	const prompt = 2 * time.Second
	dir := t.TempDir()
	short := filepath.Join(dir, "short.wav")
	writeWAV(t, short, utterance(1, 1), 16000)
	long := filepath.Join(dir, "long.wav")
	writeWAV(t, long, utterance(120, 2), 16000)
	text := filepath.Join(dir, "long.txt")
	if err := os.WriteFile(text, []byte(strings.Repeat("the quick brown fox jumps over the lazy dog ", 120)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run("transcribe "+sig.String(), func(t *testing.T) {
			// Three short files, the long one, then 150 short ones: the
			// signal comes while the long one is decoded.
			args := []string{"transcribe", "--format", "json", "--jobs", "1", short, short, short, long}
			for range 150 {
				args = append(args, short)
			}
			code, stdout, stderr, took := signalRun(t, sig, func(out string) bool { return strings.Count(out, "\n") >= 3 }, args...)
			if code != 1 || took > prompt {
				t.Errorf("exit %d after %v, want 1 within %v\nstderr:\n%s", code, took, prompt, clip(stderr))
			}
			for i, line := range lines(stdout) {
				var tr transcript
				if err := json.Unmarshal([]byte(line), &tr); err != nil || tr.File != short {
					t.Errorf("stdout line %d is not a whole result (%v): %q", i+1, err, line)
				}
			}
			// One line says how many inputs were not transcribed (and the
			// batch's summary line follows); none per file.
			if n := strings.Count(stderr, "interrupted"); n != 1 || !strings.Contains(stderr, "heed: interrupted: ") || strings.Contains(stderr, "context canceled") || len(lines(stderr)) > 2 {
				t.Errorf("stderr says interrupted %d times, want one line saying how many inputs were not transcribed:\n%s", n, clip(stderr))
			}
		})
		t.Run("align "+sig.String(), func(t *testing.T) {
			out := filepath.Join(dir, "out.json")
			old := []byte("an earlier result\n")
			if err := os.WriteFile(out, old, 0o600); err != nil {
				t.Fatal(err)
			}
			// Ready once heed has read the audio and the text (Linux:
			// /proc/PID/io), so it is aligning.
			fi, err := os.Stat(long)
			if err != nil {
				t.Fatal(err)
			}
			code, _, stderr, took := signalRunPID(t, sig, func(pid int) bool { return bytesRead(pid) > fi.Size() }, "align", "-o", out, long, text)
			if code != 1 || took > prompt {
				t.Errorf("exit %d after %v, want 1 within %v\nstderr:\n%s", code, took, prompt, clip(stderr))
			}
			if got := lines(stderr); len(got) != 1 || !strings.Contains(got[0], "interrupted") || !strings.Contains(got[0], "long.") {
				t.Errorf("stderr %q, want one line naming the file and saying interrupted", stderr)
			}
			if got, err := os.ReadFile(out); err != nil || !bytes.Equal(got, old) {
				t.Errorf("output file changed: %q, %v", got, err)
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if strings.Contains(e.Name(), ".tmp") {
					t.Errorf("temporary file %s left behind", e.Name())
				}
			}
		})
	}
	t.Run("info on a FIFO with a silent writer", func(t *testing.T) {
		fifo := filepath.Join(dir, "fifo.wav")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		// Ready once heed has the pipe open: then a non-blocking open of
		// the write end succeeds. The writer stays silent.
		var w *os.File
		defer func() {
			if w != nil {
				w.Close()
			}
		}()
		ready := func(string) bool {
			if w == nil {
				w, _ = os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
			}
			return w != nil
		}
		code, _, stderr, took := signalRun(t, syscall.SIGTERM, ready, "info", fifo)
		// The watchdog ends heed interruptGrace after the signal; allow
		// as much again for a loaded machine.
		if code != 1 || took > 2*interruptGrace+prompt/2 || !strings.Contains(stderr, "heed: interrupted") {
			t.Errorf("exit %d after %v, stderr %q; want 1 within %v, saying interrupted", code, took, stderr, 2*interruptGrace+prompt/2)
		}
	})
}

// lockedBuffer is a bytes.Buffer safe for one writer and one reader.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
