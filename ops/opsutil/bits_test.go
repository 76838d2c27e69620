package opsutil

import (
	"fmt"
	"math"
	"testing"
)

// fails reports whether f panics (op.Fail panics with an *errs.Error).
func fails(f func()) (failed bool) {
	defer func() { failed = recover() != nil }()
	f()
	return false
}

func TestAs(t *testing.T) {
	// Each plain storage viewed at its width holds the elements' bits.
	cases := []struct {
		name string
		got  func() any
		want any
	}{
		{"float32", func() any { return As[uint32]([]float32{1, -2.5}) }, []uint32{math.Float32bits(1), math.Float32bits(-2.5)}},
		{"float64", func() any { return As[uint64]([]float64{0.1, math.Inf(-1)}) }, []uint64{math.Float64bits(0.1), math.Float64bits(math.Inf(-1))}},
		{"int64", func() any { return As[uint64]([]int64{-1, 7}) }, []uint64{math.MaxUint64, 7}},
		{"int32", func() any { return As[uint32]([]int32{-2, 3, 4}) }, []uint32{math.MaxUint32 - 1, 3, 4}},
		{"int16", func() any { return As[uint16]([]int16{-1}) }, []uint16{math.MaxUint16}},
		{"int8", func() any { return As[uint8]([]int8{-128, 5}) }, []uint8{128, 5}},
		{"bool", func() any { return As[uint8]([]bool{true, false, true}) }, []uint8{1, 0, 1}},
		{"same type", func() any { return As[string]([]string{"a"}) }, []string{"a"}},
		{"empty", func() any { return As[uint16]([]int16{}) }, []uint16{}},
	}
	for _, c := range cases {
		if got := c.got(); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
	// A view shares memory: writes land in the original.
	f := []float32{0, 0}
	As[uint32](f)[1] = math.Float32bits(3)
	if f[1] != 3 {
		t.Errorf("write through the view: got %v", f)
	}
	for name, f := range map[string]func(){
		"wrong width":   func() { As[uint16]([]float32{1}) },
		"not plain":     func() { As[uint64]([]complex64{1}) },
		"string":        func() { As[uint64]([]string{"x"}) },
		"As2 mixed":     func() { As2[uint32]([]float32{1}, []int32{1}) },
		"As2 not plain": func() { As2[uint8]([]uint8{1}, []string{"x"}) },
	} {
		if !fails(f) {
			t.Errorf("%s: no failure", name)
		}
	}
	if d, s := As2[uint32]([]int32{-1}, []int32{2}); d[0] != math.MaxUint32 || s[0] != 2 {
		t.Errorf("As2: got %v %v", d, s)
	}
}
