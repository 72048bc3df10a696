//go:build amd64

#include "textflag.h"

// func bf16Kernel6x32(kp int, a *uint32, b *uint32, c *float32, ldc int, acc bool)
// C (6×32, row stride ldc floats) = (or += with acc) A·B over kp pairs of k:
// a holds, per pair, 6 words (row r's two bfloat16 values, the even k in
// the low half), b per pair 32 words (column j's two). Each pair is 12
// VDPBF16PS (AVX512_BF16), which Go's assembler does not know: they are
// spelled out as bytes, EVEX.512.F3.0F38.W0 52 /r with a 32-bit broadcast
// of A's word for the row at disp8·4 from SI (see the comment on each).
// For VDPBF16PS.BCST 4r(SI), Zs, Zd the bytes are 62 P0 P1 P2 52 ModRM r:
//
//	P0    = ¬d[3]<<7 | 1<<6 | 1<<5 | ¬d[4]<<4 | 0b10   (no X, B: SI; map 0F38)
//	P1    = (¬s & 15)<<3 | 1<<2 | 0b10               (W0, vvvv = s, prefix F3)
//	P2    = 0b10<<5 | 1<<4 | ¬s[4]<<3                (512 bits, broadcast, V' = s)
//	ModRM = 0x40 | (d & 7)<<3 | 6                    (disp8 from SI, scaled by 4)
TEXT ·bf16Kernel6x32(SB), NOSPLIT, $0-41
	MOVQ kp+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), BX
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R8
	SHLQ $2, R8
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	TESTQ CX, CX
	JEQ store

loop:
	VMOVUPS (BX), Z12
	VMOVUPS 64(BX), Z13
	BYTE $0x62; BYTE $0xf2; BYTE $0x1e; BYTE $0x58; BYTE $0x52; BYTE $0x46; BYTE $0x00 // VDPBF16PS.BCST 0(SI), Z12, Z0
	BYTE $0x62; BYTE $0xf2; BYTE $0x16; BYTE $0x58; BYTE $0x52; BYTE $0x4e; BYTE $0x00 // VDPBF16PS.BCST 0(SI), Z13, Z1
	BYTE $0x62; BYTE $0xf2; BYTE $0x1e; BYTE $0x58; BYTE $0x52; BYTE $0x56; BYTE $0x01 // VDPBF16PS.BCST 4(SI), Z12, Z2
	BYTE $0x62; BYTE $0xf2; BYTE $0x16; BYTE $0x58; BYTE $0x52; BYTE $0x5e; BYTE $0x01 // VDPBF16PS.BCST 4(SI), Z13, Z3
	BYTE $0x62; BYTE $0xf2; BYTE $0x1e; BYTE $0x58; BYTE $0x52; BYTE $0x66; BYTE $0x02 // VDPBF16PS.BCST 8(SI), Z12, Z4
	BYTE $0x62; BYTE $0xf2; BYTE $0x16; BYTE $0x58; BYTE $0x52; BYTE $0x6e; BYTE $0x02 // VDPBF16PS.BCST 8(SI), Z13, Z5
	BYTE $0x62; BYTE $0xf2; BYTE $0x1e; BYTE $0x58; BYTE $0x52; BYTE $0x76; BYTE $0x03 // VDPBF16PS.BCST 12(SI), Z12, Z6
	BYTE $0x62; BYTE $0xf2; BYTE $0x16; BYTE $0x58; BYTE $0x52; BYTE $0x7e; BYTE $0x03 // VDPBF16PS.BCST 12(SI), Z13, Z7
	BYTE $0x62; BYTE $0x72; BYTE $0x1e; BYTE $0x58; BYTE $0x52; BYTE $0x46; BYTE $0x04 // VDPBF16PS.BCST 16(SI), Z12, Z8
	BYTE $0x62; BYTE $0x72; BYTE $0x16; BYTE $0x58; BYTE $0x52; BYTE $0x4e; BYTE $0x04 // VDPBF16PS.BCST 16(SI), Z13, Z9
	BYTE $0x62; BYTE $0x72; BYTE $0x1e; BYTE $0x58; BYTE $0x52; BYTE $0x56; BYTE $0x05 // VDPBF16PS.BCST 20(SI), Z12, Z10
	BYTE $0x62; BYTE $0x72; BYTE $0x16; BYTE $0x58; BYTE $0x52; BYTE $0x5e; BYTE $0x05 // VDPBF16PS.BCST 20(SI), Z13, Z11
	ADDQ $24, SI
	ADDQ $128, BX
	DECQ CX
	JNZ loop

store:
	MOVBLZX acc+40(FP), AX
	TESTL AX, AX
	JEQ write
	VADDPS (DX), Z0, Z0
	VADDPS 64(DX), Z1, Z1
	VMOVUPS Z0, (DX)
	VMOVUPS Z1, 64(DX)
	ADDQ R8, DX
	VADDPS (DX), Z2, Z2
	VADDPS 64(DX), Z3, Z3
	VMOVUPS Z2, (DX)
	VMOVUPS Z3, 64(DX)
	ADDQ R8, DX
	VADDPS (DX), Z4, Z4
	VADDPS 64(DX), Z5, Z5
	VMOVUPS Z4, (DX)
	VMOVUPS Z5, 64(DX)
	ADDQ R8, DX
	VADDPS (DX), Z6, Z6
	VADDPS 64(DX), Z7, Z7
	VMOVUPS Z6, (DX)
	VMOVUPS Z7, 64(DX)
	ADDQ R8, DX
	VADDPS (DX), Z8, Z8
	VADDPS 64(DX), Z9, Z9
	VMOVUPS Z8, (DX)
	VMOVUPS Z9, 64(DX)
	ADDQ R8, DX
	VADDPS (DX), Z10, Z10
	VADDPS 64(DX), Z11, Z11
	VMOVUPS Z10, (DX)
	VMOVUPS Z11, 64(DX)
	ADDQ R8, DX
	VZEROUPPER
	RET

write:
	VMOVUPS Z0, (DX)
	VMOVUPS Z1, 64(DX)
	ADDQ R8, DX
	VMOVUPS Z2, (DX)
	VMOVUPS Z3, 64(DX)
	ADDQ R8, DX
	VMOVUPS Z4, (DX)
	VMOVUPS Z5, 64(DX)
	ADDQ R8, DX
	VMOVUPS Z6, (DX)
	VMOVUPS Z7, 64(DX)
	ADDQ R8, DX
	VMOVUPS Z8, (DX)
	VMOVUPS Z9, 64(DX)
	ADDQ R8, DX
	VMOVUPS Z10, (DX)
	VMOVUPS Z11, 64(DX)
	ADDQ R8, DX
	VZEROUPPER
	RET

// func bf16Pairs16(dst *uint32, src *float32, n int)
// dst[q] = BF16(src[2q]) | BF16(src[2q+1])<<16 for q < n/16·8: 16 floats
// at a time rounded to nearest even in integer lanes, b + 0x7fff +
// (b>>16 & 1), their top halves packed by VPMOVDW (the even k lands in a
// pair's low half); a NaN becomes its top half with the quiet bit set, as
// in BF16.
TEXT ·bf16Pairs16(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $4, CX
	JZ   pairsdone
	MOVL         $1, AX
	VPBROADCASTD AX, Z5
	MOVL         $0x7fff, AX
	VPBROADCASTD AX, Z6
	MOVL         $0x40, AX
	VPBROADCASTD AX, Z7

pairsloop:
	VMOVDQU32 (SI), Z0
	VPSRLD    $16, Z0, Z1    // b>>16
	VPANDD    Z5, Z1, Z2     // its last bit
	VPADDD    Z6, Z0, Z3     // b + 0x7fff
	VPADDD    Z2, Z3, Z3     // + (b>>16 & 1)
	VPSRLD    $16, Z3, Z3    // rounded
	VCMPPS    $3, Z0, Z0, K1 // unordered: NaN
	VPORD     Z7, Z1, Z1     // NaN: b>>16 | 0x40
	VMOVDQA32 Z1, K1, Z3
	VPMOVDW   Z3, Y4
	VMOVDQU   Y4, (DI)
	ADDQ      $64, SI
	ADDQ      $32, DI
	DECQ      CX
	JNZ       pairsloop
	VZEROUPPER

pairsdone:
	RET

// func bf16Kernel1x32(kp int, a *uint32, b *uint32, c *float32, acc bool)
// C (1×32) = (or += with acc) A·B over kp pairs of k, for a product of one
// row (a recurrent step): a holds kp words, b a panel as for bf16Kernel6x32.
// Four pairs a turn go to four pairs of accumulators, so that the
// VDPBF16PS chains overlap; they are summed at the end. Encoded as in
// bf16Kernel6x32: accumulators Z0-Z7, B in Z8-Z15.
TEXT ·bf16Kernel1x32(SB), NOSPLIT, $0-33
	MOVQ kp+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), BX
	MOVQ c+24(FP), DX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	CMPQ CX, $4
	JLT  rest

loop4:
	VMOVUPS (BX), Z8
	VMOVUPS 64(BX), Z9
	VMOVUPS 128(BX), Z10
	VMOVUPS 192(BX), Z11
	VMOVUPS 256(BX), Z12
	VMOVUPS 320(BX), Z13
	VMOVUPS 384(BX), Z14
	VMOVUPS 448(BX), Z15
	BYTE $0x62; BYTE $0xf2; BYTE $0x3e; BYTE $0x58; BYTE $0x52; BYTE $0x46; BYTE $0x00 // VDPBF16PS.BCST 0(SI), Z8, Z0
	BYTE $0x62; BYTE $0xf2; BYTE $0x36; BYTE $0x58; BYTE $0x52; BYTE $0x4e; BYTE $0x00 // VDPBF16PS.BCST 0(SI), Z9, Z1
	BYTE $0x62; BYTE $0xf2; BYTE $0x2e; BYTE $0x58; BYTE $0x52; BYTE $0x56; BYTE $0x01 // VDPBF16PS.BCST 4(SI), Z10, Z2
	BYTE $0x62; BYTE $0xf2; BYTE $0x26; BYTE $0x58; BYTE $0x52; BYTE $0x5e; BYTE $0x01 // VDPBF16PS.BCST 4(SI), Z11, Z3
	BYTE $0x62; BYTE $0xf2; BYTE $0x1e; BYTE $0x58; BYTE $0x52; BYTE $0x66; BYTE $0x02 // VDPBF16PS.BCST 8(SI), Z12, Z4
	BYTE $0x62; BYTE $0xf2; BYTE $0x16; BYTE $0x58; BYTE $0x52; BYTE $0x6e; BYTE $0x02 // VDPBF16PS.BCST 8(SI), Z13, Z5
	BYTE $0x62; BYTE $0xf2; BYTE $0x0e; BYTE $0x58; BYTE $0x52; BYTE $0x76; BYTE $0x03 // VDPBF16PS.BCST 12(SI), Z14, Z6
	BYTE $0x62; BYTE $0xf2; BYTE $0x06; BYTE $0x58; BYTE $0x52; BYTE $0x7e; BYTE $0x03 // VDPBF16PS.BCST 12(SI), Z15, Z7
	ADDQ $16, SI
	ADDQ $512, BX
	SUBQ $4, CX
	CMPQ CX, $4
	JGE  loop4

rest:
	TESTQ CX, CX
	JEQ   sum

loop1:
	VMOVUPS (BX), Z8
	VMOVUPS 64(BX), Z9
	BYTE $0x62; BYTE $0xf2; BYTE $0x3e; BYTE $0x58; BYTE $0x52; BYTE $0x46; BYTE $0x00 // VDPBF16PS.BCST 0(SI), Z8, Z0
	BYTE $0x62; BYTE $0xf2; BYTE $0x36; BYTE $0x58; BYTE $0x52; BYTE $0x4e; BYTE $0x00 // VDPBF16PS.BCST 0(SI), Z9, Z1
	ADDQ $4, SI
	ADDQ $128, BX
	DECQ CX
	JNZ  loop1

sum:
	VADDPS Z2, Z0, Z0
	VADDPS Z3, Z1, Z1
	VADDPS Z6, Z4, Z4
	VADDPS Z7, Z5, Z5
	VADDPS Z4, Z0, Z0
	VADDPS Z5, Z1, Z1
	MOVBLZX acc+32(FP), AX
	TESTL AX, AX
	JEQ   write1
	VADDPS (DX), Z0, Z0
	VADDPS 64(DX), Z1, Z1

write1:
	VMOVUPS Z0, (DX)
	VMOVUPS Z1, 64(DX)
	VZEROUPPER
	RET
