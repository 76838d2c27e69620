//go:build goexperiment.simd

#include "textflag.h"
#include "../internal/wasmasm/wasm.h"

// maxPool3x3s2 (see pool_simd.go) in WebAssembly SIMD128, written out
// because Go compiles each loop trip of MaxPool2D's row helpers through its
// dispatch table, and the row's bookkeeping cost more than its maxima
// (SqueezeNet's first MaxPool: 0.62 ms, a third of it outside the loops).
//
// Per output row, two passes over wasm locals:
//   - down the three kernel rows, f32x4.pmax (t < v ? v : t: a NaN v is
//     skipped, a NaN t stays) into col, and the first kernel row summed
//     into V8, whose lanes are NaN if that row holds a NaN (or an
//     infinity meets its opposite: a false alarm, which costs only speed);
//   - across three columns of col at every second one, pmax again, the
//     even windows of two vectors gathered by two i8x16.swizzles.
// A NaN in a first kernel row makes the separable scan wrong (a NaN in
// col hides the rows below it), so the function stops before such a row
// and returns how many rows it did.
//
// Locals (R* are i64, V* are v128):
//	R0  x: the output row's first kernel row   R7  col
//	R1  ldx: bytes between kernel rows         R8  the last vertical offset, 8n-12
//	R2  sx: bytes between output rows' inputs  R9  the last output offset, 4n-16
//	R3  y: the output row                      R10 rows done
//	R4  ldy: bytes between output rows         R11 the pass's byte offset
//	R5  rows                                   R12 an address
//	R6  n: outputs per row                     V8 the NaN probe, V9 V10 swizzles
//
// Both passes go four lanes at a time, the last four overlapping those
// before them. Go's wasm assembler drops the offset of V128Store, so
// stores compute their addresses in full.

// func maxPool3x3s2(x unsafe.Pointer, ldx, sx uintptr, y unsafe.Pointer, ldy uintptr, rows, n int, col, lanes unsafe.Pointer) int
TEXT ·maxPool3x3s2(SB), NOSPLIT, $0-80
	MOVD x+0(FP), R0
	MOVD ldx+8(FP), R1
	MOVD sx+16(FP), R2
	MOVD y+24(FP), R3
	MOVD ldy+32(FP), R4
	MOVD rows+40(FP), R5
	MOVD n+48(FP), R6
	MOVD col+56(FP), R7
	MOVD lanes+64(FP), R12
	Get R12
	I32WrapI64
	V128Load $0
	Set V9
	Get R12
	I32WrapI64
	V128Load $16
	Set V10
	Get R6
	I64Const $3
	I64Shl
	I64Const $12
	I64Sub
	Set R8
	Get R6
	I64Const $2
	I64Shl
	I64Const $16
	I64Sub
	Set R9
	I64Const $0
	Set R10

	Block
	Loop
		Get R10
		Get R5
		I64GeS
		BrIf $1

		// Down the kernel rows, over input columns [0, 2n+1).
		I32Const $0
		I32x4Splat
		Set V8
		I64Const $0
		Set R11
		Block
		Loop
			Get R11
			Get R8
			I64GtU
			If
				Get R8
				Set R11
			End
			Get R0
			Get R11
			I64Add
			Set R12
			Get R12
			I32WrapI64
			V128Load $0
			Set V0
			Get V8
			Get V0
			F32x4Add
			Set V8
			Get V0
			Get R12
			Get R1
			I64Add
			Tee R12
			I32WrapI64
			V128Load $0
			F32x4Pmax
			Get R12
			Get R1
			I64Add
			I32WrapI64
			V128Load $0
			F32x4Pmax
			Set V0
			Get R7
			Get R11
			I64Add
			I32WrapI64
			Get V0
			V128Store $0
			Get R11
			Get R8
			I64Eq
			BrIf $1
			ADDI(R11, 16)
			Br $0
		End
		End

		// A NaN in the first kernel row: the caller takes this row.
		Get V8
		Get V8
		F32x4Ne
		V128AnyTrue
		BrIf $1

		// Across: output j is the window at col[2j].
		I64Const $0
		Set R11
		Block
		Loop
			Get R11
			Get R9
			I64GtU
			If
				Get R9
				Set R11
			End
			Get R7
			Get R11
			Get R11
			I64Add
			I64Add
			Set R12
			Get R12
			I32WrapI64
			V128Load $0
			Get R12
			I32WrapI64
			V128Load $4
			F32x4Pmax
			Get R12
			I32WrapI64
			V128Load $8
			F32x4Pmax
			Get V9
			I8x16Swizzle
			Get R12
			I32WrapI64
			V128Load $16
			Get R12
			I32WrapI64
			V128Load $20
			F32x4Pmax
			Get R12
			I32WrapI64
			V128Load $24
			F32x4Pmax
			Get V10
			I8x16Swizzle
			V128Or
			Set V0
			Get R3
			Get R11
			I64Add
			I32WrapI64
			Get V0
			V128Store $0
			Get R11
			Get R9
			I64Eq
			BrIf $1
			ADDI(R11, 16)
			Br $0
		End
		End

		Get R0
		Get R2
		I64Add
		Set R0
		Get R3
		Get R4
		I64Add
		Set R3
		ADDI(R10, 1)
		Br $0
	End
	End
	MOVD R10, ret+72(FP)
	RET

// avgPlanes (see pool_simd.go): per plane, the sum in four vectors of four
// lanes over 16 floats at a time, then in the first vector over 4 at a
// time, the vectors added ((v0+v1) + (v2+v3)) and their lanes
// ((l0+l2) + (l1+l3), moved by two i8x16.swizzles), the last floats one by
// one, and the mean stored. Go's loop trips through its dispatch table
// cost more than the additions (SqueezeNet's 1000 planes of 169: 0.12 ms).
//
// Locals: R0 the plane, R1 its mean, R2 planes left, R3 is, R4 lanes,
// R5 floats left, R6 the next float; V0…V3 the sums; F0 the sum, F1 is.

// func avgPlanes(x, y unsafe.Pointer, planes, is int, lanes unsafe.Pointer)
TEXT ·avgPlanes(SB), NOSPLIT, $0-40
	MOVD x+0(FP), R0
	MOVD y+8(FP), R1
	MOVD planes+16(FP), R2
	MOVD is+24(FP), R3
	MOVD lanes+32(FP), R4
	Get R3
	F32ConvertI64S
	Set F1

	Block
	Loop
		BREAKZ(R2)
		Get R3
		Set R5
		Get R0
		Set R6
		I32Const $0
		I32x4Splat
		Tee V0
		Tee V1
		Tee V2
		Set V3

		Block
		Loop
			Get R5
			I64Const $16
			I64LtS
			BrIf $1
			Get V0; Get R6; I32WrapI64; V128Load $0; F32x4Add; Set V0
			Get V1; Get R6; I32WrapI64; V128Load $16; F32x4Add; Set V1
			Get V2; Get R6; I32WrapI64; V128Load $32; F32x4Add; Set V2
			Get V3; Get R6; I32WrapI64; V128Load $48; F32x4Add; Set V3
			ADDI(R6, 64)
			SUBI(R5, 16)
			Br $0
		End
		End

		Block
		Loop
			Get R5
			I64Const $4
			I64LtS
			BrIf $1
			Get V0; Get R6; I32WrapI64; V128Load $0; F32x4Add; Set V0
			ADDI(R6, 16)
			SUBI(R5, 4)
			Br $0
		End
		End

		Get V0; Get V1; F32x4Add; Get V2; Get V3; F32x4Add; F32x4Add; Set V0
		Get V0; Get V0; Get R4; I32WrapI64; V128Load $0; I8x16Swizzle; F32x4Add; Set V0
		Get V0; Get V0; Get R4; I32WrapI64; V128Load $16; I8x16Swizzle; F32x4Add
		F32x4ExtractLane
		Set F0

		Block
		Loop
			BREAKZ(R5)
			Get F0; Get R6; I32WrapI64; F32Load $0; F32Add; Set F0
			ADDI(R6, 4)
			SUBI(R5, 1)
			Br $0
		End
		End

		Get R1
		I32WrapI64
		Get F0
		Get F1
		F32Div
		F32Store $0
		Get R6
		Set R0
		ADDI(R1, 4)
		SUBI(R2, 1)
		Br $0
	End
	End
	RET
