package tensor

import (
	"math"
	"reflect"
	"testing"
)

func TestSize(t *testing.T) {
	cases := []struct {
		shape []int
		n     int
		ok    bool
	}{
		{nil, 1, true},
		{[]int{0, math.MaxInt}, 0, true},
		{[]int{2, 3, 4}, 24, true},
		{[]int{-1}, 0, false},
		{[]int{math.MaxInt / 2, 3}, 0, false},
		{[]int{1 << 32, 1 << 32}, 0, false},
	}
	for _, c := range cases {
		n, ok := Size(c.shape)
		if n != c.n || ok != c.ok {
			t.Errorf("Size(%v) = %d, %v; want %d, %v", c.shape, n, ok, c.n, c.ok)
		}
	}
}

func TestFromSliceChecks(t *testing.T) {
	if _, err := FromSlice(Float, []int{2}, []float32{1}); err == nil {
		t.Error("length mismatch accepted")
	}
	if _, err := FromSlice(Float, []int{1}, []float64{1}); err == nil {
		t.Error("storage type mismatch accepted")
	}
	if _, err := FromSlice(Float16, []int{1}, []float32{1}); err != nil {
		t.Errorf("float16 over []float32 refused: %v", err)
	}
	if _, err := FromSlice(Int4, []int{1}, []int8{-3}); err != nil {
		t.Errorf("int4 over []int8 refused: %v", err)
	}
	if _, err := FromSlice(Float8E5M2, []int{1}, []uint8{3}); err != nil {
		t.Errorf("float8 over []uint8 refused: %v", err)
	}
	if _, err := FromSlice(Float, []int{-1}, []float32{}); err == nil {
		t.Error("negative dim accepted")
	}
}

func TestInt64s(t *testing.T) {
	got, err := Of([]int{3}, []uint8{1, 2, 255}).Int64s()
	if err != nil || !reflect.DeepEqual(got, []int64{1, 2, 255}) {
		t.Errorf("uint8: %v %v", got, err)
	}
	got, err = Of([]int{2}, []int32{-1, 5}).Int64s()
	if err != nil || !reflect.DeepEqual(got, []int64{-1, 5}) {
		t.Errorf("int32: %v %v", got, err)
	}
	if _, err := Must(FromSlice(Float8E4M3FN, []int{1}, []uint8{1})).Int64s(); err == nil {
		t.Error("float8 codes read as integers")
	}
	if _, err := Of([]int{1}, []float32{1}).Int64s(); err == nil {
		t.Error("float read as integers")
	}
}

func TestDTypeNames(t *testing.T) {
	for d := Float; d <= Int2; d++ {
		if !d.Valid() {
			t.Errorf("%d not valid", d)
			continue
		}
		back, ok := ParseDType(d.String())
		if !ok || back != d {
			t.Errorf("ParseDType(%q) = %v, %v", d.String(), back, ok)
		}
		if storageKind(d) == "invalid" {
			t.Errorf("%s has no storage", d)
		}
	}
	if DType(27).Valid() || Undefined.Valid() && storageKind(Undefined) != "invalid" {
		t.Error("unexpected valid dtype")
	}
}

func TestCloneIsDeep(t *testing.T) {
	a := Of([]int{2}, []float32{1, 2})
	b := a.Clone()
	b.F32()[0] = 9
	if a.F32()[0] != 1 {
		t.Error("Clone shares data")
	}
}
