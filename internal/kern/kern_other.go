//go:build !amd64

package kern

// hasAsm reports whether this build has assembly kernels. On other
// architectures the portable implementation (implGo in gemm.go) is the only
// one registered.
const hasAsm = false

// halfToFloatFast has no fast path on this architecture.
func halfToFloatFast(dst []float32, src []uint16) int { return 0 }

// FloatToHalfFast has no fast path on this architecture.
func FloatToHalfFast(dst []uint16, src []float32) int { return 0 }

// bf16Kernel: no bfloat16 kernel on this architecture (HaveBF16 is false).
var bf16Kernel func(kp int, a, b *uint32, c *float32, ldc int, acc bool)

// bf16Row: none either.
var bf16Row func(kp int, a, b *uint32, c *float32, acc bool)

// bf16PairsFast has no fast path on this architecture.
func bf16PairsFast(dst []uint32, src []float32) int { return 0 }
