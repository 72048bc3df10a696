// Package english holds heed's shipped English recognizer, embedded in the
// binary so that heed works with no download. Its model card (data,
// training, measured error rates) is in the repository's README.
package english

import (
	_ "embed"
	"sync"

	"github.com/heed-asr/heed/model"
)

//go:embed english.heed
var data []byte

var (
	once   sync.Once
	bundle *model.Bundle
	err    error
)

// Bytes returns the embedded model file.
func Bytes() []byte { return data }

// Load returns the embedded model, decoding it on the first call. The
// returned Bundle is shared: treat it as read-only. Load checks the model
// file's structure but not its SHA-256, which the package's tests check
// (TestEmbeddedChecksum): the model is part of the executable, and hashing
// it would be most of a short command's start-up (see model.LoadTrusted).
func Load() (*model.Bundle, error) {
	once.Do(func() { bundle, err = model.LoadTrusted(data) })
	return bundle, err
}
