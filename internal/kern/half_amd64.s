//go:build amd64

#include "textflag.h"

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
	VCVTPH2PS   (R10)(BX*1), Y10
	VCVTPH2PS   16(R10)(BX*1), Y11
	VFMADD231PS Y10, Y8, Y0
	VFMADD231PS Y11, Y9, Y1
	VCVTPH2PS   (R11)(BX*1), Y12
	VCVTPH2PS   16(R11)(BX*1), Y13
	VFMADD231PS Y12, Y8, Y2
	VFMADD231PS Y13, Y9, Y3
	VCVTPH2PS   (R12)(BX*1), Y10
	VCVTPH2PS   16(R12)(BX*1), Y11
	VFMADD231PS Y10, Y8, Y4
	VFMADD231PS Y11, Y9, Y5
	VCVTPH2PS   (R13)(BX*1), Y12
	VCVTPH2PS   16(R13)(BX*1), Y13
	VFMADD231PS Y12, Y8, Y6
	VFMADD231PS Y13, Y9, Y7
	ADDQ $32, BX
	DECQ R14
	JNZ  hn4k16

hn4k8:
	TESTQ $8, CX
	JEQ   hn4sum
	VMOVUPS     (SI)(BX*2), Y8
	VCVTPH2PS   (R10)(BX*1), Y10
	VFMADD231PS Y10, Y8, Y0
	VCVTPH2PS   (R11)(BX*1), Y11
	VFMADD231PS Y11, Y8, Y2
	VCVTPH2PS   (R12)(BX*1), Y12
	VFMADD231PS Y12, Y8, Y4
	VCVTPH2PS   (R13)(BX*1), Y13
	VFMADD231PS Y13, Y8, Y6

hn4sum:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y5, Y4, Y4
	VADDPS Y7, Y6, Y6
	VHADDPS Y2, Y0, Y0
	VHADDPS Y6, Y4, Y4
	VHADDPS Y4, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
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
	VCVTPH2PS   (DI)(BX*1), Y10
	VCVTPH2PS   16(DI)(BX*1), Y11
	VFMADD231PS Y10, Y8, Y0
	VFMADD231PS Y11, Y9, Y1
	ADDQ $32, BX
	DECQ R14
	JNZ  hn1k16

hn1k8:
	TESTQ $8, CX
	JEQ   hn1sum
	VMOVUPS     (SI)(BX*2), Y8
	VCVTPH2PS   (DI)(BX*1), Y10
	VFMADD231PS Y10, Y8, Y0

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
