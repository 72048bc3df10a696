package corpus

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// RealClip is one recording of a real-speech source, as its upstream
// distribution gives it: an audio file and a written transcript.
type RealClip struct {
	Source  string // "so762", "kathleen", "wakeword" or "mfa"
	ID      string // unique within the source
	Path    string // the audio file (WAV or FLAC)
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

// ReadKathleen lists rhasspy's dataset-voice-kathleen (CC0) in dir: pairs
// data/NAME.wav and data/NAME.txt, NAME = "arctic_a0001_1592748574" (the
// ARCTIC prompt, then a time stamp: some prompts were recorded more than
// once). A wav without its txt is an error. Clips are sorted by ID.
func ReadKathleen(dir string) ([]RealClip, error) {
	wavs, err := filepath.Glob(filepath.Join(dir, "data", "*.wav"))
	if err != nil {
		return nil, err
	}
	if len(wavs) == 0 {
		return nil, fmt.Errorf("kathleen: no data/*.wav in %s", dir)
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
