//go:build amd64

#include "textflag.h"

// HFMA widens the 8 or 16 binary16 values at off(row)(BX*1) into t and
// adds t·x to acc.
#define HFMA(off, row, t, x, acc) \
	VCVTPH2PS   off(row)(BX*1), t \
	VFMADD231PS t, x, acc

// HTAIL4 adds the last 8 elements of k (at BX, a in Y8) into the
// accumulators of the rows at ra, rb, rc and rd.
#define HTAIL4(ra, rb, rc, rd, aa, ab, ac, ad) \
	HFMA(0, ra, Y10, Y8, aa) \
	HFMA(0, rb, Y11, Y8, ab) \
	HFMA(0, rc, Y12, Y8, ac) \
	HFMA(0, rd, Y13, Y8, ad)

// ADD4 adds xa, xb, xc and xd into ya, yb, yc and yd.
#define ADD4(xa, ya, xb, yb, xc, yc, xd, yd) \
	VADDPS xa, ya, ya \
	VADDPS xb, yb, yb \
	VADDPS xc, yc, yc \
	VADDPS xd, yd, yd

// HSUM4 sums the 8 lanes of each of the rows' accumulators ya, yb, yc, yd
// into the 4 lanes of xa (ya's low half), in that order; xt is scratch.
#define HSUM4(ya, yb, yc, yd, xa, xt) \
	VHADDPS      yb, ya, ya \
	VHADDPS      yd, yc, yc \
	VHADDPS      yc, ya, ya \
	VEXTRACTF128 $1, ya, xt \
	VADDPS       xt, xa, xa

// func sgemvNF16AVX2(n, k int, a *float32, b *uint16, ldb int, c *float32, acc int)
// For j < n: c[j] = dot(a[0:k], b[j*ldb : j*ldb+k]) with the row of b stored
// as binary16 and widened by VCVTPH2PS, or c[j] += that dot when acc != 0.
// k is a positive multiple of 8; ldb is in elements. The products and sums
// are those of sgemvNAVX2, in the same order, so for the same values the
// result is the same to the last bit.
TEXT ·sgemvNF16AVX2(SB), NOSPLIT, $0-56
	MOVQ n+0(FP), R9
	MOVQ k+8(FP), CX
	MOVQ a+16(FP), SI
	MOVQ b+24(FP), DI
	MOVQ ldb+32(FP), R8
	SHLQ $1, R8
	MOVQ c+40(FP), DX
	MOVQ acc+48(FP), AX

	// BX is the byte offset into the rows of b; into a it is 2·BX.
hn4:
	CMPQ R9, $4
	JLT  hn1
	MOVQ DI, R10
	LEAQ (DI)(R8*1), R11
	LEAQ (DI)(R8*2), R12
	LEAQ (R11)(R8*2), R13
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	XORQ BX, BX
	MOVQ CX, R14
	SHRQ $4, R14
	JEQ  hn4k8

hn4k16:
	VMOVUPS     (SI)(BX*2), Y8
	VMOVUPS     32(SI)(BX*2), Y9
	HFMA(0, R10, Y10, Y8, Y0)
	HFMA(16, R10, Y11, Y9, Y1)
	HFMA(0, R11, Y12, Y8, Y2)
	HFMA(16, R11, Y13, Y9, Y3)
	HFMA(0, R12, Y10, Y8, Y4)
	HFMA(16, R12, Y11, Y9, Y5)
	HFMA(0, R13, Y12, Y8, Y6)
	HFMA(16, R13, Y13, Y9, Y7)
	ADDQ $32, BX
	DECQ R14
	JNZ  hn4k16

hn4k8:
	TESTQ $8, CX
	JEQ   hn4sum
	VMOVUPS     (SI)(BX*2), Y8
	HTAIL4(R10, R11, R12, R13, Y0, Y2, Y4, Y6)

hn4sum:
	ADD4(Y1, Y0, Y3, Y2, Y5, Y4, Y7, Y6)
	HSUM4(Y0, Y2, Y4, Y6, X0, X1)
	TESTQ AX, AX
	JEQ  hn4put
	VADDPS (DX), X0, X0

hn4put:
	VMOVUPS X0, (DX)
	ADDQ $16, DX
	LEAQ (DI)(R8*4), DI
	SUBQ $4, R9
	JMP  hn4

hn1:
	TESTQ R9, R9
	JEQ   hndone
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	XORQ BX, BX
	MOVQ CX, R14
	SHRQ $4, R14
	JEQ  hn1k8

hn1k16:
	VMOVUPS     (SI)(BX*2), Y8
	VMOVUPS     32(SI)(BX*2), Y9
	HFMA(0, DI, Y10, Y8, Y0)
	HFMA(16, DI, Y11, Y9, Y1)
	ADDQ $32, BX
	DECQ R14
	JNZ  hn1k16

hn1k8:
	TESTQ $8, CX
	JEQ   hn1sum
	VMOVUPS     (SI)(BX*2), Y8
	HFMA(0, DI, Y10, Y8, Y0)

hn1sum:
	VADDPS Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	TESTQ AX, AX
	JEQ  hn1put
	VADDSS (DX), X0, X0

hn1put:
	VMOVSS X0, (DX)
	ADDQ $4, DX
	ADDQ R8, DI
	DECQ R9
	JMP  hn1

hndone:
	VZEROUPPER
	RET

// func sgemvNF16AVX512(n, k int, a *float32, b *uint16, ldb int, c *float32, acc int)
// sgemvNF16AVX2 for n a multiple of 8, eight rows at a time on 16-lane
// registers: lanes 0-7 of a row's accumulator hold what the AVX2 kernel's
// first accumulator holds (the even 8-element blocks of k) and lanes 8-15
// what its second holds (the odd blocks), each lane with the same products
// in the same order; the halves are then summed exactly as there, so the
// result is the same to the last bit. Eight rows keep eight independent
// chains of multiply-adds in flight.
TEXT ·sgemvNF16AVX512(SB), NOSPLIT, $0-56
	MOVQ n+0(FP), R9
	MOVQ a+16(FP), SI
	MOVQ b+24(FP), DI
	MOVQ ldb+32(FP), R8
	SHLQ $1, R8
	MOVQ c+40(FP), DX

hz8:
	CMPQ R9, $8
	JLT  hzdone
	LEAQ (DI)(R8*1), R10
	LEAQ (DI)(R8*2), R11
	LEAQ (R10)(R8*2), R12
	LEAQ (DI)(R8*4), R13
	LEAQ (R10)(R8*4), R15
	LEAQ (R11)(R8*4), AX
	LEAQ (R12)(R8*4), CX
	VXORPS Z0, Z0, Z0
	VXORPS Z1, Z1, Z1
	VXORPS Z2, Z2, Z2
	VXORPS Z3, Z3, Z3
	VXORPS Z4, Z4, Z4
	VXORPS Z5, Z5, Z5
	VXORPS Z6, Z6, Z6
	VXORPS Z7, Z7, Z7
	XORQ BX, BX
	MOVQ k+8(FP), R14
	SHRQ $4, R14
	JEQ  hz8k8

hz8k16:
	VMOVUPS     (SI)(BX*2), Z8
	HFMA(0, DI, Z10, Z8, Z0)
	HFMA(0, R10, Z11, Z8, Z1)
	HFMA(0, R11, Z12, Z8, Z2)
	HFMA(0, R12, Z13, Z8, Z3)
	HFMA(0, R13, Z14, Z8, Z4)
	HFMA(0, R15, Z15, Z8, Z5)
	HFMA(0, AX, Z16, Z8, Z6)
	HFMA(0, CX, Z17, Z8, Z7)
	ADDQ $32, BX
	DECQ R14
	JNZ  hz8k16

hz8k8:
	// The odd blocks' sums (upper lanes) go to Y18-Y25 before any
	// 8-lane instruction clears the upper lanes.
	VEXTRACTF64X4 $1, Z0, Y18
	VEXTRACTF64X4 $1, Z1, Y19
	VEXTRACTF64X4 $1, Z2, Y20
	VEXTRACTF64X4 $1, Z3, Y21
	VEXTRACTF64X4 $1, Z4, Y22
	VEXTRACTF64X4 $1, Z5, Y23
	VEXTRACTF64X4 $1, Z6, Y24
	VEXTRACTF64X4 $1, Z7, Y25
	MOVQ  k+8(FP), R14
	TESTQ $8, R14
	JEQ   hz8sum
	VMOVUPS     (SI)(BX*2), Y8
	HTAIL4(DI, R10, R11, R12, Y0, Y1, Y2, Y3)
	HTAIL4(R13, R15, AX, CX, Y4, Y5, Y6, Y7)

hz8sum:
	ADD4(Y18, Y0, Y19, Y1, Y20, Y2, Y21, Y3)
	ADD4(Y22, Y4, Y23, Y5, Y24, Y6, Y25, Y7)
	HSUM4(Y0, Y1, Y2, Y3, X0, X1)
	HSUM4(Y4, Y5, Y6, Y7, X4, X5)
	MOVQ  acc+48(FP), R14
	TESTQ R14, R14
	JEQ   hz8put
	VADDPS (DX), X0, X0
	VADDPS 16(DX), X4, X4

hz8put:
	VMOVUPS X0, (DX)
	VMOVUPS X4, 16(DX)
	ADDQ $32, DX
	LEAQ (R13)(R8*4), DI
	SUBQ $8, R9
	JMP  hz8

hzdone:
	VZEROUPPER
	RET
