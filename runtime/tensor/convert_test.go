package tensor

import (
	"math"
	"reflect"
	"testing"
)

func TestStoreFloat64s(t *testing.T) {
	v := []float64{1.9, -1.9, 300, -300, math.NaN(), math.Inf(1), math.Inf(-1), 0}
	cases := []struct {
		dt   DType
		want any
	}{
		{Int8, []int8{1, -1, 127, -128, 0, 127, -128, 0}},
		{Uint8, []uint8{1, 0, 255, 0, 0, 255, 0, 0}},
		{Int16, []int16{1, -1, 300, -300, 0, math.MaxInt16, math.MinInt16, 0}},
		{Uint16, []uint16{1, 0, 300, 0, 0, math.MaxUint16, 0, 0}},
		{Int32, []int32{1, -1, 300, -300, 0, math.MaxInt32, math.MinInt32, 0}},
		{Uint32, []uint32{1, 0, 300, 0, 0, math.MaxUint32, 0, 0}},
		{Int64, []int64{1, -1, 300, -300, 0, math.MaxInt64, math.MinInt64, 0}},
		{Uint64, []uint64{1, 0, 300, 0, 0, math.MaxUint64, 0, 0}},
		{Bool, []bool{true, true, true, true, true, true, true, false}},
	}
	for _, c := range cases {
		out := New(c.dt, len(v))
		if err := StoreFloat64s(out, v); err != nil {
			t.Fatalf("%s: %v", c.dt, err)
		}
		if !reflect.DeepEqual(out.Data(), c.want) {
			t.Errorf("%s: got %v, want %v", c.dt, out.Data(), c.want)
		}
	}
	// 2^63 does not fit int64 (its float64 limit rounds up to it).
	big := New(Int64, 1)
	if err := StoreFloat64s(big, []float64{9223372036854775808}); err != nil || big.I64()[0] != math.MaxInt64 {
		t.Errorf("2^63 into int64: %v, %v", big.I64(), err)
	}
	f := New(Float, 2)
	if err := StoreFloat64s(f, []float64{0.1, -2}); err != nil || f.F32()[0] != float32(0.1) || f.F32()[1] != -2 {
		t.Errorf("float: %v, %v", f.F32(), err)
	}
	for _, dt := range []DType{String, Float8E4M3FN, Complex64} {
		if err := StoreFloat64s(New(dt, 1), []float64{1}); err == nil {
			t.Errorf("%s: stored numbers without an error", dt)
		}
	}
}
