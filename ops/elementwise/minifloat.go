package elementwise

import (
	"math"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// One parameterised encoder/decoder serves every small binary float format:
// the float8 variants, float4e2m1, and float16/bfloat16 when the source is
// float64 (converting through float32 first could round twice).

type floatKind int

const (
	kindIEEE floatKind = iota // top exponent holds Inf and NaN (float16, bfloat16, e5m2)
	kindFN                    // no Inf; only the all-ones pattern is NaN (e4m3fn)
	kindFNUZ                  // no Inf, no -0; the negative-zero pattern is NaN
	kindNone                  // no Inf, no NaN (e2m1)
)

type miniFloat struct {
	ebits, mbits uint
	bias         int
	kind         floatKind
}

var (
	fmtF16      = miniFloat{5, 10, 15, kindIEEE}
	fmtBF16     = miniFloat{8, 7, 127, kindIEEE}
	fmtE4M3FN   = miniFloat{4, 3, 7, kindFN}
	fmtE4M3FNUZ = miniFloat{4, 3, 8, kindFNUZ}
	fmtE5M2     = miniFloat{5, 2, 15, kindIEEE}
	fmtE5M2FNUZ = miniFloat{5, 2, 16, kindFNUZ}
	fmtE2M1     = miniFloat{2, 1, 1, kindNone}
)

func miniFormat(dt tensor.DType) (miniFloat, bool) {
	switch dt {
	case tensor.Float8E4M3FN:
		return fmtE4M3FN, true
	case tensor.Float8E4M3FNUZ:
		return fmtE4M3FNUZ, true
	case tensor.Float8E5M2:
		return fmtE5M2, true
	case tensor.Float8E5M2FNUZ:
		return fmtE5M2FNUZ, true
	case tensor.Float4E2M1:
		return fmtE2M1, true
	}
	return miniFloat{}, false
}

func (f miniFloat) emask() uint32   { return 1<<f.ebits - 1 }
func (f miniFloat) mmask() uint32   { return 1<<f.mbits - 1 }
func (f miniFloat) signBit() uint32 { return 1 << (f.ebits + f.mbits) }

func (f miniFloat) decode(c uint32) float64 {
	s := c&f.signBit() != 0
	e := (c >> f.mbits) & f.emask()
	m := c & f.mmask()
	switch {
	case f.kind == kindFNUZ && c == f.signBit():
		return math.NaN()
	case f.kind == kindIEEE && e == f.emask():
		if m != 0 {
			return math.NaN()
		}
		if s {
			return math.Inf(-1)
		}
		return math.Inf(1)
	case f.kind == kindFN && e == f.emask() && m == f.mmask():
		return math.NaN()
	}
	var v float64
	if e == 0 {
		v = math.Ldexp(float64(m), 1-f.bias-int(f.mbits))
	} else {
		v = math.Ldexp(1+float64(m)/float64(uint32(1)<<f.mbits), int(e)-f.bias)
	}
	if s {
		v = -v
	}
	return v
}

// maxCode is the largest finite magnitude's bit pattern.
func (f miniFloat) maxCode() uint32 {
	switch f.kind {
	case kindIEEE:
		return (f.emask()-1)<<f.mbits | f.mmask()
	case kindFN:
		return f.emask()<<f.mbits | (f.mmask() - 1)
	}
	return f.emask()<<f.mbits | f.mmask()
}

func (f miniFloat) nanCode(neg bool) uint32 {
	switch f.kind {
	case kindFNUZ:
		return f.signBit()
	case kindNone:
		return f.signBit() // no NaN to give: the reference writes -0
	}
	c := f.emask()<<f.mbits | f.mmask()
	if f.kind == kindIEEE {
		c = f.emask()<<f.mbits | 1<<(f.mbits-1) // the quiet NaN numpy writes
	}
	if neg {
		c |= f.signBit()
	}
	return c
}

// encode rounds v to nearest even. Out of range (after rounding) saturates to
// the largest finite value when saturate, else becomes Inf (IEEE kinds) or NaN.
// infToNaN makes ±Inf NaN even when saturating (Cast-19..23 for the FNUZ kinds).
func (f miniFloat) encode(v float64, saturate, infToNaN bool) uint32 {
	neg := math.Signbit(v)
	var sign uint32
	if neg {
		sign = f.signBit()
	}
	if v != v {
		return f.nanCode(neg)
	}
	a := math.Abs(v)
	overflow := func() uint32 {
		switch {
		case saturate || f.kind == kindNone:
			return sign | f.maxCode()
		case f.kind == kindIEEE:
			return sign | f.emask()<<f.mbits
		}
		return f.nanCode(neg)
	}
	if math.IsInf(a, 0) {
		if infToNaN && f.kind == kindFNUZ {
			return f.nanCode(neg)
		}
		return overflow()
	}
	minExp := 1 - f.bias
	_, exp := math.Frexp(a)
	e := exp - 1
	if e < minExp {
		e = minExp
	}
	q := int(e) - int(f.mbits)
	m := math.RoundToEven(math.Ldexp(a, -q))
	r := math.Ldexp(m, q)
	if r > f.decode(f.maxCode()) {
		return overflow()
	}
	if r == 0 {
		if f.kind == kindFNUZ {
			return 0 // no negative zero: that pattern is NaN
		}
		return sign
	}
	_, exp = math.Frexp(r)
	e = exp - 1
	if e < minExp {
		return sign | uint32(math.Ldexp(r, int(f.mbits)-minExp))
	}
	mant := uint32(math.Ldexp(r, -e)*float64(uint32(1)<<f.mbits)) & f.mmask()
	return sign | uint32(e+f.bias)<<f.mbits | mant
}

// ---- float8e8m0: a bare power-of-two exponent, used as an MX scale ----

func decodeE8M0(c uint8) float64 {
	if c == 0xff {
		return math.NaN()
	}
	return math.Ldexp(1, int(c)-127)
}

// encodeE8M0 follows Cast-24: round_mode up (away from zero), down or nearest
// (ties up); saturate clamps to [2^-127, 2^127], otherwise out of range is NaN.
func encodeE8M0(v float64, mode string, saturate bool) uint8 {
	a := math.Abs(v)
	if a != a {
		return 0xff
	}
	if math.IsInf(a, 0) {
		if saturate {
			return 0xfe
		}
		return 0xff
	}
	if a == 0 {
		if saturate {
			return 0
		}
		return 0xff
	}
	fr, exp := math.Frexp(a) // a = fr·2^exp, fr in [0.5, 1)
	e := exp - 1
	if fr != 0.5 {
		switch mode {
		case "up":
			e++
		case "nearest":
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
		return 0xff
	case c < 0:
		if saturate {
			return 0
		}
		return 0xff
	}
	return uint8(c)
}

// decodeCodes widens a code-typed tensor (8-bit or 4-bit floats) to float64.
func decodeCodes(x *tensor.Tensor) ([]float64, error) {
	codes := tensor.Data[uint8](x)
	out := make([]float64, len(codes))
	if x.DType() == tensor.Float8E8M0 {
		for i, c := range codes {
			out[i] = decodeE8M0(c)
		}
		return out, nil
	}
	f, ok := miniFormat(x.DType())
	if !ok {
		return nil, op.Errorf("cannot decode %s", x.DType())
	}
	// 256 entries: decode through a table rather than bit fiddling per element.
	var table [256]float64
	for c := range table {
		table[c] = f.decode(uint32(c))
	}
	for i, c := range codes {
		out[i] = table[c]
	}
	return out, nil
}
