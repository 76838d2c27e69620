// Package opsutil holds helpers shared by the operator packages: numpy
// broadcasting, axis normalisation, shape arithmetic.
package opsutil

import (
	"github.com/gort-dev/gort/runtime/op"
)

// BroadcastShape returns the numpy-style broadcast of shapes, or an error
// naming the mismatching dims.
func BroadcastShape(shapes ...[]int) ([]int, error) {
	rank := 0
	for _, s := range shapes {
		if len(s) > rank {
			rank = len(s)
		}
	}
	out := make([]int, rank)
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		off := rank - len(s)
		for i, d := range s {
			switch {
			case d == out[off+i]:
			case out[off+i] == 1:
				out[off+i] = d
			case d == 1:
			default:
				return nil, op.Errorf("shapes %v are not broadcast-compatible (dim %d: %d vs %d)", shapes, off+i, out[off+i], d)
			}
		}
	}
	return out, nil
}

// BroadcastStrides returns, for an input of shape in broadcast to out, the
// element stride of each output dim in the input (0 where broadcast).
func BroadcastStrides(in, out []int) []int {
	st := make([]int, len(out))
	off := len(out) - len(in)
	s := 1
	for i := len(in) - 1; i >= 0; i-- {
		if in[i] != 1 {
			st[off+i] = s
		}
		s *= in[i]
	}
	return st
}

// BroadcastIndex calls f(o, ia, ib) for every output element o with the
// offsets of the corresponding elements of a and b. The innermost dim is a
// tight loop so the common cases (same shape, scalar, row vector) stay fast.
func BroadcastIndex(aShape, bShape, out []int, f func(o, ia, ib int)) {
	n := 1
	for _, d := range out {
		n *= d
	}
	if n == 0 {
		return
	}
	if len(out) == 0 {
		f(0, 0, 0)
		return
	}
	sa, sb := BroadcastStrides(aShape, out), BroadcastStrides(bShape, out)
	r := len(out)
	inner := out[r-1]
	ia0, ib0 := sa[r-1], sb[r-1]
	idx := make([]int, r)
	ia, ib := 0, 0
	for o := 0; o < n; o += inner {
		for k := 0; k < inner; k++ {
			f(o+k, ia+k*ia0, ib+k*ib0)
		}
		// advance the outer index (dims 0..r-2)
		for d := r - 2; d >= 0; d-- {
			idx[d]++
			ia += sa[d]
			ib += sb[d]
			if idx[d] < out[d] {
				break
			}
			ia -= sa[d] * out[d]
			ib -= sb[d] * out[d]
			idx[d] = 0
		}
	}
}

// NormAxis maps a possibly negative axis into [0, rank) or fails.
func NormAxis(axis int64, rank int) (int, error) {
	a := int(axis)
	if a < 0 {
		a += rank
	}
	if a < 0 || a >= rank {
		return 0, op.Errorf("axis %d is out of range for rank %d", axis, rank)
	}
	return a, nil
}

// Product multiplies dims.
func Product(dims []int) int {
	p := 1
	for _, d := range dims {
		p *= d
	}
	return p
}
