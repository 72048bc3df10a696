package main

import "testing"

func TestSpokenText(t *testing.T) {
	for in, want := range map[string]string{
		"WE CALL IT BEAR": "we call it bear",
		"Author of the danger trail, Philip Steels, etc.": "author of the danger trail philip steels et cetera",
		"smart mirror": "smart mirror",
		"It cost $5.":  "it cost five dollars",
	} {
		got, err := spokenText(in)
		if err != nil || got != want {
			t.Errorf("spokenText(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "日本語", "hello 日本", "..."} {
		if got, err := spokenText(bad); err == nil {
			t.Errorf("spokenText(%q) = %q, want an error", bad, got)
		}
	}
}

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
