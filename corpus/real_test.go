package corpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseKaldiTable(t *testing.T) {
	m, err := ParseKaldiTable(strings.NewReader("000010011\tWE CALL IT BEAR\n\nu2 two  words \n"), "text")
	if err != nil {
		t.Fatal(err)
	}
	if m["000010011"] != "WE CALL IT BEAR" || m["u2"] != "two  words" || len(m) != 2 {
		t.Errorf("got %q", m)
	}
	for _, bad := range []string{"lonely\n", "a x\na y\n"} {
		if _, err := ParseKaldiTable(strings.NewReader(bad), "text"); err == nil || !strings.Contains(err.Error(), "text:") {
			t.Errorf("%q: got error %v, want one naming the file and line", bad, err)
		}
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The reserved speechocean762 speakers never come out of the reader.
func TestReadSpeechOceanLeavesReservedOut(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"train/text":    "000010011 WE CALL IT BEAR\n",
		"train/utt2spk": "000010011 0001\n",
		"train/wav.scp": "000010011 WAVE/SPEAKER0001/000010011.WAV\n",
		"test/text":     "000030012 MARK IS GOING\n000930001 RESERVED ONE\n",
		"test/utt2spk":  "000030012 0003x\n000930001 0093\n",
		"test/wav.scp":  "000030012 WAVE/SPEAKER0003/000030012.WAV\n000930001 WAVE/SPEAKER0093/000930001.WAV\n",
	})
	clips, err := ReadSpeechOcean(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(clips) != 2 || clips[0].Speaker != "so762-0001" || clips[1].Split != "test" || clips[1].Speaker != "so762-0003x" {
		t.Fatalf("got %+v", clips)
	}
	if !strings.HasSuffix(clips[0].Path, filepath.FromSlash("WAVE/SPEAKER0001/000010011.WAV")) {
		t.Errorf("path %s", clips[0].Path)
	}
	if len(ReservedSO762) != 25 {
		t.Errorf("%d reserved speakers, RESERVED.md lists 25", len(ReservedSO762))
	}
}

func TestReadKathleenAndWakeWord(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"data/arctic_a0001_1592748574.wav": "x", "data/arctic_a0001_1592748574.txt": "Author of the danger trail.\n",
		"data/arctic_b0002_1.wav": "x", "data/arctic_b0002_1.txt": "Hello.",
		"audio/smart mirror/1.flac": "x", "audio/alexa/u-u-i-d.wav": "x", "audio/notes.txt": "x", "audio/alexa/readme.md": "x",
	})
	k, err := ReadKathleen(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(k) != 2 || k[0].Prompt != "arctic_a0001" || k[0].Text != "Author of the danger trail." || k[1].Prompt != "arctic_b0002" {
		t.Errorf("kathleen: %+v", k)
	}
	w, err := ReadWakeWord(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(w) != 2 || w[0].Text != "alexa" || w[1].Text != "smart mirror" || w[1].ID != "smart mirror/1" {
		t.Errorf("wake words: %+v", w)
	}
	os.Remove(filepath.Join(dir, "data/arctic_b0002_1.txt"))
	if _, err := ReadKathleen(dir); err == nil {
		t.Error("a wav without its transcript was accepted")
	}
}
