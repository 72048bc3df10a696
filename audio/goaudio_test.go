package audio

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	goaudio "github.com/go-audio/audio"
	gowav "github.com/go-audio/wav"
)

// github.com/go-audio/wav is an independent WAV reader and writer; these
// tests cross-check ours against it on what it handles correctly: integer
// PCM of 8, 16, 24 and 32 bits, plain or WAVE_FORMAT_EXTENSIBLE, any number
// of channels. (It returns float files' raw bits as integers, fails on
// 64-bit floats, hands A-law bytes through undecoded and leaves 8-bit
// samples unsigned, so those are left out or offset here.)

// goaudioRead decodes path with go-audio/wav and returns its format and
// the mono average of its samples scaled as ours: signed integers divided
// by 2^(bits-1), unsigned 8-bit ones offset by 128 first.
func goaudioRead(t *testing.T, path string) (rate, chans, bits int, mono []float64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := gowav.NewDecoder(f)
	buf, err := d.FullPCMBuffer()
	if err != nil {
		t.Fatalf("go-audio/wav: %s: %v", path, err)
	}
	chans, bits = int(d.NumChans), int(d.BitDepth)
	scale := math.Ldexp(1, bits-1)
	offset := 0
	if bits == 8 {
		offset = 128
	}
	mono = make([]float64, len(buf.Data)/chans)
	for i := range mono {
		var sum float64
		for c := range chans {
			sum += float64(buf.Data[i*chans+c]-offset) / scale
		}
		mono[i] = sum / float64(chans)
	}
	return int(d.SampleRate), chans, bits, mono
}

// TestGoAudioDecode decodes every integer-PCM fixture with both readers:
// the format and every sample must agree (to float32 rounding of the
// channel average).
func TestGoAudioDecode(t *testing.T) {
	files := []string{"s16.wav", "u8.wav", "s24.wav", "s24_ext.wav", "s32_ext.wav",
		"stereo.wav", "ch3_ext.wav", "r44k.wav", "r8k.wav", "../hello.wav"}
	for _, name := range files {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(fixtureDir, name)
			rate, chans, bits, want := goaudioRead(t, path)
			c, err := ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if c.Info.SampleRate != rate || c.Info.Channels != chans || c.Info.BitsPerSample != bits {
				t.Errorf("ours: %d Hz, %d channels, %d bits; go-audio: %d, %d, %d",
					c.Info.SampleRate, c.Info.Channels, c.Info.BitsPerSample, rate, chans, bits)
			}
			if len(c.Samples) != len(want) {
				t.Fatalf("ours: %d samples; go-audio: %d", len(c.Samples), len(want))
			}
			const tol = 1e-7 // float32 rounding of a value in [-1, 1)
			for i, w := range want {
				if d := math.Abs(float64(c.Samples[i]) - w); d > tol {
					t.Fatalf("sample %d: ours %v, go-audio %v (diff %.3g)", i, c.Samples[i], w, d)
				}
			}
		})
	}
}

// TestGoAudioReadsWriteWAV checks WriteWAV's output with go-audio's reader.
func TestGoAudioReadsWriteWAV(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	samples := make([]float32, 1001) // odd length: no padding in 16-bit data
	for i := range samples {
		samples[i] = float32(rng.Float64()*2.4 - 1.2) // some outside [-1, 1]
	}
	samples[0], samples[1], samples[2] = -1, 1, 0
	for _, rate := range []int{8000, 16000, 44100} {
		var b bytes.Buffer
		if err := WriteWAV(&b, samples, rate); err != nil {
			t.Fatal(err)
		}
		d := gowav.NewDecoder(bytes.NewReader(b.Bytes()))
		buf, err := d.FullPCMBuffer()
		if err != nil {
			t.Fatalf("go-audio/wav cannot read WriteWAV's output: %v", err)
		}
		if d.WavAudioFormat != 1 || d.NumChans != 1 || d.BitDepth != 16 || int(d.SampleRate) != rate {
			t.Errorf("go-audio/wav reads format %d, %d channels, %d bits, %d Hz; want 1, 1, 16, %d",
				d.WavAudioFormat, d.NumChans, d.BitDepth, d.SampleRate, rate)
		}
		if len(buf.Data) != len(samples) {
			t.Fatalf("go-audio/wav reads %d samples, want %d", len(buf.Data), len(samples))
		}
		for i, s := range samples {
			// Scaled by 32767 and clipped to the 16-bit range.
			want := int(max(-32768, min(32767, math.Round(float64(s)*32767))))
			if buf.Data[i] != want {
				t.Fatalf("sample %d (%v): go-audio reads %d, want %d", i, s, buf.Data[i], want)
			}
		}
	}
}

// TestGoAudioWriterDecodes decodes files written by go-audio's encoder.
func TestGoAudioWriterDecodes(t *testing.T) {
	const frames = 777
	for _, tc := range []struct{ bits, chans, rate int }{
		{8, 1, 8000}, {16, 1, 16000}, {16, 2, 22050}, {24, 1, 16000}, {24, 3, 48000}, {32, 2, 16000},
	} {
		rng := rand.New(rand.NewPCG(uint64(tc.bits), uint64(tc.chans)))
		lo, hi := -(1 << (tc.bits - 1)), 1<<(tc.bits-1)-1
		offset := 0
		if tc.bits == 8 { // WAV's 8-bit samples are unsigned
			lo, hi, offset = 0, 255, 128
		}
		data := make([]int, frames*tc.chans)
		for i := range data {
			data[i] = lo + rng.IntN(hi-lo+1)
		}
		path := filepath.Join(t.TempDir(), "x.wav")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		e := gowav.NewEncoder(f, tc.rate, tc.bits, tc.chans, 1)
		err = e.Write(&goaudio.IntBuffer{Data: data, SourceBitDepth: tc.bits,
			Format: &goaudio.Format{NumChannels: tc.chans, SampleRate: tc.rate}})
		if err == nil {
			err = e.Close()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatalf("go-audio/wav encoder: %v", err)
		}
		c, err := ReadFile(path)
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		if c.Info.SampleRate != tc.rate || c.Info.Channels != tc.chans || c.Info.BitsPerSample != tc.bits || len(c.Samples) != frames {
			t.Fatalf("%+v: decoded %+v, %d samples", tc, c.Info, len(c.Samples))
		}
		scale := math.Ldexp(1, tc.bits-1)
		for i := range frames {
			var sum float64
			for ch := range tc.chans {
				sum += float64(data[i*tc.chans+ch]-offset) / scale
			}
			if w := sum / float64(tc.chans); math.Abs(float64(c.Samples[i])-w) > 1e-7 {
				t.Fatalf("%+v: sample %d = %v, want %v", tc, i, c.Samples[i], w)
			}
		}
	}
}
