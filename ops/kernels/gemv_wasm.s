//go:build goexperiment.simd

#include "textflag.h"
#include "../internal/wasmasm/wasm.h"

// gemvPanelAsm (see gemv_simd.go) in WebAssembly SIMD128: Go compiled the
// loop with a trip through its dispatch table per two depths, and a
// batch-1 Gemm streamed its packed weights at 25–26 GB/s (28–30 here;
// MobileNetV3's 1024→1000 classifier 0.29 → 0.21 ms, onnxruntime-web 0.14).
//
// Two depths per trip: x[p] and x[p+1] broadcast, the even
// depth's products added into V0 V1 and the odd one's into V2 V3 (so the
// additions of consecutive depths do not wait on each other), then
// (V0+V2, V1+V3) stored: gemvPanelScalar's order.
//
// Locals: R1 the panel row, R4 y, R5 the next x, R6 depths left; V4 V5
// the broadcasts.

#define MADD(acc, x, off) Get acc; Get x; Get R1; I32WrapI64; V128Load $off; F32x4Mul; F32x4Add; Set acc

// func gemvPanelAsm(x, b unsafe.Pointer, k int, y unsafe.Pointer)
TEXT ·gemvPanelAsm(SB), NOSPLIT, $0-32
	MOVD x+0(FP), R5
	MOVD b+8(FP), R1
	MOVD k+16(FP), R6
	MOVD y+24(FP), R4
	I32Const $0
	I32x4Splat
	Tee V0
	Tee V1
	Tee V2
	Set V3

	Block
	Loop
		Get R6
		I64Const $2
		I64LtS
		BrIf $1
		Get R5
		I32WrapI64
		F32Load $0
		F32x4Splat
		Set V4
		Get R5
		I32WrapI64
		F32Load $4
		F32x4Splat
		Set V5
		MADD(V0, V4, 0)
		MADD(V1, V4, 16)
		MADD(V2, V5, 32)
		MADD(V3, V5, 48)
		ADDI(R5, 8)
		ADDI(R1, 64)
		SUBI(R6, 2)
		Br $0
	End
	End

	Get R6
	I64Eqz
	I32Eqz
	If
		Get R5
		I32WrapI64
		F32Load $0
		F32x4Splat
		Set V4
		MADD(V0, V4, 0)
		MADD(V1, V4, 16)
		ADDI(R1, 32)
	End

	Get R4
	I32WrapI64
	Get V0
	Get V2
	F32x4Add
	V128Store $0
	Get R4
	I64Const $16
	I64Add
	I32WrapI64
	Get V1
	Get V3
	F32x4Add
	V128Store $0
	RET

// dot4Asm (see gemv_simd.go's dot4): four dot products with x over k4
// floats (a multiple of four), eight floats per trip, even and odd
// vectors in separate accumulators (V0…V3 and V4…V7, added at the end),
// in dot4Scalar's order. Go's loop held its eight sums, the x vector and
// five pointers in more registers than its wasm backend keeps, and spilled.
//
// Locals: R0 x, R1…R4 the rows, R5 the offset, R6 k4 in bytes, R7 out.

#define DOT(acc, row, off) Get acc; Get V8; Get row; Get R5; I64Add; I32WrapI64; V128Load $off; F32x4Mul; F32x4Add; Set acc
#define XV(off) Get R0; Get R5; I64Add; I32WrapI64; V128Load $off; Set V8

// func dot4Asm(x, b0, b1, b2, b3 unsafe.Pointer, k4 int, out unsafe.Pointer)
TEXT ·dot4Asm(SB), NOSPLIT, $0-56
	MOVD x+0(FP), R0
	MOVD b0+8(FP), R1
	MOVD b1+16(FP), R2
	MOVD b2+24(FP), R3
	MOVD b3+32(FP), R4
	MOVD k4+40(FP), R6
	MOVD out+48(FP), R7
	SHLI(R6, 2)
	I32Const $0
	I32x4Splat
	Tee V0
	Tee V1
	Tee V2
	Tee V3
	Tee V4
	Tee V5
	Tee V6
	Set V7
	I64Const $0
	Set R5
	Block
	Loop
		Get R5
		I64Const $32
		I64Add
		Get R6
		I64GtU
		BrIf $1
		XV(0)
		DOT(V0, R1, 0)
		DOT(V1, R2, 0)
		DOT(V2, R3, 0)
		DOT(V3, R4, 0)
		XV(16)
		DOT(V4, R1, 16)
		DOT(V5, R2, 16)
		DOT(V6, R3, 16)
		DOT(V7, R4, 16)
		ADDI(R5, 32)
		Br $0
	End
	End
	Get R5
	Get R6
	I64LtU
	If
		XV(0)
		DOT(V0, R1, 0)
		DOT(V1, R2, 0)
		DOT(V2, R3, 0)
		DOT(V3, R4, 0)
	End
	Get R7; I32WrapI64; Get V0; Get V4; F32x4Add; V128Store $0
	Get R7; I64Const $16; I64Add; I32WrapI64; Get V1; Get V5; F32x4Add; V128Store $0
	Get R7; I64Const $32; I64Add; I32WrapI64; Get V2; Get V6; F32x4Add; V128Store $0
	Get R7; I64Const $48; I64Add; I32WrapI64; Get V3; Get V7; F32x4Add; V128Store $0
	RET
