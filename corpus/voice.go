package corpus

// EspeakVoice selects an espeak-ng voice and its prosody for one utterance.
type EspeakVoice struct {
	// Name is the voice as the C API names it: "en-us", "en" (British
	// English; the command line's "en-gb"), "en-gb-scotland", "en-029", ...
	Name string
	// Variant is a variant file name without the "+", e.g. "m3", "f1",
	// "klatt2"; "" for the voice's own.
	Variant string
	Rate    int // speaking rate in words per minute, 80..450
	Pitch   int // base pitch, 0..100 (50 is the voice's normal)
	Range   int // pitch range, 0..100 (0 monotone, 50 normal)
	// Volume is the amplitude, 0..200 (100 is espeak's normal, which some
	// variants clip at); 0 means 100.
	Volume int
}

// String is the voice label used as the manifest speaker, e.g. "en-us+m3".
func (v EspeakVoice) String() string {
	if v.Variant == "" {
		return v.Name
	}
	return v.Name + "+" + v.Variant
}
