//go:build amd64

#include "textflag.h"

// Element-wise kernels of cell.go on 8 float32 (or 4 float64) lanes. Each
// computes the same IEEE operations in the same order as its Go loop, with
// no fused multiply-adds, so the results are bit-identical; n counts the
// elements done here, a multiple of 8 (the callers do the rest in Go).

DATA one32<>+0(SB)/4, $0x3f800000
GLOBL one32<>(SB), RODATA|NOPTR, $4

// func vaddAVX2(n int, a, b, dst *float32)
// dst[i] = a[i] + b[i].
TEXT ·vaddAVX2(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ dst+24(FP), DI
	MOVQ CX, BX
	SHRQ $5, BX
	JEQ  vadd8

vadd32:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS 64(SI), Y2
	VMOVUPS 96(SI), Y3
	VADDPS  (DX), Y0, Y0
	VADDPS  32(DX), Y1, Y1
	VADDPS  64(DX), Y2, Y2
	VADDPS  96(DX), Y3, Y3
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ    $128, SI
	ADDQ    $128, DX
	ADDQ    $128, DI
	DECQ    BX
	JNZ     vadd32

vadd8:
	ANDQ $31, CX
	SHRQ $3, CX
	JEQ  vadddone

vadd8loop:
	VMOVUPS (SI), Y0
	VADDPS  (DX), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     vadd8loop

vadddone:
	VZEROUPPER
	RET

// func vmulAVX2(n int, a, b, dst *float32)
// dst[i] = a[i] * b[i].
TEXT ·vmulAVX2(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ dst+24(FP), DI
	MOVQ CX, BX
	SHRQ $5, BX
	JEQ  vmul8

vmul32:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS 64(SI), Y2
	VMOVUPS 96(SI), Y3
	VMULPS  (DX), Y0, Y0
	VMULPS  32(DX), Y1, Y1
	VMULPS  64(DX), Y2, Y2
	VMULPS  96(DX), Y3, Y3
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ    $128, SI
	ADDQ    $128, DX
	ADDQ    $128, DI
	DECQ    BX
	JNZ     vmul32

vmul8:
	ANDQ $31, CX
	SHRQ $3, CX
	JEQ  vmuldone

vmul8loop:
	VMOVUPS (SI), Y0
	VMULPS  (DX), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     vmul8loop

vmuldone:
	VZEROUPPER
	RET

// func gruGateAVX2(n int, gx, r, gh, dst *float32)
// dst[k] = gx[k] + r[k]*gh[k].
TEXT ·gruGateAVX2(SB), NOSPLIT, $0-40
	MOVQ n+0(FP), CX
	MOVQ gx+8(FP), SI
	MOVQ r+16(FP), DX
	MOVQ gh+24(FP), R8
	MOVQ dst+32(FP), DI
	SHRQ $3, CX
	JEQ  gatedone

gateloop:
	VMOVUPS (DX), Y0
	VMULPS  (R8), Y0, Y0
	VADDPS  (SI), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, R8
	ADDQ    $32, DI
	DECQ    CX
	JNZ     gateloop

gatedone:
	VZEROUPPER
	RET

// func gruOutAVX2(n int, z, nn, hprev, h *float32)
// h[k] = (1-z[k])*nn[k] + z[k]*hprev[k].
TEXT ·gruOutAVX2(SB), NOSPLIT, $0-40
	MOVQ n+0(FP), CX
	MOVQ z+8(FP), SI
	MOVQ nn+16(FP), DX
	MOVQ hprev+24(FP), R8
	MOVQ h+32(FP), DI
	VBROADCASTSS one32<>(SB), Y15
	SHRQ $3, CX
	JEQ  outdone

outloop:
	VMOVUPS (SI), Y0
	VSUBPS  Y0, Y15, Y1
	VMULPS  (DX), Y1, Y1
	VMULPS  (R8), Y0, Y0
	VADDPS  Y0, Y1, Y1
	VMOVUPS Y1, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, R8
	ADDQ    $32, DI
	DECQ    CX
	JNZ     outloop

outdone:
	VZEROUPPER
	RET

// func tanhGradAVX2(n int, s float32, w, t, dst *float32)
// dst[k] = (s*w[k]) * (1 - t[k]*t[k]).
TEXT ·tanhGradAVX2(SB), NOSPLIT, $0-40
	MOVQ         n+0(FP), CX
	VBROADCASTSS s+8(FP), Y14
	MOVQ         w+16(FP), SI
	MOVQ         t+24(FP), DX
	MOVQ         dst+32(FP), DI
	VBROADCASTSS one32<>(SB), Y15
	SHRQ         $3, CX
	JEQ          tgdone

tgloop:
	VMOVUPS (DX), Y0
	VMULPS  Y0, Y0, Y0
	VSUBPS  Y0, Y15, Y0
	VMULPS  (SI), Y14, Y1
	VMULPS  Y0, Y1, Y1
	VMOVUPS Y1, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, DI
	DECQ    CX
	JNZ     tgloop

tgdone:
	VZEROUPPER
	RET

// func gruBackAVX2(n, hh int, dgx, dgh, dhprev, dh, rzn, ghn, hprev *float32)
// gruBackRef for k < n, with the gate blocks hh elements apart.
TEXT ·gruBackAVX2(SB), NOSPLIT, $0-72
	MOVQ n+0(FP), CX
	MOVQ hh+8(FP), R13
	MOVQ dgx+16(FP), DI
	MOVQ dgh+24(FP), R12
	MOVQ dhprev+32(FP), R11
	MOVQ dh+40(FP), DX
	MOVQ rzn+48(FP), SI
	MOVQ ghn+56(FP), R10
	MOVQ hprev+64(FP), R9
	SHLQ $2, R13
	VBROADCASTSS one32<>(SB), Y15
	SHRQ $3, CX
	JEQ  backdone

backloop:
	VMOVUPS (SI), Y0          // r
	VMOVUPS (SI)(R13*1), Y1   // z
	VMOVUPS (SI)(R13*2), Y2   // n
	VMOVUPS (DX), Y3          // d
	VSUBPS  Y1, Y15, Y4       // 1-z
	VMULPS  Y4, Y3, Y5        // dn = d*(1-z)
	VMOVUPS (R9), Y6
	VSUBPS  Y2, Y6, Y6        // hprev-n
	VMULPS  Y6, Y3, Y6        // dz = d*(hprev-n)
	VMULPS  Y1, Y3, Y7        // d*z
	VADDPS  (R11), Y7, Y7
	VMOVUPS Y7, (R11)         // dhprev += d*z
	VMULPS  Y2, Y2, Y8        // n*n
	VSUBPS  Y8, Y15, Y8       // 1-n*n
	VMULPS  Y8, Y5, Y8        // dan = dn*(1-n*n)
	VMULPS  (R10), Y8, Y9     // dan*ghn
	VMULPS  Y0, Y9, Y9        // *r
	VSUBPS  Y0, Y15, Y10      // 1-r
	VMULPS  Y10, Y9, Y9       // dar = dan*ghn*r*(1-r)
	VMULPS  Y1, Y6, Y6        // dz*z
	VMULPS  Y4, Y6, Y6        // daz = dz*z*(1-z)
	VMULPS  Y0, Y8, Y11       // dan*r
	VMOVUPS Y9, (DI)
	VMOVUPS Y6, (DI)(R13*1)
	VMOVUPS Y8, (DI)(R13*2)
	VMOVUPS Y9, (R12)
	VMOVUPS Y6, (R12)(R13*1)
	VMOVUPS Y11, (R12)(R13*2)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, R9
	ADDQ    $32, R10
	ADDQ    $32, R11
	ADDQ    $32, DI
	ADDQ    $32, R12
	DECQ    CX
	JNZ     backloop

backdone:
	VZEROUPPER
	RET

// func adamAVX2(n int, p, gr, m, v *float32, c *AdamCoef)
// adamRef for i < n (n a multiple of 4), in float64 lanes.
TEXT ·adamAVX2(SB), NOSPLIT, $0-48
	MOVQ n+0(FP), CX
	MOVQ p+8(FP), DI
	MOVQ gr+16(FP), SI
	MOVQ m+24(FP), DX
	MOVQ v+32(FP), R8
	MOVQ c+40(FP), AX
	VBROADCASTSD 0(AX), Y8    // β1
	VBROADCASTSD 8(AX), Y10   // β2
	VBROADCASTSD 16(AX), Y14  // C2
	VBROADCASTSD 24(AX), Y13  // Step
	VBROADCASTSD 32(AX), Y12  // Decay
	VBROADCASTSD 40(AX), Y15  // Eps
	MOVQ         $1, BX
	CVTSQ2SD     BX, X0
	VBROADCASTSD X0, Y0
	VSUBPD       Y8, Y0, Y9   // 1-β1
	VSUBPD       Y10, Y0, Y11 // 1-β2
	SHRQ         $2, CX
	JEQ          adamdone

adamloop:
	VCVTPS2PD  (SI), Y0       // g
	VCVTPS2PD  (DX), Y1
	VMULPD     Y8, Y1, Y1     // β1*m
	VMULPD     Y9, Y0, Y2     // (1-β1)*g
	VADDPD     Y2, Y1, Y1     // m
	VCVTPS2PD  (R8), Y3
	VMULPD     Y10, Y3, Y3    // β2*v
	VMULPD     Y11, Y0, Y4    // (1-β2)*g
	VMULPD     Y0, Y4, Y4     // *g
	VADDPD     Y4, Y3, Y3     // v
	VCVTPD2PSY Y1, X5
	VMOVUPS    X5, (DX)
	VCVTPD2PSY Y3, X6
	VMOVUPS    X6, (R8)
	VDIVPD     Y14, Y3, Y4    // v/C2
	VSQRTPD    Y4, Y4
	VADDPD     Y15, Y4, Y4    // +Eps
	VMULPD     Y13, Y1, Y2    // Step*m
	VDIVPD     Y4, Y2, Y2
	VCVTPS2PD  (DI), Y7
	VMULPD     Y12, Y7, Y7    // p*Decay
	VSUBPD     Y2, Y7, Y7
	VCVTPD2PSY Y7, X7
	VMOVUPS    X7, (DI)
	ADDQ       $16, DI
	ADDQ       $16, SI
	ADDQ       $16, DX
	ADDQ       $16, R8
	DECQ       CX
	JNZ        adamloop

adamdone:
	VZEROUPPER
	RET
