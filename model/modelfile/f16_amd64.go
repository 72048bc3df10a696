package modelfile

import "golang.org/x/sys/cpu"

// f16x8 converts n/8·8 binary16 values at src into float32s at dst with the
// F16C instruction VCVTPH2PS, 8 at a time; n is a multiple of 8.
//
//go:noescape
func f16x8(dst *float32, src *byte, n int)

// haveF16C: F16C needs the OS to save the YMM registers, which HasAVX
// implies.
var haveF16C = cpu.X86.HasF16C && cpu.X86.HasAVX

// f16DecodeFast converts the first multiple of 8 values of d with F16C and
// returns how many it converted (0 without F16C).
func f16DecodeFast(d []float32, src []byte) int {
	n := len(d) &^ 7
	if !haveF16C || n == 0 {
		return 0
	}
	_ = src[2*n-1]
	f16x8(&d[0], &src[0], n)
	return n
}
