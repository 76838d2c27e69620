//go:build goexperiment.simd

#include "textflag.h"
#include "../internal/wasmasm/wasm.h"

// packA4 (see sgemm_simd.go): packAPanel's common case, four rows of a
// row-major A into one k-major panel (dst[4p + r] = alpha·a[r·lda + p]),
// element by element in WebAssembly. Go's loop, a trip per depth through
// its dispatch table with its bounds checks, was a fifth of a grouped 1×1
// convolution over few pixels (ShuffleNet's, whose weights the GEMM packs
// on every run: Conv reads them in place, see docs/architecture.md, "Memory").
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

// dwRows9Asm (see depthwise_simd.go's dwRows9): a 3×3 depthwise plane,
// four outputs per vector, the last vector of a row overlapping those
// before it; the nine weights and the bias in locals, each output's taps
// summed in (kh, kw) order then the bias (dwRowsRef's order); Relu after
// when flags has 1. When flags has 2 (the kernel rows are as far apart as
// the output rows' inputs: unit stride and dilation down the rows), two
// output rows per trip, which share two input rows; then the rest one at
// a time. Go's loop held more vectors than its wasm backend keeps in
// registers and went through the dispatch table per trip.
//
// Locals: R1 the row's first input (the kernel's first tap), R2 bytes
// between kernel rows, R3 R4 the second and third taps' offsets, R5 the
// output row, R6 bytes per output row, R7 the last vector's offset, R8 rows
// left, R9 the column offset, R10 flags, R11 an input row, R14 bytes
// between output rows' inputs; V0…V8 the weights, V9 the bias, V10 V11 the
// two rows' sums, V12…V14 a row's three taps, V15 zero.

// LDROW loads a row's three taps (at R11 + R9, + R3, + R4) and moves R11
// to the next kernel row.
#define LD0(dst) Get R11; Get R9; I64Add; I32WrapI64; V128Load $0; Set dst
#define LDO(dst, off) Get R11; Get R9; I64Add; Get off; I64Add; I32WrapI64; V128Load $0; Set dst
#define LDROW LD0(V12); LDO(V13, R3); LDO(V14, R4); Get R11; Get R2; I64Add; Set R11
#define FIRST(acc, wa, wb, wc) Get wa; Get V12; F32x4Mul; Get wb; Get V13; F32x4Mul; F32x4Add; Get wc; Get V14; F32x4Mul; F32x4Add; Set acc
#define MORE(acc, wa, wb, wc) Get acc; Get wa; Get V12; F32x4Mul; F32x4Add; Get wb; Get V13; F32x4Mul; F32x4Add; Get wc; Get V14; F32x4Mul; F32x4Add; Set acc
#define DWBIAS(acc) Get acc; Get V9; F32x4Add; Set acc
#define DWRELU(v) Get R10; I64Const $1; I64And; I32WrapI64; If; Get V15; Get v; Get v; Get V15; F32x4Lt; V128Bitselect; Set v; End
#define SPLATW(v, off) Get R12; I32WrapI64; F32Load $off; F32x4Splat; Set v
#define COLS(body) \
	I64Const $0; Set R9; \
	Block; Loop; \
		Get R9; Get R7; I64GtU; If; Get R7; Set R9; End; \
		Get R1; Set R11; \
		body; \
		Get R9; Get R7; I64Eq; BrIf $1; \
		ADDI(R9, 16); \
		Br $0; \
	End; End

// func dwRows9Asm(y, buf unsafe.Pointer, OH, OW int, kernelRow, rowStep, d1, d2 uintptr, wt unsafe.Pointer, biasbits uint64, flags int)
TEXT ·dwRows9Asm(SB), NOSPLIT, $0-88
	MOVD y+0(FP), R5
	MOVD buf+8(FP), R1
	MOVD OH+16(FP), R8
	MOVD OW+24(FP), R6
	MOVD kernelRow+32(FP), R2
	MOVD rowStep+40(FP), R14
	MOVD d1+48(FP), R3
	MOVD d2+56(FP), R4
	MOVD wt+64(FP), R12
	MOVD biasbits+72(FP), R13
	MOVD flags+80(FP), R10
	SPLATW(V0, 0)
	SPLATW(V1, 4)
	SPLATW(V2, 8)
	SPLATW(V3, 12)
	SPLATW(V4, 16)
	SPLATW(V5, 20)
	SPLATW(V6, 24)
	SPLATW(V7, 28)
	SPLATW(V8, 32)
	Get R13
	I32WrapI64
	I32x4Splat
	Set V9
	I32Const $0
	I32x4Splat
	Set V15
	SHLI(R6, 2)
	Get R6
	I64Const $16
	I64Sub
	Set R7

	// Two output rows per trip (flags 2).
	Block
	Loop
		Get R10
		I64Const $2
		I64And
		I64Eqz
		BrIf $1
		Get R8
		I64Const $2
		I64LtS
		BrIf $1
		COLS(LDROW; FIRST(V10, V0, V1, V2); LDROW; MORE(V10, V3, V4, V5); FIRST(V11, V0, V1, V2); LDROW; MORE(V10, V6, V7, V8); DWBIAS(V10); MORE(V11, V3, V4, V5); LDROW; MORE(V11, V6, V7, V8); DWBIAS(V11); DWRELU(V10); DWRELU(V11); Get R5; Get R9; I64Add; I32WrapI64; Get V10; V128Store $0; Get R5; Get R6; I64Add; Get R9; I64Add; I32WrapI64; Get V11; V128Store $0)
		Get R1
		Get R14
		I64Const $1
		I64Shl
		I64Add
		Set R1
		Get R5
		Get R6
		I64Const $1
		I64Shl
		I64Add
		Set R5
		SUBI(R8, 2)
		Br $0
	End
	End

	// The other rows one at a time.
	Block
	Loop
		BREAKZ(R8)
		COLS(LDROW; FIRST(V10, V0, V1, V2); LDROW; MORE(V10, V3, V4, V5); LDROW; MORE(V10, V6, V7, V8); DWBIAS(V10); DWRELU(V10); Get R5; Get R9; I64Add; I32WrapI64; Get V10; V128Store $0)
		Get R1
		Get R14
		I64Add
		Set R1
		Get R5
		Get R6
		I64Add
		Set R5
		SUBI(R8, 1)
		Br $0
	End
	End
	RET
