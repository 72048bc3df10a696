package main

// Inputs of a batch: files, directories walked for audio files and lists of
// paths, in a stable order; shards of that order; and the output file each
// input gets under -o DIR.

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// input is one audio file of a batch.
type input struct {
	path string // as given, or joined to the directory it was found in
	// anchor is the directory its output is named from: the directory
	// argument it was found in, or the file's own directory.
	anchor string
	out    string // output file under -o DIR ("" without -o)
	err    error  // set when the input failed before decoding (a directory that cannot be read)
}

// isAudioName reports whether a file found in a directory is audio heed
// reads: a .wav, .wave, .mp3 or .flac name (any case) that is not hidden.
// (A file named on the command line is read whatever its name: the format
// is told by its first bytes.)
func isAudioName(name string) bool {
	if strings.HasPrefix(name, ".") {
		return false
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".wav", ".wave", ".mp3", ".flac":
		return true
	}
	return false
}

// gatherInputs expands args and then the lines of the list file (when list
// is not ""), in that order, into inputs. A directory becomes the audio
// files under it in lexical order (filepath.WalkDir); anything else is a
// file (a missing one fails when it is decoded). A list has one path a
// line, relative to the working directory, blank lines ignored; "-" reads
// it from standard input.
func gatherInputs(e *env, args []string, list string) ([]input, error) {
	var ins []input
	add := func(p string) {
		fi, err := os.Stat(p)
		if p == "-" || err != nil || !fi.IsDir() {
			ins = append(ins, input{path: p, anchor: filepath.Dir(p)})
			return
		}
		found, failed := 0, 0
		werr := filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
			if err != nil {
				ins = append(ins, input{path: q, anchor: p, err: err})
				failed++
				return nil // report it and walk on
			}
			if d.IsDir() {
				if q != p && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if isAudioName(d.Name()) {
				ins = append(ins, input{path: q, anchor: p})
				found++
			}
			return nil
		})
		if werr == nil && found == 0 && failed == 0 {
			werr = fmt.Errorf("%s: no audio files (.wav) in this directory", p)
		}
		if werr != nil {
			ins = append(ins, input{path: p, anchor: p, err: werr})
		}
	}
	for _, a := range args {
		add(a)
	}
	if list == "" {
		return ins, nil
	}
	var r io.Reader = e.Stdin
	if list != "-" {
		f, err := os.Open(list)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	paths, err := readList(r, list)
	if err != nil {
		return nil, err
	}
	for _, p := range paths {
		add(p)
	}
	return ins, nil
}

// readList reads a list of paths, one a line, from r (named name in
// errors): line ends LF or CR LF, lines of only white space skipped, other
// white space kept as part of the path. A line "-" is an error: a list
// cannot name standard input.
func readList(r io.Reader, name string) ([]string, error) {
	var paths []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text() // without its LF or CR LF
		if strings.TrimSpace(line) == "" {
			continue
		}
		if line == "-" {
			return nil, fmt.Errorf("%s:%d: a list cannot name standard input (-)", name, n)
		}
		paths = append(paths, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return paths, nil
}

// parseShard parses "K/N" (0 <= K < N).
func parseShard(s string) (k, n int, err error) {
	ks, ns, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 0 || k >= n {
		return 0, 0, fmt.Errorf("--shard %q: want K/N with 0 <= K < N, such as 0/4", s)
	}
	return k, n, nil
}

// shardOf returns every nth input starting at the kth (counting from 0).
func shardOf(ins []input, k, n int) []input {
	var out []input
	for i := k; i < len(ins); i += n {
		out = append(out, ins[i])
	}
	return out
}

// nameOutputs sets the out field of every input: its path relative to the
// deepest directory holding every input's anchor, under dir, with the
// extension ext instead of the audio one. So "talk.wav" becomes
// DIR/talk.json, and "a/talk.wav" and "b/talk.wav" become DIR/a/talk.json
// and DIR/b/talk.json. Names depend on the whole batch, not on a shard, so
// every shard and every resumed run agree. Two inputs that would still
// share an output (the same file twice, or talk.wav and talk.wave) are an
// error.
func nameOutputs(ins []input, dir, ext string) error {
	root := ""
	for i, in := range ins {
		if in.path == "-" {
			return usagef("-o writes one file per input and needs named files, not - (standard input)")
		}
		a, err := filepath.Abs(in.anchor)
		if err != nil {
			return err
		}
		if i == 0 {
			root = a
		} else {
			root = commonDir(root, a)
		}
	}
	by := make(map[string]string, len(ins))
	for i := range ins {
		if ins[i].err != nil {
			continue
		}
		abs, err := filepath.Abs(ins[i].path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, abs)
		if err != nil {
			return err
		}
		out := filepath.Join(dir, strings.TrimSuffix(rel, filepath.Ext(rel))+ext)
		if prev, ok := by[out]; ok {
			return usagef("%s and %s would both be written to %s", prev, ins[i].path, out)
		}
		by[out] = ins[i].path
		ins[i].out = out
	}
	return nil
}

// commonDir returns the deepest directory holding both absolute, clean
// directories a and b.
func commonDir(a, b string) string {
	for !within(b, a) {
		a = filepath.Dir(a)
	}
	return a
}

// within reports whether path p is dir or lies under it (both clean).
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
