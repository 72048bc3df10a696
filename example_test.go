package heed_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/heed-asr/heed"
	"github.com/heed-asr/heed/audio"
)

// testdata/hello.wav says "hello world, this is a test of speech
// recognition" (espeak-ng). The examples print properties of what the model
// finds, not its exact output, which depends on the model shipped.

func ExampleModel_TranscribeFile() {
	m, err := heed.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	t, err := m.TranscribeFile(context.Background(), "testdata/hello.wav", heed.TranscribeOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.2f s\n", t.Duration)
	fmt.Println(strings.Contains(t.Text, "speech recognition"))
	// Output:
	// 3.08 s
	// true
}

func ExampleModel_Transcribe() {
	m, err := heed.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	samples, err := heed.LoadAudio("testdata/hello.wav") // mono, 16 kHz
	if err != nil {
		fmt.Println(err)
		return
	}
	// Greedy decoding without the language model, with word times.
	t, err := m.Transcribe(context.Background(), samples, heed.TranscribeOptions{Beam: 1, NoLM: true, Words: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(t.Words) == len(strings.Fields(t.Text)))
	// Output: true
}

func ExampleModel_Align() {
	m, err := heed.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	samples, err := heed.LoadAudio("testdata/hello.wav")
	if err != nil {
		fmt.Println(err)
		return
	}
	a, err := m.Align(context.Background(), samples, "Hello world, this is a test of speech recognition.", heed.AlignOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	ordered := true
	var words []string
	for i, w := range a.Words {
		words = append(words, w.Word) // spelled as given
		ordered = ordered && w.Start < w.End && w.End <= a.Duration && (i == 0 || w.Start >= a.Words[i-1].End)
	}
	fmt.Println(strings.Join(words, " "))
	fmt.Println("in order:", ordered)
	fmt.Println("hello ends by 0.5 s:", a.Words[0].End < 0.5)
	// Then any export format: a.Write(os.Stdout, "srt"), a.WriteFile("hello.TextGrid", "textgrid"), ...

	// Output:
	// Hello world, this is a test of speech recognition.
	// in order: true
	// hello ends by 0.5 s: true
}

func ExampleAlignment_Write() {
	a := &heed.Alignment{File: "hello.wav", Duration: 1, Words: []heed.Word{
		{Word: "Hello", Start: 0.01, End: 0.29, Confidence: 0.96, Status: "aligned"},
		{Word: "world!", Start: 0.29, End: 0.74, Confidence: 0.98, Status: "aligned"},
	}}
	fmt.Println(heed.Formats())
	if err := a.Write(os.Stdout, "srt"); err != nil {
		fmt.Println(err)
	}
	if err := a.Write(os.Stdout, "ctm"); err != nil {
		fmt.Println(err)
	}
	// Output:
	// [audacity ctm json srt textgrid tsv vtt]
	// 1
	// 00:00:00,010 --> 00:00:00,740
	// Hello world!
	//
	// hello 1 0.010 0.280 Hello 0.960
	// hello 1 0.290 0.450 world! 0.980
}

func ExampleModel_Stream() {
	m, err := heed.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := os.Open("testdata/hello.wav") // any io.Reader: a pipe, a socket
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	var text []string
	err = m.Stream(context.Background(), f, heed.StreamOptions{}, func(r heed.StreamResult) error {
		if r.Final {
			text = append(text, r.Text)
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.Contains(strings.Join(text, " "), "speech recognition"))
	// Output: true
}

// A program that wants results on a channel runs Stream in a goroutine.
func ExampleModel_Stream_channel() {
	m, err := heed.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := os.Open("testdata/hello.wav")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	results := make(chan heed.StreamResult)
	errc := make(chan error, 1)
	go func() {
		defer close(results)
		errc <- m.Stream(ctx, f, heed.StreamOptions{Partial: 500 * time.Millisecond}, func(r heed.StreamResult) error {
			select {
			case results <- r:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	finals := 0
	for r := range results {
		if r.Final {
			finals++
		}
	}
	if err := <-errc; err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(finals > 0)
	// Output: true
}

func ExampleLoad() {
	_, err := heed.Load("no/such/model.heed")
	fmt.Println(err)
	fmt.Println(errors.Is(err, os.ErrNotExist))
	// Output:
	// heed: load model: modelfile: open no/such/model.heed: no such file or directory
	// true
}

func ExampleError() {
	_, err := heed.LoadAudio("testdata/audio/ima_adpcm.wav")
	var he *heed.Error
	var ue *audio.UnsupportedError
	fmt.Println(errors.As(err, &he), he.Op, he.Path)
	fmt.Println(errors.As(err, &ue), errors.Is(err, errors.ErrUnsupported))
	// Output:
	// true read audio testdata/audio/ima_adpcm.wav
	// true true
}
