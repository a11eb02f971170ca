//go:build !purego && !amd64.v3

#include "textflag.h"

// AVX2 kernels of the slice versions of the fast functions (fast.go,
// fast_amd64.go): 4 elements per ymm register, the operations of the Go
// kernels one for one, in the same order and without FMA, so that the
// results are the same to the bit (fast_asm_test.go). Each kernel takes n = len(x) elements
// (a multiple of 4, at most 64), writes dst[i] for the elements in the
// fast range and the unchanged x[i] for the others (which are taken as 0
// in the computation), and returns the mask of the latter.

DATA c_absmask<>+0(SB)/8, $0x7fffffffffffffff
DATA c_absmask<>+8(SB)/8, $0x7fffffffffffffff
DATA c_absmask<>+16(SB)/8, $0x7fffffffffffffff
DATA c_absmask<>+24(SB)/8, $0x7fffffffffffffff
GLOBL c_absmask<>(SB), RODATA|NOPTR, $32

DATA c_hmask<>+0(SB)/8, $0xfffffffff8000000
DATA c_hmask<>+8(SB)/8, $0xfffffffff8000000
DATA c_hmask<>+16(SB)/8, $0xfffffffff8000000
DATA c_hmask<>+24(SB)/8, $0xfffffffff8000000
GLOBL c_hmask<>(SB), RODATA|NOPTR, $32

DATA c_mzero<>+0(SB)/8, $0x8000000000000000
DATA c_mzero<>+8(SB)/8, $0x8000000000000000
DATA c_mzero<>+16(SB)/8, $0x8000000000000000
DATA c_mzero<>+24(SB)/8, $0x8000000000000000
GLOBL c_mzero<>(SB), RODATA|NOPTR, $32

DATA c_one<>+0(SB)/8, $0x3ff0000000000000
DATA c_one<>+8(SB)/8, $0x3ff0000000000000
DATA c_one<>+16(SB)/8, $0x3ff0000000000000
DATA c_one<>+24(SB)/8, $0x3ff0000000000000
GLOBL c_one<>(SB), RODATA|NOPTR, $32

DATA c_half<>+0(SB)/8, $0x3fe0000000000000
DATA c_half<>+8(SB)/8, $0x3fe0000000000000
DATA c_half<>+16(SB)/8, $0x3fe0000000000000
DATA c_half<>+24(SB)/8, $0x3fe0000000000000
GLOBL c_half<>(SB), RODATA|NOPTR, $32

DATA c_mhalf<>+0(SB)/8, $0xbfe0000000000000
DATA c_mhalf<>+8(SB)/8, $0xbfe0000000000000
DATA c_mhalf<>+16(SB)/8, $0xbfe0000000000000
DATA c_mhalf<>+24(SB)/8, $0xbfe0000000000000
GLOBL c_mhalf<>(SB), RODATA|NOPTR, $32

DATA c_m63<>+0(SB)/8, $0xc04f800000000000
DATA c_m63<>+8(SB)/8, $0xc04f800000000000
DATA c_m63<>+16(SB)/8, $0xc04f800000000000
DATA c_m63<>+24(SB)/8, $0xc04f800000000000
GLOBL c_m63<>(SB), RODATA|NOPTR, $32

DATA c_p63<>+0(SB)/8, $0x404f800000000000
DATA c_p63<>+8(SB)/8, $0x404f800000000000
DATA c_p63<>+16(SB)/8, $0x404f800000000000
DATA c_p63<>+24(SB)/8, $0x404f800000000000
GLOBL c_p63<>(SB), RODATA|NOPTR, $32

DATA c_p375<>+0(SB)/8, $0x4042c00000000000
DATA c_p375<>+8(SB)/8, $0x4042c00000000000
DATA c_p375<>+16(SB)/8, $0x4042c00000000000
DATA c_p375<>+24(SB)/8, $0x4042c00000000000
GLOBL c_p375<>(SB), RODATA|NOPTR, $32

DATA c_invL<>+0(SB)/8, $0x40771547652b82fe
DATA c_invL<>+8(SB)/8, $0x40771547652b82fe
DATA c_invL<>+16(SB)/8, $0x40771547652b82fe
DATA c_invL<>+24(SB)/8, $0x40771547652b82fe
GLOBL c_invL<>(SB), RODATA|NOPTR, $32

DATA c_shift<>+0(SB)/8, $0x4338000000000000
DATA c_shift<>+8(SB)/8, $0x4338000000000000
DATA c_shift<>+16(SB)/8, $0x4338000000000000
DATA c_shift<>+24(SB)/8, $0x4338000000000000
GLOBL c_shift<>(SB), RODATA|NOPTR, $32

DATA c_L1<>+0(SB)/8, $0x3f662e42fee00000
DATA c_L1<>+8(SB)/8, $0x3f662e42fee00000
DATA c_L1<>+16(SB)/8, $0x3f662e42fee00000
DATA c_L1<>+24(SB)/8, $0x3f662e42fee00000
GLOBL c_L1<>(SB), RODATA|NOPTR, $32

DATA c_L2<>+0(SB)/8, $0x3d6a39ef35793c76
DATA c_L2<>+8(SB)/8, $0x3d6a39ef35793c76
DATA c_L2<>+16(SB)/8, $0x3d6a39ef35793c76
DATA c_L2<>+24(SB)/8, $0x3d6a39ef35793c76
GLOBL c_L2<>(SB), RODATA|NOPTR, $32

DATA c_c6<>+0(SB)/8, $0x3fc5555555555555
DATA c_c6<>+8(SB)/8, $0x3fc5555555555555
DATA c_c6<>+16(SB)/8, $0x3fc5555555555555
DATA c_c6<>+24(SB)/8, $0x3fc5555555555555
GLOBL c_c6<>(SB), RODATA|NOPTR, $32

DATA c_c24<>+0(SB)/8, $0x3fa5555555555555
DATA c_c24<>+8(SB)/8, $0x3fa5555555555555
DATA c_c24<>+16(SB)/8, $0x3fa5555555555555
DATA c_c24<>+24(SB)/8, $0x3fa5555555555555
GLOBL c_c24<>(SB), RODATA|NOPTR, $32

DATA c_i88<>+0(SB)/8, $0x0000000000000058
DATA c_i88<>+8(SB)/8, $0x0000000000000058
DATA c_i88<>+16(SB)/8, $0x0000000000000058
DATA c_i88<>+24(SB)/8, $0x0000000000000058
GLOBL c_i88<>(SB), RODATA|NOPTR, $32

DATA c_rowbias<>+0(SB)/8, $0xffffffffffea0580
DATA c_rowbias<>+8(SB)/8, $0xffffffffffea0580
DATA c_rowbias<>+16(SB)/8, $0xffffffffffea0580
DATA c_rowbias<>+24(SB)/8, $0xffffffffffea0580
GLOBL c_rowbias<>(SB), RODATA|NOPTR, $32

DATA c_right<>+0(SB)/8, $0x0000000000002100
DATA c_right<>+8(SB)/8, $0x0000000000002100
DATA c_right<>+16(SB)/8, $0x0000000000002100
DATA c_right<>+24(SB)/8, $0x0000000000002100
GLOBL c_right<>(SB), RODATA|NOPTR, $32

DATA c_i1023<>+0(SB)/8, $0x00000000000003ff
DATA c_i1023<>+8(SB)/8, $0x00000000000003ff
DATA c_i1023<>+16(SB)/8, $0x00000000000003ff
DATA c_i1023<>+24(SB)/8, $0x00000000000003ff
GLOBL c_i1023<>(SB), RODATA|NOPTR, $32

// PAIR(off, a, ax, t, tx, b) sets a, b = the row entries at byte off,
// off + 8 of the 4 lanes (ax, tx are the xmm halves of a, t), whose rows are at BX + DX, R10, R12, R13 (t is
// clobbered): the lanes 0 and 2 are loaded in a, 1 and 3 in t, and
// unpacked.
#define PAIR(off, a, ax, t, tx, b) \
	VMOVUPD     off(BX)(DX*1), ax; \
	VINSERTF128 $1, off(BX)(R12*1), a, a; \
	VMOVUPD     off(BX)(R10*1), tx; \
	VINSERTF128 $1, off(BX)(R13*1), t, t; \
	VUNPCKHPD   t, a, b; \
	VUNPCKLPD   t, a, a

// POLY sets Y5 = P(Y1) on the table rows at BX + DX, R10, R12, R13
// (fastPoly; Y2 = d, Y3 = d^2, Y4 = d^4; clobbers Y6-Y10).
#define POLY \
	PAIR(0, Y2, X2, Y3, X3, Y6); \
	VSUBPD Y2, Y1, Y2; \
	VMULPD Y2, Y2, Y3; \
	VMULPD Y3, Y3, Y4; \
	PAIR(16, Y5, X5, Y7, X7, Y8); \
	VMULPD Y2, Y5, Y5; \
	VADDPD Y5, Y6, Y5; \
	PAIR(32, Y6, X6, Y7, X7, Y9); \
	VMULPD Y2, Y6, Y6; \
	VADDPD Y6, Y8, Y6; \
	VMULPD Y3, Y6, Y6; \
	VADDPD Y6, Y5, Y5; \
	PAIR(48, Y6, X6, Y7, X7, Y8); \
	VMULPD Y2, Y6, Y6; \
	VADDPD Y6, Y9, Y6; \
	PAIR(64, Y7, X7, Y9, X9, Y10); \
	VMULPD Y2, Y7, Y7; \
	VADDPD Y7, Y8, Y7; \
	VMULPD Y3, Y7, Y7; \
	VADDPD Y7, Y6, Y6; \
	VMULPD Y4, Y6, Y6; \
	VADDPD Y6, Y5, Y5; \
	PAIR(72, Y7, X7, Y8, X8, Y9); \
	VMULPD Y2, Y9, Y9; \
	VADDPD Y9, Y10, Y9; \
	VMULPD Y4, Y4, Y7; \
	VMULPD Y7, Y9, Y9; \
	VADDPD Y9, Y5, Y5

// EXPA does the first half of fastExp(a, b), a = Y8, b = Y5: it stores
// kf at 512(SP) and exp(r) - 1 at 0(SP) for the elements CX to CX + 3
// (clobbers Y6, Y7, Y9-Y11).
#define EXPA \
	VADDPD  Y5, Y8, Y9; \
	VMULPD  c_invL<>(SB), Y9, Y9; \
	VADDPD  c_shift<>(SB), Y9, Y9; \
	VSUBPD  c_shift<>(SB), Y9, Y10; \
	VMULPD  c_L1<>(SB), Y10, Y11; \
	VSUBPD  Y11, Y8, Y11; \
	VADDPD  Y5, Y11, Y11; \
	VMULPD  c_L2<>(SB), Y10, Y10; \
	VSUBPD  Y10, Y11, Y11; \
	VMULPD  Y11, Y11, Y10; \
	VMULPD  c_c6<>(SB), Y11, Y6; \
	VADDPD  c_half<>(SB), Y6, Y6; \
	VMULPD  c_c24<>(SB), Y10, Y7; \
	VADDPD  Y7, Y6, Y6; \
	VMULPD  Y10, Y6, Y6; \
	VADDPD  Y6, Y11, Y6; \
	VMOVUPD Y6, 0(SP)(CX*8); \
	VMOVUPD Y9, 512(SP)(CX*8)

// EXPB sets Y12 = fastExp(a, b) from the kf at 512(SP) = R9 and the
// exp(r) - 1 at 0(SP) of EXPA (R8 = &fastExp2Tab; k & 255 is the low
// byte of kf; clobbers Y6, Y7, Y9, Y10, DX, R10, R12, R13).
#define EXPB \
	MOVBLZX     (R9)(CX*8), DX; \
	MOVBLZX     8(R9)(CX*8), R10; \
	MOVBLZX     16(R9)(CX*8), R12; \
	MOVBLZX     24(R9)(CX*8), R13; \
	VMOVSD      (R8)(DX*8), X7; \
	VMOVHPD     (R8)(R10*8), X7, X7; \
	VMOVSD      (R8)(R12*8), X10; \
	VMOVHPD     (R8)(R13*8), X10, X10; \
	VINSERTF128 $1, X10, Y7, Y7; \
	VMOVUPD     (R9)(CX*8), Y9; \
	VPSRLQ      $8, Y9, Y9; \
	VPADDQ      c_i1023<>(SB), Y9, Y9; \
	VPSLLQ      $52, Y9, Y9; \
	VMULPD      Y9, Y7, Y7; \
	VMOVUPD     0(SP)(CX*8), Y6; \
	VMULPD      Y6, Y7, Y12; \
	VADDPD      Y12, Y7, Y12

// RANGEMASK(lo, hi) loads Y0 = x[CX:CX+4] and sets Y14 = the in-range
// mask (lo < x < hi, false for NaN; clobbers Y1).
#define RANGEMASK(lo, hi) \
	VMOVUPD (SI)(CX*8), Y0; \
	VCMPPD $0x1e, lo, Y0, Y1; \
	VCMPPD $0x11, hi, Y0, Y14; \
	VANDPD Y1, Y14, Y14

// RANGE(lo, hi) loads Y0 = x[CX:CX+4], sets Y14 = the in-range mask
// (lo < x < hi, false for NaN), Y1 = x with the other lanes 0, and ORs
// their bits, shifted by CX, into AX.
#define RANGE(lo, hi) \
	RANGEMASK(lo, hi); \
	VANDPD Y14, Y0, Y1; \
	VMOVMSKPD Y14, R9; \
	XORQ $15, R9; \
	SHLQ CX, R9; \
	ORQ R9, AX

// ROWS sets Y13 = 88 seg(Y2 - 1), the byte offsets of the rows of the
// segments of Y2 = |x| + 1 in a table side (clobbers Y2).
#define ROWS \
	VPSRLQ   $48, Y2, Y2; \
	VPMULUDQ c_i88<>(SB), Y2, Y2; \
	VPADDQ   c_rowbias<>(SB), Y2, Y13

// OFFS loads DX, R10, R12, R13 = the row offsets of the elements CX to
// CX + 3, stored at 1024(SP) = R9 by the first pass.
#define OFFS \
	MOVQ (R9)(CX*8), DX; \
	MOVQ 8(R9)(CX*8), R10; \
	MOVQ 16(R9)(CX*8), R12; \
	MOVQ 24(R9)(CX*8), R13

// The kernels work in four passes over the block (the Go loops in two):
// the first does the range test and the segment lookup, and stores the
// argument of the polynomial at 0(SP) and the byte offsets of the rows at
// 1024(SP); the second evaluates the polynomial and the argument a + b of
// exp, stored at 0(SP) and 512(SP); the third (EXPA) the reduced argument
// and exp(r) - 1; the fourth (EXPB) looks up 2^(k/256) and sets the final
// value. The short dependency chains let the processor overlap
// many elements, and the table entries are addressed from general
// registers loaded from memory (not moved from vector registers, and
// not with VGATHERQPD, both slower).

// func twoSidedAVX2(dst, x []float64, tab *[2 * fastNSeg][fastDeg + 2]float64, sign float64) uint64
TEXT ·twoSidedAVX2(SB), $1536-72
	MOVQ dst_base+0(FP), DI
	MOVQ x_base+24(FP), SI
	MOVQ x_len+32(FP), R11
	MOVQ tab+48(FP), BX
	LEAQ ·fastExp2Tab(SB), R8
	XORQ AX, AX
	XORQ CX, CX

twoSidedSeg:
	CMPQ CX, R11
	JAE  twoSidedArgs0
	RANGE(c_m63<>(SB), c_p375<>(SB))

	// the row of seg(|x|) in the left side (x < 0) or the right
	VANDPD   c_absmask<>(SB), Y1, Y2
	VADDPD   c_one<>(SB), Y2, Y2
	ROWS
	VPXOR    Y3, Y3, Y3
	VPCMPGTQ Y1, Y3, Y3
	VPANDN   c_right<>(SB), Y3, Y3
	VPADDQ   Y3, Y13, Y13
	VMOVUPD  Y1, 0(SP)(CX*8)
	VMOVDQU  Y13, 1024(SP)(CX*8)
	ADDQ     $4, CX
	JMP      twoSidedSeg

twoSidedArgs0:
	XORQ CX, CX
	LEAQ 1024(SP), R9

twoSidedArgs:
	CMPQ CX, R11
	JAE  twoSidedExp0
	VMOVUPD 0(SP)(CX*8), Y1
	OFFS
	POLY

	// hm = -0.5 (x >= 0) or -0 (x < 0), xh, a = hm xh xh,
	// b = P + hm (x - xh) (x + xh)
	VMOVUPD   c_mhalf<>(SB), Y6
	VBLENDVPD Y1, c_mzero<>(SB), Y6, Y6
	VANDPD    c_hmask<>(SB), Y1, Y7
	VMULPD    Y7, Y6, Y8
	VMULPD    Y7, Y8, Y8
	VSUBPD    Y7, Y1, Y9
	VMULPD    Y9, Y6, Y9
	VADDPD    Y7, Y1, Y10
	VMULPD    Y10, Y9, Y9
	VADDPD    Y9, Y5, Y5
	VMOVUPD   Y8, 0(SP)(CX*8)
	VMOVUPD   Y5, 512(SP)(CX*8)
	ADDQ      $4, CX
	JMP       twoSidedArgs

twoSidedExp0:
	VBROADCASTSD sign+56(FP), Y15
	XORQ         CX, CX

twoSidedExp:
	CMPQ    CX, R11
	JAE     twoSidedFin0
	VMOVUPD 0(SP)(CX*8), Y8
	VMOVUPD 512(SP)(CX*8), Y5
	EXPA
	ADDQ    $4, CX
	JMP     twoSidedExp

twoSidedFin0:
	XORQ CX, CX
	LEAQ 512(SP), R9

twoSidedFin:
	CMPQ CX, R11
	JAE  twoSidedDone
	RANGEMASK(c_m63<>(SB), c_p375<>(SB))
	EXPB
	VMULPD    Y15, Y12, Y12
	VBLENDVPD Y14, Y12, Y0, Y12
	VMOVUPD   Y12, (DI)(CX*8)
	ADDQ      $4, CX
	JMP       twoSidedFin

twoSidedDone:
	VZEROUPPER
	MOVQ AX, ret+64(FP)
	RET

// func log1pExpAVX2(dst, x []float64) uint64
TEXT ·log1pExpAVX2(SB), $1536-56
	MOVQ dst_base+0(FP), DI
	MOVQ x_base+24(FP), SI
	MOVQ x_len+32(FP), R11
	LEAQ ·log1pExpTab(SB), BX
	LEAQ ·fastExp2Tab(SB), R8
	XORQ AX, AX
	XORQ CX, CX

log1pExpSeg:
	CMPQ CX, R11
	JAE  log1pExpArgs0
	RANGE(c_m63<>(SB), c_p63<>(SB))
	VANDPD  c_absmask<>(SB), Y1, Y1
	VADDPD  c_one<>(SB), Y1, Y2
	ROWS
	VMOVUPD Y1, 0(SP)(CX*8)
	VMOVDQU Y13, 1024(SP)(CX*8)
	ADDQ    $4, CX
	JMP     log1pExpSeg

log1pExpArgs0:
	XORQ CX, CX
	LEAQ 1024(SP), R9

log1pExpArgs:
	CMPQ CX, R11
	JAE  log1pExpExp0
	VMOVUPD 0(SP)(CX*8), Y1
	OFFS
	POLY

	// a = -u, b = P
	VXORPD  c_mzero<>(SB), Y1, Y8
	VMOVUPD Y8, 0(SP)(CX*8)
	VMOVUPD Y5, 512(SP)(CX*8)
	ADDQ    $4, CX
	JMP     log1pExpArgs

log1pExpExp0:
	XORQ CX, CX

log1pExpExp:
	CMPQ    CX, R11
	JAE     log1pExpFin0
	VMOVUPD 0(SP)(CX*8), Y8
	VMOVUPD 512(SP)(CX*8), Y5
	EXPA
	ADDQ    $4, CX
	JMP     log1pExpExp

log1pExpFin0:
	XORQ CX, CX
	LEAQ 512(SP), R9

log1pExpFin:
	CMPQ CX, R11
	JAE  log1pExpDone
	RANGEMASK(c_m63<>(SB), c_p63<>(SB))
	VANDPD  Y14, Y0, Y15
	EXPB

	// s x + e, s = 1 for x >= 0
	VPXOR     Y9, Y9, Y9
	VMOVUPD   c_one<>(SB), Y10
	VBLENDVPD Y15, Y9, Y10, Y10
	VMULPD    Y15, Y10, Y10
	VADDPD    Y10, Y12, Y12
	VBLENDVPD Y14, Y12, Y0, Y12
	VMOVUPD   Y12, (DI)(CX*8)
	ADDQ      $4, CX
	JMP       log1pExpFin

log1pExpDone:
	VZEROUPPER
	MOVQ AX, ret+48(FP)
	RET
