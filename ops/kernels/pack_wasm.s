//go:build goexperiment.simd

#include "textflag.h"
#include "../internal/wasmasm/wasm.h"

// packA4 (see sgemm_simd.go): packAPanel's common case, four rows of a
// row-major A into one k-major panel (dst[4p + r] = alpha·a[r·lda + p]),
// element by element in WebAssembly. Go's loop, a trip per depth through
// its dispatch table with its bounds checks, was a fifth of a grouped 1×1
// convolution over few pixels (ShuffleNet's, whose weights the GEMM packs
// on every run: Conv reads them in place, see README "Memory").
//
// Locals: R0…R3 the four rows, R4 dst, R5 depths left; F0 alpha.

// PUT stores alpha·row[off] at dst+doff.
#define PUT(row, off, doff) Get R4; I32WrapI64; Get row; I32WrapI64; F32Load $off; Get F0; F32Mul; F32Store $doff

// func packA4(dst, a unsafe.Pointer, lda uintptr, kb int, alphabits uint64)
TEXT ·packA4(SB), NOSPLIT, $0-40
	MOVD dst+0(FP), R4
	MOVD a+8(FP), R0
	MOVD lda+16(FP), R6
	MOVD kb+24(FP), R5
	MOVD alphabits+32(FP), R7
	Get R7
	I32WrapI64
	F32ReinterpretI32
	Set F0
	Get R0
	Get R6
	I64Add
	Tee R1
	Get R6
	I64Add
	Tee R2
	Get R6
	I64Add
	Set R3

	Block
	Loop
		Get R5
		I64Const $2
		I64LtS
		BrIf $1
		PUT(R0, 0, 0)
		PUT(R1, 0, 4)
		PUT(R2, 0, 8)
		PUT(R3, 0, 12)
		PUT(R0, 4, 16)
		PUT(R1, 4, 20)
		PUT(R2, 4, 24)
		PUT(R3, 4, 28)
		ADDI(R0, 8)
		ADDI(R1, 8)
		ADDI(R2, 8)
		ADDI(R3, 8)
		ADDI(R4, 32)
		SUBI(R5, 2)
		Br $0
	End
	End
	Get R5
	I64Eqz
	I32Eqz
	If
		PUT(R0, 0, 0)
		PUT(R1, 0, 4)
		PUT(R2, 0, 8)
		PUT(R3, 0, 12)
	End
	RET

// deinterleave4 (see depthwise_simd.go): s's even and odd elements into e
// and o, four of each per trip: two vectors of s, split by four
// i8x16.swizzles (lanes 0 and 2 of each, then 1 and 3). Go moved the lanes
// one by one (six moves per output vector).
//
// Locals: R0 s, R1 e, R2 o, R3 trips left, R4 lanes; V0 V1 s's vectors.

// func deinterleave4(e, o, s unsafe.Pointer, n int, lanes unsafe.Pointer)
TEXT ·deinterleave4(SB), NOSPLIT, $0-40
	MOVD e+0(FP), R1
	MOVD o+8(FP), R2
	MOVD s+16(FP), R0
	MOVD n+24(FP), R3
	MOVD lanes+32(FP), R4
	Block
	Loop
		BREAKZ(R3)
		Get R0; I32WrapI64; V128Load $0; Set V0
		Get R0; I32WrapI64; V128Load $16; Set V1
		Get R1; I32WrapI64
		Get V0; Get R4; I32WrapI64; V128Load $0; I8x16Swizzle
		Get V1; Get R4; I32WrapI64; V128Load $16; I8x16Swizzle
		V128Or
		V128Store $0
		Get R2; I32WrapI64
		Get V0; Get R4; I32WrapI64; V128Load $32; I8x16Swizzle
		Get V1; Get R4; I32WrapI64; V128Load $48; I8x16Swizzle
		V128Or
		V128Store $0
		ADDI(R0, 32)
		ADDI(R1, 16)
		ADDI(R2, 16)
		SUBI(R3, 1)
		Br $0
	End
	End
	RET

// gatherRows (see depthwise_simd.go's gatherPanel): for each of n offsets,
// eight floats from src + 4·offs[p] into the panel's row p, two vectors
// per row, a trip per row without Go's dispatch table.
//
// Locals: R0 src, R1 the panel row, R2 the next offset, R3 rows left,
// R4 the row's source.

// func gatherRows(panel, src, offs unsafe.Pointer, n int)
TEXT ·gatherRows(SB), NOSPLIT, $0-32
	MOVD panel+0(FP), R1
	MOVD src+8(FP), R0
	MOVD offs+16(FP), R2
	MOVD n+24(FP), R3
	Block
	Loop
		BREAKZ(R3)
		Get R2
		I32WrapI64
		I64Load $0
		I64Const $2
		I64Shl
		Get R0
		I64Add
		Set R4
		Get R1; I32WrapI64; Get R4; I32WrapI64; V128Load $0; V128Store $0
		Get R1; I64Const $16; I64Add; I32WrapI64; Get R4; I32WrapI64; V128Load $16; V128Store $0
		ADDI(R1, 32)
		ADDI(R2, 8)
		SUBI(R3, 1)
		Br $0
	End
	End
	RET

// copyRows (see depthwise_simd.go): rows rows of n ≥ 4 floats from src to
// dst, the rows sstride and dstride bytes apart, four floats at a time,
// the last four overlapping those before them: a stride-1 depthwise
// convolution's padded copy of a plane, whose rows are often 7 to 28
// floats, where a Go call and loop per row cost more than the copy.
//
// Locals: R0 src row, R1 dst row, R2 rows left, R3 the last vector's
// offset (4n-16), R4 sstride, R5 dstride, R6 the offset.

// func copyRows(dst, src unsafe.Pointer, rows, n int, dstride, sstride uintptr)
TEXT ·copyRows(SB), NOSPLIT, $0-48
	MOVD dst+0(FP), R1
	MOVD src+8(FP), R0
	MOVD rows+16(FP), R2
	MOVD n+24(FP), R3
	MOVD dstride+32(FP), R5
	MOVD sstride+40(FP), R4
	SHLI(R3, 2)
	SUBI(R3, 16)
	Block
	Loop
		BREAKZ(R2)
		I64Const $0
		Set R6
		Block
		Loop
			Get R6
			Get R3
			I64GtU
			If
				Get R3
				Set R6
			End
			Get R1; Get R6; I64Add; I32WrapI64
			Get R0; Get R6; I64Add; I32WrapI64; V128Load $0
			V128Store $0
			Get R6
			Get R3
			I64Eq
			BrIf $1
			ADDI(R6, 16)
			Br $0
		End
		End
		Get R0; Get R4; I64Add; Set R0
		Get R1; Get R5; I64Add; Set R1
		SUBI(R2, 1)
		Br $0
	End
	End
	RET
