//go:build amd64

#include "textflag.h"

// maskTab holds eight all-ones int32 lanes followed by eight zero lanes.
// Loading 8 lanes from byte offset 4*(8-r) gives a mask whose first r lanes
// are set, for VMASKMOVPS tails of r = 1..7 elements.
DATA maskTab<>+0(SB)/8, $0xffffffffffffffff
DATA maskTab<>+8(SB)/8, $0xffffffffffffffff
DATA maskTab<>+16(SB)/8, $0xffffffffffffffff
DATA maskTab<>+24(SB)/8, $0xffffffffffffffff
DATA maskTab<>+32(SB)/8, $0
DATA maskTab<>+40(SB)/8, $0
DATA maskTab<>+48(SB)/8, $0
DATA maskTab<>+56(SB)/8, $0
GLOBL maskTab<>(SB), RODATA|NOPTR, $64

// LOADMASK sets Y15 to the tail mask for r = n&7 lanes, r in 1..7, using
// the scratch registers t and u.
#define LOADMASK(n, t, u) \
	MOVQ n, t \
	ANDQ $7, t \
	NEGQ t \
	LEAQ maskTab<>+32(SB), u \
	VMOVDQU (u)(t*4), Y15

// KERNARGS loads the arguments of a micro-kernel (kc int, a, b, c
// *float32, ldc int, acc int) into CX, SI, DI and DX, and ldc in bytes
// into R8.
#define KERNARGS \
	MOVQ kc+0(FP), CX \
	MOVQ a+8(FP), SI \
	MOVQ b+16(FP), DI \
	MOVQ c+24(FP), DX \
	MOVQ ldc+32(FP), R8 \
	SHLQ $2, R8

// ZERO8 clears eight registers with the XOR instruction op.
#define ZERO8(op, r0, r1, r2, r3, r4, r5, r6, r7) \
	op r0, r0, r0 \
	op r1, r1, r1 \
	op r2, r2, r2 \
	op r3, r3, r3 \
	op r4, r4, r4 \
	op r5, r5, r5 \
	op r6, r6, r6 \
	op r7, r7, r7

// ---------------------------------------------------------------------------
// Packed micro-kernels. a is a packed A micro-panel (kc × 6, element (i,p) at
// a[p*6+i]); b is a packed B micro-panel (kc × NR, element (p,j) at
// b[p*NR+j]). The kernel computes the full 6×NR tile T = Apanel·Bpanel and
// stores C[i*ldc+j] = T[i][j], or adds T to C when acc != 0. ldc is in
// elements.

// ROWW is one row of a depth step of the micro-kernels: it broadcasts the
// A element at aoff(SI) into bc and adds it times the B values in b0:b1 to
// the row's accumulators r0:r1. ACCW adds the row r0:r1 to the floats at DX
// (r1's at w(DX), w the bytes of one register) and stores the sums there;
// PUTW stores r0:r1 there.
#define ROWW(b0, b1, aoff, bc, r0, r1) \
	VBROADCASTSS aoff(SI), bc \
	VFMADD231PS  b0, bc, r0 \
	VFMADD231PS  b1, bc, r1

#define ACCW(w, r0, r1) \
	VADDPS  (DX), r0, r0 \
	VADDPS  w(DX), r1, r1 \
	VMOVUPS r0, (DX) \
	VMOVUPS r1, w(DX)

#define PUTW(w, r0, r1) \
	VMOVUPS r0, (DX) \
	VMOVUPS r1, w(DX)

// ROW16, ACC16 and PUT16 are the AVX2 kernels' rows: 16 B values in
// Y12:Y13, each row in two YMM registers.
#define ROW16(aoff, bc, r0, r1) ROWW(Y12, Y13, aoff, bc, r0, r1)
#define ACC16(r0, r1) ACCW(32, r0, r1)
#define PUT16(r0, r1) PUTW(32, r0, r1)

// func sgemmKernelAVX2(kc int, a, b, c *float32, ldc int, acc int)
TEXT ·sgemmKernelAVX2(SB), NOSPLIT, $0-48
	KERNARGS
	ZERO8(VXORPS, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	TESTQ CX, CX
	JEQ   avx2store

	// Two k steps per iteration while at least two remain.
	MOVQ CX, BX
	SHRQ $1, BX
	JEQ  avx2one

avx2loop2:
	PREFETCHT0 512(DI)
	VMOVUPS      (DI), Y12
	VMOVUPS      32(DI), Y13
	ROW16(0, Y14, Y0, Y1)
	ROW16(4, Y15, Y2, Y3)
	ROW16(8, Y14, Y4, Y5)
	ROW16(12, Y15, Y6, Y7)
	ROW16(16, Y14, Y8, Y9)
	ROW16(20, Y15, Y10, Y11)

	VMOVUPS      64(DI), Y12
	VMOVUPS      96(DI), Y13
	ROW16(24, Y14, Y0, Y1)
	ROW16(28, Y15, Y2, Y3)
	ROW16(32, Y14, Y4, Y5)
	ROW16(36, Y15, Y6, Y7)
	ROW16(40, Y14, Y8, Y9)
	ROW16(44, Y15, Y10, Y11)

	ADDQ $48, SI
	ADDQ $128, DI
	DECQ BX
	JNZ  avx2loop2

avx2one:
	ANDQ $1, CX
	JEQ  avx2store
	VMOVUPS      (DI), Y12
	VMOVUPS      32(DI), Y13
	ROW16(0, Y14, Y0, Y1)
	ROW16(4, Y15, Y2, Y3)
	ROW16(8, Y14, Y4, Y5)
	ROW16(12, Y15, Y6, Y7)
	ROW16(16, Y14, Y8, Y9)
	ROW16(20, Y15, Y10, Y11)

avx2store:
	MOVQ acc+40(FP), AX
	TESTQ AX, AX
	JEQ  avx2put
	ACC16(Y0, Y1)
	ADDQ R8, DX
	ACC16(Y2, Y3)
	ADDQ R8, DX
	ACC16(Y4, Y5)
	ADDQ R8, DX
	ACC16(Y6, Y7)
	ADDQ R8, DX
	ACC16(Y8, Y9)
	ADDQ R8, DX
	ACC16(Y10, Y11)
	VZEROUPPER
	RET

avx2put:
	PUT16(Y0, Y1)
	ADDQ R8, DX
	PUT16(Y2, Y3)
	ADDQ R8, DX
	PUT16(Y4, Y5)
	ADDQ R8, DX
	PUT16(Y6, Y7)
	ADDQ R8, DX
	PUT16(Y8, Y9)
	ADDQ R8, DX
	PUT16(Y10, Y11)
	VZEROUPPER
	RET

// func sgemmKernel4AVX2(kc int, a, b, c *float32, ldc int, acc int)
// sgemmKernelAVX2 for the first 4 rows of the 6-row A panel only: the
// ragged last panel of a product with m mod 6 in 1..4 rows (a worker's
// batch of 10 sequences is 6 + 4 rows in every recurrent step) costs 8
// FMAs per depth step instead of 12. Each element sums in the same order
// as in sgemmKernelAVX2, so the results are the same.
TEXT ·sgemmKernel4AVX2(SB), NOSPLIT, $0-48
	KERNARGS
	ZERO8(VXORPS, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	TESTQ CX, CX
	JEQ   a4store

a4loop:
	PREFETCHT0 512(DI)
	VMOVUPS      (DI), Y12
	VMOVUPS      32(DI), Y13
	ROW16(0, Y14, Y0, Y1)
	ROW16(4, Y15, Y2, Y3)
	ROW16(8, Y14, Y4, Y5)
	ROW16(12, Y15, Y6, Y7)
	ADDQ $24, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  a4loop

a4store:
	MOVQ acc+40(FP), AX
	TESTQ AX, AX
	JEQ  a4put
	ACC16(Y0, Y1)
	ADDQ R8, DX
	ACC16(Y2, Y3)
	ADDQ R8, DX
	ACC16(Y4, Y5)
	ADDQ R8, DX
	ACC16(Y6, Y7)
	VZEROUPPER
	RET

a4put:
	PUT16(Y0, Y1)
	ADDQ R8, DX
	PUT16(Y2, Y3)
	ADDQ R8, DX
	PUT16(Y4, Y5)
	ADDQ R8, DX
	PUT16(Y6, Y7)
	VZEROUPPER
	RET

// ROW32, ACC32 and PUT32 are ROW16, ACC16 and PUT16 for the AVX-512
// kernels: 32 B values in Z12:Z13, each row in two ZMM registers.
#define ROW32(aoff, bc, r0, r1) ROWW(Z12, Z13, aoff, bc, r0, r1)
#define ACC32(r0, r1) ACCW(64, r0, r1)
#define PUT32(r0, r1) PUTW(64, r0, r1)

// func sgemmKernelAVX512(kc int, a, b, c *float32, ldc int, acc int)
// The same 6-row kernel with NR = 32 (two ZMM registers per row).
TEXT ·sgemmKernelAVX512(SB), NOSPLIT, $0-48
	KERNARGS
	ZERO8(VPXORD, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	TESTQ CX, CX
	JEQ   z512store

z512loop:
	PREFETCHT0 512(DI)
	VMOVUPS      (DI), Z12
	VMOVUPS      64(DI), Z13
	ROW32(0, Z14, Z0, Z1)
	ROW32(4, Z15, Z2, Z3)
	ROW32(8, Z16, Z4, Z5)
	ROW32(12, Z17, Z6, Z7)
	ROW32(16, Z18, Z8, Z9)
	ROW32(20, Z19, Z10, Z11)
	ADDQ $24, SI
	ADDQ $128, DI
	DECQ CX
	JNZ  z512loop

z512store:
	MOVQ acc+40(FP), AX
	TESTQ AX, AX
	JEQ  z512put
	ACC32(Z0, Z1)
	ADDQ R8, DX
	ACC32(Z2, Z3)
	ADDQ R8, DX
	ACC32(Z4, Z5)
	ADDQ R8, DX
	ACC32(Z6, Z7)
	ADDQ R8, DX
	ACC32(Z8, Z9)
	ADDQ R8, DX
	ACC32(Z10, Z11)
	VZEROUPPER
	RET

z512put:
	PUT32(Z0, Z1)
	ADDQ R8, DX
	PUT32(Z2, Z3)
	ADDQ R8, DX
	PUT32(Z4, Z5)
	ADDQ R8, DX
	PUT32(Z6, Z7)
	ADDQ R8, DX
	PUT32(Z8, Z9)
	ADDQ R8, DX
	PUT32(Z10, Z11)
	VZEROUPPER
	RET

// func sgemmKernel4AVX512(kc int, a, b, c *float32, ldc int, acc int)
// sgemmKernelAVX512 for the first 4 rows of the 6-row A panel only: the
// ragged last panel of a product with m mod 6 in 1..4 rows (a batch of 10
// sequences is 6 + 4 rows) costs 8 FMAs per depth step instead of 12.
TEXT ·sgemmKernel4AVX512(SB), NOSPLIT, $0-48
	KERNARGS
	ZERO8(VPXORD, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	TESTQ CX, CX
	JEQ   k4store

k4loop:
	PREFETCHT0 512(DI)
	VMOVUPS      (DI), Z12
	VMOVUPS      64(DI), Z13
	ROW32(0, Z14, Z0, Z1)
	ROW32(4, Z15, Z2, Z3)
	ROW32(8, Z16, Z4, Z5)
	ROW32(12, Z17, Z6, Z7)
	ADDQ $24, SI
	ADDQ $128, DI
	DECQ CX
	JNZ  k4loop

k4store:
	MOVQ acc+40(FP), AX
	TESTQ AX, AX
	JEQ  k4put
	ACC32(Z0, Z1)
	ADDQ R8, DX
	ACC32(Z2, Z3)
	ADDQ R8, DX
	ACC32(Z4, Z5)
	ADDQ R8, DX
	ACC32(Z6, Z7)
	VZEROUPPER
	RET

k4put:
	PUT32(Z0, Z1)
	ADDQ R8, DX
	PUT32(Z2, Z3)
	ADDQ R8, DX
	PUT32(Z4, Z5)
	ADDQ R8, DX
	PUT32(Z6, Z7)
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// Matrix-vector kernels (AVX2 + FMA), used for few-row products.

// func sgemvNAVX2(n, k int, a, b *float32, ldb int, c *float32, acc int)
// For j < n: c[j] = dot(a[0:k], b[j*ldb : j*ldb+k]), or c[j] += that dot when
// acc != 0. ldb is in elements.
TEXT ·sgemvNAVX2(SB), NOSPLIT, $0-56
	MOVQ n+0(FP), R9
	MOVQ k+8(FP), CX
	MOVQ a+16(FP), SI
	MOVQ b+24(FP), DI
	MOVQ ldb+32(FP), R8
	SHLQ $2, R8
	MOVQ c+40(FP), DX
	MOVQ acc+48(FP), AX
	TESTQ CX, CX
	JEQ  gnzero
	LOADMASK(CX, BX, R10)

gn4:
	CMPQ R9, $4
	JLT  gn1
	MOVQ DI, R10
	LEAQ (DI)(R8*1), R11
	LEAQ (DI)(R8*2), R12
	LEAQ (R11)(R8*2), R13
	ZERO8(VXORPS, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	XORQ BX, BX
	MOVQ CX, R14
	SHRQ $4, R14
	JEQ  gn4k8

gn4k16:
	VMOVUPS     (SI)(BX*1), Y8
	VMOVUPS     32(SI)(BX*1), Y9
	VFMADD231PS (R10)(BX*1), Y8, Y0
	VFMADD231PS 32(R10)(BX*1), Y9, Y1
	VFMADD231PS (R11)(BX*1), Y8, Y2
	VFMADD231PS 32(R11)(BX*1), Y9, Y3
	VFMADD231PS (R12)(BX*1), Y8, Y4
	VFMADD231PS 32(R12)(BX*1), Y9, Y5
	VFMADD231PS (R13)(BX*1), Y8, Y6
	VFMADD231PS 32(R13)(BX*1), Y9, Y7
	ADDQ $64, BX
	DECQ R14
	JNZ  gn4k16

gn4k8:
	TESTQ $8, CX
	JEQ   gn4tail
	VMOVUPS     (SI)(BX*1), Y8
	VFMADD231PS (R10)(BX*1), Y8, Y0
	VFMADD231PS (R11)(BX*1), Y8, Y2
	VFMADD231PS (R12)(BX*1), Y8, Y4
	VFMADD231PS (R13)(BX*1), Y8, Y6
	ADDQ $32, BX

gn4tail:
	TESTQ $7, CX
	JEQ   gn4sum
	VMASKMOVPS  (SI)(BX*1), Y15, Y8
	VMASKMOVPS  (R10)(BX*1), Y15, Y9
	VFMADD231PS Y9, Y8, Y1
	VMASKMOVPS  (R11)(BX*1), Y15, Y9
	VFMADD231PS Y9, Y8, Y3
	VMASKMOVPS  (R12)(BX*1), Y15, Y9
	VFMADD231PS Y9, Y8, Y5
	VMASKMOVPS  (R13)(BX*1), Y15, Y9
	VFMADD231PS Y9, Y8, Y7

gn4sum:
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
	JEQ  gn4put
	VADDPS (DX), X0, X0

gn4put:
	VMOVUPS X0, (DX)
	ADDQ $16, DX
	LEAQ (DI)(R8*4), DI
	SUBQ $4, R9
	JMP  gn4

gn1:
	TESTQ R9, R9
	JEQ   gndone
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	XORQ BX, BX
	MOVQ CX, R14
	SHRQ $4, R14
	JEQ  gn1k8

gn1k16:
	VMOVUPS     (SI)(BX*1), Y8
	VMOVUPS     32(SI)(BX*1), Y9
	VFMADD231PS (DI)(BX*1), Y8, Y0
	VFMADD231PS 32(DI)(BX*1), Y9, Y1
	ADDQ $64, BX
	DECQ R14
	JNZ  gn1k16

gn1k8:
	TESTQ $8, CX
	JEQ   gn1tail
	VMOVUPS     (SI)(BX*1), Y8
	VFMADD231PS (DI)(BX*1), Y8, Y0
	ADDQ $32, BX

gn1tail:
	TESTQ $7, CX
	JEQ   gn1sum
	VMASKMOVPS  (SI)(BX*1), Y15, Y8
	VMASKMOVPS  (DI)(BX*1), Y15, Y9
	VFMADD231PS Y9, Y8, Y1

gn1sum:
	VADDPS Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	TESTQ AX, AX
	JEQ  gn1put
	VADDSS (DX), X0, X0

gn1put:
	VMOVSS X0, (DX)
	ADDQ $4, DX
	ADDQ R8, DI
	DECQ R9
	JMP  gn1

gnzero:
	// k == 0: the dot products are all zero.
	TESTQ AX, AX
	JNE  gndone
	TESTQ R9, R9
	JEQ  gndone

gnzeroloop:
	MOVL $0, (DX)
	ADDQ $4, DX
	DECQ R9
	JNZ  gnzeroloop

gndone:
	VZEROUPPER
	RET

// func sgemvTAVX2(n, k int, a *float32, inca int, b *float32, ldb int, c *float32, acc int)
// For j < n: c[j] = sum over p < k of a[p*inca]*b[p*ldb+j], or c[j] += that
// sum when acc != 0. inca and ldb are in elements.
TEXT ·sgemvTAVX2(SB), NOSPLIT, $0-64
	MOVQ n+0(FP), R9
	MOVQ k+8(FP), CX
	MOVQ a+16(FP), SI
	MOVQ inca+24(FP), R11
	SHLQ $2, R11
	MOVQ b+32(FP), DI
	MOVQ ldb+40(FP), R8
	SHLQ $2, R8
	MOVQ c+48(FP), DX
	MOVQ acc+56(FP), AX
	TESTQ R9, R9
	JEQ  gtdone
	LOADMASK(R9, BX, R10)

gt64:
	CMPQ R9, $64
	JLT  gt8
	TESTQ AX, AX
	JEQ  gt64zero
	VMOVUPS (DX), Y0
	VMOVUPS 32(DX), Y1
	VMOVUPS 64(DX), Y2
	VMOVUPS 96(DX), Y3
	VMOVUPS 128(DX), Y4
	VMOVUPS 160(DX), Y5
	VMOVUPS 192(DX), Y6
	VMOVUPS 224(DX), Y7
	JMP  gt64k

gt64zero:
	ZERO8(VXORPS, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)

gt64k:
	MOVQ SI, R12
	MOVQ DI, R10
	MOVQ CX, R13
	TESTQ R13, R13
	JEQ  gt64put

gt64loop:
	VBROADCASTSS (R12), Y8
	VFMADD231PS  (R10), Y8, Y0
	VFMADD231PS  32(R10), Y8, Y1
	VFMADD231PS  64(R10), Y8, Y2
	VFMADD231PS  96(R10), Y8, Y3
	VFMADD231PS  128(R10), Y8, Y4
	VFMADD231PS  160(R10), Y8, Y5
	VFMADD231PS  192(R10), Y8, Y6
	VFMADD231PS  224(R10), Y8, Y7
	ADDQ R11, R12
	ADDQ R8, R10
	DECQ R13
	JNZ  gt64loop

gt64put:
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	VMOVUPS Y2, 64(DX)
	VMOVUPS Y3, 96(DX)
	VMOVUPS Y4, 128(DX)
	VMOVUPS Y5, 160(DX)
	VMOVUPS Y6, 192(DX)
	VMOVUPS Y7, 224(DX)
	ADDQ $256, DX
	ADDQ $256, DI
	SUBQ $64, R9
	JMP  gt64

gt8:
	CMPQ R9, $8
	JLT  gttail
	TESTQ AX, AX
	JEQ  gt8zero
	VMOVUPS (DX), Y0
	JMP  gt8k

gt8zero:
	VXORPS Y0, Y0, Y0

gt8k:
	VXORPS Y1, Y1, Y1
	MOVQ SI, R12
	MOVQ DI, R10
	MOVQ CX, R13
	TESTQ R13, R13
	JEQ  gt8put

gt8loop:
	VBROADCASTSS (R12), Y8
	VFMADD231PS  (R10), Y8, Y0
	ADDQ R11, R12
	ADDQ R8, R10
	DECQ R13
	JNZ  gt8loop

gt8put:
	VMOVUPS Y0, (DX)
	ADDQ $32, DX
	ADDQ $32, DI
	SUBQ $8, R9
	JMP  gt8

gttail:
	TESTQ R9, R9
	JEQ  gtdone
	VXORPS Y0, Y0, Y0
	TESTQ AX, AX
	JEQ  gttailk
	VMASKMOVPS (DX), Y15, Y0

gttailk:
	MOVQ SI, R12
	MOVQ DI, R10
	MOVQ CX, R13
	TESTQ R13, R13
	JEQ  gttailput

gttailloop:
	VBROADCASTSS (R12), Y8
	VMASKMOVPS   (R10), Y15, Y9
	VFMADD231PS  Y9, Y8, Y0
	ADDQ R11, R12
	ADDQ R8, R10
	DECQ R13
	JNZ  gttailloop

gttailput:
	VMASKMOVPS Y0, Y15, (DX)

gtdone:
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// Vector helpers (AVX2 + FMA).

// func sdotAVX2(n int, a, b *float32) float32
TEXT ·sdotAVX2(SB), NOSPLIT, $0-28
	MOVQ n+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	MOVQ CX, BX
	SHRQ $5, BX
	JEQ  dot8

dot32:
	VMOVUPS     (SI), Y4
	VMOVUPS     32(SI), Y5
	VMOVUPS     64(SI), Y6
	VMOVUPS     96(SI), Y7
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ $128, SI
	ADDQ $128, DI
	DECQ BX
	JNZ  dot32

dot8:
	MOVQ CX, BX
	ANDQ $31, BX
	SHRQ $3, BX
	JEQ  dottail

dot8loop:
	VMOVUPS     (SI), Y4
	VFMADD231PS (DI), Y4, Y0
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ BX
	JNZ  dot8loop

dottail:
	TESTQ $7, CX
	JEQ   dotsum
	LOADMASK(CX, BX, R10)
	VMASKMOVPS  (SI), Y15, Y4
	VMASKMOVPS  (DI), Y15, Y5
	VFMADD231PS Y5, Y4, Y1

dotsum:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func saxpyAVX2(n int, alpha float32, x, dst *float32)
// dst[i] += alpha*x[i] for i < n.
TEXT ·saxpyAVX2(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	VBROADCASTSS alpha+8(FP), Y8
	MOVQ x+16(FP), SI
	MOVQ dst+24(FP), DI
	MOVQ CX, BX
	SHRQ $5, BX
	JEQ  axpy8

axpy32:
	VMOVUPS     (DI), Y0
	VMOVUPS     32(DI), Y1
	VMOVUPS     64(DI), Y2
	VMOVUPS     96(DI), Y3
	VFMADD231PS (SI), Y8, Y0
	VFMADD231PS 32(SI), Y8, Y1
	VFMADD231PS 64(SI), Y8, Y2
	VFMADD231PS 96(SI), Y8, Y3
	VMOVUPS     Y0, (DI)
	VMOVUPS     Y1, 32(DI)
	VMOVUPS     Y2, 64(DI)
	VMOVUPS     Y3, 96(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	DECQ BX
	JNZ  axpy32

axpy8:
	MOVQ CX, BX
	ANDQ $31, BX
	SHRQ $3, BX
	JEQ  axpytail

axpy8loop:
	VMOVUPS     (DI), Y0
	VFMADD231PS (SI), Y8, Y0
	VMOVUPS     Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ BX
	JNZ  axpy8loop

axpytail:
	TESTQ $7, CX
	JEQ   axpydone
	LOADMASK(CX, BX, R10)
	VMASKMOVPS  (DI), Y15, Y0
	VMASKMOVPS  (SI), Y15, Y1
	VFMADD231PS Y1, Y8, Y0
	VMASKMOVPS  Y0, Y15, (DI)

axpydone:
	VZEROUPPER
	RET

// ---------------------------------------------------------------------------
// Packing.

// func transpose8AVX2(nb int, src *float32, lds int, dst *float32, ldd int)
// For the 8 rows i < 8 and columns p < 8*nb: dst[p*ldd+i] = src[i*lds+p].
// lds and ldd are in elements. Each 8×8 block is transposed in registers
// (unpack, shuffle, lane permute) and written as 8 rows of 8.
TEXT ·transpose8AVX2(SB), NOSPLIT, $0-40
	MOVQ nb+0(FP), CX
	MOVQ src+8(FP), SI
	MOVQ lds+16(FP), R8
	SHLQ $2, R8
	MOVQ dst+24(FP), DI
	MOVQ ldd+32(FP), R9
	SHLQ $2, R9
	TESTQ CX, CX
	JEQ  tr8done
	LEAQ (SI)(R8*2), R10
	ADDQ R8, R10         // row 3
	LEAQ (SI)(R8*4), R11 // row 4
	LEAQ (R11)(R8*2), R12
	ADDQ R8, R12         // row 7

tr8loop:
	VMOVUPS (SI), Y0
	VMOVUPS (SI)(R8*1), Y1
	VMOVUPS (SI)(R8*2), Y2
	VMOVUPS (R10), Y3
	VMOVUPS (R11), Y4
	VMOVUPS (R11)(R8*1), Y5
	VMOVUPS (R11)(R8*2), Y6
	VMOVUPS (R12), Y7

	// t = pairwise interleaves: Y8 = [a0 b0 a1 b1 | a4 b4 a5 b5], ...
	VUNPCKLPS Y1, Y0, Y8
	VUNPCKHPS Y1, Y0, Y9
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15

	// s = four-row groups: Y0 = [a0 b0 c0 d0 | a4 b4 c4 d4], ...
	VSHUFPS $0x44, Y10, Y8, Y0
	VSHUFPS $0xEE, Y10, Y8, Y1
	VSHUFPS $0x44, Y11, Y9, Y2
	VSHUFPS $0xEE, Y11, Y9, Y3
	VSHUFPS $0x44, Y14, Y12, Y4
	VSHUFPS $0xEE, Y14, Y12, Y5
	VSHUFPS $0x44, Y15, Y13, Y6
	VSHUFPS $0xEE, Y15, Y13, Y7

	// Columns p = 0..7 of the block: lane halves of s0..s3 with s4..s7.
	VPERM2F128 $0x20, Y4, Y0, Y8  // p0
	VPERM2F128 $0x20, Y5, Y1, Y9  // p1
	VPERM2F128 $0x20, Y6, Y2, Y10 // p2
	VPERM2F128 $0x20, Y7, Y3, Y11 // p3
	VPERM2F128 $0x31, Y4, Y0, Y12 // p4
	VPERM2F128 $0x31, Y5, Y1, Y13 // p5
	VPERM2F128 $0x31, Y6, Y2, Y14 // p6
	VPERM2F128 $0x31, Y7, Y3, Y15 // p7

	MOVQ DI, AX
	VMOVUPS Y8, (AX)
	VMOVUPS Y9, (AX)(R9*1)
	VMOVUPS Y10, (AX)(R9*2)
	LEAQ (AX)(R9*2), BX
	VMOVUPS Y11, (BX)(R9*1)
	LEAQ (AX)(R9*4), AX
	VMOVUPS Y12, (AX)
	VMOVUPS Y13, (AX)(R9*1)
	VMOVUPS Y14, (AX)(R9*2)
	LEAQ (AX)(R9*2), BX
	VMOVUPS Y15, (BX)(R9*1)
	LEAQ (AX)(R9*4), DI

	ADDQ $32, SI
	ADDQ $32, R10
	ADDQ $32, R11
	ADDQ $32, R12
	DECQ CX
	JNZ  tr8loop

tr8done:
	VZEROUPPER
	RET

// func copyPanelsAVX2(kc, full int, src *float32, ld int, dst *float32, w int)
// For p < kc and q < full: copies the w elements src[p*ld+q*w : p*ld+q*w+w]
// to dst[q*w*kc+p*w : q*w*kc+p*w+w]. w must be 6, 16 or 32; ld in elements.
TEXT ·copyPanelsAVX2(SB), NOSPLIT, $0-48
	MOVQ kc+0(FP), CX
	MOVQ full+8(FP), R9
	MOVQ src+16(FP), SI
	MOVQ ld+24(FP), R8
	SHLQ $2, R8
	MOVQ dst+32(FP), DI
	MOVQ w+40(FP), R10
	MOVQ R10, R11
	IMULQ CX, R11
	SHLQ $2, R11 // panel stride in bytes: w*kc*4
	TESTQ CX, CX
	JEQ  cpdone
	TESTQ R9, R9
	JEQ  cpdone
	CMPQ R10, $16
	JEQ  cp16
	CMPQ R10, $32
	JEQ  cp32
	CMPQ R10, $6
	JEQ  cp6
	JMP  cpdone

cp16:
	MOVQ SI, AX // source row
	MOVQ DI, BX // destination slot
	MOVQ R9, DX

cp16q:
	VMOVUPS (AX), Y0
	VMOVUPS 32(AX), Y1
	VMOVUPS Y0, (BX)
	VMOVUPS Y1, 32(BX)
	ADDQ $64, AX
	ADDQ R11, BX
	DECQ DX
	JNZ  cp16q
	ADDQ R8, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  cp16
	JMP  cpdone

cp32:
	MOVQ SI, AX
	MOVQ DI, BX
	MOVQ R9, DX

cp32q:
	VMOVUPS (AX), Y0
	VMOVUPS 32(AX), Y1
	VMOVUPS 64(AX), Y2
	VMOVUPS 96(AX), Y3
	VMOVUPS Y0, (BX)
	VMOVUPS Y1, 32(BX)
	VMOVUPS Y2, 64(BX)
	VMOVUPS Y3, 96(BX)
	ADDQ $128, AX
	ADDQ R11, BX
	DECQ DX
	JNZ  cp32q
	ADDQ R8, SI
	ADDQ $128, DI
	DECQ CX
	JNZ  cp32
	JMP  cpdone

cp6:
	MOVQ SI, AX
	MOVQ DI, BX
	MOVQ R9, DX

cp6q:
	VMOVUPS (AX), X0
	MOVQ    16(AX), R12
	VMOVUPS X0, (BX)
	MOVQ    R12, 16(BX)
	ADDQ $24, AX
	ADDQ R11, BX
	DECQ DX
	JNZ  cp6q
	ADDQ R8, SI
	ADDQ $24, DI
	DECQ CX
	JNZ  cp6

cpdone:
	VZEROUPPER
	RET

// func transpose6AVX2(nb int, src *float32, lds int, dst *float32)
// For the 6 rows i < 6 and columns p < 8*nb: dst[p*6+i] = src[i*lds+p]
// (an A micro-panel of the 6-row kernel). lds is in elements. Rows 0-3 of
// each column leave the 4×8 transpose as 16-byte pieces, rows 4-5 as
// 8-byte pairs.
TEXT ·transpose6AVX2(SB), NOSPLIT, $0-32
	MOVQ nb+0(FP), CX
	MOVQ src+8(FP), SI
	MOVQ lds+16(FP), R8
	SHLQ $2, R8
	MOVQ dst+24(FP), DI
	TESTQ CX, CX
	JEQ  tr6done
	LEAQ (SI)(R8*2), R10
	ADDQ R8, R10         // row 3
	LEAQ (SI)(R8*4), R11 // row 4

tr6loop:
	VMOVUPS (SI), Y0
	VMOVUPS (SI)(R8*1), Y1
	VMOVUPS (SI)(R8*2), Y2
	VMOVUPS (R10), Y3
	VMOVUPS (R11), Y4
	VMOVUPS (R11)(R8*1), Y5

	VUNPCKLPS Y1, Y0, Y8  // [a0 b0 a1 b1 | a4 b4 a5 b5]
	VUNPCKHPS Y1, Y0, Y9  // [a2 b2 a3 b3 | a6 b6 a7 b7]
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12 // [e0 f0 e1 f1 | e4 f4 e5 f5]
	VUNPCKHPS Y5, Y4, Y13 // [e2 f2 e3 f3 | e6 f6 e7 f7]
	VSHUFPS $0x44, Y10, Y8, Y0 // [a0 b0 c0 d0 | a4 b4 c4 d4]
	VSHUFPS $0xEE, Y10, Y8, Y1 // p1 | p5
	VSHUFPS $0x44, Y11, Y9, Y2 // p2 | p6
	VSHUFPS $0xEE, Y11, Y9, Y3 // p3 | p7

	VMOVUPS X0, (DI)
	VMOVLPS X12, 16(DI)
	VMOVUPS X1, 24(DI)
	VMOVHPS X12, 40(DI)
	VMOVUPS X2, 48(DI)
	VMOVLPS X13, 64(DI)
	VMOVUPS X3, 72(DI)
	VMOVHPS X13, 88(DI)
	VEXTRACTF128 $1, Y0, X0
	VEXTRACTF128 $1, Y1, X1
	VEXTRACTF128 $1, Y2, X2
	VEXTRACTF128 $1, Y3, X3
	VEXTRACTF128 $1, Y12, X12
	VEXTRACTF128 $1, Y13, X13
	VMOVUPS X0, 96(DI)
	VMOVLPS X12, 112(DI)
	VMOVUPS X1, 120(DI)
	VMOVHPS X12, 136(DI)
	VMOVUPS X2, 144(DI)
	VMOVLPS X13, 160(DI)
	VMOVUPS X3, 168(DI)
	VMOVHPS X13, 184(DI)

	ADDQ $192, DI
	ADDQ $32, SI
	ADDQ $32, R10
	ADDQ $32, R11
	DECQ CX
	JNZ  tr6loop

tr6done:
	VZEROUPPER
	RET
