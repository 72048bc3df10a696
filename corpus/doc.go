// Package corpus builds and reads heed training corpora.
//
// # Manifest format
//
// A corpus is described by a manifest: a JSON Lines file (conventionally
// named *.jsonl) holding one utterance per line. Blank lines are ignored.
// An example line:
//
//	{"audio":"wav/train/000017.wav","text":"the cat's in the hat","words":[{"word":"the","start":0.08,"end":0.21},{"word":"cat's","start":0.21,"end":0.62},{"word":"in","start":0.62,"end":0.75},{"word":"the","start":0.75,"end":0.86},{"word":"hat","start":0.86,"end":1.24}],"source":"espeak","speaker":"en-us+m3","duration":1.41,"aug":"speed0.95+noise:pink@12dB"}
//
// The fields are:
//
//   - "audio" (required): path of a WAV file, relative to the directory
//     holding the manifest, or absolute.
//   - "text" (required): the spoken-form transcript. It may contain only the
//     lowercase letters a-z, the apostrophe and single spaces between words
//     (no leading or trailing space); numbers and symbols are written out as
//     they are spoken ("four five two one"). See [CheckText]. It is empty
//     (or absent) exactly when "nonspeech" is true.
//   - "written" (optional): the transcript as written ("Born in 2019, he
//     paid $5."), whose spoken form is "text": for aligners, which read
//     written text. Any valid UTF-8 with at least one non-space character.
//   - "words" (optional): word timings in seconds from the start of the file.
//     When present there is one entry per word of "text" (per
//     whitespace-separated token of "written" when that is given), in order
//     and with the same spelling, with 0 <= start <= end, starts
//     non-decreasing, and no end beyond "duration" (when that is given).
//   - "source" (optional): where the audio comes from, e.g. "espeak",
//     "flite", "fsdd".
//   - "speaker" (optional): a speaker or voice label.
//   - "duration" (optional): length of the audio in seconds; 0 or absent
//     means unknown.
//   - "aug" (optional): the augmentations applied to the audio, joined by
//     "+", e.g. "speed0.95+noise:pink@12dB+reverb0.45s" (see [AugSpec]).
//   - "nonspeech" (optional): true marks audio with no speech in it (music,
//     noise, hum), which must be transcribed as nothing: "text" is then ""
//     and "written" and "words" are absent. For training, such a line
//     teaches the model that the audio maps to no characters (CTC all
//     blank, the attention decoder <eos> at once). Without the marker an
//     empty "text" is an error.
//
// Unknown fields are ignored so that manifests can carry extra data.
//
// # Building a corpus
//
// The rest of the package holds the pieces the heed-corpus command puts
// together: text prompts cleaned to spoken form ([CleanSentence],
// [BuildPrompts]), audio augmentation ([AugSpec.Apply]), the Free Spoken
// Digit Dataset ([LoadFSDD], [Glue]) and, in builds with the espeak tag,
// espeak-ng synthesis with word timings.
package corpus
