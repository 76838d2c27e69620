package numeric

import (
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func one(t *tensor.Tensor) []*tensor.Tensor { return []*tensor.Tensor{t} }

func prod(dims []int) int {
	p := 1
	for _, d := range dims {
		p *= d
	}
	return p
}

// scalarInt reads a one-element integer input such as an axis.
func scalarInt(t *tensor.Tensor, what string) (int64, error) {
	if t == nil {
		return 0, op.Errorf("%s is missing", what)
	}
	v, err := t.Int64s()
	if err != nil || len(v) != 1 {
		return 0, op.Errorf("%s must be an integer scalar, got %s%v", what, t.DType(), t.Shape())
	}
	return v[0], nil
}

// isReal reports whether t holds float32/float16/bfloat16 or float64.
func isReal(t *tensor.Tensor) bool { return t.DType().IsFloat() || t.DType() == tensor.Double }
