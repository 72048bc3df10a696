//go:build !amd64

package modelfile

// f16DecodeFast has no fast path on this architecture.
func f16DecodeFast(d []float32, src []byte) int { return 0 }
