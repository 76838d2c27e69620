//go:build goexperiment.simd

#include "textflag.h"

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
		Get R0
		I64Const $8
		I64Add
		Set R0
		Get R1
		I64Const $8
		I64Add
		Set R1
		Get R2
		I64Const $8
		I64Add
		Set R2
		Get R3
		I64Const $8
		I64Add
		Set R3
		Get R4
		I64Const $32
		I64Add
		Set R4
		Get R5
		I64Const $2
		I64Sub
		Set R5
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
