package tensorops

import (
	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("Flatten", []int{1, 9, 11, 13, 21, 23, 24, 25}, buildFlatten)
	shapes.Register("", "Flatten", inferFlatten)
}

// buildFlatten: axis is in [0, r] (negative from version 11 on, counting
// from the back); the result shares the input's data.
// FlattenAttrs are Flatten's attributes as its builder parsed them (Axis
// as written); the WebGPU kernel reads them from the CPU kernel
// (op.AttrsKernel).
type FlattenAttrs struct{ Axis int64 }

func buildFlatten(n *op.Node) (any, error) {
	axis, err := n.Int("axis", 1)
	if err != nil {
		return nil, err
	}
	if axis < 0 && n.Version < 11 {
		return nil, n.Errorf("Flatten-%d does not allow a negative axis (%d)", n.Version, axis)
	}
	return op.WithAttrs(op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil {
			return nil, op.Errorf("Flatten needs an input")
		}
		sh := in[0].Shape()
		a := int(axis)
		if a < 0 {
			a += len(sh)
		}
		if a < 0 || a > len(sh) {
			return nil, op.Errorf("axis %d is out of range for rank %d", axis, len(sh))
		}
		return ctx.One(ctx.Reshaped(in[0], []int{opsutil.Product(sh[:a]), opsutil.Product(sh[a:])})), nil
	}), FlattenAttrs{Axis: axis}), nil
}

func inferFlatten(c *shapes.Ctx) {
	in := c.Shape(0)
	if in == nil {
		c.Set(0, nil, "")
		return
	}
	axis, ok := flattenAxis(c, c.AttrInt("axis", 1), len(in))
	if !ok {
		return
	}
	c.Set(0, []graph.Dim{shapes.Product(in[:axis]), shapes.Product(in[axis:])}, "")
}

func flattenAxis(c *shapes.Ctx, a int64, r int) (int, bool) {
	if a < -int64(r) || a > int64(r) {
		c.Problem("AXIS", "axis %d is out of range for rank %d", a, r)
		return 0, false
	}
	if a < 0 {
		a += int64(r)
	}
	return int(a), true
}
