//go:build amd64

#include "textflag.h"

// Vectorised float32 activations (AVX2 + FMA). Each function converts four
// float32 values to float64, evaluates the same formulas as exp32,
// sigmoid32 and tanh32 in act.go (2^t = 2^n·(1+q), q = f·Q(f)) and rounds
// back once. n must be a multiple of 4; the Go wrappers do the tail.

// Constants, four float64 (or int64) lanes each.
// actLog2e: log2(e)
DATA actLog2e<>+0(SB)/8, $0x3ff71547652b82fe
DATA actLog2e<>+8(SB)/8, $0x3ff71547652b82fe
DATA actLog2e<>+16(SB)/8, $0x3ff71547652b82fe
DATA actLog2e<>+24(SB)/8, $0x3ff71547652b82fe
GLOBL actLog2e<>(SB), RODATA|NOPTR, $32
// actNegLog2e: -log2(e)
DATA actNegLog2e<>+0(SB)/8, $0xbff71547652b82fe
DATA actNegLog2e<>+8(SB)/8, $0xbff71547652b82fe
DATA actNegLog2e<>+16(SB)/8, $0xbff71547652b82fe
DATA actNegLog2e<>+24(SB)/8, $0xbff71547652b82fe
GLOBL actNegLog2e<>(SB), RODATA|NOPTR, $32
// act2Log2e: 2·log2(e)
DATA act2Log2e<>+0(SB)/8, $0x40071547652b82fe
DATA act2Log2e<>+8(SB)/8, $0x40071547652b82fe
DATA act2Log2e<>+16(SB)/8, $0x40071547652b82fe
DATA act2Log2e<>+24(SB)/8, $0x40071547652b82fe
GLOBL act2Log2e<>(SB), RODATA|NOPTR, $32
// actMagic: 1.5·2^52, rounds to integer when added
DATA actMagic<>+0(SB)/8, $0x4338000000000000
DATA actMagic<>+8(SB)/8, $0x4338000000000000
DATA actMagic<>+16(SB)/8, $0x4338000000000000
DATA actMagic<>+24(SB)/8, $0x4338000000000000
GLOBL actMagic<>(SB), RODATA|NOPTR, $32
// actLo: -200, lower clamp of t
DATA actLo<>+0(SB)/8, $0xc069000000000000
DATA actLo<>+8(SB)/8, $0xc069000000000000
DATA actLo<>+16(SB)/8, $0xc069000000000000
DATA actLo<>+24(SB)/8, $0xc069000000000000
GLOBL actLo<>(SB), RODATA|NOPTR, $32
// actHi: 200, upper clamp of t
DATA actHi<>+0(SB)/8, $0x4069000000000000
DATA actHi<>+8(SB)/8, $0x4069000000000000
DATA actHi<>+16(SB)/8, $0x4069000000000000
DATA actHi<>+24(SB)/8, $0x4069000000000000
GLOBL actHi<>(SB), RODATA|NOPTR, $32
// actHiTanh: 64, upper clamp of t for tanh
DATA actHiTanh<>+0(SB)/8, $0x4050000000000000
DATA actHiTanh<>+8(SB)/8, $0x4050000000000000
DATA actHiTanh<>+16(SB)/8, $0x4050000000000000
DATA actHiTanh<>+24(SB)/8, $0x4050000000000000
GLOBL actHiTanh<>(SB), RODATA|NOPTR, $32
// actOne: 1
DATA actOne<>+0(SB)/8, $0x3ff0000000000000
DATA actOne<>+8(SB)/8, $0x3ff0000000000000
DATA actOne<>+16(SB)/8, $0x3ff0000000000000
DATA actOne<>+24(SB)/8, $0x3ff0000000000000
GLOBL actOne<>(SB), RODATA|NOPTR, $32
// actTwo: 2
DATA actTwo<>+0(SB)/8, $0x4000000000000000
DATA actTwo<>+8(SB)/8, $0x4000000000000000
DATA actTwo<>+16(SB)/8, $0x4000000000000000
DATA actTwo<>+24(SB)/8, $0x4000000000000000
GLOBL actTwo<>(SB), RODATA|NOPTR, $32
// actBias: float64 exponent bias (int64 lanes)
DATA actBias<>+0(SB)/8, $0x00000000000003ff
DATA actBias<>+8(SB)/8, $0x00000000000003ff
DATA actBias<>+16(SB)/8, $0x00000000000003ff
DATA actBias<>+24(SB)/8, $0x00000000000003ff
GLOBL actBias<>(SB), RODATA|NOPTR, $32
// actAbs: clears the sign bit
DATA actAbs<>+0(SB)/8, $0x7fffffffffffffff
DATA actAbs<>+8(SB)/8, $0x7fffffffffffffff
DATA actAbs<>+16(SB)/8, $0x7fffffffffffffff
DATA actAbs<>+24(SB)/8, $0x7fffffffffffffff
GLOBL actAbs<>(SB), RODATA|NOPTR, $32
// actSign: keeps only the sign bit
DATA actSign<>+0(SB)/8, $0x8000000000000000
DATA actSign<>+8(SB)/8, $0x8000000000000000
DATA actSign<>+16(SB)/8, $0x8000000000000000
DATA actSign<>+24(SB)/8, $0x8000000000000000
GLOBL actSign<>(SB), RODATA|NOPTR, $32
// actQ0: expQ0
DATA actQ0<>+0(SB)/8, $0x3fe62e42fefd9e2b
DATA actQ0<>+8(SB)/8, $0x3fe62e42fefd9e2b
DATA actQ0<>+16(SB)/8, $0x3fe62e42fefd9e2b
DATA actQ0<>+24(SB)/8, $0x3fe62e42fefd9e2b
GLOBL actQ0<>(SB), RODATA|NOPTR, $32
// actQ1: expQ1
DATA actQ1<>+0(SB)/8, $0x3fcebfbe045016f3
DATA actQ1<>+8(SB)/8, $0x3fcebfbe045016f3
DATA actQ1<>+16(SB)/8, $0x3fcebfbe045016f3
DATA actQ1<>+24(SB)/8, $0x3fcebfbe045016f3
GLOBL actQ1<>(SB), RODATA|NOPTR, $32
// actQ2: expQ2
DATA actQ2<>+0(SB)/8, $0x3fac6b08c92e7f0b
DATA actQ2<>+8(SB)/8, $0x3fac6b08c92e7f0b
DATA actQ2<>+16(SB)/8, $0x3fac6b08c92e7f0b
DATA actQ2<>+24(SB)/8, $0x3fac6b08c92e7f0b
GLOBL actQ2<>(SB), RODATA|NOPTR, $32
// actQ3: expQ3
DATA actQ3<>+0(SB)/8, $0x3f83b2a1c6527ea5
DATA actQ3<>+8(SB)/8, $0x3f83b2a1c6527ea5
DATA actQ3<>+16(SB)/8, $0x3f83b2a1c6527ea5
DATA actQ3<>+24(SB)/8, $0x3f83b2a1c6527ea5
GLOBL actQ3<>(SB), RODATA|NOPTR, $32
// actQ4: expQ4
DATA actQ4<>+0(SB)/8, $0x3f55d88e68e31362
DATA actQ4<>+8(SB)/8, $0x3f55d88e68e31362
DATA actQ4<>+16(SB)/8, $0x3f55d88e68e31362
DATA actQ4<>+24(SB)/8, $0x3f55d88e68e31362
GLOBL actQ4<>(SB), RODATA|NOPTR, $32
// actQ5: expQ5
DATA actQ5<>+0(SB)/8, $0x3f2443f3c8b05e6b
DATA actQ5<>+8(SB)/8, $0x3f2443f3c8b05e6b
DATA actQ5<>+16(SB)/8, $0x3f2443f3c8b05e6b
DATA actQ5<>+24(SB)/8, $0x3f2443f3c8b05e6b
GLOBL actQ5<>(SB), RODATA|NOPTR, $32
// actQ6: expQ6
DATA actQ6<>+0(SB)/8, $0x3eeff953978422d6
DATA actQ6<>+8(SB)/8, $0x3eeff953978422d6
DATA actQ6<>+16(SB)/8, $0x3eeff953978422d6
DATA actQ6<>+24(SB)/8, $0x3eeff953978422d6
GLOBL actQ6<>(SB), RODATA|NOPTR, $32

// EXP2CORE takes t in Y0 (clamped, or NaN) and leaves s = 2^round(t) in Y1
// and q = 2^(t-round(t)) - 1 in Y3. It clobbers Y2.
#define EXP2CORE \
	VADDPD      actMagic<>(SB), Y0, Y1 \
	VSUBPD      actMagic<>(SB), Y1, Y2 \
	VSUBPD      Y2, Y0, Y2 \
	VMOVUPD     actQ6<>(SB), Y3 \
	VFMADD213PD actQ5<>(SB), Y2, Y3 \
	VFMADD213PD actQ4<>(SB), Y2, Y3 \
	VFMADD213PD actQ3<>(SB), Y2, Y3 \
	VFMADD213PD actQ2<>(SB), Y2, Y3 \
	VFMADD213PD actQ1<>(SB), Y2, Y3 \
	VFMADD213PD actQ0<>(SB), Y2, Y3 \
	VMULPD      Y2, Y3, Y3 \
	VPADDQ      actBias<>(SB), Y1, Y1 \
	VPSLLQ      $52, Y1, Y1

// func expAsm(n int, x, dst *float32)
TEXT ·expAsm(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), SI
	MOVQ dst+16(FP), DI
	VMOVUPD actLo<>(SB), Y14
	VMOVUPD actHi<>(SB), Y15
	SHRQ $2, CX
	JEQ  expdone

exploop:
	VCVTPS2PD (SI), Y0
	VMULPD    actLog2e<>(SB), Y0, Y0
	VMAXPD    Y0, Y14, Y0 // max(lo, t), NaN stays
	VMINPD    Y0, Y15, Y0 // min(hi, t), NaN stays
	EXP2CORE
	VFMADD213PD Y1, Y1, Y3 // s·q + s
	VCVTPD2PSY  Y3, X3
	VMOVUPS     X3, (DI)
	ADDQ $16, SI
	ADDQ $16, DI
	DECQ CX
	JNZ  exploop

expdone:
	VZEROUPPER
	RET

// func sigmoidAsm(n int, x, dst *float32)
TEXT ·sigmoidAsm(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), SI
	MOVQ dst+16(FP), DI
	VMOVUPD actOne<>(SB), Y13
	VMOVUPD actLo<>(SB), Y14
	VMOVUPD actHi<>(SB), Y15
	SHRQ $2, CX
	JEQ  sigdone

sigloop:
	VCVTPS2PD (SI), Y0
	VMULPD    actNegLog2e<>(SB), Y0, Y0
	VMAXPD    Y0, Y14, Y0
	VMINPD    Y0, Y15, Y0
	EXP2CORE
	VFMADD213PD Y1, Y1, Y3 // e = exp(-x) = s·q + s
	VADDPD      Y13, Y3, Y3
	VDIVPD      Y3, Y13, Y3 // 1/(1+e)
	VCVTPD2PSY  Y3, X3
	VMOVUPS     X3, (DI)
	ADDQ $16, SI
	ADDQ $16, DI
	DECQ CX
	JNZ  sigloop

sigdone:
	VZEROUPPER
	RET

// func tanhAsm(n int, x, dst *float32)
TEXT ·tanhAsm(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), SI
	MOVQ dst+16(FP), DI
	VMOVUPD actOne<>(SB), Y13
	VMOVUPD actHiTanh<>(SB), Y15
	SHRQ $2, CX
	JEQ  tanhdone

tanhloop:
	VCVTPS2PD (SI), Y5
	VANDPD    actAbs<>(SB), Y5, Y0
	VANDPD    actSign<>(SB), Y5, Y5
	VMULPD    act2Log2e<>(SB), Y0, Y0 // t = 2|x|·log2(e)
	VMINPD    Y0, Y15, Y0
	EXP2CORE
	VSUBPD      Y13, Y1, Y4 // s - 1
	VFMADD213PD Y4, Y1, Y3  // em1 = s·q + (s-1)
	VADDPD      actTwo<>(SB), Y3, Y2
	VDIVPD      Y2, Y3, Y3  // em1/(em1+2)
	VORPD       Y5, Y3, Y3  // sign of x
	VCVTPD2PSY  Y3, X3
	VMOVUPS     X3, (DI)
	ADDQ $16, SI
	ADDQ $16, DI
	DECQ CX
	JNZ  tanhloop

tanhdone:
	VZEROUPPER
	RET

// Fast float32 tanh (tanhFastAsm): the rational approximation of tanhf32
// in act.go, eight lanes in float32 with FMA. One float32 constant each,
// broadcast.
DATA tfClamp<>+0(SB)/4, $0x40fcf84f // 7.905311107635498
GLOBL tfClamp<>(SB), RODATA|NOPTR, $4
DATA tfNegClamp<>+0(SB)/4, $0xc0fcf84f // -7.905311107635498
GLOBL tfNegClamp<>(SB), RODATA|NOPTR, $4
DATA tfA1<>+0(SB)/4, $0x3ba059dc // 0.00489352455891786
GLOBL tfA1<>(SB), RODATA|NOPTR, $4
DATA tfA3<>+0(SB)/4, $0x3a270ded // 0.000637261928875436
GLOBL tfA3<>(SB), RODATA|NOPTR, $4
DATA tfA5<>+0(SB)/4, $0x3779434a // 1.48572235717979e-05
GLOBL tfA5<>(SB), RODATA|NOPTR, $4
DATA tfA7<>+0(SB)/4, $0x335c0041 // 5.12229709037114e-08
GLOBL tfA7<>(SB), RODATA|NOPTR, $4
DATA tfA9<>+0(SB)/4, $0xaebd37ff // -8.60467152213735e-11
GLOBL tfA9<>(SB), RODATA|NOPTR, $4
DATA tfA11<>+0(SB)/4, $0x2a61337e // 2.00018790482477e-13
GLOBL tfA11<>(SB), RODATA|NOPTR, $4
DATA tfA13<>+0(SB)/4, $0xa59f25c0 // -2.76076847742355e-16
GLOBL tfA13<>(SB), RODATA|NOPTR, $4
DATA tfB0<>+0(SB)/4, $0x3ba059dd // 0.00489352518554385
GLOBL tfB0<>(SB), RODATA|NOPTR, $4
DATA tfB2<>+0(SB)/4, $0x3b14aa05 // 0.002268434632439
GLOBL tfB2<>(SB), RODATA|NOPTR, $4
DATA tfB4<>+0(SB)/4, $0x38f895d6 // 0.000118534705686654
GLOBL tfB4<>(SB), RODATA|NOPTR, $4
DATA tfB6<>+0(SB)/4, $0x35a0d3d8 // 1.19825839466702e-06
GLOBL tfB6<>(SB), RODATA|NOPTR, $4

// LOADTANHFAST loads the constants TANHFAST8 keeps in registers.
#define LOADTANHFAST \
	VBROADCASTSS tfClamp<>(SB), Y14 \
	VBROADCASTSS tfNegClamp<>(SB), Y15 \
	VBROADCASTSS tfA13<>(SB), Y8 \
	VBROADCASTSS tfA11<>(SB), Y9 \
	VBROADCASTSS tfA9<>(SB), Y10 \
	VBROADCASTSS tfA7<>(SB), Y11 \
	VBROADCASTSS tfB6<>(SB), Y12 \
	VBROADCASTSS tfB4<>(SB), Y13

// TANHFAST8 sets Y3 to tanhFast of the eight lanes of Y0, a rational
// approximation p/q on x clamped to [-c, c] (NaN stays NaN), where
// p = x·(a1 + x²(a3 + x²(a5 + x²(a7 + x²(a9 + x²(a11 + x² a13)))))) and
// q = b0 + x²(b2 + x²(b4 + x² b6)), with the
// constants c, -c, a13, a11, a9, a7, b6, b4 held in Y14, Y15, Y8-Y13; it
// uses Y1, Y2, Y4 and Y5.
#define TANHFAST8 \
	VMINPS  Y0, Y14, Y1 \
	VMAXPS  Y1, Y15, Y1 \
	VMULPS  Y1, Y1, Y2 \
	VMOVAPS     Y8, Y3 \
	VFMADD213PS Y9, Y2, Y3 \
	VFMADD213PS Y10, Y2, Y3 \
	VFMADD213PS Y11, Y2, Y3 \
	VBROADCASTSS tfA5<>(SB), Y4 \
	VFMADD213PS Y4, Y2, Y3 \
	VBROADCASTSS tfA3<>(SB), Y4 \
	VFMADD213PS Y4, Y2, Y3 \
	VBROADCASTSS tfA1<>(SB), Y4 \
	VFMADD213PS Y4, Y2, Y3 \
	VMULPS      Y1, Y3, Y3 \
	VMOVAPS     Y12, Y5 \
	VFMADD213PS Y13, Y2, Y5 \
	VBROADCASTSS tfB2<>(SB), Y4 \
	VFMADD213PS Y4, Y2, Y5 \
	VBROADCASTSS tfB0<>(SB), Y4 \
	VFMADD213PS Y4, Y2, Y5 \
	VDIVPS      Y5, Y3, Y3

// func tanhFastAsm(n int, x, dst *float32)
TEXT ·tanhFastAsm(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), SI
	MOVQ dst+16(FP), DI
	LOADTANHFAST
	SHRQ $3, CX
	JEQ  tfdone

tfloop:
	VMOVUPS (SI), Y0
	TANHFAST8
	VMOVUPS     Y3, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  tfloop

tfdone:
	VZEROUPPER
	RET

// func tanhDotAsm(m, n int, x, y, q, w, e *float32)
// e[j] = Σ_{i<n} w[i]·tanhFast(x[j*n+i] + y[j*n+i] + q[i]) for j < m (m >=
// 1, n a positive multiple of 8; y nil: no y term): tanhFastAsm's lanes,
// summed with w in one accumulator per row.
TEXT ·tanhDotAsm(SB), NOSPLIT, $0-56
	MOVQ m+0(FP), R8
	MOVQ n+8(FP), R9
	MOVQ x+16(FP), SI
	MOVQ y+24(FP), R12
	MOVQ q+32(FP), R10
	MOVQ w+40(FP), R11
	MOVQ e+48(FP), DI
	SHRQ $3, R9
	LOADTANHFAST

tdrow:
	VXORPS Y6, Y6, Y6
	MOVQ   R9, CX
	XORQ   BX, BX

tdcol:
	VMOVUPS (SI), Y0
	TESTQ   R12, R12
	JEQ     tdnoy
	VADDPS  (R12), Y0, Y0
	ADDQ    $32, R12

tdnoy:
	VADDPS  (R10)(BX*1), Y0, Y0
	TANHFAST8
	VFMADD231PS (R11)(BX*1), Y3, Y6
	ADDQ $32, SI
	ADDQ $32, BX
	DECQ CX
	JNZ  tdcol

	VEXTRACTF128 $1, Y6, X1
	VADDPS  X1, X6, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	MOVSS   X0, (DI)
	ADDQ $4, DI
	DECQ R8
	JNZ  tdrow

	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// The activations above on eight float64 lanes (AVX-512F): the
// same instructions on ZMM registers, so the same results, twice the
// lanes. The constants are broadcast into Z16-Z31 once per call. n must
// be a multiple of 8; the Go wrappers do the rest.

// LOADEXP loads the constants of EXP2CORE512.
#define LOADEXP \
	VBROADCASTSD actMagic<>(SB), Z20 \
	VBROADCASTSD actQ6<>(SB), Z21 \
	VBROADCASTSD actQ5<>(SB), Z22 \
	VBROADCASTSD actQ4<>(SB), Z23 \
	VBROADCASTSD actQ3<>(SB), Z24 \
	VBROADCASTSD actQ2<>(SB), Z25 \
	VBROADCASTSD actQ1<>(SB), Z26 \
	VBROADCASTSD actQ0<>(SB), Z27 \
	VPBROADCASTQ actBias<>(SB), Z28

// EXP2CORE512 is EXP2CORE on Z0 (t), Z1 (s), Z2, Z3 (q).
#define EXP2CORE512 \
	VADDPD      Z20, Z0, Z1 \
	VSUBPD      Z20, Z1, Z2 \
	VSUBPD      Z2, Z0, Z2 \
	VMOVAPD     Z21, Z3 \
	VFMADD213PD Z22, Z2, Z3 \
	VFMADD213PD Z23, Z2, Z3 \
	VFMADD213PD Z24, Z2, Z3 \
	VFMADD213PD Z25, Z2, Z3 \
	VFMADD213PD Z26, Z2, Z3 \
	VFMADD213PD Z27, Z2, Z3 \
	VMULPD      Z2, Z3, Z3 \
	VPADDQ      Z28, Z1, Z1 \
	VPSLLQ      $52, Z1, Z1

// func expAsm512(n int, x, dst *float32)
TEXT ·expAsm512(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), SI
	MOVQ dst+16(FP), DI
	LOADEXP
	VBROADCASTSD actLog2e<>(SB), Z29
	VBROADCASTSD actLo<>(SB), Z30
	VBROADCASTSD actHi<>(SB), Z31
	SHRQ $3, CX
	JEQ  e5done

e5loop:
	VCVTPS2PD (SI), Z0
	VMULPD    Z29, Z0, Z0
	VMAXPD    Z0, Z30, Z0
	VMINPD    Z0, Z31, Z0
	EXP2CORE512
	VFMADD213PD Z1, Z1, Z3
	VCVTPD2PS   Z3, Y3
	VMOVUPS     Y3, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  e5loop

e5done:
	VZEROUPPER
	RET

// func sigmoidAsm512(n int, x, dst *float32)
TEXT ·sigmoidAsm512(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), SI
	MOVQ dst+16(FP), DI
	LOADEXP
	VBROADCASTSD actNegLog2e<>(SB), Z29
	VBROADCASTSD actLo<>(SB), Z30
	VBROADCASTSD actHi<>(SB), Z31
	VBROADCASTSD actOne<>(SB), Z19
	SHRQ $3, CX
	JEQ  s5done

s5loop:
	VCVTPS2PD (SI), Z0
	VMULPD    Z29, Z0, Z0
	VMAXPD    Z0, Z30, Z0
	VMINPD    Z0, Z31, Z0
	EXP2CORE512
	VFMADD213PD Z1, Z1, Z3
	VADDPD      Z19, Z3, Z3
	VDIVPD      Z3, Z19, Z3
	VCVTPD2PS   Z3, Y3
	VMOVUPS     Y3, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  s5loop

s5done:
	VZEROUPPER
	RET

// func tanhAsm512(n int, x, dst *float32)
TEXT ·tanhAsm512(SB), NOSPLIT, $0-24
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), SI
	MOVQ dst+16(FP), DI
	LOADEXP
	VBROADCASTSD act2Log2e<>(SB), Z29
	VBROADCASTSD actHiTanh<>(SB), Z31
	VBROADCASTSD actOne<>(SB), Z19
	VBROADCASTSD actTwo<>(SB), Z18
	VPBROADCASTQ actAbs<>(SB), Z17
	VPBROADCASTQ actSign<>(SB), Z16
	SHRQ $3, CX
	JEQ  t5done

t5loop:
	VCVTPS2PD (SI), Z5
	VPANDQ    Z17, Z5, Z0
	VPANDQ    Z16, Z5, Z5
	VMULPD    Z29, Z0, Z0
	VMINPD    Z0, Z31, Z0
	EXP2CORE512
	VSUBPD      Z19, Z1, Z4
	VFMADD213PD Z4, Z1, Z3
	VADDPD      Z18, Z3, Z2
	VDIVPD      Z2, Z3, Z3
	VPORQ       Z5, Z3, Z3
	VCVTPD2PS   Z3, Y3
	VMOVUPS     Y3, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  t5loop

t5done:
	VZEROUPPER
	RET
