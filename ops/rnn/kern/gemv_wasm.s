//go:build goexperiment.simd

#include "textflag.h"

// gemv16Asm (see simd.go's gemv16) in WebAssembly SIMD128: per 16-wide
// panel, four accumulators loaded from out, then for each depth p,
// v[p] broadcast and its products with the panel's row added into them in
// order; two depths per trip. Go's loop kept its pointers and counters in
// memory and went through the dispatch table once per trip.
//
// Locals: R0 the panel row, R1 v, R2 out, R3 depth pairs, R4 k odd,
// R5 panels left, R6 the next v, R7 pairs left; V0…V3 the sums, V4 v[p].

#define MADD(acc, off) Get acc; Get V4; Get R0; I32WrapI64; V128Load $off; F32x4Mul; F32x4Add; Set acc
#define SPLAT(off) Get R6; I32WrapI64; F32Load $off; F32x4Splat; Set V4

// func gemv16Asm(out, v, m unsafe.Pointer, k, panels int)
TEXT ·gemv16Asm(SB), NOSPLIT, $0-40
	MOVD out+0(FP), R2
	MOVD v+8(FP), R1
	MOVD m+16(FP), R0
	MOVD k+24(FP), R3
	MOVD panels+32(FP), R5
	Get R3
	I64Const $1
	I64And
	Set R4
	Get R3
	I64Const $1
	I64ShrU
	Set R3

	Block
	Loop
		Get R5
		I64Eqz
		BrIf $1
		Get R2; I32WrapI64; V128Load $0; Set V0
		Get R2; I32WrapI64; V128Load $16; Set V1
		Get R2; I32WrapI64; V128Load $32; Set V2
		Get R2; I32WrapI64; V128Load $48; Set V3
		Get R1
		Set R6
		Get R3
		Set R7
		Block
		Loop
			Get R7
			I64Eqz
			BrIf $1
			SPLAT(0)
			MADD(V0, 0)
			MADD(V1, 16)
			MADD(V2, 32)
			MADD(V3, 48)
			SPLAT(4)
			MADD(V0, 64)
			MADD(V1, 80)
			MADD(V2, 96)
			MADD(V3, 112)
			Get R0
			I64Const $128
			I64Add
			Set R0
			Get R6
			I64Const $8
			I64Add
			Set R6
			Get R7
			I64Const $1
			I64Sub
			Set R7
			Br $0
		End
		End
		Get R4
		I32WrapI64
		If
			SPLAT(0)
			MADD(V0, 0)
			MADD(V1, 16)
			MADD(V2, 32)
			MADD(V3, 48)
			Get R0
			I64Const $64
			I64Add
			Set R0
		End
		Get R2; I32WrapI64; Get V0; V128Store $0
		Get R2; I64Const $16; I64Add; I32WrapI64; Get V1; V128Store $0
		Get R2; I64Const $32; I64Add; I32WrapI64; Get V2; V128Store $0
		Get R2; I64Const $48; I64Add; I32WrapI64; Get V3; V128Store $0
		Get R2
		I64Const $64
		I64Add
		Set R2
		Get R5
		I64Const $1
		I64Sub
		Set R5
		Br $0
	End
	End
	RET
