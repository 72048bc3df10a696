// Package speech finds the speech in a recording or a live stream and
// transcribes it one utterance at a time.
//
// An Endpointer reads 16 kHz mono audio as it arrives, re-encodes a bounded
// window of it (Options.Left of context before each Options.Hop of new
// audio, Options.Right after it) and classifies every 30 ms encoder frame by
// the model's CTC posteriors: a frame is speech when its most likely token
// is a character with probability at least 0.9. Silence, steady noise and
// music make the CTC head either choose the blank or spread its probability
// over many characters, so they never open a segment; a segment opens at
// two confident character frames within 300 ms and closes at a pause of
// Options.MinPause without one (or at Options.MaxSegment). The cost per
// second of audio is fixed by the window, whatever the length of the
// segment, and memory is bounded by Options.MaxSegment.
//
// Transcribe uses the same Endpointer on a whole recording and decodes its
// segments in parallel, each on its own, so the attention decoder never
// runs across a pause between utterances and never sees audio without
// speech.
package speech
