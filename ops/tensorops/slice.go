package tensorops

import (
	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
	"math"
)

func init() {
	op.Register("Slice", []int{1, 10, 11, 13}, buildSlice)
	shapes.Register("", "Slice", inferSlice)
}

// buildSlice: version 1 takes starts/ends/axes as attributes (step 1);
// 10 on as inputs, with optional axes and steps (negative steps walk
// backwards). Out-of-range starts/ends are clamped as in numpy.
func buildSlice(n *op.Node) (any, error) {
	var aStarts, aEnds, aAxes []int64
	if n.Version < 10 {
		a := &op.Attribs{N: n}
		aStarts, aEnds, aAxes = a.Ints("starts"), a.Ints("ends"), a.Ints("axes")
		if a.Err != nil {
			return nil, a.Err
		}
		if !n.Has("starts") || !n.Has("ends") {
			return nil, n.Errorf("Slice-1 needs starts and ends")
		}
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil {
			return nil, op.Errorf("Slice needs its data input")
		}
		x := in[0]
		starts, ends, axes := aStarts, aEnds, aAxes
		var steps []int64
		if n.Version >= 10 {
			if len(in) < 3 || in[1] == nil || in[2] == nil {
				return nil, op.Errorf("Slice needs starts and ends inputs")
			}
			var err error
			if starts, err = ints64(in[1], "starts"); err != nil {
				return nil, err
			}
			if ends, err = ints64(in[2], "ends"); err != nil {
				return nil, err
			}
			if len(in) > 3 && in[3] != nil {
				if axes, err = ints64(in[3], "axes"); err != nil {
					return nil, err
				}
			}
			if len(in) > 4 && in[4] != nil {
				if steps, err = ints64(in[4], "steps"); err != nil {
					return nil, err
				}
			}
		}
		return sliceTensor(ctx, x, starts, ends, axes, steps)
	}), nil
}

func sliceTensor(ctx *op.Context, x *tensor.Tensor, starts, ends, axes, steps []int64) ([]*tensor.Tensor, error) {
	sh := x.Shape()
	r := len(sh)
	if len(starts) != len(ends) {
		return nil, op.Errorf("starts %v and ends %v differ in length", starts, ends)
	}
	var ax []int
	if axes == nil {
		if len(starts) > r {
			return nil, op.Errorf("%d starts for rank %d", len(starts), r)
		}
		ax = make([]int, len(starts))
		for i := range ax {
			ax[i] = i
		}
	} else {
		if len(axes) != len(starts) {
			return nil, op.Errorf("axes %v and starts %v differ in length", axes, starts)
		}
		var err error
		if ax, err = opsutil.NormAxes(axes, r); err != nil {
			return nil, err
		}
	}
	if steps != nil && len(steps) != len(starts) {
		return nil, op.Errorf("steps %v and starts %v differ in length", steps, starts)
	}
	st := strides(sh)
	outShape := append([]int(nil), sh...)
	vStride := append([]int(nil), st...)
	base := 0
	for i, a := range ax {
		step := int64(1)
		if steps != nil {
			step = steps[i]
		}
		if step == 0 {
			return nil, op.Errorf("slice step cannot be 0")
		}
		dim := int64(sh[a])
		s, e := starts[i], ends[i]
		if s < 0 {
			s += dim
		}
		if e < 0 {
			e += dim
		}
		var count int64
		if step > 0 {
			s = max(0, min(s, dim))
			e = max(0, min(e, dim))
			if e > s {
				count = (e-s-1)/step + 1
			}
		} else {
			s = max(0, min(s, dim-1))
			e = max(-1, min(e, dim-1))
			if s > e {
				count = (s-e-1)/(-step) + 1
			}
		}
		outShape[a] = int(count)
		if count > 0 {
			base += int(s) * st[a]
		}
		vStride[a] = int(step) * st[a]
	}
	out := ctx.New(x.DType(), outShape...)
	moverFor(x.Data()).strided(out.Data(), x.Data(), outShape, base, vStride)
	return ctx.One(out), nil
}

func inferSlice(c *shapes.Ctx) {
	in := c.Shape(0)
	if in == nil {
		c.Set(0, nil, "")
		return
	}
	var starts, ends, axes, steps []int64
	var ok1, ok2 bool
	if c.Version() < 10 {
		starts, ok1 = c.AttrInts("starts")
		ends, ok2 = c.AttrInts("ends")
		axes, _ = c.AttrInts("axes")
	} else {
		starts, ok1 = c.Ints(1)
		ends, ok2 = c.Ints(2)
		if c.Has(3) {
			a, ok := c.Ints(3)
			if !ok {
				ok1 = false
			}
			axes = a
		}
		if c.Has(4) {
			s, ok := c.Ints(4)
			if !ok {
				ok1 = false
			}
			steps = s
		}
	}
	if !ok1 || !ok2 || len(starts) != len(ends) {
		c.Set(0, shapes.Unknowns(len(in)), "")
		return
	}
	out := append([]graph.Dim(nil), in...)
	if axes == nil {
		for i := range starts {
			axes = append(axes, int64(i))
		}
	}
	var symSlice []graph.Dim
	sym, hasSym := c.Sym(0)
	for i, a := range axes {
		ax, ok := c.Axis(a, len(in))
		if !ok || i >= len(starts) {
			return
		}
		step := int64(1)
		if i < len(steps) {
			step = steps[i]
		}
		if step == 0 {
			c.Problem("SLICE", "step 0 on axis %d", ax)
			return
		}
		d := in[ax]
		if !shapes.IsKnown(d) {
			if starts[i] == 0 && step == 1 && ends[i] >= math.MaxInt32 {
				continue
			}
			out[ax] = shapes.Unknown()
			continue
		}
		lo, hi := sliceBounds(starts[i], ends[i], step, d.Value)
		n := int64(0)
		if step > 0 && hi > lo {
			n = (hi - lo + step - 1) / step
		} else if step < 0 && lo > hi {
			n = (lo - hi - step - 1) / -step
		}
		out[ax] = shapes.Known(n)
		if hasSym && len(in) == 1 && int64(len(sym)) == d.Value {
			for j := int64(0); j < n; j++ {
				symSlice = append(symSlice, sym[lo+j*step])
			}
			hasSym = true
		}
	}
	c.Set(0, out, "")
	if hasSym && len(in) == 1 && symSlice != nil {
		c.SetSym(0, symSlice)
	}
}

// sliceRange clamps start and end as the Slice spec does.
func sliceBounds(start, end, step, d int64) (int64, int64) {
	if start < 0 {
		start += d
	}
	if end < 0 {
		end += d
	}
	if step > 0 {
		start = min(max(start, 0), d)
		end = min(max(end, 0), d)
	} else {
		start = min(max(start, 0), d-1)
		end = min(max(end, -1), d-1)
	}
	return start, end
}
