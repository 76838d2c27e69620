package tensorops

import (
	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("Squeeze", []int{1, 11, 13, 21, 23, 24, 25}, buildSqueeze)
	shapes.Register("", "Squeeze", inferSqueeze)
	op.Register("Unsqueeze", []int{1, 11, 13, 21, 23, 24, 25}, buildUnsqueeze)
	shapes.Register("", "Unsqueeze", inferUnsqueeze)
}

// axesSource reads axes from the attribute (before version 13) or from the
// optional second input (13 on), the change both Squeeze and Unsqueeze made.
func axesSource(n *op.Node) (func(in []*tensor.Tensor) ([]int64, bool, error), error) {
	if n.Version < 13 {
		v, ok, err := n.Ints("axes")
		if err != nil {
			return nil, err
		}
		return func([]*tensor.Tensor) ([]int64, bool, error) { return v, ok, nil }, nil
	}
	return func(in []*tensor.Tensor) ([]int64, bool, error) {
		if len(in) < 2 || in[1] == nil {
			return nil, false, nil
		}
		v, err := ints64(in[1], "axes")
		return v, true, err
	}, nil
}

// buildSqueeze removes the listed size-1 dims, or every size-1 dim when no
// axes are given. Negative axes are accepted from version 11.
func buildSqueeze(n *op.Node) (any, error) {
	axesOf, err := axesSource(n)
	if err != nil {
		return nil, err
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil {
			return nil, op.Errorf("Squeeze needs its data input")
		}
		sh := in[0].Shape()
		axes, given, err := axesOf(in)
		if err != nil {
			return nil, err
		}
		drop := make([]bool, len(sh))
		if given && len(axes) > 0 {
			ax, err := opsutil.NormAxes(axes, len(sh))
			if err != nil {
				return nil, err
			}
			for _, a := range ax {
				if sh[a] != 1 {
					return nil, op.Errorf("cannot squeeze axis %d of shape %v: its size is not 1", a, sh)
				}
				drop[a] = true
			}
		} else {
			for i, d := range sh {
				drop[i] = d == 1
			}
		}
		out := make([]int, 0, len(sh))
		for i, d := range sh {
			if !drop[i] {
				out = append(out, d)
			}
		}
		return ctx.One(ctx.Reshaped(in[0], out)), nil
	}), nil
}

// buildUnsqueeze inserts size-1 dims at the listed positions of the output.
func buildUnsqueeze(n *op.Node) (any, error) {
	axesOf, err := axesSource(n)
	if err != nil {
		return nil, err
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil {
			return nil, op.Errorf("Unsqueeze needs its data input")
		}
		sh := in[0].Shape()
		axes, given, err := axesOf(in)
		if err != nil {
			return nil, err
		}
		if !given {
			return nil, op.Errorf("Unsqueeze needs axes")
		}
		r := len(sh) + len(axes)
		ax, err := opsutil.NormAxes(axes, r)
		if err != nil {
			return nil, err
		}
		ins := make([]bool, r)
		for _, a := range ax {
			ins[a] = true
		}
		out := make([]int, r)
		j := 0
		for i := range out {
			if ins[i] {
				out[i] = 1
			} else {
				out[i] = sh[j]
				j++
			}
		}
		return ctx.One(ctx.Reshaped(in[0], out)), nil
	}), nil
}

func inferSqueeze(c *shapes.Ctx) {
	in := c.Shape(0)
	if in == nil {
		c.Set(0, nil, "")
		return
	}
	axes, given, ok := squeezeAxes(c, 1)
	if !ok {
		c.Set(0, nil, "the axes are computed at run time")
		return
	}
	drop := map[int]bool{}
	if !given {
		for i, d := range in {
			if !shapes.IsKnown(d) {
				c.Set(0, nil, "squeezing all axes of 1 with a symbolic dim")
				return
			}
			if d.Value == 1 {
				drop[i] = true
			}
		}
	}
	for _, a := range axes {
		ax, ok := c.Axis(a, len(in))
		if !ok {
			return
		}
		if shapes.IsKnown(in[ax]) && in[ax].Value != 1 {
			c.Problem("SQUEEZE", "axis %d has length %d, not 1", ax, in[ax].Value)
		}
		drop[ax] = true
	}
	var out []graph.Dim
	for i, d := range in {
		if !drop[i] {
			out = append(out, d)
		}
	}
	if out == nil {
		out = []graph.Dim{}
	}
	c.Set(0, out, "")
	if s, ok := c.Sym(0); ok && len(out) <= 1 {
		c.SetSym(0, s)
	}
}

func inferUnsqueeze(c *shapes.Ctx) {
	in := c.Shape(0)
	if in == nil {
		c.Set(0, nil, "")
		return
	}
	axes, _, ok := squeezeAxes(c, 1)
	if !ok {
		c.Set(0, nil, "the axes are computed at run time")
		return
	}
	r := len(in) + len(axes)
	ins := map[int]bool{}
	for _, a := range axes {
		ax, ok := c.Axis(a, r)
		if !ok {
			return
		}
		ins[ax] = true
	}
	out := make([]graph.Dim, 0, r)
	j := 0
	for i := 0; i < r; i++ {
		if ins[i] {
			out = append(out, shapes.Known(1))
		} else if j < len(in) {
			out = append(out, in[j])
			j++
		}
	}
	c.Set(0, out, "")
	if s, ok := c.Sym(0); ok && len(out) == 1 {
		c.SetSym(0, s)
	}
}

func squeezeAxes(c *shapes.Ctx, input int) ([]int64, bool, bool) {
	if c.Version() >= 13 {
		if !c.Has(input) {
			return nil, false, true
		}
		a, ok := c.Ints(input)
		return a, true, ok
	}
	a, ok := c.AttrInts("axes")
	return a, ok, true
}
