//go:build goexperiment.simd

#include "textflag.h"
#include "../internal/wasmasm/wasm.h"

// The GEMM's sweeps of 4×8 tiles, down a column (kernelColumn) or across a
// row (kernelRow; see sweep4x8 in sgemm_simd.go), in WebAssembly SIMD128,
// written out because Go's compiler spills them: with the loop over
// tiles around the depth loop, its register allocator reloads half a dozen
// integers and a vector from the stack on every k step (the tile loop cost
// more than the calls it saves). Here every value lives in a wasm local
// and V8 allocates the machine registers.
//
// Locals (Go's wasm assembler: R* are i64, V* are v128):
//	R0  A pointer in the depth loop     R8  tiles left
//	R1  B pointer in the depth loop     R9  depth k
//	R2  depth steps left                R10 flags (sweepAcc, ...)
//	R3  C: the tile's first row         R11 bias: the tile's first row's
//	R4  ldc in bytes                    R12 residual: the tile's first row
//	R5  ldb in bytes                    R13 ldr in bytes
//	R6  A: the tile's panel             R14 B: the panel's first row
//	R7  as (A panel stride) in bytes    R15 a row address of C or residual;
//	                                        bs, cs (read per tile)
//	V0…V7 the accumulators (row r in V2r, V2r+1), V8 V9 B, V10 an A
//	broadcast (and HSWISH's temporary), V11 zero, V12…V14 6, 1/2 and 1.
//
// Per element the arithmetic is the Go kernels' (kernel4x8, kernel4x8s) in
// their order: the products summed over k (multiply, then add), then C's
// old value when accumulating, the row bias, the residual, then Relu or
// HardSwish.
//
// Go's wasm assembler drops the offset of V128Store (it reads the operand
// from the field where it does not put it), so stores compute their
// addresses in full.

// STEP is one depth step: two B vectors at R1, advanced by ldb, and four
// A broadcasts at R0+aoff.
#define MADD(acc, b) Get acc; Get V10; Get b; F32x4Mul; F32x4Add; Set acc
#define SPLAT(off) Get R0; I32WrapI64; F32Load $off; F32x4Splat; Set V10
#define STEP(aoff) \
	Get R1; I32WrapI64; V128Load $0; Set V8; \
	Get R1; I32WrapI64; V128Load $16; Set V9; \
	Get R1; Get R5; I64Add; Set R1; \
	SPLAT(aoff); MADD(V0, V8); MADD(V1, V9); \
	SPLAT(aoff+4); MADD(V2, V8); MADD(V3, V9); \
	SPLAT(aoff+8); MADD(V4, V8); MADD(V5, V9); \
	SPLAT(aoff+12); MADD(V6, V8); MADD(V7, V9)

// ADDROW adds the two vectors at R15 (+16) to accumulators lo, hi.
#define ADDROW(lo, hi) \
	Get lo; Get R15; I32WrapI64; V128Load $0; F32x4Add; Set lo; \
	Get hi; Get R15; I32WrapI64; V128Load $16; F32x4Add; Set hi

// BIAS adds the row bias at R11+off to accumulators lo, hi.
#define BIAS(off, lo, hi) \
	Get R11; I32WrapI64; F32Load $off; F32x4Splat; Set V10; \
	Get lo; Get V10; F32x4Add; Set lo; \
	Get hi; Get V10; F32x4Add; Set hi

// RELU sets v to 0 where v < 0 (NaN and -0 stay).
#define RELU(v) Get V11; Get v; Get v; Get V11; F32x4Lt; V128Bitselect; Set v

// HSWISH sets v to v · max(0, min(1, v/6 + 1/2)), with V12…V14 holding 6,
// 1/2 and 1. pmin(1, t) and pmax(0, u) (one instruction each, where min
// and max take several to propagate NaN) give what min and max give:
// t is NaN only where v is, and then so is the product; t is never -0.
#define HSWISH(v) \
	Get v; Get v; Get V12; F32x4Div; Get V13; F32x4Add; Set V10; \
	Get V14; Get V10; F32x4Pmin; Set V10; \
	Get V11; Get V10; F32x4Pmax; F32x4Mul; Set v

// STOREROW stores accumulators lo, hi at R15 and R15+16.
#define STOREROW(lo, hi) \
	Get R15; I32WrapI64; Get lo; V128Store $0; \
	Get R15; I64Const $16; I64Add; I32WrapI64; Get hi; V128Store $0

// NEXT moves R15 on by the stride in reg.
#define NEXT(reg) Get R15; Get reg; I64Add; Set R15

// func sweep4x8(a unsafe.Pointer, as uintptr, b unsafe.Pointer, ldb uintptr, k int, c unsafe.Pointer, ldc uintptr, nq int, flags int, bias, res unsafe.Pointer, ldr, bs, cs uintptr)
TEXT ·sweep4x8(SB), NOSPLIT, $0-112
	MOVD a+0(FP), R6
	MOVD as+8(FP), R7
	MOVD b+16(FP), R14
	MOVD ldb+24(FP), R5
	MOVD k+32(FP), R9
	MOVD c+40(FP), R3
	MOVD ldc+48(FP), R4
	MOVD nq+56(FP), R8
	MOVD flags+64(FP), R10
	MOVD bias+72(FP), R11
	MOVD res+80(FP), R12
	MOVD ldr+88(FP), R13
	I32Const $0
	I32x4Splat
	Set V11
	F32Const $6.0
	F32x4Splat
	Set V12
	F32Const $0.5
	F32x4Splat
	Set V13
	F32Const $1.0
	F32x4Splat
	Set V14

	Block
	Loop
		// One tile per trip, while tiles are left.
		BREAKZ(R8)
		Get V11
		Tee V0
		Tee V1
		Tee V2
		Tee V3
		Tee V4
		Tee V5
		Tee V6
		Set V7
		Get R6
		Set R0
		Get R14
		Set R1
		Get R9
		Set R2

		// The depth loop, two steps per trip.
		Block
		Loop
			Get R2
			I64Const $2
			I64LtS
			BrIf $1
			STEP(0)
			STEP(16)
			ADDI(R0, 32)
			SUBI(R2, 2)
			Br $0
		End
		End
		Get R2
		I64Eqz
		I32Eqz
		If
			STEP(0)
		End

		// C's old values (sweepAcc).
		Get R10
		I64Const $1
		I64And
		I32WrapI64
		If
			Get R3
			Set R15
			ADDROW(V0, V1)
			NEXT(R4)
			ADDROW(V2, V3)
			NEXT(R4)
			ADDROW(V4, V5)
			NEXT(R4)
			ADDROW(V6, V7)
		End
		// The row bias (sweepBias).
		Get R10
		I64Const $2
		I64And
		I32WrapI64
		If
			BIAS(0, V0, V1)
			BIAS(4, V2, V3)
			BIAS(8, V4, V5)
			BIAS(12, V6, V7)
		End
		// The residual (sweepResidual).
		Get R10
		I64Const $4
		I64And
		I32WrapI64
		If
			Get R12
			Set R15
			ADDROW(V0, V1)
			NEXT(R13)
			ADDROW(V2, V3)
			NEXT(R13)
			ADDROW(V4, V5)
			NEXT(R13)
			ADDROW(V6, V7)
		End
		// Relu (sweepRelu).
		Get R10
		I64Const $8
		I64And
		I32WrapI64
		If
			RELU(V0)
			RELU(V1)
			RELU(V2)
			RELU(V3)
			RELU(V4)
			RELU(V5)
			RELU(V6)
			RELU(V7)
		End
		// HardSwish (sweepHardSwish).
		Get R10
		I64Const $16
		I64And
		I32WrapI64
		If
			HSWISH(V0)
			HSWISH(V1)
			HSWISH(V2)
			HSWISH(V3)
			HSWISH(V4)
			HSWISH(V5)
			HSWISH(V6)
			HSWISH(V7)
		End
		Get R3
		Set R15
		STOREROW(V0, V1)
		NEXT(R4)
		STOREROW(V2, V3)
		NEXT(R4)
		STOREROW(V4, V5)
		NEXT(R4)
		STOREROW(V6, V7)

		// The next tile: A's and B's next panels (either stride may be 0),
		// C's next tile, bias and residual four rows on.
		Get R6
		Get R7
		I64Add
		Set R6
		MOVD bs+96(FP), R15
		Get R14
		Get R15
		I64Add
		Set R14
		MOVD cs+104(FP), R15
		Get R3
		Get R15
		I64Add
		Set R3
		ADDI(R11, 16)
		Get R12
		Get R13
		I64Const $2
		I64Shl
		I64Add
		Set R12
		SUBI(R8, 1)
		Br $0
	End
	End
	RET
