//go:build amd64

#include "textflag.h"

// func halfToFloat8(dst *float32, src *uint16, n int)
// dst[i] = the float32 value of the binary16 src[i] for i < n/8·8 (VCVTPH2PS).
TEXT ·halfToFloat8(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $3, CX
	JZ   done

loop:
	VCVTPH2PS (SI), Y0
	VMOVUPS   Y0, (DI)
	ADDQ      $16, SI
	ADDQ      $32, DI
	DECQ      CX
	JNZ       loop
	VZEROUPPER

done:
	RET

// func floatToHalf8(dst *uint16, src *float32, n int)
// dst[i] = the binary16 nearest to src[i], ties to even, for i < n/8·8
// (VCVTPS2PH with rounding mode 0).
TEXT ·floatToHalf8(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $3, CX
	JZ   done

loop:
	VMOVUPS   (SI), Y0
	VCVTPS2PH $0, Y0, (DI)
	ADDQ      $32, SI
	ADDQ      $16, DI
	DECQ      CX
	JNZ       loop
	VZEROUPPER

done:
	RET
