#include "textflag.h"

// matMulT4 computes, for 4 rows of m at a time and K ymm registers of 4
// batch lanes each (K = 3, 2 or 1 for nb > 8, > 4 or <= 4: 12, 8 or 4
// lanes),
//
//	acc[r][lane] = 0; for j: acc[r][lane] = acc[r][lane] + m[i+r, j]*vT[j, lane]
//
// with a separate VMULPD and VADDPD (never FMA), j in order: each output is
// the same sequential sum, bit for bit, as the pure-Go matMulT. The four
// rows' accumulators for each group of 4 lanes are transposed in registers
// so that each lane's 4 outputs y[lane*rows+i .. i+3] are one 32-byte store;
// lanes at or past nb (the padding of vT) are not stored. Before the
// transposition each accumulator becomes c[lane] + acc (ADD4: the offset of
// Affine's intercept, -0 for a plain product), the last operation on each
// output as in matMulT.
//
// Arguments: y points at y[b0*rows] (the first lane of the group), m at
// m[0], vT at vT[0, b0] (row stride vstride elements), nblk = rows/4 blocks,
// c at the offset of lane b0 (readable for the 4, 8 or 12 lanes).
//
// Registers: DI y of the row block, SI m of the row block, DX vT, R8 cols,
// R9 cols*8 (m's row stride), R10 vstride*8, R11 rows*8 (y's lane stride),
// CX blocks left, BX nb; in the j loop R12 and R13 walk rows 0 and 2 of the
// block (rows 1 and 3 at +R9), R14 walks vT, AX counts j. Row r's
// accumulators are Y(K*r) .. Y(K*r+K-1).

// ROWS starts a block: the row pointers, vT and the count of j.
#define ROWS \
	MOVQ SI, R12; \
	LEAQ (SI)(R9*2), R13; \
	MOVQ DX, R14; \
	MOVQ R8, AX

// MAC adds the product of the broadcast row value in Y12 and the 4 lanes
// of vT at off into acc, through tmp.
#define MAC(off, tmp, acc) \
	VMULPD off(R14), Y12, tmp; \
	VADDPD tmp, acc, acc

// NEXTJ moves the row pointers and vT to the next j.
#define NEXTJ \
	ADDQ $8, R12; \
	ADDQ $8, R13; \
	ADDQ R10, R14

// LANE stores lane vector r at R12 unless the lane count nb is reached.
#define LANE(r, next) \
	CMPQ AX, BX; \
	JGE next; \
	VMOVUPD r, (R12); \
	ADDQ R11, R12; \
	INCQ AX

// STORE4 transposes the 4 rows' accumulators a, b, c, d of one group of 4
// lanes into lanes x rows and stores the lanes below nb.
#define STORE4(a, b, c, d, next) \
	VUNPCKLPD b, a, Y12; \
	VUNPCKHPD b, a, Y13; \
	VUNPCKLPD d, c, Y14; \
	VUNPCKHPD d, c, Y15; \
	VPERM2F128 $0x20, Y14, Y12, a; \
	VPERM2F128 $0x20, Y15, Y13, b; \
	VPERM2F128 $0x31, Y14, Y12, c; \
	VPERM2F128 $0x31, Y15, Y13, d; \
	LANE(a, next); \
	LANE(b, next); \
	LANE(c, next); \
	LANE(d, next)

// ZERO4 clears four accumulators.
#define ZERO4(a, b, c, d) \
	VXORPD a, a, a; \
	VXORPD b, b, b; \
	VXORPD c, c, c; \
	VXORPD d, d, d

// ADD4 adds the 4 lanes' offsets at off(R12) to four accumulators.
#define ADD4(off, a, b, c, d) \
	VMOVUPD off(R12), Y12; \
	VADDPD a, Y12, a; \
	VADDPD b, Y12, b; \
	VADDPD c, Y12, c; \
	VADDPD d, Y12, d

// NEXTBLOCK moves y and m to the next block of 4 rows.
#define NEXTBLOCK \
	ADDQ $32, DI; \
	LEAQ (SI)(R9*4), SI; \
	DECQ CX

// func matMulT4(y, m, vT *float64, rows, nblk, cols, vstride, nb int, c *float64)
TEXT ·matMulT4(SB), NOSPLIT, $0-72
	MOVQ y+0(FP), DI
	MOVQ m+8(FP), SI
	MOVQ vT+16(FP), DX
	MOVQ rows+24(FP), R11
	SHLQ $3, R11
	MOVQ nblk+32(FP), CX
	MOVQ cols+40(FP), R8
	MOVQ R8, R9
	SHLQ $3, R9
	MOVQ vstride+48(FP), R10
	SHLQ $3, R10
	MOVQ nb+56(FP), BX
	TESTQ CX, CX
	JZ done
	CMPQ BX, $8
	JGT block3
	CMPQ BX, $4
	JGT block2

block1:
	ZERO4(Y0, Y1, Y2, Y3)
	ROWS
	TESTQ AX, AX
	JZ store1

loop1:
	VBROADCASTSD (R12), Y12
	MAC(0, Y13, Y0)
	VBROADCASTSD (R12)(R9*1), Y12
	MAC(0, Y13, Y1)
	VBROADCASTSD (R13), Y12
	MAC(0, Y13, Y2)
	VBROADCASTSD (R13)(R9*1), Y12
	MAC(0, Y13, Y3)
	NEXTJ
	DECQ AX
	JNZ loop1

store1:
	MOVQ c+64(FP), R12
	ADD4(0, Y0, Y1, Y2, Y3)
	MOVQ DI, R12
	XORQ AX, AX
	STORE4(Y0, Y1, Y2, Y3, next1)

next1:
	NEXTBLOCK
	JNZ block1
	JMP done

block2:
	ZERO4(Y0, Y1, Y2, Y3)
	ZERO4(Y4, Y5, Y6, Y7)
	ROWS
	TESTQ AX, AX
	JZ store2

loop2:
	VBROADCASTSD (R12), Y12
	MAC(0, Y13, Y0)
	MAC(32, Y14, Y1)
	VBROADCASTSD (R12)(R9*1), Y12
	MAC(0, Y13, Y2)
	MAC(32, Y14, Y3)
	VBROADCASTSD (R13), Y12
	MAC(0, Y13, Y4)
	MAC(32, Y14, Y5)
	VBROADCASTSD (R13)(R9*1), Y12
	MAC(0, Y13, Y6)
	MAC(32, Y14, Y7)
	NEXTJ
	DECQ AX
	JNZ loop2

store2:
	MOVQ c+64(FP), R12
	ADD4(0, Y0, Y2, Y4, Y6)
	ADD4(32, Y1, Y3, Y5, Y7)
	MOVQ DI, R12
	XORQ AX, AX
	STORE4(Y0, Y2, Y4, Y6, next2)
	STORE4(Y1, Y3, Y5, Y7, next2)

next2:
	NEXTBLOCK
	JNZ block2
	JMP done

block3:
	ZERO4(Y0, Y1, Y2, Y3)
	ZERO4(Y4, Y5, Y6, Y7)
	ZERO4(Y8, Y9, Y10, Y11)
	ROWS
	TESTQ AX, AX
	JZ store3

loop3:
	VBROADCASTSD (R12), Y12
	MAC(0, Y13, Y0)
	MAC(32, Y14, Y1)
	MAC(64, Y15, Y2)
	VBROADCASTSD (R12)(R9*1), Y12
	MAC(0, Y13, Y3)
	MAC(32, Y14, Y4)
	MAC(64, Y15, Y5)
	VBROADCASTSD (R13), Y12
	MAC(0, Y13, Y6)
	MAC(32, Y14, Y7)
	MAC(64, Y15, Y8)
	VBROADCASTSD (R13)(R9*1), Y12
	MAC(0, Y13, Y9)
	MAC(32, Y14, Y10)
	MAC(64, Y15, Y11)
	NEXTJ
	DECQ AX
	JNZ loop3

store3:
	MOVQ c+64(FP), R12
	ADD4(0, Y0, Y3, Y6, Y9)
	ADD4(32, Y1, Y4, Y7, Y10)
	ADD4(64, Y2, Y5, Y8, Y11)
	MOVQ DI, R12
	XORQ AX, AX
	STORE4(Y0, Y3, Y6, Y9, next3)
	STORE4(Y1, Y4, Y7, Y10, next3)
	STORE4(Y2, Y5, Y8, Y11, next3)

next3:
	NEXTBLOCK
	JNZ block3

done:
	VZEROUPPER
	RET
