package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/heed-asr/heed/align/normalize"
	"github.com/heed-asr/heed/corpus"
)

// rate is the sample rate of every WAV file written, Hz.
const rate = 16000

// Output sets, one manifest each.
const (
	setTrain       = "train"
	setTrainNoisy  = "train_noisy"
	setDev         = "dev"
	setDevNoisy    = "dev_noisy"
	setFSDDTest    = "fsdd_test"
	setFSDDStrings = "fsdd_test_strings"
)

// allSets lists the sets in manifest-writing order.
var allSets = []string{setTrain, setTrainNoisy, setDev, setDevNoisy, setFSDDTest, setFSDDStrings}

// Sources, the manifest "source" field.
const (
	srcEspeak = "espeak"
	srcFlite  = "flite"
	srcFSDD   = "fsdd"
)

// espeakVoices are the English espeak-ng voices, named as the C API names
// them ("en" is British English).
var espeakVoices = []string{"en-us", "en", "en-gb-scotland", "en-gb-x-rp", "en-029", "en-us-nyc", "en-gb-x-gbclan", "en-gb-x-gbcwmd"}

// espeakVariants are the variants used: the numbered male and female
// variants, the Klatt voices without clipping problems, croak and the
// whispers, and named variants whose level and length looked like speech
// (iven, Jacky and paul were left out: they clip even at low volume).
var espeakVariants = []string{
	"", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "f1", "f2", "f3", "f4", "f5",
	"klatt", "klatt2", "klatt3", "klatt4", "croak", "whisper", "whisperf",
	"Annie", "Andrea", "linda", "steph", "belinda", "aunty", "grandma", "anika", "Alicia",
	"max", "david", "robert", "travis", "victor", "zac", "rob", "Michael", "Alex",
	"boris", "grandpa", "quincy", "edward",
}

// devVoiceFrac is the share of voice+variant combinations held out for dev.
const devVoiceFrac = 0.12

// voiceCombos splits the voice+variant combinations into those used for
// training and those held out for dev (by hash, see corpus.IsDev).
func voiceCombos() (train, dev [][2]string) {
	for _, v := range espeakVoices {
		for _, w := range espeakVariants {
			c := [2]string{v, w}
			if corpus.IsDev("voice:"+v+"+"+w, devVoiceFrac) {
				dev = append(dev, c)
			} else {
				train = append(train, c)
			}
		}
	}
	return train, dev
}

// job is one planned utterance. Everything random about it is drawn at
// planning time or seeded by Seed, so any worker produces the same audio.
type job struct {
	ID     int
	Set    string // setTrain, setTrainNoisy, setDev (which also writes setDevNoisy), setFSDDTest, setFSDDStrings
	Source string
	Text   string
	Voice  corpus.EspeakVoice // espeak
	Flite  corpus.FliteVoice  // flite
	Clips  []string           // FSDD clip paths
	Single bool               // FSDD: one whole clip rather than glued clips
	Aug    corpus.AugSpec     // augmentation (train); zero for none
	Noisy  corpus.AugSpec     // dev: the noise of the dev_noisy copy
	Seed   uint64
	Est    float64 // estimated duration, seconds
}

// plan is the whole corpus, as a list of jobs.
type plan struct {
	jobs      []job
	fsddTrain []corpus.FSDDClip // takes 5-49
	fsddTest  []corpus.FSDDClip // takes 0-4
	babble    []job             // espeak utterances making up babble noise
	prompts   int               // train prompts available
}

// numBabble is the number of espeak utterances behind babble noise.
const numBabble = 16

// Duration models for planning, fitted on espeak-ng 1.51 and flite 2.2
// output: seconds per character of text at 1 wpm (espeak) and per
// character at stretch 1 (flite), plus a constant.
const (
	espeakSecPerCharWPM = 8.8
	espeakSecConst      = 0.12
	fliteSecPerChar     = 0.057
	fliteSecConst       = 0.3
)

func estimateEspeak(text string, v corpus.EspeakVoice) float64 {
	return espeakSecConst + espeakSecPerCharWPM*float64(len(text))/float64(v.Rate)
}

func estimateFlite(text string, v corpus.FliteVoice) float64 {
	return fliteSecConst + fliteSecPerChar*float64(len(text))*v.Stretch
}

// estimateAug corrects an estimate for augmentation: speed changes the
// length and reverb adds up to 0.3 s.
func estimateAug(est float64, a corpus.AugSpec) float64 {
	if a.Speed > 0 {
		est /= a.Speed
	}
	if a.RT60 > 0 {
		est += min(a.RT60, 0.3)
	}
	return est
}

// spellNumber rewrites a token holding digits into words with package
// normalize ("1984" -> "nineteen eighty four", "3rd" -> "third").
func spellNumber(tok string) (string, bool) {
	s := normalize.SpokenForm(tok)
	return s, s != "" && corpus.CheckText(s) == nil
}

// numberWords spells n as words.
func numberWords(n int) string { return normalize.SpokenForm(strconv.Itoa(n)) }

// buildPrompts reads the prompts of the corpus that o describes, split
// into train and dev.
func buildPrompts(o *options) (train, dev []corpus.Prompt, err error) {
	files, err := corpus.FortuneFiles(o.fortunes)
	if err != nil {
		return nil, nil, err
	}
	return corpus.BuildPrompts(corpus.PromptConfig{
		FortuneFiles:  files,
		Dict:          o.dict,
		Numbers:       spellNumber,
		NumberWords:   numberWords,
		MinWords:      1,
		MaxWords:      40,
		WordLists:     1500,
		DigitStrings:  1500,
		NumberPrompts: 1500,
		DevFraction:   o.devFrac,
		Seed:          o.seed,
	})
}

// makePlan builds the deterministic plan for o.
func makePlan(o *options) (*plan, error) {
	rng := rand.New(rand.NewPCG(o.seed, 0x706c616e))
	trainP, devP, err := buildPrompts(o)
	if err != nil {
		return nil, err
	}
	if len(trainP) == 0 || len(devP) == 0 {
		return nil, fmt.Errorf("no prompts from %s", o.fortunes)
	}
	p := &plan{prompts: len(trainP)}
	if o.fsdd != "" {
		if p.fsddTrain, err = corpus.LoadFSDD(o.fsdd, rate, func(i int) bool { return i >= 5 }); err != nil {
			return nil, err
		}
		if p.fsddTest, err = corpus.LoadFSDD(o.fsdd, rate, func(i int) bool { return i < 5 }); err != nil {
			return nil, err
		}
	}
	trainVoices, devVoices := voiceCombos()
	espeakVoiceFrom := func(rng *rand.Rand, combos [][2]string) corpus.EspeakVoice {
		c := combos[rng.IntN(len(combos))]
		return corpus.EspeakVoice{
			Name: c[0], Variant: c[1],
			Rate:   110 + rng.IntN(151), // wpm
			Pitch:  20 + rng.IntN(71),
			Range:  30 + rng.IntN(51),
			Volume: 55 + rng.IntN(21),
		}
	}
	espeakVoice := func(combos [][2]string) corpus.EspeakVoice { return espeakVoiceFrom(rng, combos) }
	add := func(j job) {
		j.ID = len(p.jobs)
		j.Seed = rng.Uint64()
		p.jobs = append(p.jobs, j)
	}
	aug := func() corpus.AugSpec {
		if rng.Float64() < o.aug {
			return corpus.RandomAug(rng, true)
		}
		return corpus.AugSpec{}
	}

	// Training: espeak, flite and FSDD shares of the hours.
	total := o.hours * 3600
	fliteSec, fsddSec := o.fliteShare*total, o.fsddShare*total
	if o.flite == "" {
		fliteSec = 0
	}
	if o.fsdd == "" {
		fsddSec = 0
	}
	espeakSec := total - fliteSec - fsddSec
	next := 0
	prompt := func() string {
		t := trainP[next%len(trainP)].Text
		next++
		return t
	}
	for sum := 0.0; sum < espeakSec; {
		j := job{Set: setTrain, Source: srcEspeak, Text: prompt(), Voice: espeakVoice(trainVoices), Aug: aug()}
		j.Est = estimateAug(estimateEspeak(j.Text, j.Voice), j.Aug)
		sum += j.Est
		add(j)
	}
	for sum := 0.0; sum < fliteSec; {
		v := corpus.FliteVoice{Name: corpus.FliteVoices[rng.IntN(len(corpus.FliteVoices))], Stretch: math.Round((0.8+0.45*rng.Float64())*100) / 100}
		j := job{Set: setTrain, Source: srcFlite, Text: prompt(), Flite: v, Aug: aug()}
		j.Est = estimateAug(estimateFlite(j.Text, v), j.Aug)
		sum += j.Est
		add(j)
	}
	if fsddSec > 0 {
		sum := 0.0
		// Every training take once as a single digit (in random order, so
		// that a small share takes a random subset)...
		for _, i := range rng.Perm(len(p.fsddTrain)) {
			if sum >= fsddSec {
				break
			}
			c := p.fsddTrain[i]
			j := job{Set: setTrain, Source: srcFSDD, Text: corpus.DigitWord(c.Digit), Clips: []string{c.Path}, Single: true, Aug: aug()}
			j.Est = estimateAug(float64(len(c.Samples))/rate, j.Aug)
			sum += j.Est
			add(j)
		}
		// ...then glued digit strings up to the share.
		for sum < fsddSec {
			j := gluedJob(rng, p.fsddTrain, setTrain)
			j.Aug = aug()
			j.Est = estimateAug(j.Est, j.Aug)
			sum += j.Est
			add(j)
		}
	}

	// Dev: unseen prompts spoken by held-out espeak voices; each also gets
	// a noisy copy at 10 dB SNR.
	noises := []string{corpus.NoiseWhite, corpus.NoisePink, corpus.NoiseBrown, corpus.NoiseBabble}
	for sum, i := 0.0, 0; sum < o.devMinutes*60; i++ {
		j := job{Set: setDev, Source: srcEspeak, Text: devP[i%len(devP)].Text, Voice: espeakVoice(devVoices)}
		j.Noisy = corpus.AugSpec{Noise: noises[i%len(noises)], SNR: 10, Seed: rng.Uint64()}
		j.Est = estimateEspeak(j.Text, j.Voice)
		sum += j.Est
		add(j)
	}

	// FSDD test sets: every test take as a single digit, and glued strings.
	for _, c := range p.fsddTest {
		add(job{Set: setFSDDTest, Source: srcFSDD, Text: corpus.DigitWord(c.Digit), Clips: []string{c.Path}, Single: true, Est: float64(len(c.Samples)) / rate})
	}
	if len(p.fsddTest) > 0 {
		for range o.testGlued {
			add(gluedJob(rng, p.fsddTest, setFSDDStrings))
		}
	}

	// Babble sources: training prompts in training voices.
	for i := range numBabble {
		p.babble = append(p.babble, job{Source: srcEspeak, Text: trainP[len(trainP)-1-i%len(trainP)].Text, Voice: espeakVoice(trainVoices)})
	}

	// Noisy training copies: random training prompts in training voices
	// with one noise (white, pink, brown or babble) at 0-20 dB SNR and
	// nothing else, drawn from their own random stream so that the other
	// sets do not depend on -noisy-hours.
	nrng := rand.New(rand.NewPCG(o.seed, 0x6e6f697379))
	for sum := 0.0; sum < o.noisyHours*3600; {
		j := job{Set: setTrainNoisy, Source: srcEspeak, Text: trainP[nrng.IntN(len(trainP))].Text, Voice: espeakVoiceFrom(nrng, trainVoices)}
		j.Aug = corpus.AugSpec{Noise: noises[nrng.IntN(len(noises))], SNR: float64(nrng.IntN(21)), Seed: nrng.Uint64()}
		j.Est = estimateEspeak(j.Text, j.Voice)
		sum += j.Est
		add(j)
	}
	return p, nil
}

// gluedJob plans a digit string of one speaker's clips.
func gluedJob(rng *rand.Rand, clips []corpus.FSDDClip, set string) job {
	bySpk := make(map[string][][]int) // speaker -> digit -> clip indexes
	var speakers []string
	for i, c := range clips {
		if bySpk[c.Speaker] == nil {
			bySpk[c.Speaker] = make([][]int, 10)
			speakers = append(speakers, c.Speaker)
		}
		bySpk[c.Speaker][c.Digit] = append(bySpk[c.Speaker][c.Digit], i)
	}
	spk := speakers[rng.IntN(len(speakers))]
	n := corpus.DigitStringLength(rng)
	j := job{Set: set, Source: srcFSDD}
	var words []string
	est := 2*glueLead + float64(n-1)*(glueMinGap+glueMaxGap)/2
	for len(j.Clips) < n {
		d := rng.IntN(10)
		takes := bySpk[spk][d]
		if len(takes) == 0 {
			continue
		}
		c := clips[takes[rng.IntN(len(takes))]]
		j.Clips = append(j.Clips, c.Path)
		words = append(words, corpus.DigitWord(d))
		est += float64(c.End-c.Start)/rate + 2*glueMargin
	}
	j.Text = strings.Join(words, " ")
	j.Est = est
	return j
}

// Glue settings for FSDD digit strings, seconds.
const (
	glueMinGap = 0.05
	glueMaxGap = 0.3
	glueMargin = 0.01
	glueLead   = 0.15
)

func glueConfig() corpus.GlueConfig {
	return corpus.GlueConfig{Rate: rate, MinGap: glueMinGap, MaxGap: glueMaxGap, Margin: glueMargin, EdgeLead: glueLead, NoiseDBFS: -60}
}
