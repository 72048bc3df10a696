package kern

import (
	"math"
	"sync"
)

// bfloat16 products: the right operand B rounded to bfloat16 (8 bits of
// significand) once, the left operand A at each product, and the sums kept
// in float32. On a CPU with AVX512_BF16 one instruction (VDPBF16PS) does
// twice the multiply-adds of a float32 FMA. Only inference uses them: the
// encoder's recognition and alignment moved by at most 0.04 CER points and
// not at all in alignment when every encoder product was rounded so
// (bench/SPEED.md, eleventh pass).

// bf16Tile is the micro-kernel's tile: 6 rows of A by 32 columns of B.
const (
	bf16MR = 6
	bf16NR = 32
)

// HaveBF16 reports whether MatMulBF16 runs on this CPU.
func HaveBF16() bool { return bf16Kernel != nil }

// BF16 returns the bfloat16 nearest to f (ties to even) as the top 16
// bits of a float32; NaN stays NaN.
func BF16(f float32) uint16 {
	b := math.Float32bits(f)
	if f != f {
		return uint16(b>>16) | 0x40 // quiet
	}
	return uint16((b + 0x7fff + (b>>16)&1) >> 16)
}

// bf16Pairs sets dst[q] to the bfloat16 values of src[2q] (low half) and
// src[2q+1] (high half, zero past the end of an odd src) for q <
// (len(src)+1)/2.
func bf16Pairs(dst []uint32, src []float32) {
	n := len(src)
	dst = dst[:(n+1)/2]
	for i := bf16PairsFast(dst, src); i < n; i += 2 {
		lo := uint32(BF16(src[i]))
		var hi uint32
		if i+1 < n {
			hi = uint32(BF16(src[i+1]))
		}
		dst[i/2] = lo | hi<<16
	}
}

// PackedBF16 holds B (k×n) rounded to bfloat16 and packed for the
// micro-kernel: panels of 32 columns, each holding, for every pair of k,
// the 32 columns' two values in one 32-bit word (the even k in the low
// half; an odd k's last pair and the columns past n are zero).
type PackedBF16 struct {
	k, n, kp int
	p        []uint32
}

// PackNT packs B = wᵀ for w stored (n×k): the weight (out×in) of a forward
// product x·wᵀ.
func (p *PackedBF16) PackNT(w []float32, n, k int) {
	checkLen("PackedBF16 w", len(w), n*k)
	p.pack(n, k, func(j int, _ []float32) []float32 { return w[j*k : j*k+k] })
}

// PackHalf packs B = wᵀ for the matrix w (n×k) held in h, from its binary16
// values row by row: the same packs as PackNT of h.Float32(), without
// widening the whole matrix.
func (p *PackedBF16) PackHalf(h *Half) {
	p.pack(h.n, h.k, func(j int, row []float32) []float32 {
		HalfToFloat(row, h.h[j*h.k:j*h.k+h.k])
		return row
	})
}

// pack packs the n rows of k values that row(j, buf) returns (in buf, of
// k floats, or elsewhere).
func (p *PackedBF16) pack(n, k int, row func(j int, buf []float32) []float32) {
	checkDims("PackedBF16", 0, k, n)
	p.k, p.n, p.kp = k, n, (k+1)/2
	panels := ceilDiv(n, bf16NR)
	p.p = make([]uint32, panels*p.kp*bf16NR)
	if p.kp == 0 {
		return
	}
	buf, pairs := make([]float32, k), make([]uint32, p.kp)
	for j := range n {
		bf16Pairs(pairs, row(j, buf))
		panel := p.p[(j/bf16NR)*p.kp*bf16NR+j%bf16NR:]
		for q, v := range pairs {
			panel[q*bf16NR] = v
		}
	}
}

// bf16Buf is MatMulBF16's workspace: A's block in pairs, one row of A in
// pairs and a tile.
type bf16Buf struct {
	a    []uint32
	row  []uint32
	tile [bf16MR * bf16NR]float32
}

var bf16Pool = sync.Pool{New: func() any { return new(bf16Buf) }}

// MatMulBF16 computes C (m×n) = A (m×k) · B with B packed in p, A rounded
// to bfloat16 on the way (ties to even) and the sums in float32; with acc
// the product is added to C. It panics if a slice is shorter than its
// shape or the CPU has no AVX512_BF16 (HaveBF16).
func MatMulBF16(c, a []float32, p *PackedBF16, m int, acc bool) {
	k, n, kp := p.k, p.n, p.kp
	checkDims("MatMulBF16", m, k, n)
	checkLen("MatMulBF16 a", len(a), m*k)
	checkLen("MatMulBF16 c", len(c), m*n)
	if !HaveBF16() {
		panic("kern: MatMulBF16 without AVX512_BF16")
	}
	if kp == 0 {
		if !acc {
			clear(c[:m*n])
		}
		return
	}
	buf := bf16Pool.Get().(*bf16Buf)
	defer bf16Pool.Put(buf)
	if cap(buf.row) < kp {
		buf.row = make([]uint32, kp)
	}
	if m == 1 {
		// One row (a recurrent step): a kernel of one row, not six with
		// five of them zero.
		ar := buf.row[:kp]
		bf16Pairs(ar, a[:k])
		for jr := 0; jr < n; jr += bf16NR {
			bp := p.p[(jr/bf16NR)*kp*bf16NR:]
			if cols := n - jr; cols < bf16NR {
				bf16Row(kp, &ar[0], &bp[0], &buf.tile[0], false)
				for j, v := range buf.tile[:cols] {
					if acc {
						c[jr+j] += v
					} else {
						c[jr+j] = v
					}
				}
				continue
			}
			bf16Row(kp, &ar[0], &bp[0], &c[jr], acc)
		}
		return
	}
	const block = 96 // rows of A packed at a time: 16 tiles
	for ic := 0; ic < m; ic += block {
		mc := min(block, m-ic)
		tiles := ceilDiv(mc, bf16MR)
		if need := tiles * kp * bf16MR; cap(buf.a) < need {
			buf.a = make([]uint32, need)
		}
		ap := buf.a[:tiles*kp*bf16MR]
		for t := range tiles {
			at := ap[t*kp*bf16MR : (t+1)*kp*bf16MR]
			for r := range bf16MR {
				i := ic + t*bf16MR + r
				if i >= m {
					for q := range kp {
						at[q*bf16MR+r] = 0
					}
					continue
				}
				pairs := buf.row[:kp]
				bf16Pairs(pairs, a[i*k:i*k+k])
				for q, v := range pairs {
					at[q*bf16MR+r] = v
				}
			}
		}
		for jr := 0; jr < n; jr += bf16NR {
			bp := p.p[(jr/bf16NR)*kp*bf16NR:]
			cols := min(bf16NR, n-jr)
			for t := range tiles {
				rows := min(bf16MR, mc-t*bf16MR)
				at := ap[t*kp*bf16MR:]
				off := (ic+t*bf16MR)*n + jr
				if rows == bf16MR && cols == bf16NR {
					bf16Kernel(kp, &at[0], &bp[0], &c[off], n, acc)
					continue
				}
				bf16Kernel(kp, &at[0], &bp[0], &buf.tile[0], bf16NR, false)
				for i := range rows {
					ci, ti := c[off+i*n:off+i*n+cols], buf.tile[i*bf16NR:i*bf16NR+cols]
					if acc {
						for j, v := range ti {
							ci[j] += v
						}
					} else {
						copy(ci, ti)
					}
				}
			}
		}
	}
}
