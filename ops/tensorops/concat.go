package tensorops

import (
	"fmt"
	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("Concat", []int{1, 4, 11, 13}, buildConcat)
	shapes.Register("", "Concat", inferConcat)
}

// buildConcat: axis defaulted to 1 in version 1, is required from 4 and may
// be negative from 11.
// ConcatAttrs are Concat's attributes as its builder parsed them (Axis
// as written; negative counts from the end); the WebGPU kernel reads
// them from the CPU kernel (op.AttrsKernel).
type ConcatAttrs struct{ Axis int64 }

func buildConcat(n *op.Node) (any, error) {
	if n.Version >= 4 && !n.Has("axis") {
		return nil, n.Errorf("Concat-%d needs the axis attribute", n.Version)
	}
	axis, err := n.Int("axis", 1)
	if err != nil {
		return nil, err
	}
	return op.WithAttrs(op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		var xs []*tensor.Tensor
		for _, t := range in {
			if t != nil {
				xs = append(xs, t)
			}
		}
		if len(xs) == 0 {
			return nil, op.Errorf("Concat needs at least one input")
		}
		first := xs[0]
		r := first.Rank()
		a, err := opsutil.NormAxis(axis, r)
		if err != nil {
			return nil, err
		}
		var dims [8]int // on the stack for ranks up to 8
		outShape := append(dims[:0], first.Shape()...)
		outShape[a] = 0
		for _, t := range xs {
			if t.DType() != first.DType() {
				return nil, op.Errorf("inputs have different types (%s, %s)", first.DType(), t.DType())
			}
			if t.Rank() != r {
				return nil, op.Errorf("inputs have different ranks (%v, %v)", first.Shape(), t.Shape())
			}
			for i, d := range t.Shape() {
				if i != a && d != first.Shape()[i] {
					return nil, op.Errorf("input shapes %v and %v differ outside axis %d", first.Shape(), t.Shape(), a)
				}
			}
			outShape[a] += t.Shape()[a]
		}
		out := ctx.New(first.DType(), outShape...)
		outer := opsutil.Product(outShape[:a])
		inner := opsutil.Product(outShape[a+1:])
		rowOut := outShape[a] * inner
		mv := moverFor(out.Data())
		off := 0
		for _, t := range xs {
			rowIn := t.Shape()[a] * inner
			if rowIn == 0 {
				continue
			}
			for o := 0; o < outer; o++ {
				mv.copyRange(out.Data(), o*rowOut+off, t.Data(), o*rowIn, rowIn)
			}
			off += rowIn
		}
		return ctx.One(out), nil
	}), ConcatAttrs{Axis: axis}), nil
}

func inferConcat(c *shapes.Ctx) {
	var ss [][]graph.Dim
	for i := range c.NumIn() {
		if c.Has(i) {
			s := c.Shape(i)
			if s == nil {
				c.Set(0, nil, fmt.Sprintf("the shape of input %q is unknown", c.InputName(i)))
				return
			}
			ss = append(ss, s)
		}
	}
	if len(ss) == 0 {
		return
	}
	r := len(ss[0])
	axis, ok := c.Axis(c.AttrInt("axis", 0), r)
	if !ok {
		return
	}
	out := append([]graph.Dim(nil), ss[0]...)
	for j, s := range ss[1:] {
		if len(s) != r {
			c.Problem("CONCAT", "input %d has rank %d, input 0 rank %d", j+1, len(s), r)
			return
		}
		for i := range s {
			if i == axis {
				out[i] = shapes.DimAdd(out[i], s[i])
				continue
			}
			if shapes.IsKnown(out[i]) && shapes.IsKnown(s[i]) && out[i].Value != s[i].Value {
				c.Problem("CONCAT", "input %d has %s on axis %d, input 0 has %s", j+1, s[i], i, out[i])
				return
			}
			if !shapes.IsKnown(out[i]) && shapes.IsKnown(s[i]) {
				out[i] = s[i]
			}
		}
	}
	c.Set(0, out, "")
	if r == 1 {
		var syms []graph.Dim
		for i := range c.NumIn() {
			if !c.Has(i) {
				continue
			}
			s, ok := c.Sym(i)
			if !ok {
				return
			}
			syms = append(syms, s...)
		}
		c.SetSym(0, syms)
	}
}
