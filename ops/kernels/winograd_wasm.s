//go:build goexperiment.simd

#include "textflag.h"
#include "../internal/wasmasm/wasm.h"

// winoOutRows (see winograd_simd.go) in WebAssembly SIMD128: the Winograd
// output transform Aᵀ m A of one tile row of every output channel, four
// tiles at a time, with the epilogue, written out because Go kept the
// sixteen products and their sums in stack arrays and moved lanes one by
// one (the transform cost half as much as the GEMM before it on
// SqueezeNet's 3×3 layers, whose channels are few).
//
// Per block of four tiles: the 16 ξ vectors, summed down (s0 = m0+m1+m2,
// s1 = m1-m2-m3 per column) then across (e = s0+s1+s2, o = s1-s2-s3), in
// the scalar build's order (winoOutputRow); an output row's even columns
// e and odd columns o are interleaved by i8x16.swizzle into its eight
// columns; bias, residual, Relu; two stores. The last block of a row
// overlaps the one before it when the tiles are not a multiple of four;
// when the output width is odd it ends one column past the row, and its
// second vector is moved one lane down (columns 3…6) and stored 4 bytes
// earlier.
//
// Locals (R* are i64, V* are v128):
//	R0  the channel's first GEMM output     R7  flags (winoBias, ...)
//	R1  params (winoParams)                 R8  an address in the 16 matrices
//	R2  the block: its first tile × 4       R9  the block's place in y
//	R3  the channel's output row            R10 where the block's second
//	R4  the channel's residual row              vector goes: 16, or 12
//	R5  the channel's bias                  R11 the block's place in the residual
//	R6  channels left                       R12 lanes (winoLanes)
//	V0…V7 s0 and s1 per column, V8…V11 e and o of both rows, V12 V13 an
//	output row, V14 the bias, V15 zero.
//
// Go's wasm assembler drops the offset of V128Store, so stores compute
// their addresses in full.

#define PARAM(off) Get R1; I32WrapI64; I64Load $off
#define LANE(off) Get R12; I32WrapI64; V128Load $off

// LDA pushes the ξ vector at R8 plus the parameter at poff (i·4S for ξ = 4i + column).
#define LDA(poff) Get R8; PARAM(poff); I64Add; I32WrapI64; V128Load $0

// COL sums one column of the 4×4 products down: s0 = m0+m1+m2,
// s1 = m1-m2-m3, then moves R8 to the next column.
#define COL(s0, s1) \
	LDA(8); Set V12; LDA(16); Set V13; \
	Get R8; I32WrapI64; V128Load $0; Get V12; F32x4Add; Get V13; F32x4Add; Set s0; \
	Get V12; Get V13; F32x4Sub; LDA(24); F32x4Sub; Set s1; \
	Get R8; PARAM(0); I64Add; Set R8

// RELU sets v to 0 where v < 0 (NaN and -0 stay).
#define RELU(v) Get V15; Get v; Get v; Get V15; F32x4Lt; V128Bitselect; Set v

// ROW writes one output row of the block from its even (e) and odd (od)
// columns at R9, the residual read at R11.
#define ROW(e, od) \
	Get e; LANE(0); I8x16Swizzle; Get od; LANE(16); I8x16Swizzle; V128Or; Set V12; \
	Get e; LANE(32); I8x16Swizzle; Get od; LANE(48); I8x16Swizzle; V128Or; Set V13; \
	Get R10; I64Const $12; I64Eq; If; \
		Get V12; LANE(64); I8x16Swizzle; Get V13; LANE(80); I8x16Swizzle; V128Or; Set V13; \
	End; \
	Get R7; I64Const $1; I64And; I32WrapI64; If; \
		Get V12; Get V14; F32x4Add; Set V12; \
		Get V13; Get V14; F32x4Add; Set V13; \
	End; \
	Get R7; I64Const $2; I64And; I32WrapI64; If; \
		Get V12; Get R11; I32WrapI64; V128Load $0; F32x4Add; Set V12; \
		Get V13; Get R11; Get R10; I64Add; I32WrapI64; V128Load $0; F32x4Add; Set V13; \
	End; \
	Get R7; I64Const $4; I64And; I32WrapI64; If; \
		RELU(V12); RELU(V13); \
	End; \
	Get R9; I32WrapI64; Get V12; V128Store $0; \
	Get R9; Get R10; I64Add; I32WrapI64; Get V13; V128Store $0

// func winoOutRows(mo, y, res, bias unsafe.Pointer, m int, flags int, params, lanes unsafe.Pointer)
TEXT ·winoOutRows(SB), NOSPLIT, $0-64
	MOVD mo+0(FP), R0
	MOVD y+8(FP), R3
	MOVD res+16(FP), R4
	MOVD bias+24(FP), R5
	MOVD m+32(FP), R6
	MOVD flags+40(FP), R7
	MOVD params+48(FP), R1
	MOVD lanes+56(FP), R12
	I32Const $0
	I32x4Splat
	Tee V15
	Set V14

	Block
	Loop
		// One output channel per trip.
		BREAKZ(R6)
		Get R7
		I64Const $1
		I64And
		I32WrapI64
		If
			Get R5
			I32WrapI64
			F32Load $0
			F32x4Splat
			Set V14
		End
		I64Const $0
		Set R2

		Block
		Loop
			// The block of tiles [R2/4, R2/4+4), the last one at params' last.
			Get R2
			PARAM(56)
			I64GtU
			If
				PARAM(56)
				Set R2
			End
			I64Const $16
			Set R10
			Get R7
			I64Const $8
			I64And
			I64Eqz
			I32Eqz
			Get R2
			PARAM(56)
			I64Eq
			I32And
			If
				I64Const $12
				Set R10
			End
			Get R0
			Get R2
			I64Add
			Set R8
			COL(V0, V4)
			COL(V1, V5)
			COL(V2, V6)
			COL(V3, V7)
			Get V0; Get V1; F32x4Add; Get V2; F32x4Add; Set V8
			Get V1; Get V2; F32x4Sub; Get V3; F32x4Sub; Set V9
			Get V4; Get V5; F32x4Add; Get V6; F32x4Add; Set V10
			Get V5; Get V6; F32x4Sub; Get V7; F32x4Sub; Set V11
			// The block's eight output columns start at column 2·tile.
			Get R3
			Get R2
			I64Const $1
			I64Shl
			I64Add
			Set R9
			Get R4
			Get R2
			I64Const $1
			I64Shl
			I64Add
			Set R11
			ROW(V8, V9)
			Get R7
			I64Const $16
			I64And
			I32WrapI64
			If
				Get R9
				PARAM(48)
				I64Add
				Set R9
				Get R11
				PARAM(48)
				I64Add
				Set R11
				ROW(V10, V11)
			End
			Get R2
			PARAM(56)
			I64Eq
			BrIf $1
			ADDI(R2, 16)
			Br $0
		End
		End

		Get R0
		PARAM(32)
		I64Add
		Set R0
		Get R3
		PARAM(40)
		I64Add
		Set R3
		Get R4
		PARAM(40)
		I64Add
		Set R4
		ADDI(R5, 4)
		SUBI(R6, 1)
		Br $0
	End
	End
	RET

// winoColsRun (see winograd_simd.go): the Winograd input transform across
// the columns of one transformed row, for runs of four tiles whose first
// is a multiple of four in the block: the row's columns 2t…2t+9 as two
// pairs of vectors (at 2t and 2t+2), split into even and odd columns by
// i8x16.swizzle (e0 o0 from the first pair, e1 o1 from the second), then
// e0-e1, o0+e1, e1-o0, o0-o1 stored into the four packed operands at the
// tiles' place in their panel. Go split each row into even and odd
// columns lane by lane in a pass of its own, then stored through a loop
// trip per four tiles that recomputed the panel offset.
//
// Locals: R0 the row at the run's first tile, R1 the tile index, R2 runs
// left, R3…R6 the four operands (at the channel's row of a panel), R7
// bytes between panels, R8 lanes, R9 the store offset, R10 an address;
// V0…V3 e0 o0 e1 o1, V4 V5 a pair.

// SPLIT sets e and o to the even and odd columns of the pair of vectors at
// R10+off and R10+off+16.
#define SPLIT(off, e, o) \
	Get R10; I32WrapI64; V128Load $off; Set V4; \
	Get R10; I32WrapI64; V128Load $(off+16); Set V5; \
	Get V4; Get R8; I32WrapI64; V128Load $0; I8x16Swizzle; Get V5; Get R8; I32WrapI64; V128Load $16; I8x16Swizzle; V128Or; Set e; \
	Get V4; Get R8; I32WrapI64; V128Load $32; I8x16Swizzle; Get V5; Get R8; I32WrapI64; V128Load $48; I8x16Swizzle; V128Or; Set o

// PUT stores the vector on the stack into the operand at reg, at R9.
#define PUT(reg) Set V4; Get reg; Get R9; I64Add; I32WrapI64; Get V4; V128Store $0

// func winoColsRun(row unsafe.Pointer, tt, runs int, p0, p1, p2, p3 unsafe.Pointer, panel uintptr, lanes unsafe.Pointer)
TEXT ·winoColsRun(SB), NOSPLIT, $0-72
	MOVD row+0(FP), R0
	MOVD tt+8(FP), R1
	MOVD runs+16(FP), R2
	MOVD p0+24(FP), R3
	MOVD p1+32(FP), R4
	MOVD p2+40(FP), R5
	MOVD p3+48(FP), R6
	MOVD panel+56(FP), R7
	MOVD lanes+64(FP), R8

	Block
	Loop
		BREAKZ(R2)
		Get R0
		Set R10
		SPLIT(0, V0, V1)
		SPLIT(8, V2, V3)
		// The tiles' place: panel tt/8, column tt%8 (0 or 4), in bytes.
		Get R1
		I64Const $3
		I64ShrU
		Get R7
		I64Mul
		Get R1
		I64Const $7
		I64And
		I64Const $2
		I64Shl
		I64Add
		Set R9
		Get V0; Get V2; F32x4Sub; PUT(R3)
		Get V1; Get V2; F32x4Add; PUT(R4)
		Get V2; Get V1; F32x4Sub; PUT(R5)
		Get V1; Get V3; F32x4Sub; PUT(R6)
		ADDI(R0, 32)
		ADDI(R1, 4)
		SUBI(R2, 1)
		Br $0
	End
	End
	RET
