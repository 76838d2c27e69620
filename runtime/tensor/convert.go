package tensor

import (
	"fmt"
	"math"
)

// StoreFloat64s writes v into t's first len(v) elements, converted to t's
// dtype: the other half of Float64s, for kernels that compute in float64
// whatever the dtype (signal windows, random draws, resampling weights) and
// would otherwise each switch over the ten real storage types. Integers are
// truncated toward zero and saturated to the type's range, NaN becomes 0 (a
// float-to-int cast defined everywhere, where Go's conversion is not);
// bool is v != 0; float16/bfloat16 are stored as float32 and rounded by the
// executor. String, complex and the code-stored types (float8, float4, int4,
// int2, ...) are refused.
func StoreFloat64s(t *Tensor, v []float64) error {
	if t.DType().IsCodeType() {
		return fmt.Errorf("cannot store numbers into %s", t.DType())
	}
	switch d := t.Data().(type) {
	case []float32:
		for i, x := range v {
			d[i] = float32(x)
		}
	case []float64:
		copy(d, v)
	case []bool:
		for i, x := range v {
			d[i] = x != 0
		}
	case []int8:
		storeInt(d, v, math.MinInt8, math.MaxInt8)
	case []int16:
		storeInt(d, v, math.MinInt16, math.MaxInt16)
	case []int32:
		storeInt(d, v, math.MinInt32, math.MaxInt32)
	case []int64:
		storeInt[int64](d, v, math.MinInt64, math.MaxInt64)
	case []uint8:
		storeInt(d, v, 0, math.MaxUint8)
	case []uint16:
		storeInt(d, v, 0, math.MaxUint16)
	case []uint32:
		storeInt(d, v, 0, math.MaxUint32)
	case []uint64:
		storeInt[uint64](d, v, 0, math.MaxUint64)
	default:
		return fmt.Errorf("cannot store numbers into %s", t.DType())
	}
	return nil
}

// storeInt truncates and saturates; lo and hi are the type's limits. The
// comparisons are in float64, where hi of the 64-bit types rounds up to
// 2^63 or 2^64, so x >= hi catches every value that does not fit.
func storeInt[T Number](d []T, v []float64, lo, hi T) {
	flo, fhi := float64(lo), float64(hi)
	for i, x := range v {
		x = math.Trunc(x)
		switch {
		case x != x:
			d[i] = 0
		case x <= flo:
			d[i] = lo
		case x >= fhi:
			d[i] = hi
		default:
			d[i] = T(x)
		}
	}
}
