package opsutil

// Small input-reading and dtype helpers that several operator packages had
// written out identically (numeric/signal, resample/tensorops,
// elementwise/resample). They live here once so a fix to one lands in all.

import (
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// ScalarInt reads a one-element integer input (an axis, a length, a step),
// which the spec gives as a scalar but exporters sometimes write as shape [1].
func ScalarInt(t *tensor.Tensor, what string) (int64, error) {
	if t == nil {
		return 0, op.Errorf("%s is missing", what)
	}
	v, err := t.Int64s()
	if err != nil || len(v) != 1 {
		return 0, op.Errorf("%s must be an integer scalar, got %s%v", what, t.DType(), t.Shape())
	}
	return v[0], nil
}

// NormAxes maps possibly negative axes into [0, rank), rejecting
// out-of-range and repeated axes.
func NormAxes(axes []int64, rank int) ([]int, error) {
	out := make([]int, len(axes))
	seen := make([]bool, rank)
	for i, a := range axes {
		v := int(a)
		if v < 0 {
			v += rank
		}
		if v < 0 || v >= rank {
			return nil, op.Errorf("axis %d is out of range for rank %d", a, rank)
		}
		if seen[v] {
			return nil, op.Errorf("axis %d is repeated", a)
		}
		seen[v] = true
		out[i] = v
	}
	return out, nil
}

// IsNumeric reports whether dt holds numbers gort computes with: the float
// and integer types, not bool, string or the packed/raw code types.
func IsNumeric(dt tensor.DType) bool {
	switch dt {
	case tensor.Float, tensor.Float16, tensor.BFloat16, tensor.Double,
		tensor.Int8, tensor.Int16, tensor.Int32, tensor.Int64,
		tensor.Uint8, tensor.Uint16, tensor.Uint32, tensor.Uint64:
		return true
	}
	return false
}
