package tensorops

import (
	"math"

	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("OneHot", []int{9, 11}, buildOneHot)
	shapes.Register("", "OneHot", inferOneHot)
}

// buildOneHot: version 11 lets indices in [-depth, -1] count from the end;
// in version 9 they are out of range (all off values).
func buildOneHot(n *op.Node) (any, error) {
	axis, err := n.Int("axis", -1)
	if err != nil {
		return nil, err
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 3 || in[0] == nil || in[1] == nil || in[2] == nil {
			return nil, op.Errorf("OneHot needs indices, depth and values")
		}
		ind, dep, vals := in[0], in[1], in[2]
		if vals.Len() != 2 {
			return nil, op.Errorf("values must have two elements [off, on], got shape %v", vals.Shape())
		}
		dv, err := dep.Float64s()
		if err != nil || len(dv) != 1 {
			return nil, op.Errorf("depth must be a numeric scalar")
		}
		if dv[0] < 1 || dv[0] > math.MaxInt32*64 || math.IsNaN(dv[0]) {
			return nil, op.Errorf("depth %g must be positive", dv[0])
		}
		depth := int(dv[0])
		idx, err := ind.Float64s()
		if err != nil {
			return nil, op.Errorf("indices: %v", err)
		}
		r := ind.Rank() + 1
		a, err := opsutil.NormAxis(axis, r)
		if err != nil {
			return nil, err
		}
		sh := ind.Shape()
		outShape := append(append(append([]int(nil), sh[:a]...), depth), sh[a:]...)
		out, err := checked(ctx, vals.DType(), outShape)
		if err != nil {
			return nil, err
		}
		moverFor(out.Data()).fill(out.Data(), vals.Data(), 0)
		inner := opsutil.Product(sh[a:])
		for i, v := range idx {
			k := int64(v)
			if k < 0 && n.Version >= 11 {
				k += int64(depth)
			}
			if k < 0 || k >= int64(depth) {
				continue
			}
			o, j := i/inner, i%inner
			tensor.SetFrom(out, (o*depth+int(k))*inner+j, vals, 1)
		}
		return ctx.One(out), nil
	}), nil
}

func inferOneHot(c *shapes.Ctx) {
	idx := c.Shape(0)
	if idx == nil {
		c.Set(0, nil, "")
		return
	}
	depth := shapes.Unknown()
	if v := c.Floats(1); len(v) == 1 {
		depth = shapes.Known(int64(v[0]))
	}
	r := len(idx) + 1
	axis, ok := c.Axis(c.AttrInt("axis", -1), r)
	if !ok {
		return
	}
	out := append(append(append([]graph.Dim(nil), idx[:axis]...), depth), idx[axis:]...)
	c.Set(0, out, "")
}
