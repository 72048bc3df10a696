package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/heed-asr/heed/model/modelfile"
)

// badDir holds the catalogue of hostile inputs and its README table.
var badDir = filepath.Join("..", "..", "testdata", "bad")

// catalogueRow is one row of testdata/bad/README.md's table.
type catalogueRow struct {
	input, command, outcome string
	code                    int
}

// readCatalogue parses the rows of the README table of hostile inputs:
// | input | command | exit | outcome |.
func readCatalogue(t *testing.T) []catalogueRow {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(badDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []catalogueRow
	for _, line := range strings.Split(string(b), "\n") {
		cells := strings.Split(strings.Trim(line, "| "), "|")
		if !strings.HasPrefix(line, "| ") || len(cells) != 4 {
			continue
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		code := map[string]int{"0": 0, "1": 1, "2": 2}
		c, ok := code[cells[2]]
		if !ok {
			continue // the header row
		}
		out := strings.Trim(cells[3], "`")
		if out == "—" {
			out = ""
		}
		rows = append(rows, catalogueRow{input: strings.Trim(cells[0], "`"), command: cells[1], code: c, outcome: out})
	}
	return rows
}

// TestCatalogue runs every hostile input of testdata/bad (see its README):
// each exits with the documented status and message, without a crash,
// within a time and allocation bound.
func TestCatalogue(t *testing.T) {
	rows := readCatalogue(t)
	if len(rows) < 30 {
		t.Fatalf("catalogue has %d rows, want at least 30", len(rows))
	}
	tmp := t.TempDir()
	tiny := filepath.Join(badDir, "models", "tiny.heed")
	hello := filepath.Join("..", "..", "testdata", "hello.wav")
	helloTxt := filepath.Join(badDir, "text", "hello.txt")
	sentence, err := os.ReadFile(helloTxt)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.TrimSpace(string(sentence)) + " "
	generated := map[string]string{"(directory)": tmp}
	for name, text := range map[string]string{
		"(x10)":   strings.Repeat(s, 10),
		"(x1000)": strings.Repeat(s, 1000),
		"(1MB)":   strings.Repeat(s, 1<<20/len(s)+1)[:1<<20],
	} {
		path := filepath.Join(tmp, strings.Trim(name, "()")+".txt")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		generated[name] = path
	}
	seen := map[string]bool{}
	for _, r := range rows {
		name := r.input + " " + r.command
		if seen[name] {
			t.Errorf("row %q twice", name)
		}
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			in := filepath.Join(badDir, r.input)
			if p, ok := generated[r.input]; ok {
				in = p
			}
			if r.input == "(fifo)" {
				in = makeFIFO(t, filepath.Join(badDir, "wav", "silence.wav"))
			}
			var args []string
			switch r.command {
			case "info":
				args = []string{"info", in}
			case "transcribe":
				args = []string{"transcribe", "--beam", "1", "--model", tiny, in}
			case "align":
				args = []string{"align", "--model", tiny, in, helloTxt}
			case "text":
				args = []string{"align", "--model", tiny, hello, in}
			case "model":
				args = []string{"transcribe", "--beam", "1", "--model", in, hello}
				// The header lies, not the checksum.
				if data, err := os.ReadFile(in); err != nil {
					t.Fatal(err)
				} else if _, err := modelfile.ReadBytes(data); errors.Is(err, modelfile.ErrChecksum) {
					t.Fatalf("%s: checksum invalid; re-sign it (testdata/bad/models/make.sh)", in)
				}
			default:
				t.Fatalf("unknown command %q", r.command)
			}
			if _, err := os.Stat(in); err != nil {
				t.Fatalf("input missing: %v", err)
			}
			const (
				maxTime  = 60 * time.Second
				maxAlloc = 512 << 20
			)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			ctx, cancel := context.WithTimeout(context.Background(), maxTime)
			defer cancel()
			res := heedCtx(t, ctx, "", args...)
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > maxAlloc {
				t.Errorf("heed %q allocated %d MB, bound %d MB", args, alloc>>20, maxAlloc>>20)
			}
			if took > maxTime {
				t.Errorf("heed %q took %v, bound %v", args, took, maxTime)
			}
			checkResult(t, cliCase{args: args, code: r.code, wantOutput: []string{r.outcome}}, res)
			if r.code == 1 && !strings.Contains(res.stderr, "heed: "+in+": ") {
				t.Errorf("heed %q: error does not start with the file name:\n%s", args, res.stderr)
			}
		})
	}
}

// makeFIFO makes a named pipe in a temporary directory and copies the file
// src into it from a goroutine (which ends when the reader is done).
func makeFIFO(t *testing.T, src string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "pipe.wav")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.Write(data)
		f.Close()
	}()
	t.Cleanup(func() {
		// Unblock the writer if the reader never opened the pipe.
		if f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		<-done
	})
	return path
}
