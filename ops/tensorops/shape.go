package tensorops

import (
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("Shape", []int{1, 13, 15, 19, 21, 23, 24, 25}, buildShape)
	shapes.Register("", "Shape", inferShape)
	op.Register("Size", []int{1, 13, 19, 21, 23, 24, 25}, buildSize)
	shapes.Register("", "Size", inferSize)
}

// buildShape: version 15 added start/end, which slice the dims with
// Python-style clamping; earlier versions return every dim.
func buildShape(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	start := a.Int("start", 0)
	end := a.Int("end", 1<<62)
	if a.Err != nil {
		return nil, a.Err
	}
	if n.Version < 15 {
		start, end = 0, 1<<62
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil {
			return nil, op.Errorf("Shape needs an input")
		}
		sh := in[0].Shape()
		r := int64(len(sh))
		s, e := clampIndex(start, r), clampIndex(end, r)
		if e < s {
			e = s
		}
		dims := make([]int64, 0, e-s)
		for _, d := range sh[s:e] {
			dims = append(dims, int64(d))
		}
		return ctx.One(tensor.Of([]int{len(dims)}, dims)), nil
	}), nil
}

// clampIndex maps a Python-style index (negative counts from the end) into [0, r].
func clampIndex(i, r int64) int64 {
	if i < 0 {
		i += r
	}
	return max(0, min(i, r))
}

func buildSize(n *op.Node) (any, error) {
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil {
			return nil, op.Errorf("Size needs an input")
		}
		return ctx.One(tensor.Scalar(int64(in[0].Len()))), nil
	}), nil
}

func inferShape(c *shapes.Ctx) {
	s := c.Shape(0)
	if s == nil {
		c.Set(0, []graph.Dim{shapes.Unknown()}, "")
		return
	}
	start, end := int64(0), int64(len(s))
	if c.Version() >= 15 {
		r := int64(len(s))
		start = clampShapeAxis(c.AttrInt("start", 0), r)
		end = clampShapeAxis(c.AttrInt("end", r), r)
	}
	if end < start {
		end = start
	}
	sub := append([]graph.Dim(nil), s[start:end]...)
	c.Set(0, []graph.Dim{shapes.Known(end - start)}, "")
	c.SetSym(0, sub)
}

func clampShapeAxis(a, r int64) int64 {
	if a < 0 {
		a += r
	}
	return min(max(a, 0), r)
}

// inferSize: a scalar, the element count (symbolic when the shape is).
func inferSize(c *shapes.Ctx) {
	c.Set(0, []graph.Dim{}, "")
	if s := c.Shape(0); s != nil {
		c.SetSym(0, []graph.Dim{shapes.Product(s)})
	}
}
