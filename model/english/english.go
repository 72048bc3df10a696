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
// returned Bundle is shared: treat it as read-only.
func Load() (*model.Bundle, error) {
	once.Do(func() { bundle, err = model.LoadBytes(data) })
	return bundle, err
}
