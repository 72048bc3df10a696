//go:build !espeak

package main

import "errors"

// haveEspeak reports whether this binary was built with espeak-ng.
const haveEspeak = false

// errNoEspeak is the error of a binary built without the espeak tag.
var errNoEspeak = errors.New("built without espeak-ng support; rebuild with: go build -tags espeak ./cmd/heed-corpus")

// newEspeak fails: this build has no espeak-ng.
func newEspeak() (espeakSynth, error) { return nil, errNoEspeak }
