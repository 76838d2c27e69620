package elementwise

import (
	"math"

	"github.com/gort-dev/gort/ops/internal/expf"
)

// Float32 erf and exp for the hot float32 paths (Erf, Softmax). Going
// through float64 (math.Erf, math.Exp) costs two conversions and a long
// double-precision evaluation per element; these run in float32 with a few
// multiply-adds and vectorise in the SIMD build (fastmath_simd.go), where
// the same operations run four lanes at a time in the same order, so both
// builds give bit-identical results. The error bounds are proven against
// math.Erf and math.Exp by dense sweeps in fastmath_test.go.

const (
	// exp32: e^x = 2^n · e^r with n = round(x/ln2) and r = x - n·ln2 in
	// [-ln2/2, ln2/2]. ln2 is split in two (Cody–Waite) so that n·ln2Hi is
	// exact; round(x/ln2) is taken by adding 1.5·2^23, which leaves n in the
	// low mantissa bits of t (so t's bits minus magicBits is n).
	expMagic     = 12582912 // 1.5·2^23
	expMagicBits = 0x4B400000
	// Below ln(2^-126) the result would be subnormal: it is flushed to 0.
	expMin = -87.33654475
	// log2 e, ln 2's split and the polynomial: ops/internal/expf.

	// erf32: below erfSplit, erf(x) = x + x·S(x²); above it,
	// erf(x) = 1 - e^-(t + t·B(t)) with t = min(|x|, erfClamp) (erf rounds to
	// 1 in float32 beyond 3.925). The minimax coefficients are N. Juffa's
	// faithfully-rounded erff (also used by onnxruntime's MLAS).
	erfSplit = 0.921875
	erfClamp = 3.925
	erfS0    = -5.99104969e-4
	erfS1    = 4.99339588e-3
	erfS2    = -2.67667342e-2
	erfS3    = 1.12818025e-1
	erfS4    = -3.76124859e-1
	erfS5    = 1.28379151e-1 // 2/√π - 1
	erfB0    = 1.72948930e-5
	erfB1    = -3.83208680e-4
	erfB2    = 3.88393435e-3
	erfB3    = -2.42545605e-2
	erfB4    = 1.06777847e-1
	erfB5    = 6.34846687e-1
	erfB6    = 1.28717512e-1
)

// exp32 returns e^x for x ≤ 0 (positive x is treated as 0): 1 for x = 0,
// 0 below expMin, NaN for NaN. Its error is at most 1 ulp for normal
// results (fastmath_test.go).
func exp32(x float32) float32 {
	x = min(x, 0)
	if x < expMin {
		return 0
	}
	t := float32(x*expf.Log2e) + expMagic
	n := t - expMagic
	r := x - float32(n*expf.Ln2Hi)
	r = r - float32(n*expf.Ln2Lo)
	p := float32(expf.P0*r) + expf.P1
	p = float32(p*r) + expf.P2
	p = float32(p*r) + expf.P3
	p = float32(p*r) + expf.P4
	p = float32(p*r) + expf.P5
	p = float32(float32(p*float32(r*r))+r) + 1
	scale := math.Float32frombits(uint32(int32(math.Float32bits(t))-expMagicBits+127) << 23)
	return p * scale
}

// erf32 returns erf(x) within 1.5 ulp of the exact value (fastmath_test.go).
func erf32(x float32) float32 {
	a := abs32(x)
	if a <= erfSplit {
		s := x * x
		r := float32(erfS0*s) + erfS1
		r = float32(r*s) + erfS2
		r = float32(r*s) + erfS3
		r = float32(r*s) + erfS4
		r = float32(r*s) + erfS5
		return float32(r*x) + x
	}
	t := min(a, erfClamp)
	r := float32(erfB0*t) + erfB1
	r = float32(r*t) + erfB2
	r = float32(r*t) + erfB3
	r = float32(r*t) + erfB4
	r = float32(r*t) + erfB5
	r = float32(r*t) + erfB6
	r = float32(r*t) + t
	e := 1 - exp32(-r)
	return math.Float32frombits(math.Float32bits(e) | math.Float32bits(x)&(1<<31))
}

func abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }
