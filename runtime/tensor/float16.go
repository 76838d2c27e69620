package tensor

import "math"

// Float16 and bfloat16 are computed in float32 and rounded to their precision
// (round to nearest, ties to even) whenever a value of those types is produced.

// F32ToF16 converts to IEEE 754 binary16 bits, rounding to nearest even.
func F32ToF16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xff
	mant := b & 0x7fffff
	switch {
	case exp == 0xff: // inf or nan
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		if e < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint32(14 - e)
		half := uint32(1) << (shift - 1)
		r := mant >> shift
		rem := mant & ((1 << shift) - 1)
		if rem > half || (rem == half && r&1 == 1) {
			r++
		}
		return sign | uint16(r)
	}
	r := uint32(e)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && r&1 == 1) {
		r++ // may carry into the exponent, giving inf correctly
	}
	return sign | uint16(r)
}

// F16ToF32 converts IEEE 754 binary16 bits to float32 (exactly).
func F16ToF32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp == 0:
		if mant == 0 {
			return math.Float32frombits(sign)
		}
		// subnormal: normalise
		e := uint32(127 - 15 + 1)
		for mant&0x400 == 0 {
			mant <<= 1
			e--
		}
		mant &= 0x3ff
		return math.Float32frombits(sign | e<<23 | mant<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

// F32ToBF16 converts to bfloat16 bits, rounding to nearest even.
func F32ToBF16(f float32) uint16 {
	b := math.Float32bits(f)
	if f != f {
		return uint16(b>>16) | 0x40
	}
	r := b + 0x7fff + (b>>16)&1
	return uint16(r >> 16)
}

// BF16ToF32 converts bfloat16 bits to float32 (exactly).
func BF16ToF32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// RoundTo rounds float32 values in place to the precision of dt (Float16 or
// BFloat16); for Float it does nothing.
func RoundTo(dt DType, v []float32) {
	switch dt {
	case Float16:
		for i, x := range v {
			v[i] = F16ToF32(F32ToF16(x))
		}
	case BFloat16:
		for i, x := range v {
			v[i] = BF16ToF32(F32ToBF16(x))
		}
	}
}
