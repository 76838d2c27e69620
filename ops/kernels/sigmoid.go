package kernels

import (
	"math"
)

// The float32 Sigmoid, with e^a for a ≤ 0 computed in float32 arithmetic
// that a SIMD128 loop (sigmoid_simd.go) repeats operation for operation, so
// that the vector and scalar forms agree bit for bit.
//
// Why not math32.Exp: in WebAssembly it is plain Go with no vector form,
// about 60 ns per element; PP-OCR's text detector ends in a Sigmoid over
// 640×640 values that took 27 ms, 7% of its run.
//
// e^a: a = n·ln2 + r with n = round(a·log2 e) and r ∈ [−ln2/2, ln2/2]
// (ln2 split in two parts so that n·ln2hi is exact), e^r by its Taylor
// polynomial to degree 7 (truncation error below 3e-9), times 2^n built
// from the exponent bits. Each product is converted to float32 on its own
// line of code, so that no compiler fuses a multiply and an add where the
// vector loop cannot. Below a = −87.33 the result would be subnormal: it is
// 0, as is the Sigmoid of x ≤ −87.33 then (the exact value is under 1.2e-38).
// Within 3 ulp of the exact Sigmoid elsewhere (TestSigmoid32Accuracy).

const (
	expLog2e    = float32(1.44269504088896341)
	expLn2Hi    = float32(0.693359375)
	expLn2Lo    = float32(-2.12194440e-4)
	expMinArg   = float32(-87.33654) // e^a is a normal float32 above this
	expC2       = float32(1.0 / 2)
	expC3       = float32(1.0 / 6)
	expC4       = float32(1.0 / 24)
	expC5       = float32(1.0 / 120)
	expC6       = float32(1.0 / 720)
	expC7       = float32(1.0 / 5040)
	expBiasBits = 127
)

// expNonPos is e^a for a ≤ 0 (a not NaN), 0 below expMinArg.
func expNonPos(a float32) float32 {
	if a < expMinArg {
		return 0
	}
	t := float32(a * expLog2e)
	n := float32(math.RoundToEven(float64(t)))
	r := a - float32(n*expLn2Hi)
	r = r - float32(n*expLn2Lo)
	p := expC7
	p = float32(p*r) + expC6
	p = float32(p*r) + expC5
	p = float32(p*r) + expC4
	p = float32(p*r) + expC3
	p = float32(p*r) + expC2
	p = float32(p*r) + 1
	p = float32(p*r) + 1
	s := math.Float32frombits(uint32(int32(n)+expBiasBits) << 23)
	return p * s
}

// Sigmoid32 is the float32 Sigmoid. It never exponentiates a positive
// number, so it cannot overflow: 1/(1 + e^−x) for x ≥ 0, e^x/(1 + e^x)
// below.
func Sigmoid32(x float32) float32 {
	if x != x {
		return x
	}
	if x >= 0 {
		return 1 / (1 + expNonPos(-x))
	}
	e := expNonPos(x)
	return e / (1 + e)
}

func sigmoid64(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}
