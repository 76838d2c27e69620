//go:build goexperiment.simd

#include "textflag.h"
#include "../../internal/wasmasm/wasm.h"

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
		BREAKZ(R5)
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
			BREAKZ(R7)
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
			ADDI(R0, 128)
			ADDI(R6, 8)
			SUBI(R7, 1)
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
			ADDI(R0, 64)
		End
		Get R2; I32WrapI64; Get V0; V128Store $0
		Get R2; I64Const $16; I64Add; I32WrapI64; Get V1; V128Store $0
		Get R2; I64Const $32; I64Add; I32WrapI64; Get V2; V128Store $0
		Get R2; I64Const $48; I64Add; I32WrapI64; Get V3; V128Store $0
		ADDI(R2, 64)
		SUBI(R5, 1)
		Br $0
	End
	End
	RET

// sigmoid4s and tanh4s (see simd.go's SigmoidTo and TanhTo): the gates'
// activations over whole vectors, in the operations and order of clamp4,
// tanh4 and the e⁻ˣ below (sigmoid32's, bit for bit), with actK's
// constants loaded from the table (C).
//
// Locals: R0 src, R1 dst, R2 bytes left, R3 the table; V0 x, V1 t,
// V2 n, V3 u, V4 x² (tanh).

#define C(k) Get R3; I32WrapI64; V128Load $(k*16)

// CLAMP sets V0 to clamp4(V0, table[lo], table[hi]).
#define CLAMP(lo, hi) \
	C(lo); Get V0; Get V0; C(lo); F32x4Lt; V128Bitselect; Set V0; \
	C(hi); Get V0; Get V0; C(hi); F32x4Gt; V128Bitselect; Set V0

// SIGMOID sets V0 to 1 / (1 + e⁻ˣ) for x = clamp4(V0, -expHi, -expLo).
// e⁻ˣ is exp32's sequence of operations on -x with the sign carried
// through them instead of a negation (three x64 instructions in V8):
// rounding to nearest is symmetric, RN(-a) = -RN(a), so u below is exactly
// -r of exp32, and each step on r is the step on u with the sign folded in
// (r·c + d = d - u·c). t = -x·log2e + 1.5·2²³ + 127 rounds -x·log2e to the
// integer n (half to even) in its low mantissa bits, which hold n + 127
// (in [1, 254] after the clamp) over bits that a shift by 23 drops: 2ⁿ's
// bits without a conversion to integers. In order: t = magic - x·log2e,
// n = t - magic, u = (x + n·C1) + n·C2, p = P1 - u·P0, then p = Pi - p·u
// for P2…P5, p = (p·u² - u) + 1, e⁻ˣ = p · (t << 23).
#define SIGMOID \
	CLAMP(14, 15); \
	C(25); Get V0; C(16); F32x4Mul; F32x4Sub; Set V1; \
	Get V1; C(25); F32x4Sub; Set V2; \
	Get V0; Get V2; C(17); F32x4Mul; F32x4Add; Get V2; C(18); F32x4Mul; F32x4Add; Set V3; \
	C(20); Get V3; C(19); F32x4Mul; F32x4Sub; \
	Set V0; C(21); Get V0; Get V3; F32x4Mul; F32x4Sub; \
	Set V0; C(22); Get V0; Get V3; F32x4Mul; F32x4Sub; \
	Set V0; C(23); Get V0; Get V3; F32x4Mul; F32x4Sub; \
	Set V0; C(24); Get V0; Get V3; F32x4Mul; F32x4Sub; \
	Get V3; Get V3; F32x4Mul; F32x4Mul; Get V3; F32x4Sub; C(13); F32x4Add; \
	Get V1; I32Const $23; I32x4Shl; F32x4Mul; \
	Set V0; C(13); C(13); Get V0; F32x4Add; F32x4Div; Set V0

// TANH sets V0 to tanh4(clamp4(V0, ±tanhClamp)).
#define TANH \
	CLAMP(0, 1); \
	Get V0; Get V0; F32x4Mul; Set V4; \
	Get V4; C(2); F32x4Mul; C(3); F32x4Add; \
	Get V4; F32x4Mul; C(4); F32x4Add; \
	Get V4; F32x4Mul; C(5); F32x4Add; \
	Get V4; F32x4Mul; C(6); F32x4Add; \
	Get V4; F32x4Mul; C(7); F32x4Add; \
	Get V4; F32x4Mul; C(8); F32x4Add; \
	Set V1; \
	Get V4; C(9); F32x4Mul; C(10); F32x4Add; \
	Get V4; F32x4Mul; C(11); F32x4Add; \
	Get V4; F32x4Mul; C(12); F32x4Add; \
	Set V2; \
	Get V0; Get V1; F32x4Mul; Get V2; F32x4Div; Set V0

// LOOP4 runs body over the vectors: V0 loaded from R0, stored to R1.
#define LOOP4(body) \
	Block; Loop; \
		Get R2; I64Eqz; BrIf $1; \
		Get R0; I32WrapI64; V128Load $0; Set V0; \
		body; \
		Get R1; I32WrapI64; Get V0; V128Store $0; \
		Get R0; I64Const $16; I64Add; Set R0; \
		Get R1; I64Const $16; I64Add; Set R1; \
		Get R2; I64Const $16; I64Sub; Set R2; \
		Br $0; \
	End; End

// func sigmoid4s(dst, src unsafe.Pointer, n int, table unsafe.Pointer)
TEXT ·sigmoid4s(SB), NOSPLIT, $0-32
	MOVD dst+0(FP), R1
	MOVD src+8(FP), R0
	MOVD n+16(FP), R2
	MOVD table+24(FP), R3
	SHLI(R2, 4)
	LOOP4(SIGMOID)
	RET

// func tanh4s(dst, src unsafe.Pointer, n int, table unsafe.Pointer)
TEXT ·tanh4s(SB), NOSPLIT, $0-32
	MOVD dst+0(FP), R1
	MOVD src+8(FP), R0
	MOVD n+16(FP), R2
	MOVD table+24(FP), R3
	SHLI(R2, 4)
	LOOP4(TANH)
	RET
