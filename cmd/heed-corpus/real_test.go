package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/heed-asr/heed/corpus"
)

func TestHeldOutIsStable(t *testing.T) {
	n := 0
	for i := 0; i < 1000; i++ {
		if heldOut(string(rune('a'+i%26))+string(rune(i)), 0.1) {
			n++
		}
	}
	if n < 60 || n > 140 {
		t.Errorf("%d of 1000 held out at 10%%", n)
	}
	if heldOut("arctic_a0001", 0.1) != heldOut("arctic_a0001", 0.1) {
		t.Error("not deterministic")
	}
}

func TestUsableText(t *testing.T) {
	for _, c := range []struct {
		src, text string
		ok        bool
	}{
		{"mfa", "m f a is like apex", true},
		{"mfa", "montreal uh forced aligner", false},
		{"mfa", "i hardly know 'er", false},
		{"mfa", "montreal <hes-forced> aligner", false},
		{"precise", "[laughter] hey computer", false},
		{"kathleen", "Er, well.", true}, // hesitations are judged in the aligner's clips only
	} {
		err := usableText(corpus.RealClip{Source: c.src, Text: c.text})
		if (err == nil) != c.ok {
			t.Errorf("usableText(%s %q) = %v", c.src, c.text, err)
		}
	}
}

// tone writes a short 16 kHz tone as a WAV file.
func tone(t *testing.T, path string, f float64) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	x := make([]float32, 4000)
	for i := range x {
		x[i] = float32(0.3 * math.Sin(2*math.Pi*f*float64(i)/rate))
	}
	if err := writeWAV(path, x); err != nil {
		t.Fatal(err)
	}
}

// The new sources get manifests of their own, AudioMNIST a dev set of
// whole held-out speakers, and the old manifests are not written.
func TestImportExtraSources(t *testing.T) {
	raw := t.TempDir()
	for s := 1; s <= 5; s++ {
		for d := 0; d < 2; d++ {
			tone(t, filepath.Join(raw, "amnist", "data", fmt.Sprintf("%02d", s), fmt.Sprintf("%d_%02d_0.wav", d, s)), float64(200+100*d+10*s))
		}
	}
	mfa := filepath.Join(raw, "mfa")
	lab := map[string]string{"61-70968-0000": "HE BEGAN A CONFUSED COMPLAINT", "acoustic_corpus": "this is uh the corpus",
		"cold_corpus": "so this is the sick corpus", "cold_corpus3": "and [adif] bunch"}
	for name, text := range lab {
		tone(t, filepath.Join(mfa, "tests", "data", "wav", name+".wav"), 300)
		if err := os.MkdirAll(filepath.Join(mfa, "tests", "data", "lab"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(mfa, "tests", "data", "lab", name+".lab"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tone(t, filepath.Join(mfa, "tests", "data", "wav", "mfa_apex.wav"), 400)
	conf := "def reference_transcripts():\n    return {\n        \"mfa_apex\": \"m f a is like apex\",\n    }\n"
	if err := os.WriteFile(filepath.Join(mfa, "tests", "conftest.py"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}

	out := t.TempDir()
	var log strings.Builder
	err := run(context.Background(), []string{"-out", out, "-audiomnist", filepath.Join(raw, "amnist"), "-audiomnist-dev", "2",
		"-mfa", mfa, "-real-copies", "1", "-jobs", "2", "-fsdd", ""}, io.Discard, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if !strings.Contains(log.String(), "mfa acoustic_corpus: skipped: transcript has the hesitation \"uh\"") ||
		!strings.Contains(log.String(), "mfa cold_corpus3: skipped: transcript has markup") {
		t.Errorf("skips not logged:\n%s", log.String())
	}
	for _, f := range []string{"real_train.jsonl", "so762_dev.jsonl", "precise_train.jsonl"} {
		if _, err := os.Stat(filepath.Join(out, f)); err == nil {
			t.Errorf("%s written although its sources were not given", f)
		}
	}
	read := func(name string) []corpus.Utterance {
		u, err := corpus.ReadManifest(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	train, dev, mt := read("audiomnist_train.jsonl"), read("audiomnist_dev.jsonl"), read("mfa_train.jsonl")
	devSpk := map[string]bool{}
	for _, u := range dev {
		devSpk[u.Speaker] = true
		if u.Aug != "" || u.Source != "audiomnist" {
			t.Errorf("dev utterance %+v", u)
		}
	}
	if len(devSpk) != 2 || len(dev) != 4 {
		t.Errorf("dev: %d utterances of %d speakers, want 4 of 2", len(dev), len(devSpk))
	}
	clean := 0
	for _, u := range train {
		if devSpk[u.Speaker] {
			t.Errorf("dev speaker %s in training", u.Speaker)
		}
		if u.Aug == "" {
			clean++
			if u.Text != "zero" && u.Text != "one" {
				t.Errorf("text %q", u.Text)
			}
		}
	}
	if clean != 6 || len(train) != 12 {
		t.Errorf("train: %d utterances, %d clean; want 12, 6", len(train), clean)
	}
	// cold_corpus and mfa_apex, each with one copy (the LibriSpeech clip
	// 61-70968-0000 is never read).
	if len(mt) != 4 || mt[0].Text != "so this is the sick corpus" {
		t.Errorf("mfa_train: %+v", mt)
	}
}

// Common Voice clips (MP3, decoded by ffmpeg) go to manifests of their own:
// whole sentences held out as the dev set, clean; clips over cvMaxSeconds
// and clips ffmpeg cannot read are logged and skipped.
func TestImportCommonVoice(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("no ffmpeg")
	}
	raw := t.TempDir()
	dir := filepath.Join(raw, "cv", "cv-valid-dev")
	csv := "filename,text,up_votes,down_votes,age,gender,accent,duration\n"
	var texts []string
	for i := 0; i < 40; i++ {
		texts = append(texts, fmt.Sprintf("sentence number %d", i))
	}
	for i := 0; i < 60; i++ {
		name := fmt.Sprintf("cv-valid-dev/sample-%06d.mp3", i)
		csv += fmt.Sprintf("%s,%s,2,0,,,,1.0\n", name, texts[i%len(texts)])
		// ffmpeg goes by the content, so a WAV under an .mp3 name serves.
		tone(t, filepath.Join(raw, "cv", filepath.FromSlash(name)), float64(200+5*i))
	}
	long := "cv-valid-dev/sample-000099.mp3"
	csv += long + ",a very long one,2,0,,,,30.0\n"
	// A file ffmpeg cannot read fails its batch; the rest of the batch is
	// still decoded.
	csv += "cv-valid-dev/sample-000098.mp3,a broken one,2,0,,,,1.0\n"
	if err := os.WriteFile(filepath.Join(dir, "sample-000098.mp3"), []byte("not audio"), 0o644); err != nil {
		t.Fatal(err)
	}
	x := make([]float32, (cvMaxSeconds+1)*rate)
	for i := range x {
		x[i] = float32(0.1 * math.Sin(float64(i)/10))
	}
	if err := writeWAV(filepath.Join(raw, "cv", filepath.FromSlash(long)), x); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cv-valid-dev.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}

	out := t.TempDir()
	var log strings.Builder
	err := run(context.Background(), []string{"-out", out, "-commonvoice", filepath.Join(raw, "cv"), "-commonvoice-dev", "0.2",
		"-real-copies", "1", "-jobs", "2", "-fsdd", ""}, io.Discard, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if !strings.Contains(log.String(), "commonvoice cv-valid-dev/sample-000099: skipped: 21.0 s long") ||
		!strings.Contains(log.String(), "commonvoice cv-valid-dev/sample-000098: skipped:") {
		t.Errorf("long clip not logged:\n%s", log.String())
	}
	train, err := corpus.ReadManifest(filepath.Join(out, "commonvoice_train.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dev, err := corpus.ReadManifest(filepath.Join(out, "commonvoice_dev.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	devText := map[string]bool{}
	for _, u := range dev {
		devText[u.Text] = true
		if u.Aug != "" || u.Source != "commonvoice" || u.Duration != 0.25 {
			t.Errorf("dev utterance %+v", u)
		}
	}
	clean := 0
	for _, u := range train {
		if devText[u.Text] {
			t.Errorf("dev sentence %q in training", u.Text)
		}
		if u.Aug == "" {
			clean++
		}
	}
	if len(dev) == 0 || clean == 0 || clean+len(dev) != 60 || len(train) != 2*clean {
		t.Errorf("train %d (%d clean), dev %d; want 60 clean clips in all, one copy each in training", len(train), clean, len(dev))
	}
	if _, err := os.Stat(filepath.Join(out, "real_train.jsonl")); err == nil {
		t.Error("real_train.jsonl written although its sources were not given")
	}
}

// VCTK: -vctk-dev whole speakers go to vctk_dev.jsonl, clean only; the
// others to vctk_train.jsonl with their augmented copies.
func TestImportVCTK(t *testing.T) {
	raw := t.TempDir()
	for i, spk := range []string{"p225", "p226", "p227"} {
		for n := 1; n <= 2; n++ {
			id := fmt.Sprintf("%s_%03d", spk, n)
			tone(t, filepath.Join(raw, "wav48", spk, id+".wav"), float64(200+100*i+10*n))
			if err := os.MkdirAll(filepath.Join(raw, "txt", spk), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(raw, "txt", spk, id+".txt"), []byte("Please call Stella.\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	dev, devSpk := importSpeakerSplit(t, "vctk", []string{"please call stella"}, "-vctk", raw, "-vctk-dev", "1")
	if len(devSpk) != 1 || len(dev) != 2 {
		t.Errorf("dev: %d utterances of %d speakers, want 2 of 1", len(dev), len(devSpk))
	}
}

// LibriSpeech: its test-* subsets and -librispeech-dev speakers of the
// train-* subsets go to librispeech_dev.jsonl, clean only; the other
// speakers to librispeech_train.jsonl with their augmented copies.
func TestImportLibriSpeech(t *testing.T) {
	raw := t.TempDir()
	for i, spk := range []string{"test-other/1688", "train-clean-100/103", "train-clean-100/1034", "train-clean-100/1040"} {
		ch := filepath.Join(raw, spk, "7")
		id := filepath.Base(spk) + "-7"
		tone(t, filepath.Join(ch, id+"-0000.wav"), float64(200+100*i))
		tone(t, filepath.Join(ch, id+"-0001.wav"), float64(250+100*i))
		trans := id + "-0000 MISSUS RACHEL LYNDE IS SURPRISED\n" + id + "-0001 CHAPTER ONE\n"
		if err := os.WriteFile(filepath.Join(ch, id+".trans.txt"), []byte(trans), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dev, devSpk := importSpeakerSplit(t, "librispeech", []string{"missus rachel lynde is surprised", "chapter one"},
		"-librispeech", raw, "-librispeech-dev", "1")
	if len(devSpk) != 2 || !devSpk["libri-1688"] || len(dev) != 4 {
		t.Errorf("dev: %d utterances of speakers %v, want 4 of libri-1688 and one train-clean-100 speaker", len(dev), devSpk)
	}
	// -librispeech-train moves a test subset into training: its speaker
	// joins the train-clean-100 ones (12 utterances, 6 clean), the dev
	// set keeps the held-out train-clean-100 speaker.
	out := t.TempDir()
	var log strings.Builder
	args := []string{"-out", out, "-real-copies", "1", "-jobs", "2", "-fsdd", "", "-librispeech", raw, "-librispeech-dev", "1", "-librispeech-train", "dev-clean-2,test-other"}
	if err := run(context.Background(), args, io.Discard, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	train, err := corpus.ReadManifest(filepath.Join(out, "librispeech_train.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dev, err = corpus.ReadManifest(filepath.Join(out, "librispeech_dev.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	trainSpk := map[string]int{}
	for _, u := range train {
		trainSpk[u.Speaker]++
	}
	if len(train) != 12 || trainSpk["libri-1688"] != 4 || len(dev) != 2 || dev[0].Speaker == "libri-1688" {
		t.Errorf("with -librispeech-train test-other: train %d utterances %v, dev %d, want 12 with libri-1688's 4, and 2", len(train), trainSpk, len(dev))
	}
}

// importSpeakerSplit runs heed-corpus with args (plus -out, one augmented
// copy, two jobs, no FSDD) and checks the split of a source whose dev set
// holds out whole speakers: NAME_dev.jsonl clean, of source NAME, with
// texts among texts; NAME_train.jsonl without a dev speaker, with 8
// utterances (4 clean, 4 copies). It returns the dev utterances and their
// speakers.
func importSpeakerSplit(t *testing.T, name string, texts []string, args ...string) ([]corpus.Utterance, map[string]bool) {
	t.Helper()
	out := t.TempDir()
	var log strings.Builder
	args = append([]string{"-out", out, "-real-copies", "1", "-jobs", "2", "-fsdd", ""}, args...)
	if err := run(context.Background(), args, io.Discard, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	train, err := corpus.ReadManifest(filepath.Join(out, name+"_train.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dev, err := corpus.ReadManifest(filepath.Join(out, name+"_dev.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	devSpk := map[string]bool{}
	for _, u := range dev {
		devSpk[u.Speaker] = true
		if u.Aug != "" || u.Source != name || !slices.Contains(texts, u.Text) {
			t.Errorf("dev utterance %+v", u)
		}
	}
	for _, u := range train {
		if devSpk[u.Speaker] {
			t.Errorf("dev speaker %s in training", u.Speaker)
		}
	}
	if len(train) != 8 {
		t.Errorf("train: %d utterances, want 8 (4 clean, 4 copies)", len(train))
	}
	return dev, devSpk
}

// writeSphere writes a tone as a 16-bit NIST SPHERE file at rate, little-
// or big-endian, with its sample_checksum; bad spoils the checksum.
func writeSphere(t *testing.T, path string, rate int, bigEndian, bad bool) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	order, bf := binary.AppendByteOrder(binary.LittleEndian), "01"
	if bigEndian {
		order, bf = binary.BigEndian, "10"
	}
	n := rate / 4
	var data []byte
	var sum uint16
	for i := 0; i < n; i++ {
		v := int16(8000 * math.Sin(2*math.Pi*300*float64(i)/float64(rate)))
		sum += uint16(v)
		data = order.AppendUint16(data, uint16(v))
	}
	if bad {
		sum++
	}
	h := fmt.Sprintf("NIST_1A\n   1024\nsample_count -i %d\nsample_rate -i %d\nsample_n_bytes -i 2\nsample_byte_format -s2 %s\n"+
		"channel_count -i 1\nsample_coding -s3 pcm\nsample_checksum -i %d\nend_head\n", n, rate, bf, sum)
	h += strings.Repeat(" ", 1023-len(h)) + "\n"
	if err := os.WriteFile(path, append([]byte(h), data...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// AN4: the test speakers go to an4_dev.jsonl, clean only; the training
// speakers to an4_train.jsonl with their augmented copies. SPHERE files of
// either byte order and rate are read at 16 kHz; a clip whose checksum
// fails, or whose transcript has markup, is logged and skipped.
func TestImportAN4(t *testing.T) {
	raw := t.TempDir()
	train := "<s> YES </s> (an251-fash-b)\n<s> H I N I C H </s> (cen1-fash-b)\n" +
		"<s> TWENTY ONE </s> (an61-flmm2-b)\n<s> ENTER FIVE ZERO </s> (an62-flmm2-b)\n"
	test := "RUBOUT G M E F THREE NINE (an406-fcaw-b)\n<sil> GO (an407-fcaw-b)\nNO (an408-fcaw-b)\n"
	if err := os.MkdirAll(filepath.Join(raw, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"an4_train.transcription": train, "an4_test.transcription": test} {
		if err := os.WriteFile(filepath.Join(raw, "etc", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i, id := range []string{"an251-fash-b", "cen1-fash-b", "an61-flmm2-b", "an62-flmm2-b"} {
		spk := strings.Split(id, "-")[1]
		writeSphere(t, filepath.Join(raw, "wav", "an4_clstk", spk, id+".sph"), []int{16000, 8000}[i%2], i < 2, false)
	}
	for _, id := range []string{"an406-fcaw-b", "an407-fcaw-b", "an408-fcaw-b"} {
		writeSphere(t, filepath.Join(raw, "wav", "an4test_clstk", "fcaw", id+".sph"), 16000, false, id == "an408-fcaw-b")
	}
	out := t.TempDir()
	var log strings.Builder
	args := []string{"-out", out, "-an4", raw, "-real-copies", "1", "-jobs", "2", "-fsdd", ""}
	if err := run(context.Background(), args, io.Discard, &log); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if !strings.Contains(log.String(), "an4 an407-fcaw-b: skipped: transcript has markup") ||
		!strings.Contains(log.String(), "an4 an408-fcaw-b: skipped: "+filepath.Join(raw, "wav", "an4test_clstk", "fcaw", "an408-fcaw-b.sph")+": sample_checksum") {
		t.Errorf("skips not logged:\n%s", log.String())
	}
	tr, err := corpus.ReadManifest(filepath.Join(out, "an4_train.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dev, err := corpus.ReadManifest(filepath.Join(out, "an4_dev.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dev) != 1 || dev[0].Text != "rubout g m e f three nine" || dev[0].Speaker != "an4-fcaw" || dev[0].Aug != "" || dev[0].Duration != 0.25 {
		t.Errorf("dev: %+v", dev)
	}
	texts := map[string]bool{}
	for _, u := range tr {
		if u.Source != "an4" || u.Speaker != "an4-fash" && u.Speaker != "an4-flmm2" {
			t.Errorf("train utterance %+v", u)
		}
		if u.Aug == "" {
			texts[u.Text] = true
			if u.Duration != 0.25 {
				t.Errorf("%s: %.3f s, want 0.25", u.Audio, u.Duration)
			}
		}
	}
	if len(tr) != 8 || len(texts) != 4 || !texts["h i n i c h"] || !texts["enter five zero"] {
		t.Errorf("train: %d utterances, texts %v; want 8 (4 clean, 4 copies)", len(tr), texts)
	}
}
