package align

import (
	"math"
	"testing"

	"github.com/heed-asr/heed/audio"
	"github.com/heed-asr/heed/model/english"
)

// TestClipSkipInsertedWord aligns testdata/inserted.wav (an espeak-ng dev
// sentence) against its transcript with "phenomena", not in the audio,
// written before "iguana". With the long recording's skip
// (Seg.SkipLogProb, log 1e-4 a character) the clip's segmentation placed
// "phenomena" over the first 0.56 s of "iguana", which kept 0.10 s; the
// clip's own skip (ClipSkipLogProb) leaves it out: it is interpolated and
// "iguana" keeps its sound.
func TestClipSkipInsertedWord(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the embedded model")
	}
	b, err := english.Load()
	if err != nil {
		t.Fatal(err)
	}
	clip, err := audio.Load16k("../testdata/inserted.wav")
	if err != nil {
		t.Fatal(err)
	}
	text := "in any case a traverse mounted phenomena iguana while more perverted gives traction not to mention being easier to stake"
	words, _, err := NewAligner(b).Align(clip.Samples, text)
	if err != nil {
		t.Fatal(err)
	}
	ph, ig := words[6], words[7]
	if ph.Word != "phenomena" || ig.Word != "iguana" {
		t.Fatalf("words 6, 7: %q, %q", ph.Word, ig.Word)
	}
	if ph.Status == StatusAligned {
		t.Errorf("phenomena, not in the audio: %s at %.3f-%.3f", ph.Status, ph.Start, ph.End)
	}
	// Gold (espeak-ng's word events): iguana 2.023-2.687 s.
	if ig.Status != StatusAligned || math.Abs(ig.Start-2.023) > 0.1 || math.Abs(ig.End-2.687) > 0.05 {
		t.Errorf("iguana: %s at %.3f-%.3f, want aligned at 2.023-2.687", ig.Status, ig.Start, ig.End)
	}
}
