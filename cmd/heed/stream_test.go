package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heed-asr/heed/audio"
)

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

// TestStreamEmitsBeforeEOF feeds heed stream a WAV with a fake length
// through a pipe: the first utterance must be printed while the rest of the
// audio has not been written yet.
func TestStreamEmitsBeforeEOF(t *testing.T) {
	m := writeTinyModel(t)
	quiet := make([]float32, 16000) // 1 s of silence ends an utterance
	first := append(utterance(1.5, 1), quiet...)
	second := utterance(1.5, 2)
	for i := range first[:1600] { // no noise floor before the speech
		first[i] = 0
	}
	var wav bytes.Buffer
	if err := audio.WriteWAV(&wav, append(append([]float32(nil), first...), second...), 16000); err != nil {
		t.Fatal(err)
	}
	data := wav.Bytes()
	binary.LittleEndian.PutUint32(data[40:], 0xFFFFFFFF) // a streaming writer's header
	cut := 44 + 2*len(first)

	pr, pw := io.Pipe()
	var out, errb lockedBuffer
	done := make(chan int)
	go func() {
		done <- run(context.Background(), &env{Stdin: pr, Stdout: &out, Stderr: &errb}, []string{"stream", "--model", m, "--beam", "1"})
	}()
	if _, err := pw.Write(data[:cut]); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), "\n") {
		if time.Now().After(deadline) {
			t.Fatalf("no utterance printed before the end of the stream; stderr: %s", errb.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := pw.Write(data[cut:]); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want one per utterance (2):\n%s", len(lines), out.String())
	}
	prevEnd := 0.0
	for i, l := range lines {
		var r streamLine
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("line %d: %v: %s", i+1, err, l)
		}
		if r.Text == "" || r.Start < prevEnd || r.End <= r.Start || r.End > 4.01 {
			t.Errorf("line %d: start %v end %v text %q (previous end %v)", i+1, r.Start, r.End, r.Text, prevEnd)
		}
		for _, w := range r.Words {
			if w.Start < r.Start || w.End > r.End {
				t.Errorf("line %d: word %q at %v..%v outside the utterance %v..%v", i+1, w.Word, w.Start, w.End, r.Start, r.End)
			}
		}
		prevEnd = r.End
	}
	if errb.String() != "" {
		t.Errorf("stderr: %s", errb.String())
	}
}

func TestStreamRaw(t *testing.T) {
	m := writeTinyModel(t)
	x := append(make([]float32, 1600), utterance(1, 3)...)
	var raw bytes.Buffer
	for _, v := range x {
		binary.Write(&raw, binary.LittleEndian, int16(v*32767))
	}
	r := heed(t, raw.String(), "stream", "--model", m, "--input", "s16le", "--rate", "16000")
	if r.code != 0 || strings.Count(r.stdout, "\n") != 1 {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	for _, args := range [][]string{
		{"stream", "--input", "mp3"},
		{"stream", "extra.wav"},
		{"stream", "--min-pause", "20s"},
	} {
		if r := heed(t, "", args...); r.code != 2 {
			t.Errorf("heed %q: exit %d, want 2", args, r.code)
		}
	}
}
