package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/heed-asr/heed/align/normalize"
	"github.com/heed-asr/heed/audio"
	"github.com/heed-asr/heed/corpus"
)

// The written-numbers dev set (-numbers-dev N): sentences with years,
// prices, dates, percentages, times, decimals, digit strings and
// abbreviations, written as people write them, spoken by held-out espeak
// voices. Every token with more than one reading (normalize.Token.Variants)
// is spoken in one of them, by default (-numbers-alt-share 0.75) more often
// not the normaliser's default, so
// that an aligner must find out from the audio which one was said. espeak
// is given the spoken words, so the gold times are those of what it said.
// The manifest keeps the written sentence in "written", the spoken words in
// "text", and one gold word per written token: from the start of its first
// spoken word to the end of its last.

// setNumbersDev names the written-numbers dev set (manifest and WAV folder).
const setNumbersDev = "numbers_dev"

// numbersTemplates are the sentence frames; each {slot} is filled by
// numberSlots.
var numbersTemplates = []string{
	"In {year}, the museum sold {card} tickets at {price} each.",
	"The meeting starts at {time} on {date}.",
	"Prices rose {pct} between {year} and {year}.",
	"{doctor} moved to {street} in {year}.",
	"We met near {saint} at {time}, and it cost {price}.",
	"About {pct} of the {card} votes were counted by {time}.",
	"Agent {digits} paid {price} for {dec} kilos of tea.",
	"The bridge opened on {date}, {year}, after {card} days of work.",
	"{caps} said the rate was {dec} percent in {year}.",
	"Her flight leaves at {time} and lands at {time}.",
	"The house on {street} sold for {price} in {year}.",
	"Only {pct} of the class came on {date}.",
	"The report from {year} lists {card} cases and {pct} fewer deaths.",
	"Call {doctor} before {time}; the fee is {price}.",
	"From {year} to {year}, the town grew by {card} people.",
	"The {caps} budget was {price} for the year {year}.",
}

// numberSlots fill the slots of numbersTemplates with written forms.
var numberSlots = map[string]func(*rand.Rand) string{
	"year": func(r *rand.Rand) string {
		if r.IntN(3) == 0 {
			return strconv.Itoa(2000 + r.IntN(30))
		}
		return strconv.Itoa(1100 + r.IntN(900))
	},
	"card": func(r *rand.Rand) string {
		if r.IntN(2) == 0 {
			return strconv.Itoa(101 + r.IntN(899))
		}
		return commas(1001 + r.IntN(8998))
	},
	"price": func(r *rand.Rand) string {
		whole := 2 + r.IntN(98)
		if r.IntN(3) == 0 {
			whole = 101 + r.IntN(2400)
		}
		if r.IntN(4) == 0 {
			return "$" + commas(whole)
		}
		return fmt.Sprintf("$%s.%02d", commas(whole), 10+r.IntN(89))
	},
	"pct": func(r *rand.Rand) string {
		if r.IntN(3) == 0 {
			return fmt.Sprintf("%d.%d%%", 1+r.IntN(20), 1+r.IntN(9))
		}
		return fmt.Sprintf("%d%%", 2+r.IntN(97))
	},
	"time": func(r *rand.Rand) string {
		mins := []string{"00", "05", "15", "30", "45", "07", "20", "50"}
		t := fmt.Sprintf("%d:%s", 1+r.IntN(12), mins[r.IntN(len(mins))])
		if r.IntN(3) == 0 {
			t = fmt.Sprintf("%d:%s", 13+r.IntN(10), mins[r.IntN(len(mins))])
		}
		return t
	},
	"date": func(r *rand.Rand) string {
		months := []string{"January", "March", "May", "June", "July", "October"}
		return fmt.Sprintf("%s %d", months[r.IntN(len(months))], 1+r.IntN(28))
	},
	"dec": func(r *rand.Rand) string {
		if r.IntN(2) == 0 {
			return fmt.Sprintf("0.%d", 1+r.IntN(9))
		}
		return fmt.Sprintf("%d.0%d", 1+r.IntN(9), 1+r.IntN(9))
	},
	"digits": func(r *rand.Rand) string { return fmt.Sprintf("0%d%d", r.IntN(10), 1+r.IntN(9)) },
	"doctor": func(r *rand.Rand) string {
		return "Dr. " + []string{"Smith", "Jones", "Brown", "Taylor", "Clark"}[r.IntN(5)]
	},
	"street": func(r *rand.Rand) string { return []string{"Main", "Oak", "Pine", "Elm", "Park"}[r.IntN(5)] + " St." },
	"saint":  func(r *rand.Rand) string { return "St. " + []string{"Paul", "Louis", "Mark", "James"}[r.IntN(4)] },
	"caps":   func(r *rand.Rand) string { return []string{"NASA", "FBI", "BBC", "UN", "IBM"}[r.IntN(5)] },
}

// commas writes n with thousands separators: 1250 -> "1,250".
func commas(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// numbersItem is one planned sentence of the written-numbers dev set.
type numbersItem struct {
	Written string // the sentence as written
	Spoken  string // the words espeak is given
	// Words holds, per token of Written, the number of spoken words it
	// was given (at least 1).
	Words []int
	// Changed counts the tokens spoken in a reading other than the
	// normaliser's default.
	Changed int
}

// planNumbers makes n sentences from seed: a template, its slots filled,
// every token with variants given one of its readings (one of the others
// than the default with probability altShare).
func planNumbers(n int, seed uint64, altShare float64) ([]numbersItem, error) {
	rng := rand.New(rand.NewPCG(seed, 0x6e756d62))
	items := make([]numbersItem, 0, n)
	for len(items) < n {
		tmpl := numbersTemplates[rng.IntN(len(numbersTemplates))]
		var b strings.Builder
		for {
			i := strings.IndexByte(tmpl, '{')
			if i < 0 {
				b.WriteString(tmpl)
				break
			}
			j := strings.IndexByte(tmpl[i:], '}') + i
			b.WriteString(tmpl[:i])
			fill, ok := numberSlots[tmpl[i+1:j]]
			if !ok {
				return nil, fmt.Errorf("numbers template %q: unknown slot %q", tmpl, tmpl[i+1:j])
			}
			b.WriteString(fill(rng))
			tmpl = tmpl[j+1:]
		}
		it := numbersItem{Written: b.String()}
		txt, err := normalize.Normalize(it.Written)
		if err != nil {
			return nil, err
		}
		var spoken []string
		for _, tok := range txt.Tokens {
			r := tok.Readings()
			if len(r) == 0 {
				return nil, fmt.Errorf("numbers sentence %q: token %q has no spoken words", it.Written, tok.Orig)
			}
			k := 0
			if len(r) > 1 && rng.Float64() < altShare {
				k = 1 + rng.IntN(len(r)-1)
				it.Changed++
			}
			spoken = append(spoken, r[k]...)
			it.Words = append(it.Words, len(r[k]))
		}
		it.Spoken = strings.Join(spoken, " ")
		if err := corpus.CheckText(it.Spoken); err != nil {
			return nil, fmt.Errorf("numbers sentence %q: %w", it.Written, err)
		}
		items = append(items, it)
	}
	return items, nil
}

// tokenTimes turns the gold times of the spoken words of it into one gold
// word per written token: from its first word's start to its last word's
// end.
func tokenTimes(it numbersItem, words []corpus.Word) ([]corpus.Word, error) {
	toks := strings.Fields(it.Written)
	n := 0
	for _, c := range it.Words {
		n += c
	}
	if len(words) != n || len(toks) != len(it.Words) {
		return nil, fmt.Errorf("%q: %d word times for %d spoken words", it.Written, len(words), n)
	}
	out := make([]corpus.Word, len(toks))
	k := 0
	for i, c := range it.Words {
		out[i] = corpus.Word{Word: toks[i], Start: words[k].Start, End: words[k+c-1].End}
		k += c
	}
	return out, nil
}

// buildNumbersDev writes OUT/numbers_dev.jsonl and its WAV files: o.numbersDev
// sentences of planNumbers spoken by held-out espeak voices, one process,
// in order (so the audio is a function of the flags).
func buildNumbersDev(ctx context.Context, o *options, stderr io.Writer) error {
	start := time.Now()
	items, err := planNumbers(o.numbersDev, o.seed, o.numbersAlt)
	if err != nil {
		return err
	}
	es, err := newEspeak()
	if err != nil {
		return err
	}
	dir := filepath.Join(o.out, "wav", setNumbersDev)
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	_, devVoices := voiceCombos()
	rng := rand.New(rand.NewPCG(o.seed, 0x766f6963))
	rs := audio.NewResampler(es.SampleRate(), rate)
	utts := make([]corpus.Utterance, 0, len(items))
	changed := 0
	for i, it := range items {
		if err := ctx.Err(); err != nil {
			return err
		}
		c := devVoices[rng.IntN(len(devVoices))]
		v := corpus.EspeakVoice{Name: c[0], Variant: c[1], Rate: 130 + rng.IntN(101), Pitch: 20 + rng.IntN(71), Range: 30 + rng.IntN(51), Volume: 55 + rng.IntN(21)}
		x, words, err := es.Synthesize(it.Spoken, v)
		if err != nil {
			return fmt.Errorf("numbers dev %d: %w", i, err)
		}
		rs.Reset()
		y := rs.Flush(rs.Process(nil, x))
		gold, err := tokenTimes(it, words)
		if err != nil {
			return err
		}
		u := corpus.Utterance{
			Audio: filepath.Join(dir, fmt.Sprintf("%06d.wav", i)), Text: it.Spoken, Written: it.Written, Words: gold,
			Source: srcEspeak, Speaker: v.String(), Duration: roundSec(float64(len(y)) / rate),
		}
		if err := writeWAV(u.Audio, y); err != nil {
			return err
		}
		utts = append(utts, u)
		changed += it.Changed
	}
	path := filepath.Join(o.out, setNumbersDev+".jsonl")
	if err := corpus.WriteManifest(path, utts); err != nil {
		return err
	}
	secs := 0.0
	for _, u := range utts {
		secs += u.Duration
	}
	fmt.Fprintf(stderr, "heed-corpus: %s: %d sentences, %.1f min, %d tokens spoken in a reading other than the default, in %s\n",
		path, len(utts), secs/60, changed, time.Since(start).Round(time.Second))
	return nil
}
