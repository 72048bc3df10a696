package modelfile

import (
	"encoding/binary"
	"math"

	"github.com/heed-asr/heed/internal/kern"
)

// F32ToF16 returns the IEEE 754 binary16 bit pattern nearest to f, rounding
// ties to even. Magnitudes too large for binary16 (≥ 65520) become ±Inf,
// magnitudes below 2⁻¹⁴ become subnormals (or ±0 below 2⁻²⁵), and NaN stays
// NaN with its sign and the top of its payload, always quiet.
func F32ToF16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	man := b & 0x7fffff
	if exp == 0xff {
		if man == 0 {
			return sign | 0x7c00
		}
		return sign | 0x7e00 | uint16(man>>13)
	}
	e := exp - 127 + 15 // biased binary16 exponent
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		// Subnormal result: value = k·2⁻²⁴ with k = m·2^(exp-126).
		if e < -10 {
			return sign // below half the smallest subnormal
		}
		m := man | 0x800000
		shift := uint(14 - e)
		k := m >> shift
		rem := m & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || (rem == half && k&1 == 1) {
			k++ // may carry into the smallest normal, which encodes correctly
		}
		return sign | uint16(k)
	}
	h := uint16(e)<<10 | uint16(man>>13)
	rem := man & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && h&1 == 1) {
		h++ // a carry into the exponent is correct, up to +Inf
	}
	return sign | h
}

// F32sToF16 sets dst[i] = F32ToF16(src[i]) for every i of src (dst must be
// as long): with the CPU's conversion instruction where there is one (F16C
// on amd64, which rounds alike), the rest with F32ToF16.
func F32sToF16(dst []uint16, src []float32) {
	dst = dst[:len(src)]
	for i := kern.FloatToHalfFast(dst, src); i < len(src); i++ {
		dst[i] = F32ToF16(src[i])
	}
}

// F16ToF32 returns the float32 value of the binary16 bit pattern h. The
// conversion is exact.
func F16ToF32(h uint16) float32 { return kern.HalfFloat(h) }

// f16Decode converts the little-endian binary16 values in src (2·len(d)
// bytes) into d: with the CPU's conversion instruction where there is one
// (F16C on amd64, exact like F16ToF32; a signalling NaN may come out
// quiet), the rest with F16ToF32.
func f16Decode(d []float32, src []byte) {
	src = src[:2*len(d)]
	if h := le16(src); h != nil {
		kern.HalfToFloat(d, h)
		return
	}
	for j := range d {
		d[j] = F16ToF32(binary.LittleEndian.Uint16(src[2*j:]))
	}
}
