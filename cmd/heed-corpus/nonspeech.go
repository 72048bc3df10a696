package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/heed-asr/heed/corpus"
	"github.com/heed-asr/heed/internal/par"
)

// Non-speech: heed-corpus -out DIR -nonspeech-hours H writes about H hours
// of clips with no speech in them, 2-15 s each, as DIR/wav/nonspeech/*.wav
// and DIR/nonspeech_train.jsonl with "text": "", "nonspeech": true and
// "source": "nonspeech", so that training teaches the model that music and
// steady noise map to no characters at all (issue 12). The clips are
//
//   - music (half of the hours): excerpts of the instrumental game scores
//     found in the -nonspeech-music directories (Ogg, MP3, FLAC, WAV and
//     tracker modules, decoded by ffmpeg), at -35 to -10 dBFS;
//   - music under noise (a fifth): the same, quieter (-40 to -20 dBFS),
//     with steady noise 5 dB above to 15 dB below it;
//   - steady noise (the rest): mains hum at 50 or 60 Hz with harmonics,
//     engine-like (a drifting firing rate and its harmonics over rumble),
//     fan-like (band-passed noise with a blade tone), filtered broadband
//     hiss, or two of them mixed, at -50 to -15 dBFS.
//
// The "speaker" field says what a clip holds ("music:hyperrogue/hr3-caves",
// "noise:hum60"). Music is cut the same way from each track (the same
// share of the hours per track), so the output depends only on the flags,
// the installed music files and ffmpeg. None of the music is that of
// bench/music.py's test set (openttd-openmsx, planetblupi, pathological,
// drascula), and the noises are drawn differently from its synthesis.

// defaultNonspeechMusic lists where Debian installs the scores used by
// default (packages hyperrogue-music, singularity-music, pushover-data,
// tecnoballz-data, asc-music, fb-music-high, tomatoes-data; see DATA.md).
const defaultNonspeechMusic = "/usr/share/hyperrogue/music,/usr/share/games/singularity/music,/usr/share/pushover/themes," +
	"/usr/share/games/tecnoballz/musics,/usr/share/games/asc/music,/usr/share/games/frozen-bubble/snd,/usr/share/tomatoes/music"

// Shares of the non-speech hours and clip lengths.
const (
	nsMusicShare      = 0.5
	nsMusicNoiseShare = 0.2
	nsMinSec          = 2.0
	nsMaxSec          = 15.0
)

// musicExts are the file types read from the music directories.
var musicExts = []string{".ogg", ".oga", ".opus", ".mp3", ".flac", ".wav", ".mod", ".xm", ".it", ".s3m"}

// musicTrack is one music file and its label ("package/track").
type musicTrack struct{ path, label string }

// findMusic lists the music files directly in each of dirs, sorted, with
// labels from the package-like directory name.
func findMusic(dirs []string) ([]musicTrack, error) {
	var out []musicTrack
	for _, d := range dirs {
		ents, err := os.ReadDir(d)
		if err != nil {
			return nil, fmt.Errorf("nonspeech: music: %w", err)
		}
		pkg := musicPackage(d)
		for _, e := range ents {
			ext := strings.ToLower(filepath.Ext(e.Name()))
			if e.Type().IsRegular() && slices.Contains(musicExts, ext) {
				out = append(out, musicTrack{filepath.Join(d, e.Name()), pkg + "/" + strings.TrimSuffix(e.Name(), filepath.Ext(e.Name()))})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].label < out[j].label })
	return out, nil
}

// musicPackage names a music directory: the first component after
// /usr/share (and games/), else the directory's base name.
func musicPackage(dir string) string {
	parts := strings.Split(filepath.ToSlash(filepath.Clean(dir)), "/")
	for i := 0; i+1 < len(parts); i++ {
		if parts[i] == "share" {
			rest := parts[i+1:]
			if rest[0] == "games" && len(rest) > 1 {
				rest = rest[1:]
			}
			return rest[0]
		}
	}
	return filepath.Base(dir)
}

// decodeMusic decodes path to 16 kHz mono samples with ffmpeg (at most
// maxSec seconds), or, where ffmpeg fails (it rejects some valid Ogg
// headers), with sox when that is installed.
func decodeMusic(ctx context.Context, ffmpeg, path string, maxSec float64) ([]float32, error) {
	x, err := decodeWith(ctx, exec.CommandContext(ctx, ffmpeg, "-nostdin", "-v", "error", "-i", path, "-t", fmt.Sprint(maxSec),
		"-ac", "1", "-ar", fmt.Sprint(rate), "-f", "f32le", "-"))
	if err == nil {
		return x, nil
	}
	if _, lerr := exec.LookPath("sox"); lerr != nil {
		return nil, err
	}
	x, serr := decodeWith(ctx, exec.CommandContext(ctx, "sox", "-V1", path, "-t", "f32", "-e", "floating-point", "-b", "32",
		"-L", "-r", fmt.Sprint(rate), "-c", "1", "-", "trim", "0", fmt.Sprint(maxSec)))
	if serr != nil {
		return nil, fmt.Errorf("%v; sox: %v", err, serr)
	}
	return x, nil
}

// decodeWith runs cmd and reads its stdout as little-endian float32 samples.
func decodeWith(ctx context.Context, cmd *exec.Cmd) ([]float32, error) {
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %v: %s", strings.Join(cmd.Args, " "), err, strings.TrimSpace(errb.String()))
	}
	x := make([]float32, out.Len()/4)
	if err := binary.Read(bytes.NewReader(out.Bytes()[:4*len(x)]), binary.LittleEndian, x); err != nil {
		return nil, err
	}
	for i, v := range x {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			x[i] = 0
		}
	}
	return x, nil
}

// rmsDB is the RMS level of x in dB relative to full scale (-Inf for
// digital silence).
func rmsDB(x []float32) float64 { return 10 * math.Log10(corpus.MeanSquare(x)) }

// setLevel scales x to an RMS of db dBFS, then down further if needed so
// that no sample exceeds 0.98.
func setLevel(x []float32, db float64) {
	cur := rmsDB(x)
	if math.IsInf(cur, -1) {
		return
	}
	g := math.Pow(10, (db-cur)/20)
	peak := 0.0
	for _, v := range x {
		peak = math.Max(peak, math.Abs(float64(v)))
	}
	if peak*g > 0.98 {
		g = 0.98 / peak
	}
	for i := range x {
		x[i] = float32(float64(x[i]) * g)
	}
}

// fade ramps the first and last 10 ms of x in and out (raised cosine).
func fade(x []float32) {
	n := min(len(x)/2, rate/100)
	for i := 0; i < n; i++ {
		g := float32(0.5 - 0.5*math.Cos(math.Pi*float64(i)/float64(n)))
		x[i] *= g
		x[len(x)-1-i] *= g
	}
}

// lfo returns a slow random modulation around 1: depth·sin at rate hz with
// a random phase.
func lfo(rng *rand.Rand, depth, hz float64) func(i int) float64 {
	ph := 2 * math.Pi * rng.Float64()
	return func(i int) float64 { return 1 + depth*math.Sin(2*math.Pi*hz*float64(i)/rate+ph) }
}

// steadyNoise synthesizes n samples of one kind of steady noise at unit RMS
// and returns them with the kind's name.
func steadyNoise(rng *rand.Rand, n int, kind string) []float32 {
	x := make([]float32, n)
	switch kind {
	case "hum50", "hum60":
		f0 := 50.0
		if kind == "hum60" {
			f0 = 60
		}
		f0 *= 1 + 0.004*(2*rng.Float64()-1)
		k := 3 + rng.IntN(12)
		odd := rng.IntN(2) == 0 // transformer buzz: odd harmonics
		decay := 0.45 + 0.45*rng.Float64()
		amps, phs := make([]float64, k), make([]float64, k)
		for h := range amps {
			amps[h] = math.Pow(decay, float64(h)) * (0.3 + rng.Float64())
			if odd && h%2 == 1 {
				amps[h] *= 0.1
			}
			phs[h] = 2 * math.Pi * rng.Float64()
		}
		wob := lfo(rng, 0.05*rng.Float64(), 0.1+0.5*rng.Float64())
		for i := range x {
			var s float64
			for h, a := range amps {
				s += a * math.Sin(2*math.Pi*f0*float64(h+1)*float64(i)/rate+phs[h])
			}
			x[i] = float32(s * wob(i))
		}
		floor := make([]float32, n)
		corpus.WhiteNoise(floor, rng)
		addScaled(x, floor, math.Pow(10, -(25+20*rng.Float64())/20))
	case "engine":
		f0 := 20 + 100*rng.Float64()
		drift := lfo(rng, 0.02+0.05*rng.Float64(), 0.05+0.3*rng.Float64())
		k := 4 + rng.IntN(12)
		amps := make([]float64, k)
		for h := range amps {
			amps[h] = (0.2 + rng.Float64()) / float64(h+1)
		}
		var ph float64
		for i := range x {
			ph += 2 * math.Pi * f0 * drift(i) / rate
			var s float64
			for h, a := range amps {
				s += a * math.Sin(float64(h+1)*ph)
			}
			x[i] = float32(s)
		}
		corpus.UnitPower(x)
		rumble := make([]float32, n)
		corpus.BrownNoise(rumble, rng)
		addScaled(x, rumble, 0.3+rng.Float64())
		corpus.NewBiquad("low", rate, 300+1700*rng.Float64(), 0.707).Filter(x)
	case "fan":
		corpus.PinkNoise(x, rng)
		fc := 150 + 1850*rng.Float64()
		corpus.NewBiquad("band", rate, fc, 0.4+1.2*rng.Float64()).Filter(x)
		corpus.NewBiquad("low", rate, fc*(2+3*rng.Float64()), 0.707).Filter(x)
		corpus.UnitPower(x)
		blade := 60 + 340*rng.Float64()
		a := math.Pow(10, -(6+20*rng.Float64())/20)
		am := lfo(rng, 0.1*rng.Float64(), blade/float64(2+rng.IntN(6)))
		for i := range x {
			t := 2 * math.Pi * blade * float64(i) / rate
			x[i] = float32((float64(x[i]) + a*(math.Sin(t)+0.4*math.Sin(2*t))) * am(i))
		}
	default: // "hiss": white, pink or brown noise, band-limited
		switch rng.IntN(3) {
		case 0:
			corpus.WhiteNoise(x, rng)
		case 1:
			corpus.PinkNoise(x, rng)
		default:
			corpus.BrownNoise(x, rng)
		}
		if rng.IntN(2) == 0 {
			corpus.NewBiquad("low", rate, 500+6500*rng.Float64(), 0.707).Filter(x)
		}
		if rng.IntN(2) == 0 {
			corpus.NewBiquad("high", rate, 30+400*rng.Float64(), 0.707).Filter(x)
		}
	}
	corpus.UnitPower(x)
	return x
}

var noiseKinds = []string{"hum50", "hum60", "engine", "fan", "hiss"}

// mixedNoise is one noise kind, or with a third of the time a second kind
// added 0-15 dB below it; it returns unit-RMS samples and the label.
func mixedNoise(rng *rand.Rand, n int) ([]float32, string) {
	k := noiseKinds[rng.IntN(len(noiseKinds))]
	x := steadyNoise(rng, n, k)
	if rng.IntN(3) == 0 {
		k2 := noiseKinds[rng.IntN(len(noiseKinds))]
		addScaled(x, steadyNoise(rng, n, k2), math.Pow(10, -15*rng.Float64()/20))
		corpus.UnitPower(x)
		k += "+" + k2
	}
	return x, k
}

func addScaled(dst, x []float32, g float64) {
	for i := range dst {
		dst[i] += float32(g * float64(x[i]))
	}
}

// clipSec draws a clip length in [nsMinSec, nsMaxSec], to 10 ms.
func clipSec(rng *rand.Rand) float64 {
	return math.Round((nsMinSec+(nsMaxSec-nsMinSec)*rng.Float64())*100) / 100
}

// nsClip is one finished clip.
type nsClip struct {
	name, label string
	x           []float32 // the audio, dropped once written
	n           int       // samples
}

// musicClips cuts about secs seconds of clips from one decoded track: a
// share of them (nsMusicNoiseShare of the music hours) under noise. Stretches
// near digital silence are skipped.
func musicClips(rng *rand.Rand, x []float32, secs float64, idx int, label string) []nsClip {
	var out []nsClip
	got, tries := 0.0, 0
	for got < secs && tries < 50 {
		tries++
		d := clipSec(rng)
		if rest := secs - got; d > rest && len(out) > 0 {
			if rest < nsMinSec {
				break
			}
			d = math.Round(rest*100) / 100
		}
		n := int(d * rate)
		if n > len(x) {
			n = len(x)
			d = float64(n) / rate
		}
		if d < nsMinSec {
			break
		}
		off := rng.IntN(len(x) - n + 1)
		noisy := rng.Float64() < nsMusicNoiseShare/(nsMusicShare+nsMusicNoiseShare)
		db := -35 + 25*rng.Float64()
		if noisy {
			db = -40 + 20*rng.Float64()
		}
		y := slices.Clone(x[off : off+n])
		if rmsDB(y) < -55 {
			continue
		}
		lab := "music:" + label
		setLevel(y, db)
		if noisy {
			nz, kind := mixedNoise(rng, n)
			snr := -5 + 20*rng.Float64() // music over noise
			addScaled(y, nz, math.Pow(10, (rmsDB(y)-snr)/20))
			setLevel(y, db+1)
			lab += "+noise:" + kind
		}
		fade(y)
		out = append(out, nsClip{name: fmt.Sprintf("music_%03d_%02d.wav", idx, len(out)), label: lab, x: y})
		got += d
	}
	return out
}

// noiseClip synthesizes noise clip i of d seconds.
func noiseClip(seed uint64, i int, d float64) nsClip {
	rng := rand.New(rand.NewPCG(seed, 0x6e6f697365000000+uint64(i)))
	x, kind := mixedNoise(rng, int(d*rate))
	setLevel(x, -50+35*rng.Float64())
	fade(x)
	return nsClip{name: fmt.Sprintf("noise_%05d.wav", i), label: "noise:" + kind, x: x}
}

func buildNonSpeech(ctx context.Context, o *options, stderr io.Writer) error {
	start := time.Now()
	out, err := filepath.Abs(o.out)
	if err != nil {
		return err
	}
	var dirs []string
	for _, d := range strings.Split(o.nonspeechMusic, ",") {
		if d = strings.TrimSpace(d); d != "" {
			dirs = append(dirs, d)
		}
	}
	tracks, err := findMusic(dirs)
	if err != nil {
		return err
	}
	if len(dirs) > 0 && len(tracks) == 0 {
		return errors.New("nonspeech: no music files in -nonspeech-music")
	}
	if len(tracks) > 0 {
		if _, err := exec.LookPath(o.ffmpeg); err != nil {
			return fmt.Errorf("nonspeech: decoding music needs ffmpeg (Debian package ffmpeg): %w", err)
		}
	}
	total := o.nonspeechHours * 3600
	musicSecs := 0.0
	if len(tracks) > 0 {
		musicSecs = total * (nsMusicShare + nsMusicNoiseShare)
	}
	dir := filepath.Join(out, "wav", "nonspeech")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var mu sync.Mutex
	var clips []nsClip
	keep := func(c []nsClip) error {
		for _, cl := range c {
			if err := writeWAV(filepath.Join(dir, cl.name), cl.x); err != nil {
				return err
			}
		}
		mu.Lock()
		defer mu.Unlock()
		for _, cl := range c {
			clips = append(clips, nsClip{name: cl.name, label: cl.label, n: len(cl.x)})
		}
		return nil
	}
	// Music, each track decoded and cut on its own.
	per := musicSecs / float64(max(1, len(tracks)))
	done, skipped := 0, 0
	err = par.ForEach(ctx, len(tracks), o.jobs, func(i int) error {
		tr := tracks[i]
		x, err := decodeMusic(ctx, o.ffmpeg, tr.path, 1200)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			mu.Lock()
			skipped++
			fmt.Fprintf(stderr, "heed-corpus: nonspeech music %s: skipped: %v\n", tr.label, err)
			mu.Unlock()
			return nil
		}
		h := fnv.New64a()
		h.Write([]byte(tr.label))
		c := musicClips(rand.New(rand.NewPCG(o.seed, h.Sum64())), x, per, i, tr.label)
		if err := keep(c); err != nil {
			return err
		}
		mu.Lock()
		done++
		fmt.Fprintf(stderr, "heed-corpus: nonspeech music %d/%d %s: %d clips\n", done, len(tracks), tr.label, len(c))
		mu.Unlock()
		return nil
	})
	if err != nil {
		return err
	}
	if skipped > len(tracks)/4 {
		return fmt.Errorf("nonspeech: %d of %d music files could not be decoded", skipped, len(tracks))
	}
	// Steady noise for the rest of the hours (the music cut may fall a
	// little short of its share).
	plan := rand.New(rand.NewPCG(o.seed, 0x6e73706c616e))
	var lens []float64
	got := 0.0
	for _, c := range clips {
		got += float64(c.n) / rate
	}
	for s := got; s < total; {
		d := clipSec(plan)
		lens = append(lens, d)
		s += d
	}
	err = par.ForEach(ctx, len(lens), o.jobs, func(i int) error {
		return keep([]nsClip{noiseClip(o.seed, i, lens[i])})
	})
	if err != nil {
		return err
	}
	sort.Slice(clips, func(i, j int) bool { return clips[i].name < clips[j].name })
	utts := make([]corpus.Utterance, len(clips))
	for i, c := range clips {
		utts[i] = corpus.Utterance{Audio: filepath.Join(dir, c.name), NonSpeech: true, Source: "nonspeech",
			Speaker: c.label, Duration: roundSec(float64(c.n) / rate)}
	}
	if err := corpus.WriteManifest(filepath.Join(out, "nonspeech_train.jsonl"), utts); err != nil {
		return err
	}
	summarizeSets(stderr, map[string][]corpus.Utterance{"train": utts}, []string{"train"})
	fmt.Fprintf(stderr, "heed-corpus: non-speech built in %s (%d music tracks)\n", time.Since(start).Round(time.Second), len(tracks))
	return nil
}
