package ml

import (
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Default.Register(Domain, "ArrayFeatureExtractor", []int{1}, buildArrayFeatureExtractor)
}

// buildArrayFeatureExtractor selects columns (indices into the last dim) of
// X. A 1-D X is treated as a single row, so the output is [1, len(Y)], as
// onnxruntime produces.
func buildArrayFeatureExtractor(n *op.Node) (any, error) {
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 2 || in[0] == nil || in[1] == nil {
			return nil, op.Errorf("ArrayFeatureExtractor needs X and Y")
		}
		x := in[0]
		idx, err := in[1].Int64s()
		if err != nil {
			return nil, op.Errorf("ArrayFeatureExtractor indices must be integers")
		}
		sh := x.Shape()
		if len(sh) == 0 {
			return nil, op.Errorf("ArrayFeatureExtractor needs X of rank >= 1")
		}
		last := sh[len(sh)-1]
		for _, i := range idx {
			if i < 0 || i >= int64(last) {
				return nil, op.Errorf("index %d is out of range [0, %d)", i, last)
			}
		}
		osh := append(append([]int(nil), sh[:len(sh)-1]...), len(idx))
		if len(sh) == 1 {
			osh = []int{1, len(idx)}
		}
		out := ctx.New(x.DType(), osh...)
		rows := x.Len() / max(last, 1)
		if last == 0 {
			rows = 0
		}
		for r := 0; r < rows; r++ {
			for j, i := range idx {
				tensor.SetFrom(out, r*len(idx)+j, x, r*last+int(i))
			}
		}
		return ctx.One(out), nil
	}), nil
}
