package tensorops

import (
	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("Split", []int{1, 2, 11, 13, 18}, buildSplit)
	shapes.Register("", "Split", inferSplit)
}

// buildSplit: the split sizes come from the optional second input (version 1
// and 13+) or the split attribute (1 to 11). Without them the axis is split
// evenly across the outputs; version 18 adds num_outputs, where the last
// chunk may be smaller (ceil-sized chunks).
func buildSplit(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	axis := a.Int("axis", 0)
	numOutputs := a.Int("num_outputs", 0)
	splitAttr, hasSplitAttr, err := n.Ints("split")
	if a.Err != nil {
		return nil, a.Err
	}
	if err != nil {
		return nil, err
	}
	if n.Version >= 13 {
		hasSplitAttr = false
	}
	hasNum := n.Version >= 18 && n.Has("num_outputs")
	if hasNum && numOutputs < 1 {
		return nil, n.Errorf("num_outputs must be positive, got %d", numOutputs)
	}
	if hasNum && int(numOutputs) != len(n.Outputs) {
		return nil, n.Errorf("num_outputs %d does not match the %d outputs", numOutputs, len(n.Outputs))
	}
	splitInput := n.Version == 1 || n.Version >= 13
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil {
			return nil, op.Errorf("Split needs its input")
		}
		x := in[0]
		ax, err := opsutil.NormAxis(axis, x.Rank())
		if err != nil {
			return nil, err
		}
		dim := x.Shape()[ax]
		nOut := len(n.Outputs)
		var sizes []int
		switch {
		case splitInput && len(in) > 1 && in[1] != nil:
			v, err := ints64(in[1], "split")
			if err != nil {
				return nil, err
			}
			sizes = toInts(v)
		case hasSplitAttr:
			sizes = toInts(splitAttr)
		case hasNum:
			chunk := (dim + nOut - 1) / nOut
			for i := 0; i < nOut; i++ {
				s := max(0, min(chunk, dim-i*chunk))
				sizes = append(sizes, s)
			}
		default:
			if nOut == 0 || dim%nOut != 0 {
				return nil, op.Errorf("cannot split dim %d of size %d evenly into %d outputs", ax, dim, nOut)
			}
			for i := 0; i < nOut; i++ {
				sizes = append(sizes, dim/nOut)
			}
		}
		if len(sizes) != nOut {
			return nil, op.Errorf("split has %d sizes for %d outputs", len(sizes), nOut)
		}
		total := 0
		for _, s := range sizes {
			if s < 0 {
				return nil, op.Errorf("split sizes %v have a negative entry", sizes)
			}
			total += s
		}
		if total != dim {
			return nil, op.Errorf("split sizes %v do not sum to dim %d of size %d", sizes, ax, dim)
		}
		return splitAxis(ctx, x, ax, sizes), nil
	}), nil
}

// splitAxis cuts x along ax into pieces of the given sizes.
func splitAxis(ctx *op.Context, x *tensor.Tensor, ax int, sizes []int) []*tensor.Tensor {
	sh := x.Shape()
	outer := opsutil.Product(sh[:ax])
	inner := opsutil.Product(sh[ax+1:])
	rowIn := sh[ax] * inner
	mv := moverFor(x.Data())
	outs := make([]*tensor.Tensor, len(sizes))
	off := 0
	for i, s := range sizes {
		shape := append([]int(nil), sh...)
		shape[ax] = s
		t := ctx.New(x.DType(), shape...)
		rowOut := s * inner
		if rowOut > 0 {
			for o := 0; o < outer; o++ {
				mv.copyRange(t.Data(), o*rowOut, x.Data(), o*rowIn+off, rowOut)
			}
		}
		off += rowOut
		outs[i] = t
	}
	return outs
}

func inferSplit(c *shapes.Ctx) {
	in := c.Shape(0)
	if in == nil {
		for i := range c.NumOut() {
			c.Set(i, nil, "")
		}
		return
	}
	axis, ok := c.Axis(c.AttrInt("axis", 0), len(in))
	if !ok {
		return
	}
	var sizes []int64
	if c.Version() >= 13 && c.Has(1) {
		s, ok := c.Ints(1)
		if !ok {
			for i := range c.NumOut() {
				c.Set(i, nil, "the split sizes are computed at run time")
			}
			return
		}
		sizes = s
	} else if s, ok := c.AttrInts("split"); ok {
		sizes = s
	} else if c.Version() < 13 && c.Has(1) {
		sizes, _ = c.Ints(1)
	}
	n := c.NumOut()
	if sizes == nil {
		d := in[axis]
		if !shapes.IsKnown(d) {
			for i := range c.NumOut() {
				s := append([]graph.Dim(nil), in...)
				s[axis] = shapes.DimDiv(d, shapes.Known(int64(n)))
				c.Set(i, s, "")
			}
			return
		}
		if no := c.AttrInt("num_outputs", 0); no > 0 && no != int64(n) {
			// A hostile count must not size a loop: the node lists n outputs.
			c.Problem("SPLIT", "num_outputs is %d; the node lists %d outputs", no, n)
			return
		}
		chunk := (d.Value + int64(n) - 1) / int64(n)
		for i := 0; i < n; i++ {
			sizes = append(sizes, min(chunk, max(d.Value-chunk*int64(i), 0)))
		}
		if c.Version() < 18 && d.Value%int64(n) != 0 {
			c.Problem("SPLIT", "axis %d of length %d does not split into %d equal parts", axis, d.Value, n)
		}
	}
	if len(sizes) != c.NumOut() {
		c.Problem("SPLIT", "%d split sizes for %d outputs", len(sizes), c.NumOut())
		return
	}
	var sum int64
	for i, sz := range sizes {
		s := append([]graph.Dim(nil), in...)
		s[axis] = shapes.Known(sz)
		c.Set(i, s, "")
		sum += sz
	}
	if shapes.IsKnown(in[axis]) && sum != in[axis].Value {
		c.Problem("SPLIT", "split sizes %v sum to %d, axis %d has length %d", sizes, sum, axis, in[axis].Value)
	}
}
