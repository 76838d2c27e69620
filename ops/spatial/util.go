package spatial

import (
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// intsOr returns an INTS attribute, or n copies of def when absent, and
// checks its length.
func intsOr(nd *op.Node, name string, n int, def int64) ([]int, error) {
	v, ok, err := nd.Ints(name)
	if err != nil {
		return nil, err
	}
	out := make([]int, n)
	if !ok {
		for i := range out {
			out[i] = int(def)
		}
		return out, nil
	}
	if len(v) != n {
		return nil, op.Errorf("%s has %d entries, want %d", name, len(v), n)
	}
	for i, x := range v {
		out[i] = int(x)
	}
	return out, nil
}

// store writes float64 results into out, converted to its dtype (float,
// or integer for Col2Im, truncated and saturated).
func store(out *tensor.Tensor, v []float64) {
	if err := tensor.StoreFloat64s(out, v); err != nil {
		op.Fail("%v", err)
	}
}

func isReal(t *tensor.Tensor) bool { return t.DType().IsFloat() || t.DType() == tensor.Double }
