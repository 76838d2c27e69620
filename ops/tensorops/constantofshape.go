package tensorops

import (
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("ConstantOfShape", []int{9, 20, 21, 23, 24, 25}, buildConstantOfShape)
}

// ConstantOfShape versions differ only in the dtypes value may have, all of
// which the generic fill handles.
func buildConstantOfShape(n *op.Node) (any, error) {
	val, err := n.Tensor("value")
	if err != nil {
		return nil, err
	}
	if val == nil {
		val = tensor.Of([]int{1}, []float32{0})
	}
	if val.Len() != 1 {
		return nil, n.Errorf("value must hold one element, got shape %v", val.Shape())
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil {
			return nil, op.Errorf("ConstantOfShape needs its shape input")
		}
		dims, err := ints64(in[0], "shape")
		if err != nil {
			return nil, err
		}
		if in[0].Rank() > 1 {
			return nil, op.Errorf("shape must be 1-D, got shape %v", in[0].Shape())
		}
		shape, err := shapeFromInt64s(dims)
		if err != nil {
			return nil, err
		}
		out, err := checked(ctx, val.DType(), shape)
		if err != nil {
			return nil, err
		}
		moverFor(out.Data()).fill(out.Data(), val.Data(), 0)
		return ctx.One(out), nil
	}), nil
}

// shapeFromInt64s validates dims read from a tensor: negative dims are errors.
func shapeFromInt64s(dims []int64) ([]int, error) {
	shape := make([]int, len(dims))
	for i, d := range dims {
		if d < 0 {
			return nil, op.Errorf("shape %v has a negative dim", dims)
		}
		if int64(int(d)) != d {
			return nil, op.Errorf("dim %d does not fit an int", d)
		}
		shape[i] = int(d)
	}
	return shape, nil
}
