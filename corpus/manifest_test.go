package corpus

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestManifestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "train.jsonl")
	outside := filepath.Join(t.TempDir(), "x.wav")
	utts := []Utterance{
		{
			Audio: filepath.Join(dir, "wav", "a.wav"), Text: "the cat's in the hat",
			Words: []Word{
				{"the", 0.08, 0.21}, {"cat's", 0.21, 0.62}, {"in", 0.62, 0.75},
				{"the", 0.75, 0.86}, {"hat", 0.86, 1.24},
			},
			Source: "espeak", Speaker: "en-us+m3", Duration: 1.41, Aug: "speed0.95+noise:pink@12dB",
		},
		{Audio: outside, Text: "four five two one", Source: "fsdd", Duration: 2.31},
		{Audio: filepath.Join(dir, "b.wav"), Text: "a"},
		{Audio: filepath.Join(dir, "wav", "music.wav"), NonSpeech: true, Source: "nonspeech", Speaker: "hyperrogue", Duration: 7.25, Aug: "gain-12dB"},
	}
	if err := WriteManifest(path, utts); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) != len(utts) {
		t.Fatalf("%d lines, want %d", len(lines), len(utts))
	}
	if !strings.HasPrefix(lines[0], `{"audio":"wav/a.wav",`) {
		t.Errorf("audio below the manifest not written relative: %s", lines[0])
	}
	if !strings.Contains(lines[1], `"audio":"`+filepath.ToSlash(outside)+`"`) {
		t.Errorf("audio outside the manifest not written absolute: %s", lines[1])
	}
	if want := `{"audio":"wav/music.wav","text":"","source":"nonspeech","speaker":"hyperrogue","duration":7.25,"aug":"gain-12dB","nonspeech":true}`; lines[3] != want {
		t.Errorf("non-speech line written as\n%s\nwant\n%s", lines[3], want)
	}
	if strings.Contains(lines[0], "nonspeech") {
		t.Errorf("speech line carries the non-speech marker: %s", lines[0])
	}
	got, err := ReadManifest(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, utts) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, utts)
	}
	// No temporary files are left behind.
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("left %s", e.Name())
		}
	}
}

func TestWriteManifestInvalid(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.jsonl")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteManifest(path, []Utterance{{Audio: "a.wav", Text: "ok"}, {Audio: "b.wav", Text: "Not OK"}})
	if !errors.Is(err, ErrAlphabet) || !strings.Contains(err.Error(), "utterance 2") {
		t.Errorf("got %v, want an alphabet error naming utterance 2", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old\n" {
		t.Errorf("failed write changed the file: %q", b)
	}
	for _, u := range []Utterance{{Audio: "a.wav"}, {Audio: "a.wav", Text: "hi", NonSpeech: true}} {
		if err := WriteManifest(path, []Utterance{u}); err == nil {
			t.Errorf("wrote %+v", u)
		}
	}
}

func TestParseManifestErrors(t *testing.T) {
	good := `{"audio":"a.wav","text":"hello there"}`
	tests := []struct {
		name    string
		in      string
		wantErr error  // sentinel, or nil for success
		wantMsg string // substring of the message
		n       int    // utterances on success
	}{
		{"empty", "", nil, "", 0},
		{"blank lines", "\n" + good + "\n\n  \n" + good, nil, "", 2},
		{"no final newline", good, nil, "", 1},
		{"crlf", good + "\r\n" + good + "\r\n", nil, "", 2},
		{"unknown field", `{"audio":"a.wav","text":"hi","extra":[1,2]}`, nil, "", 1},
		{"non ascii", good + "\n" + `{"audio":"a.wav","text":"caf\u00e9"}`, ErrAlphabet, `train.jsonl:2: text contains "é", outside the alphabet`, 0},
		{"upper case", `{"audio":"a.wav","text":"Hello"}`, ErrAlphabet, `train.jsonl:1: text contains "H"`, 0},
		{"digit", `{"audio":"a.wav","text":"route 66"}`, ErrAlphabet, `"6"`, 0},
		{"double space", `{"audio":"a.wav","text":"a  b"}`, ErrSpacing, "train.jsonl:1:", 0},
		{"trailing space", `{"audio":"a.wav","text":"a "}`, ErrSpacing, "", 0},
		{"no audio", `{"text":"hi"}`, ErrNoAudio, "", 0},
		{"no text", `{"audio":"a.wav"}`, ErrNoText, "", 0},
		{"empty text", `{"audio":"a.wav","text":""}`, ErrNoText, "", 0},
		{"empty text not nonspeech", `{"audio":"a.wav","text":"","nonspeech":false}`, ErrNoText, "", 0},
		{"nonspeech", `{"audio":"a.wav","text":"","nonspeech":true,"source":"nonspeech","duration":3.5}`, nil, "", 1},
		{"nonspeech no text", `{"audio":"a.wav","nonspeech":true}`, nil, "", 1},
		{"nonspeech with text", `{"audio":"a.wav","text":"la la","nonspeech":true}`, ErrNonSpeech, "train.jsonl:1:", 0},
		{"nonspeech with written", `{"audio":"a.wav","text":"","written":"La!","nonspeech":true}`, ErrNonSpeech, "", 0},
		{"nonspeech with words", `{"audio":"a.wav","text":"","nonspeech":true,"words":[]}`, nil, "", 1},
		{"nonspeech with word times", `{"audio":"a.wav","text":"","nonspeech":true,"words":[{"word":"la","start":0,"end":1}]}`, ErrNonSpeech, "", 0},
		{"nonspeech no audio", `{"text":"","nonspeech":true}`, ErrNoAudio, "", 0},
		{"nonspeech negative duration", `{"audio":"a.wav","text":"","nonspeech":true,"duration":-2}`, ErrDuration, "", 0},
		{"nonspeech not bool", `{"audio":"a.wav","text":"","nonspeech":"yes"}`, nil, "bad JSON", 0},
		{"bad json", `{"audio":"a.wav",`, nil, "train.jsonl:1: bad JSON", 0},
		{"two values", good + " " + good, nil, "more than one value", 0},
		{"negative duration", `{"audio":"a.wav","text":"hi","duration":-1}`, ErrDuration, "", 0},
		{"word count", `{"audio":"a.wav","text":"hi there","words":[{"word":"hi","start":0,"end":1}]}`, ErrWords, "1 word times for 2 words", 0},
		{"word spelling", `{"audio":"a.wav","text":"hi","words":[{"word":"ho","start":0,"end":1}]}`, ErrWords, "", 0},
		{"word backwards", `{"audio":"a.wav","text":"hi","words":[{"word":"hi","start":1,"end":0.5}]}`, ErrWords, "", 0},
		{"word order", `{"audio":"a.wav","text":"a b","words":[{"word":"a","start":1,"end":2},{"word":"b","start":0.5,"end":3}]}`, ErrWords, "", 0},
		{"word past end", `{"audio":"a.wav","text":"a","duration":1,"words":[{"word":"a","start":0.5,"end":1.2}]}`, ErrWords, "after the duration", 0},
		{"word at end", `{"audio":"a.wav","text":"a","duration":1,"words":[{"word":"a","start":0.5,"end":1.0005}]}`, nil, "", 1},
		{"written tokens", `{"audio":"a.wav","text":"in twenty nineteen","written":"In 2019.","words":[{"word":"In","start":0,"end":1},{"word":"2019.","start":1,"end":2}]}`, nil, "", 1},
		{"written token count", `{"audio":"a.wav","text":"in twenty nineteen","written":"In 2019.","words":[{"word":"in","start":0,"end":1},{"word":"twenty","start":1,"end":2},{"word":"nineteen","start":2,"end":3}]}`, ErrWords, "3 word times for 2 words", 0},
		{"written spelling", `{"audio":"a.wav","text":"in twenty nineteen","written":"In 2019.","words":[{"word":"in","start":0,"end":1},{"word":"2019.","start":1,"end":2}]}`, ErrWords, "", 0},
		{"written blank", `{"audio":"a.wav","text":"hi","written":"  "}`, ErrWritten, "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseManifest(strings.NewReader(tc.in), "train.jsonl", "")
			wantFail := tc.wantErr != nil || tc.wantMsg != ""
			if !wantFail {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				if len(got) != tc.n {
					t.Fatalf("%d utterances, want %d", len(got), tc.n)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %v %q", tc.wantErr, tc.wantMsg)
			}
			var me *ManifestError
			if !errors.As(err, &me) || me.File != "train.jsonl" || me.Line < 1 {
				t.Errorf("error %v is not a *ManifestError with file and line", err)
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("error %v, want %v", err, tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("error %q does not contain %q", err, tc.wantMsg)
			}
		})
	}
}

func TestReadManifestResolves(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.jsonl")
	abs := filepath.Join(string(filepath.Separator), "data", "x.wav")
	content := `{"audio":"wav/a.wav","text":"a"}` + "\n" + `{"audio":"` + filepath.ToSlash(abs) + `","text":"b b"}` + "\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadManifest(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "wav", "a.wav"); got[0].Audio != want {
		t.Errorf("relative path resolved to %q, want %q", got[0].Audio, want)
	}
	if got[1].Audio != abs {
		t.Errorf("absolute path changed to %q", got[1].Audio)
	}
	if _, err := ReadManifest(filepath.Join(dir, "missing.jsonl")); err == nil {
		t.Error("no error for a missing manifest")
	}
}

func TestCheckText(t *testing.T) {
	tests := []struct {
		in   string
		want error
	}{
		{"hello", nil},
		{"don't stop", nil},
		{"'tis", nil},
		{"", ErrSpacing},
		{" a", ErrSpacing},
		{"a\tb", ErrAlphabet},
		{"a-b", ErrAlphabet},
		{"na\u00efve", ErrAlphabet},
	}
	for _, tc := range tests {
		if err := CheckText(tc.in); !errors.Is(err, tc.want) && !(err == nil && tc.want == nil) {
			t.Errorf("CheckText(%q) = %v, want %v", tc.in, err, tc.want)
		}
	}
}

// FuzzParseManifest checks that the parser never panics, and that whatever
// it accepts survives a write and a read unchanged.
func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(`{"audio":"a.wav","text":"hello there","duration":1.5}`))
	f.Add([]byte(`{"audio":"n.wav","text":"","nonspeech":true,"source":"nonspeech","duration":2}`))
	f.Add([]byte(`{"audio":"wav/1.wav","text":"in the","words":[{"word":"in","start":0.1,"end":0.2},{"word":"the","start":0.2,"end":0.4}],"source":"espeak","speaker":"en","duration":0.5,"aug":"tel"}` + "\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		utts, err := ParseManifest(strings.NewReader(string(data)), "fuzz.jsonl", "")
		if err != nil {
			var me *ManifestError
			if !errors.As(err, &me) {
				t.Fatalf("error %v is not a *ManifestError", err)
			}
			return
		}
		for _, u := range utts {
			if err := u.Validate(); err != nil {
				t.Fatalf("accepted an invalid utterance: %v", err)
			}
		}
		dir := t.TempDir()
		for i := range utts {
			// Keep audio paths inside dir so they round-trip.
			utts[i].Audio = filepath.Join(dir, "a", filepath.Base(filepath.Clean("/"+utts[i].Audio)))
		}
		path := filepath.Join(dir, "m.jsonl")
		if err := WriteManifest(path, utts); err != nil {
			t.Fatalf("writing accepted utterances: %v", err)
		}
		back, err := ReadManifest(path)
		if err != nil {
			t.Fatalf("reading back: %v", err)
		}
		if len(back) != len(utts) {
			t.Fatalf("%d utterances read back, want %d", len(back), len(utts))
		}
		for i := range back {
			if !reflect.DeepEqual(back[i], utts[i]) && !(len(back[i].Words) == 0 && len(utts[i].Words) == 0) {
				t.Fatalf("utterance %d changed:\n got %+v\nwant %+v", i, back[i], utts[i])
			}
		}
	})
}

func TestValidateWrittenUTF8(t *testing.T) {
	u := Utterance{Audio: "a.wav", Text: "hi", Written: "a\xff"}
	if err := u.Validate(); !errors.Is(err, ErrWritten) {
		t.Errorf("Validate() = %v, want ErrWritten", err)
	}
}

// SpokenText: written forms become the model's alphabet; what cannot be
// spoken is an error.
func TestSpokenText(t *testing.T) {
	for in, want := range map[string]string{
		"WE CALL IT BEAR": "we call it bear",
		"Author of the danger trail, Philip Steels, etc.": "author of the danger trail philip steels et cetera",
		"smart mirror": "smart mirror",
		"It cost $5.":  "it cost five dollars",
	} {
		got, err := SpokenText(in)
		if err != nil || got != want {
			t.Errorf("SpokenText(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "日本語", "hello 日本", "..."} {
		if got, err := SpokenText(bad); err == nil {
			t.Errorf("SpokenText(%q) = %q, want an error", bad, got)
		}
	}
}
