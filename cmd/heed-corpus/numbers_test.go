package main

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/heed-asr/heed/align/normalize"
	"github.com/heed-asr/heed/corpus"
)

func TestPlanNumbers(t *testing.T) {
	items, err := planNumbers(200, 7, 0.75)
	if err != nil {
		t.Fatal(err)
	}
	again, err := planNumbers(200, 7, 0.75)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(items, again) {
		t.Fatal("planNumbers is not a function of its seed")
	}
	changed := 0
	for _, it := range items {
		if strings.Contains(it.Written, "{") {
			t.Fatalf("unfilled slot in %q", it.Written)
		}
		txt, err := normalize.Normalize(it.Written)
		if err != nil {
			t.Fatal(err)
		}
		if len(txt.Tokens) != len(it.Words) {
			t.Fatalf("%q: %d tokens, %d word counts", it.Written, len(txt.Tokens), len(it.Words))
		}
		// Every token is spoken in one of its readings.
		spoken := strings.Fields(it.Spoken)
		k := 0
		for i, tok := range txt.Tokens {
			said := spoken[k : k+it.Words[i]]
			k += it.Words[i]
			if !slices.ContainsFunc(tok.Readings(), func(r []string) bool { return slices.Equal(r, said) }) {
				t.Errorf("%q: token %q spoken %q, not one of its readings", it.Written, tok.Orig, said)
			}
		}
		if k != len(spoken) {
			t.Errorf("%q: %d spoken words, %d accounted for", it.Written, len(spoken), k)
		}
		changed += it.Changed
	}
	if changed < 100 {
		t.Errorf("only %d tokens of 200 sentences spoken in a reading other than the default", changed)
	}
}

func TestTokenTimes(t *testing.T) {
	it := numbersItem{Written: "In 2019, we", Spoken: "in two thousand nineteen we", Words: []int{1, 3, 1}}
	words := []corpus.Word{{Word: "in", Start: 0.1, End: 0.2}, {Word: "two", Start: 0.25, End: 0.4}, {Word: "thousand", Start: 0.4, End: 0.8}, {Word: "nineteen", Start: 0.8, End: 1.2}, {Word: "we", Start: 1.3, End: 1.4}}
	got, err := tokenTimes(it, words)
	if err != nil {
		t.Fatal(err)
	}
	want := []corpus.Word{{Word: "In", Start: 0.1, End: 0.2}, {Word: "2019,", Start: 0.25, End: 1.2}, {Word: "we", Start: 1.3, End: 1.4}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tokenTimes = %v, want %v", got, want)
	}
	if _, err := tokenTimes(it, words[:4]); err == nil {
		t.Error("no error for a missing word time")
	}
}

func TestPlanNumbersDefaultReadings(t *testing.T) {
	items, err := planNumbers(50, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if it.Changed != 0 || it.Spoken != normalize.SpokenForm(it.Written) {
			t.Errorf("alt share 0: %q spoken %q, want the default %q", it.Written, it.Spoken, normalize.SpokenForm(it.Written))
		}
	}
}
