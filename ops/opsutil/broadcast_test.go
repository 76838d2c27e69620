package opsutil

import (
	"reflect"
	"testing"
)

func TestBroadcastIndex(t *testing.T) {
	cases := []struct {
		a, b, out []int
	}{
		{[]int{2, 3}, []int{3}, []int{2, 3}},
		{[]int{2, 1, 4}, []int{3, 1}, []int{2, 3, 4}},
		{[]int{}, []int{2, 2}, []int{2, 2}},
		{[]int{5, 1}, []int{1, 7}, []int{5, 7}},
	}
	for _, c := range cases {
		got, err := BroadcastShape(c.a, c.b)
		if err != nil || !reflect.DeepEqual(got, c.out) {
			t.Fatalf("BroadcastShape(%v,%v) = %v, %v", c.a, c.b, got, err)
		}
		// Check offsets against a direct computation from multi-indices.
		n := Product(c.out)
		seen := 0
		BroadcastIndex(c.a, c.b, c.out, func(o, ia, ib int) {
			seen++
			idx := make([]int, len(c.out))
			rem := o
			for d := len(c.out) - 1; d >= 0; d-- {
				idx[d] = rem % c.out[d]
				rem /= c.out[d]
			}
			if want := offset(idx, c.a); ia != want {
				t.Errorf("%v: a offset at %v = %d, want %d", c, idx, ia, want)
			}
			if want := offset(idx, c.b); ib != want {
				t.Errorf("%v: b offset at %v = %d, want %d", c, idx, ib, want)
			}
		})
		if seen != n {
			t.Errorf("%v: visited %d of %d", c, seen, n)
		}
	}
	if _, err := BroadcastShape([]int{2, 3}, []int{4}); err == nil {
		t.Error("BroadcastShape accepted 3 vs 4")
	}
}

func offset(idx, shape []int) int {
	off := len(idx) - len(shape)
	o := 0
	for i, d := range shape {
		x := idx[off+i]
		if d == 1 {
			x = 0
		}
		o = o*d + x
	}
	return o
}
