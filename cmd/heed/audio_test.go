package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/heed-asr/heed/audio"
)

// fixture describes one file of testdata/audio (see its README): all hold
// the same 0.25 s sweep.
type fixture struct {
	file     string
	encoding string
	bits     int
	rate     int
	channels int
}

var audioFixtures = []fixture{
	{"s16.wav", "pcm_s16le", 16, 16000, 1},
	{"u8.wav", "pcm_u8", 8, 16000, 1},
	{"s24.wav", "pcm_s24le", 24, 16000, 1},
	{"s24_ext.wav", "pcm_s24le", 24, 16000, 1},
	{"s32_ext.wav", "pcm_s32le", 32, 16000, 1},
	{"f32.wav", "float32", 32, 16000, 1},
	{"f64.wav", "float64", 64, 16000, 1},
	{"stereo.wav", "pcm_s16le", 16, 16000, 2},
	{"ch3_ext.wav", "pcm_s16le", 16, 16000, 3},
	{"r8k.wav", "pcm_s16le", 16, 8000, 1},
	{"r44k.wav", "pcm_s16le", 16, 44100, 1},
	{"alaw.wav", "pcm_alaw", 8, 16000, 1},
	{"mulaw.wav", "pcm_mulaw", 8, 16000, 1},
}

// unsupportedFixtures are well-formed WAVs with compressed encodings.
var unsupportedFixtures = []string{"ima_adpcm.wav"}

func TestInfo(t *testing.T) {
	var cases []cliCase
	for _, f := range audioFixtures {
		path := filepath.Join(audioDir, f.file)
		frames := int(0.25 * float64(f.rate))
		cases = append(cases, cliCase{
			name: f.file, args: []string{"info", path}, code: 0,
			stdout: []string{
				path + ": container=wav",
				"encoding=" + f.encoding + " ",
				fmt.Sprintf("bits=%d ", f.bits),
				fmt.Sprintf("rate=%d ", f.rate),
				fmt.Sprintf("channels=%d ", f.channels),
				fmt.Sprintf("frames=%d ", frames),
				"duration=0.250s",
			},
		})
	}
	for _, name := range unsupportedFixtures {
		path := filepath.Join(audioDir, name)
		cases = append(cases, cliCase{name: name, args: []string{"info", path}, code: 1,
			stderr: []string{"heed: " + path + ": unsupported"}, noStdout: true})
	}
	cli := func(name string) string { return filepath.Join(cliDir, name) }
	s16 := filepath.Join(audioDir, "s16.wav")
	cases = append(cases,
		cliCase{name: "stdin", args: []string{"info", "-"}, stdin: string(readAll(t, s16)), code: 0,
			stdout: []string{"-: container=wav encoding=pcm_s16le", "frames=4000 "}},
		cliCase{name: "stdin garbage", args: []string{"info", "-"}, stdin: "this is not audio at all", code: 1,
			stderr: []string{"heed: -: not a WAV file"}, noStdout: true},
		cliCase{name: "garbage", args: []string{"info", cli("garbage.wav")}, code: 1,
			stderr: []string{"heed: " + cli("garbage.wav") + ": not a WAV file"}, noStdout: true},
		cliCase{name: "empty", args: []string{"info", cli("empty.wav")}, code: 1,
			stderr: []string{"heed: " + cli("empty.wav") + ": not a WAV file (empty input)"}, noStdout: true},
		cliCase{name: "short header", args: []string{"info", cli("short_header.wav")}, code: 1,
			stderr: []string{cli("short_header.wav") + ": truncated header"}, noStdout: true},
		cliCase{name: "missing", args: []string{"info", cli("no-such-file.wav")}, code: 1,
			stderr: []string{"heed:", cli("no-such-file.wav"), "no such file"}, noStdout: true},
		cliCase{name: "directory", args: []string{"info", cliDir}, code: 1, stderr: []string{"heed:", cliDir}, noStdout: true},
		cliCase{name: "truncated", args: []string{"info", cli("truncated.wav")}, code: 0,
			stdout: []string{"frames=1478 "},
			stderr: []string{"heed: warning: " + cli("truncated.wav") + ": data chunk claims 8000 bytes", "truncated"}},
		cliCase{name: "partial frame", args: []string{"info", cli("partial_frame.wav")}, code: 0,
			stdout: []string{"frames=1478 "},
			stderr: []string{"heed: warning: " + cli("partial_frame.wav") + ": data ends with a partial frame"}},
		cliCase{name: "no samples", args: []string{"info", cli("header_only.wav")}, code: 0,
			stdout: []string{"frames=0 duration=0.000s"}},
		// One bad file among good ones: the good ones are still described.
		cliCase{name: "bad among good", args: []string{"info", s16, cli("garbage.wav"), filepath.Join(audioDir, "f32.wav")}, code: 1,
			stdout: []string{s16 + ": container=wav", "f32.wav: container=wav"},
			stderr: []string{cli("garbage.wav")}},
	)
	runCases(t, cases)

	t.Run("one line per file in order", func(t *testing.T) {
		var args []string
		for _, f := range audioFixtures {
			args = append(args, filepath.Join(audioDir, f.file))
		}
		r := heed(t, "", append([]string{"info"}, args...)...)
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
		}
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		if len(lines) != len(args) {
			t.Fatalf("%d lines for %d files:\n%s", len(lines), len(args), r.stdout)
		}
		for i, l := range lines {
			if !strings.HasPrefix(l, args[i]+": ") {
				t.Errorf("line %d = %q, want it to start with %q", i+1, l, args[i]+": ")
			}
		}
	})
}

// parseFeatures checks the layout of heed features output (comment lines
// start with #, every other line holds 80 finite numbers separated by sep)
// and returns the frames.
func parseFeatures(t *testing.T, out string, sep string) [][]float64 {
	t.Helper()
	if !strings.HasSuffix(out, "\n") {
		t.Errorf("output does not end with a newline")
	}
	var rows [][]float64
	comments := 0
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if strings.HasPrefix(line, "#") {
			comments++
			continue
		}
		fields := strings.Split(line, sep)
		if len(fields) != 80 {
			t.Fatalf("line %d has %d %q-separated fields, want 80: %.80q", i+1, len(fields), sep, line)
		}
		row := make([]float64, 80)
		for j, f := range fields {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("line %d field %d = %q: not a finite number (%v)", i+1, j+1, f, err)
			}
			row[j] = v
		}
		rows = append(rows, row)
	}
	if comments == 0 {
		t.Errorf("no # comment line")
	}
	return rows
}

// wantFrames is the number of 25 ms frames at a 10 ms shift (snip edges)
// in n samples at 16 kHz.
func wantFrames(n int) int {
	if n < 400 {
		return 0
	}
	return 1 + (n-400)/160
}

func TestFeatures(t *testing.T) {
	// tol bounds the difference between the features of files holding the
	// same signal in different sample encodings, in log-mel units (natural
	// log of energy), over bins louder than floor. The multi-channel files
	// were rounded to 16 bits after mixing (README) and 8-bit quantisation
	// noise sits near 17 log-mel units for this signal, so those are
	// compared only on the bins well above their rounding noise.
	const (
		tol      = 0.02
		floor    = 0.0
		tolMix   = 0.01
		floorMix = 15.0
		tolU8    = 0.1
		floorU8  = 20.0
	)
	ref := func() [][]float64 {
		r := heed(t, "", "features", filepath.Join(audioDir, "s16.wav"))
		if r.code != 0 {
			t.Fatalf("features s16.wav: exit %d: %s", r.code, r.stderr)
		}
		return parseFeatures(t, r.stdout, "\t")
	}()
	for _, f := range audioFixtures {
		t.Run(f.file, func(t *testing.T) {
			path := filepath.Join(audioDir, f.file)
			r := heed(t, "", "features", path)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			rows := parseFeatures(t, r.stdout, "\t")
			c16, err := audio.Load16k(path)
			if err != nil {
				t.Fatal(err)
			}
			if want := wantFrames(len(c16.Samples)); len(rows) != want {
				t.Errorf("%d frames for %d samples at 16 kHz, want %d", len(rows), len(c16.Samples), want)
			}
			if !strings.Contains(r.stdout, fmt.Sprintf("# heed features: %s: %d frames x 80 log-mel bins", path, len(rows))) {
				t.Errorf("header comment does not name the file and frame count:\n%.200s", r.stdout)
			}
			// Same-rate files hold the same signal as s16.wav, scaled by the
			// channel-average gain (README): log-mel shifts by 2 ln(gain).
			// G.711's quantization noise (about 38 dB below the signal)
			// swamps the quiet bins; audio/ checks its samples instead.
			if f.rate != 16000 || len(rows) != len(ref) || f.encoding == "pcm_alaw" || f.encoding == "pcm_mulaw" {
				return
			}
			gain := map[int]float64{1: 1, 2: 0.75, 3: 1.0 / 3}[f.channels]
			shift := 2 * math.Log(gain)
			lim, lo := tol, floor
			switch {
			case f.encoding == "pcm_u8":
				lim, lo = tolU8, floorU8
			case f.channels > 1:
				lim, lo = tolMix, floorMix
			}
			worst := 0.0
			for i := range rows {
				for j := range rows[i] {
					if ref[i][j]+shift < lo {
						continue
					}
					worst = max(worst, math.Abs(rows[i][j]-ref[i][j]-shift))
				}
			}
			if worst > lim {
				t.Errorf("features differ from s16.wav's (shifted by %.3f) by up to %.4f, tol %g", shift, worst, lim)
			}
		})
	}
	for _, name := range unsupportedFixtures {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(audioDir, name)
			checkResult(t, cliCase{args: []string{"features", path}, code: 1,
				stderr: []string{"heed: " + path + ": unsupported"}, noStdout: true}, heed(t, "", "features", path))
		})
	}
	t.Run("text format", func(t *testing.T) {
		r := heed(t, "", "features", "--format", "text", filepath.Join(audioDir, "s16.wav"))
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		rows := parseFeatures(t, r.stdout, " ")
		if len(rows) != len(ref) {
			t.Fatalf("%d frames, tsv gave %d", len(rows), len(ref))
		}
		for i := range rows {
			for j := range rows[i] {
				if rows[i][j] != ref[i][j] {
					t.Fatalf("frame %d bin %d: text %v, tsv %v", i, j, rows[i][j], ref[i][j])
				}
			}
		}
	})
	t.Run("stdin", func(t *testing.T) {
		r := heed(t, string(readAll(t, filepath.Join(audioDir, "s16.wav"))), "features", "-")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		rows := parseFeatures(t, r.stdout, "\t")
		if len(rows) != len(ref) || rows[len(rows)-1][40] != ref[len(ref)-1][40] {
			t.Errorf("stdin gave %d frames, the file %d (or different values)", len(rows), len(ref))
		}
	})
	t.Run("truncated", func(t *testing.T) {
		path := filepath.Join(cliDir, "truncated.wav")
		r := heed(t, "", "features", path)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, "heed: warning: "+path) {
			t.Errorf("no warning naming the file on stderr: %q", r.stderr)
		}
		if rows := parseFeatures(t, r.stdout, "\t"); len(rows) != wantFrames(1478) {
			t.Errorf("%d frames, want %d", len(rows), wantFrames(1478))
		}
	})
	t.Run("no samples", func(t *testing.T) {
		r := heed(t, "", "features", filepath.Join(cliDir, "header_only.wav"))
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if rows := parseFeatures(t, r.stdout, "\t"); len(rows) != 0 {
			t.Errorf("%d frames from no samples", len(rows))
		}
	})
	// Frame count edge cases around one frame (400 samples) and one shift.
	for _, n := range []int{0, 399, 400, 559, 560, 16000} {
		t.Run(fmt.Sprintf("%d samples", n), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.wav")
			writeWAV(t, path, tone(n, 16000, 440), 16000)
			r := heed(t, "", "features", path)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if rows := parseFeatures(t, r.stdout, "\t"); len(rows) != wantFrames(n) {
				t.Errorf("%d frames, want %d", len(rows), wantFrames(n))
			}
		})
	}
	runCases(t, []cliCase{
		{name: "garbage", args: []string{"features", filepath.Join(cliDir, "garbage.wav")}, code: 1,
			stderr: []string{"heed: " + filepath.Join(cliDir, "garbage.wav") + ": not a WAV file"}, noStdout: true},
		{name: "stdin garbage", args: []string{"features", "-"}, stdin: "RIFF\x00\x00", code: 1, stderr: []string{"heed: -:"}, noStdout: true},
		{name: "missing", args: []string{"features", "nope.wav"}, code: 1, stderr: []string{"heed:", "nope.wav"}, noStdout: true},
	})
}

// tone returns n samples of a sine at freq Hz with amplitude 0.3 and a
// 10 ms fade at both ends.
func tone(n, rate int, freq float64) []float32 {
	s := make([]float32, n)
	fade := rate / 100
	for i := range s {
		g := 0.3
		if i < fade {
			g *= float64(i) / float64(fade)
		}
		if n-1-i < fade {
			g *= float64(n-1-i) / float64(fade)
		}
		s[i] = float32(g * math.Sin(2*math.Pi*freq*float64(i)/float64(rate)))
	}
	return s
}

// writeWAV writes mono samples as 16-bit PCM.
func writeWAV(t *testing.T, path string, samples []float32, rate int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := audio.WriteWAV(f, samples, rate); err != nil {
		f.Close()
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
