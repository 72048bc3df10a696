//go:build espeak

package main

import "github.com/heed-asr/heed/corpus"

// haveEspeak reports whether this binary was built with espeak-ng.
const haveEspeak = true

// errNoEspeak is unused in espeak builds.
var errNoEspeak error

// newEspeak returns the process's espeak-ng synthesizer.
func newEspeak() (espeakSynth, error) { return corpus.NewEspeak() }
