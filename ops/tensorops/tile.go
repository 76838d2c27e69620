package tensorops

import (
	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("Tile", []int{1, 6, 13}, buildTile)
	shapes.Register("", "Tile", inferTile)
	op.Register("Expand", []int{8, 13}, buildExpand)
	shapes.Register("", "Expand", inferExpand)
}

// buildTile: version 1 repeats along one axis (scalar tiles and axis
// inputs); 6 on takes one repeat count per dim. The output, viewed with
// shape [r0, d0, r1, d1, ...], is the input read with stride 0 along each
// repeat dim, so tiling is a single strided copy.
func buildTile(n *op.Node) (any, error) {
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 2 || in[0] == nil || in[1] == nil {
			return nil, op.Errorf("Tile needs input and repeats")
		}
		x := in[0]
		sh := x.Shape()
		reps := make([]int64, len(sh))
		if n.Version < 6 {
			if len(in) < 3 || in[2] == nil {
				return nil, op.Errorf("Tile-1 needs tiles and axis inputs")
			}
			t, err := opsutil.ScalarInt(in[1], "tiles")
			if err != nil {
				return nil, err
			}
			ax, err := opsutil.ScalarInt(in[2], "axis")
			if err != nil {
				return nil, err
			}
			a, err := opsutil.NormAxis(ax, len(sh))
			if err != nil {
				return nil, err
			}
			for i := range reps {
				reps[i] = 1
			}
			reps[a] = t
		} else {
			v, err := ints64(in[1], "repeats")
			if err != nil {
				return nil, err
			}
			if len(v) != len(sh) {
				return nil, op.Errorf("repeats %v must have one entry per dim of %v", v, sh)
			}
			reps = v
		}
		st := strides(sh)
		outShape := make([]int, len(sh))
		var vShape, vStride []int
		for i, r := range reps {
			if r < 0 {
				return nil, op.Errorf("repeats %v has a negative entry", reps)
			}
			if int64(int(r)) != r {
				return nil, op.Errorf("repeat %d is too large", r)
			}
			outShape[i] = sh[i] * int(r)
			if sh[i] != 0 && outShape[i]/sh[i] != int(r) {
				return nil, op.Errorf("tiled shape overflows")
			}
			vShape = append(vShape, int(r), sh[i])
			vStride = append(vStride, 0, st[i])
		}
		out, err := checked(ctx, x.DType(), outShape)
		if err != nil {
			return nil, err
		}
		moverFor(x.Data()).strided(out.Data(), x.Data(), vShape, 0, vStride)
		return ctx.One(out), nil
	}), nil
}

// buildExpand broadcasts the input to the broadcast of its shape and the
// shape input (numpy rules, so a 1 in shape keeps the input's dim).
func buildExpand(n *op.Node) (any, error) {
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 2 || in[0] == nil || in[1] == nil {
			return nil, op.Errorf("Expand needs input and shape")
		}
		x := in[0]
		dims, err := ints64(in[1], "shape")
		if err != nil {
			return nil, err
		}
		shape, err := shapeFromInt64s(dims)
		if err != nil {
			return nil, err
		}
		outShape, err := opsutil.BroadcastShape(x.Shape(), shape)
		if err != nil {
			return nil, err
		}
		out, err := checked(ctx, x.DType(), outShape)
		if err != nil {
			return nil, err
		}
		st := opsutil.BroadcastStrides(x.Shape(), outShape)
		moverFor(x.Data()).strided(out.Data(), x.Data(), outShape, 0, st)
		return ctx.One(out), nil
	}), nil
}

func inferTile(c *shapes.Ctx) {
	in := c.Shape(0)
	rep, ok := c.Sym(1)
	if in == nil || !ok {
		c.Set(0, nil, "the repeats are computed at run time")
		return
	}
	if len(rep) != len(in) {
		c.Problem("RANK", "%d repeats for an input of rank %d", len(rep), len(in))
		return
	}
	out := make([]graph.Dim, len(in))
	for i := range in {
		out[i] = shapes.DimMul(in[i], rep[i])
	}
	c.Set(0, out, "")
}

func inferExpand(c *shapes.Ctx) {
	if _, ok := c.Sym(1); ok {
		inferExpandTo(c)
		return
	}
	in, s := c.Shape(0), c.Shape(1)
	if in == nil || len(s) != 1 || !shapes.IsKnown(s[0]) {
		c.Set(0, nil, "the target shape is computed at run time")
		return
	}
	r := max(len(in), int(s[0].Value))
	c.Set(0, shapes.Unknowns(r), "")
}

func inferExpandTo(c *shapes.Ctx) {
	in := c.Shape(0)
	s, ok := c.Sym(1)
	if !ok || in == nil {
		c.Set(0, nil, "the target shape is computed at run time")
		return
	}
	out, ok := c.Broadcast(in, s)
	if ok {
		c.Set(0, out, "")
	}
}
