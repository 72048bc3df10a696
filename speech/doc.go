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
// speech. A recording of at most 25 s is decoded whole when the Endpointer
// found speech in it, or, when it found none, if its level rises and falls
// as speech does (one short word cut tight, or a quiet voice, which the
// Endpointer can miss).
//
// Music is the hard case: the CTC head takes notes for letters here and
// there, and the attention decoder, given a recording of music, writes
// whole sentences ("eight three three three ..."). Three checks keep
// most of its words out:
//
//   - Held notes. A note holds its harmonics in the same frequency bins for
//     a tenth of a second and more; speech moves its pitch and formants
//     within that time. heldShare measures the share of loud 10 ms frames
//     whose spectrum (62.5 Hz to 3 kHz, 31 Hz bins) is unchanged 100 ms
//     later (cosine similarity at least 0.9): chords and tones score near
//     1, recorded music 0.3 on median, read speech under 0.48 (over music
//     at 10 dB SNR too, where speech dominates its own frames). A clip
//     decoded without a segment, and a segment of 1 s or more, above 0.5
//     is music.
//   - What the CTC head heard, in a segment decoded on its own (long
//     recordings, streams): its transcript stands only when the CTC head
//     heard at least 15% of its letters in the segment (on music the
//     decoder writes ten or more letters for each one the CTC head took
//     from a note, on speech about one), and when it differs from the CTC
//     head's in no more characters than it has.
//   - A recording without a segment that is longer than 2.5 s (more than
//     a word or two) keeps its transcript only when the CTC head's best
//     path over the whole of it has at least 35% of the transcript's
//     letters: read speech that the Endpointer missed has 40 to 60%,
//     music about 25%.
//
// Music in which the Endpointer finds segments of speech (the CTC head
// hears confident letters in fast arpeggios, plucked melodies, some
// drums) is still transcribed: a short recording with a segment is decoded
// whole, unchecked, because a check there cost real speech words.
// bench/music.py measures how often.
package speech
