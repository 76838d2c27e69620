package tensorops

import (
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("ConstantOfShape", []int{9, 20, 21, 23, 24, 25}, buildConstantOfShape)
	shapes.Register("", "ConstantOfShape", inferConstantOfShape)
	shapes.NoFold("", "ConstantOfShape", func(c *shapes.Ctx) bool { return tooBigToFill(c.Input(0), c.FoldLimit()) })
}

func inferConstantOfShape(c *shapes.Ctx) {
	s, ok := c.Sym(0)
	if !ok {
		if sh := c.Shape(0); len(sh) == 1 && shapes.IsKnown(sh[0]) {
			c.Set(0, shapes.Unknowns(int(sh[0].Value)), "")
		} else {
			c.Set(0, nil, "the shape is computed at run time")
		}
	} else {
		c.Set(0, s, "")
	}
	dt := tensor.Float
	if a := c.Attr("value"); a != nil && a.GetT() != nil {
		dt = tensor.DType(a.GetT().GetDataType())
	}
	c.SetElem(0, dt)
}

// tooBigToFill reports a shape input that asks for more than limit
// elements. Such nodes (a model's weights built at run time) are common,
// and folding them only to have the kernel refuse the allocation would
// build, and drop, a formatted "exceeds the memory budget" error per node
// at load. Anything it cannot read is left to the kernel, which decides.
func tooBigToFill(shape *shapes.Info, limit int) bool {
	if shape == nil || shape.Const == nil || shape.Const.DType() != tensor.Int64 {
		return false
	}
	dims, err := shape.Const.Int64s()
	if err != nil {
		return false
	}
	n := int64(1)
	for _, d := range dims {
		if d <= 0 {
			return false // an empty or invalid shape: the kernel decides
		}
		if n > int64(limit)/d {
			n = int64(limit) + 1
			continue
		}
		n *= d
	}
	return n > int64(limit)
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
