// Package heed recognizes English speech and aligns transcripts with audio,
// in pure Go, with a trained English model embedded in the package: no cgo,
// no download, no other process.
//
// # Pipeline
//
// Every entry point runs the same stages, each a package of its own:
//
//   - audio: WAV (PCM 8-32 bit, float, WAVE_FORMAT_EXTENSIBLE, 1-8 channels,
//     any rate), MP3 or FLAC is decoded to mono and resampled to 16 kHz
//     (SampleRate).
//   - features: 80-dim Kaldi-compatible log-mel filterbank, 10 ms frames.
//   - model: a bidirectional GRU encoder, a CTC head and an attention
//     decoder write characters; model/beam searches with a character
//     language model (model/charlm).
//   - align: the decoder, fed a known transcript, gives an attention matrix
//     whose best monotonic path times every word and character; written
//     text ("Dr. Smith paid $42.50") is read as spoken words and every
//     original token comes back with its time. Results export as JSON, CTM,
//     Praat TextGrid, SRT, WebVTT, Audacity labels or TSV.
//
// # Use
//
// Load a model once (Default for the embedded one, Load for a file made by
// heed train or heed lm) and call its methods from any number of
// goroutines:
//
//	m, err := heed.Default()
//	t, err := m.TranscribeFile(ctx, "talk.wav", heed.TranscribeOptions{})
//	fmt.Println(t.Text)
//
//	samples, err := heed.LoadAudio("talk.wav")
//	a, err := m.Align(ctx, samples, "The words that were said.", heed.AlignOptions{})
//	err = a.WriteFile("talk.srt", "srt")
//
//	err = m.Stream(ctx, os.Stdin, heed.StreamOptions{}, func(r heed.StreamResult) error {
//		fmt.Println(r.Final, r.Text)
//		return nil
//	})
//
// Options structs are ready to use at their zero value. Long calls stop
// early, between pieces of audio, when their context is cancelled. Errors
// are *Error values naming the operation and the file; they wrap the cause,
// which errors.As finds: *audio.FormatError and *audio.UnsupportedError for
// audio heed cannot read, *modelfile.FormatError for a broken model file,
// ErrNoWords for a transcript without words, and the context's error.
//
// The command-line tool, cmd/heed, offers the same and more (training,
// evaluation); the repository's README has the model card with its
// measured error rates.
package heed
