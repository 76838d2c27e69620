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

// store writes float64 results into a float tensor of any float dtype.
func store(out *tensor.Tensor, v []float64) {
	if d, ok := out.Data().([]float64); ok {
		copy(d, v)
		return
	}
	d := out.F32()
	for i, x := range v {
		d[i] = float32(x)
	}
}

func isReal(t *tensor.Tensor) bool { return t.DType().IsFloat() || t.DType() == tensor.Double }
