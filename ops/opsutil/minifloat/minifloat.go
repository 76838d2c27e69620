// Package minifloat encodes and decodes the small binary float formats ONNX
// stores as one code per byte: the float8 variants (e4m3fn, e4m3fnuz, e5m2,
// e5m2fnuz), float4e2m1 and the float8e8m0 power-of-two scale. Cast and the
// quantisation operators share it so that both round and saturate exactly the
// same way; float16 and bfloat16 are described too, for callers that must round
// a float64 straight to them (going through float32 could round twice).
//
// Values travel as float64, which holds every code of every format exactly, and
// codes as uint32 (sign in bit ExpBits+MantBits), whatever the format's width.
package minifloat

import (
	"math"

	"github.com/gort-dev/gort/runtime/tensor"
)

// Kind says how a format spends its top exponent and its negative zero on
// special values; the formats differ there and nowhere else.
type Kind int

const (
	// IEEE: the all-ones exponent holds ±Inf (mantissa 0) and NaN (float16,
	// bfloat16, e5m2).
	IEEE Kind = iota
	// FN ("finite"): no Inf; only the all-ones exponent and mantissa is NaN
	// (e4m3fn).
	FN
	// FNUZ ("finite, unsigned zero"): no Inf and no -0; the negative-zero
	// pattern is the single NaN (e4m3fnuz, e5m2fnuz).
	FNUZ
	// NoInfNaN: every pattern is a finite number (e2m1).
	NoInfNaN
)

// Format describes a sign-exponent-mantissa float with subnormals.
type Format struct {
	ExpBits, MantBits uint
	Bias              int
	Kind              Kind
}

// The formats gort needs. Biases follow the ONNX float8 proposal: the FNUZ
// variants use one more than their IEEE-like siblings.
var (
	F16      = Format{5, 10, 15, IEEE}
	BF16     = Format{8, 7, 127, IEEE}
	E4M3FN   = Format{4, 3, 7, FN}
	E4M3FNUZ = Format{4, 3, 8, FNUZ}
	E5M2     = Format{5, 2, 15, IEEE}
	E5M2FNUZ = Format{5, 2, 16, FNUZ}
	E2M1     = Format{2, 1, 1, NoInfNaN}
)

// ForDType returns the format of a float8 or float4 code dtype. float8e8m0 is
// not one of them (it has no sign or mantissa: see EncodeE8M0).
func ForDType(dt tensor.DType) (Format, bool) {
	switch dt {
	case tensor.Float8E4M3FN:
		return E4M3FN, true
	case tensor.Float8E4M3FNUZ:
		return E4M3FNUZ, true
	case tensor.Float8E5M2:
		return E5M2, true
	case tensor.Float8E5M2FNUZ:
		return E5M2FNUZ, true
	case tensor.Float4E2M1:
		return E2M1, true
	}
	return Format{}, false
}

func (f Format) emask() uint32 { return 1<<f.ExpBits - 1 }
func (f Format) mmask() uint32 { return 1<<f.MantBits - 1 }

// SignBit is the code's sign bit.
func (f Format) SignBit() uint32 { return 1 << (f.ExpBits + f.MantBits) }

// Decode returns the value of code c (exact in float64).
func (f Format) Decode(c uint32) float64 {
	s := c&f.SignBit() != 0
	e := (c >> f.MantBits) & f.emask()
	m := c & f.mmask()
	switch {
	case f.Kind == FNUZ && c == f.SignBit():
		return math.NaN()
	case f.Kind == IEEE && e == f.emask():
		if m != 0 {
			return math.NaN()
		}
		if s {
			return math.Inf(-1)
		}
		return math.Inf(1)
	case f.Kind == FN && e == f.emask() && m == f.mmask():
		return math.NaN()
	}
	var v float64
	if e == 0 {
		v = math.Ldexp(float64(m), 1-f.Bias-int(f.MantBits))
	} else {
		v = math.Ldexp(1+float64(m)/float64(uint32(1)<<f.MantBits), int(e)-f.Bias)
	}
	if s {
		v = -v
	}
	return v
}

// MaxCode is the bit pattern of the largest finite positive value.
func (f Format) MaxCode() uint32 {
	switch f.Kind {
	case IEEE:
		return (f.emask()-1)<<f.MantBits | f.mmask()
	case FN:
		return f.emask()<<f.MantBits | (f.mmask() - 1)
	}
	return f.emask()<<f.MantBits | f.mmask()
}

// MaxValue is the largest finite value.
func (f Format) MaxValue() float64 { return f.Decode(f.MaxCode()) }

// NaNCode is the code written for NaN: the pattern numpy/ml_dtypes produce, so
// outputs compare bit for bit with the reference. A format without NaN (e2m1)
// gets -0, as the reference writes.
func (f Format) NaNCode(neg bool) uint32 {
	switch f.Kind {
	case FNUZ:
		return f.SignBit()
	case NoInfNaN:
		return f.SignBit()
	}
	c := f.emask()<<f.MantBits | f.mmask()
	if f.Kind == IEEE {
		c = f.emask()<<f.MantBits | 1<<(f.MantBits-1) // the quiet NaN numpy writes
	}
	if neg {
		c |= f.SignBit()
	}
	return c
}

// Encode rounds v to the nearest code, ties to even. A value whose rounded
// magnitude exceeds the largest finite one saturates to ±max when saturate
// (always for e2m1, which has nothing else to give), otherwise becomes ±Inf in
// IEEE formats and NaN in the others. infToNaN makes ±Inf NaN in the FNUZ
// formats even when saturating, as Cast and QuantizeLinear did before opset 24.
func (f Format) Encode(v float64, saturate, infToNaN bool) uint32 {
	neg := math.Signbit(v)
	var sign uint32
	if neg {
		sign = f.SignBit()
	}
	if v != v {
		return f.NaNCode(neg)
	}
	a := math.Abs(v)
	overflow := func() uint32 {
		switch {
		case saturate || f.Kind == NoInfNaN:
			return sign | f.MaxCode()
		case f.Kind == IEEE:
			return sign | f.emask()<<f.MantBits
		}
		return f.NaNCode(neg)
	}
	if math.IsInf(a, 0) {
		if infToNaN && f.Kind == FNUZ {
			return f.NaNCode(neg)
		}
		return overflow()
	}
	minExp := 1 - f.Bias
	_, exp := math.Frexp(a)
	e := exp - 1
	if e < minExp {
		e = minExp // subnormal range: the quantum stops shrinking
	}
	q := e - int(f.MantBits)
	m := math.RoundToEven(math.Ldexp(a, -q))
	r := math.Ldexp(m, q)
	if r > f.MaxValue() {
		return overflow()
	}
	if r == 0 {
		if f.Kind == FNUZ {
			return 0 // no negative zero: that pattern is NaN
		}
		return sign
	}
	_, exp = math.Frexp(r)
	e = exp - 1
	if e < minExp {
		return sign | uint32(math.Ldexp(r, int(f.MantBits)-minExp))
	}
	mant := uint32(math.Ldexp(r, -e)*float64(uint32(1)<<f.MantBits)) & f.mmask()
	return sign | uint32(e+f.Bias)<<f.MantBits | mant
}

// Round returns v rounded to the format and decoded again, with Encode's rules.
func (f Format) Round(v float64, saturate, infToNaN bool) float64 {
	return f.Decode(f.Encode(v, saturate, infToNaN))
}

// DecodeTable returns the value of every byte code, so that bulk decoding is a
// table look-up rather than bit fiddling per element.
func (f Format) DecodeTable() *[256]float64 {
	var t [256]float64
	for c := range t {
		t[c] = f.Decode(uint32(c))
	}
	return &t
}

// ---- float8e8m0: a bare power-of-two exponent, used as an MX scale ----

// E8M0NaN is float8e8m0's only special code.
const E8M0NaN = 0xff

// DecodeE8M0 returns 2^(c-127), or NaN for 0xff.
func DecodeE8M0(c uint8) float64 {
	if c == E8M0NaN {
		return math.NaN()
	}
	return math.Ldexp(1, int(c)-127)
}

// Rounding modes of EncodeE8M0, as Cast-24's round_mode attribute names them.
const (
	RoundUp      = "up"      // away from zero (the default)
	RoundDown    = "down"    // toward zero
	RoundNearest = "nearest" // ties go up
)

// ValidRoundMode reports whether mode is one EncodeE8M0 accepts.
func ValidRoundMode(mode string) bool {
	return mode == RoundUp || mode == RoundDown || mode == RoundNearest
}

// EncodeE8M0 follows Cast-24: |v| is rounded to a power of two by mode (up,
// down, or nearest with ties up); saturate clamps to [2^-127, 2^127] (zero and
// Inf included), otherwise out of range, zero and Inf are NaN. The sign is
// dropped: the format has none.
func EncodeE8M0(v float64, mode string, saturate bool) uint8 {
	a := math.Abs(v)
	if a != a {
		return E8M0NaN
	}
	if math.IsInf(a, 0) {
		if saturate {
			return 0xfe
		}
		return E8M0NaN
	}
	if a == 0 {
		if saturate {
			return 0
		}
		return E8M0NaN
	}
	fr, exp := math.Frexp(a) // a = fr·2^exp, fr in [0.5, 1)
	e := exp - 1
	if fr != 0.5 {
		switch mode {
		case RoundUp:
			e++
		case RoundNearest:
			if fr >= 0.75 {
				e++
			}
		}
	}
	c := e + 127
	switch {
	case c > 254:
		if saturate {
			return 0xfe
		}
		return E8M0NaN
	case c < 0:
		if saturate {
			return 0
		}
		return E8M0NaN
	}
	return uint8(c)
}

// Decode widens the codes of a float8/float4/float8e8m0 dtype to float64. It
// reports false for any other dtype.
func Decode(dt tensor.DType, codes []uint8) ([]float64, bool) {
	out := make([]float64, len(codes))
	if dt == tensor.Float8E8M0 {
		for i, c := range codes {
			out[i] = DecodeE8M0(c)
		}
		return out, true
	}
	f, ok := ForDType(dt)
	if !ok {
		return nil, false
	}
	t := f.DecodeTable()
	for i, c := range codes {
		out[i] = t[c]
	}
	return out, true
}
