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
	op.Register("Reshape", []int{1, 5, 13, 14, 19, 21, 23, 24, 25}, buildReshape)
	shapes.Register("", "Reshape", inferReshape)
}

// buildReshape: version 1 takes the shape as an attribute, 5+ as an input;
// 14 added allowzero (0 means an empty dim rather than "copy the input dim").
// The result shares the input's data: tensors are immutable.
// ReshapeAttrs are Reshape's attributes as its builder parsed them
// (AllowZero: allowzero, from version 14); the WebGPU kernel reads them
// from the CPU kernel (op.AttrsKernel).
type ReshapeAttrs struct{ AllowZero bool }

func buildReshape(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	allowZero := a.Int("allowzero", 0) != 0 && n.Version >= 14
	attrShape := a.Ints("shape")
	if a.Err != nil {
		return nil, a.Err
	}
	if n.Version < 5 && !n.Has("shape") {
		return nil, n.Errorf("Reshape-%d needs the shape attribute", n.Version)
	}
	return op.WithAttrs(op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil {
			return nil, op.Errorf("Reshape needs its data input")
		}
		spec := attrShape
		if n.Version >= 5 {
			if len(in) < 2 || in[1] == nil {
				return nil, op.Errorf("Reshape needs its shape input")
			}
			v, err := ints64(in[1], "shape")
			if err != nil {
				return nil, err
			}
			spec = v
		}
		var dims [8]int // on the stack for ranks up to 8
		shape, err := reshapeDims(dims[:0], in[0].Shape(), spec, allowZero)
		if err != nil {
			return nil, err
		}
		return ctx.One(ctx.Reshaped(in[0], shape)), nil
	}), ReshapeAttrs{AllowZero: allowZero}), nil
}

// reshapeDims resolves a Reshape shape spec (0 = copy, -1 = infer) against
// the input's shape, into dst's array when it is large enough.
func reshapeDims(dst, inShape []int, spec []int64, allowZero bool) ([]int, error) {
	total := opsutil.Product(inShape)
	out := append(dst[:0], make([]int, len(spec))...)
	infer := -1
	known := 1
	hasZero := false
	for i, d := range spec {
		switch {
		case d == -1:
			if infer >= 0 {
				return nil, op.Errorf("shape %v has more than one -1", spec)
			}
			infer = i
			continue
		case d == 0 && !allowZero:
			if i >= len(inShape) {
				return nil, op.Errorf("shape %v copies dim %d, but the input %v has rank %d", spec, i, inShape, len(inShape))
			}
			out[i] = inShape[i]
		case d < 0:
			return nil, op.Errorf("shape %v has invalid dim %d", spec, d)
		default:
			if int64(int(d)) != d {
				return nil, op.Errorf("shape %v has dim %d that does not fit an int", spec, d)
			}
			out[i] = int(d)
		}
		if out[i] == 0 {
			hasZero = true
			continue
		}
		if known > math.MaxInt/out[i] {
			return nil, op.Errorf("cannot reshape %v to %v", inShape, spec)
		}
		known *= out[i]
	}
	if infer >= 0 {
		if hasZero {
			if total != 0 {
				return nil, op.Errorf("cannot reshape %v to %v", inShape, spec)
			}
			if allowZero {
				return nil, op.Errorf("shape %v has both 0 and -1 with allowzero set", spec)
			}
			out[infer] = 0
			return out, nil
		}
		if known == 0 || total%known != 0 {
			return nil, op.Errorf("cannot reshape %v to %v", inShape, spec)
		}
		out[infer] = total / known
		return out, nil
	}
	if n, ok := tensor.Size(out); !ok || n != total {
		return nil, op.Errorf("cannot reshape %v (%d elements) to %v", inShape, total, spec)
	}
	return out, nil
}

func inferReshape(c *shapes.Ctx) {
	target, ok := c.Sym(1)
	if !ok {
		// The rank is still known from the shape input's length.
		if s := c.Shape(1); len(s) == 1 && shapes.IsKnown(s[0]) {
			c.Set(0, shapes.Unknowns(int(s[0].Value)), "")
			return
		}
		c.Set(0, nil, "the target shape is computed at run time")
		return
	}
	in := c.Shape(0)
	allowZero := c.AttrInt("allowzero", 0) != 0
	out := make([]graph.Dim, len(target))
	neg := -1
	for i, d := range target {
		switch {
		case shapes.IsKnown(d) && d.Value == 0 && !allowZero:
			if in == nil || i >= len(in) {
				out[i] = shapes.Unknown()
				if in != nil {
					c.Problem("RESHAPE", "shape %s copies axis %d of an input of rank %d", shapes.ShapeString(target), i, len(in))
				}
			} else {
				out[i] = in[i]
			}
		case d.Param == "" && d.Value == -1:
			neg = i
			out[i] = shapes.Unknown()
		case d.Param == "" && d.Value < 0:
			c.Problem("RESHAPE", "shape %s has the invalid dim %d", shapes.ShapeString(target), d.Value)
			c.Set(0, nil, "")
			return
		default:
			out[i] = d
		}
	}
	if in != nil {
		total := shapes.Product(in)
		rest := shapes.Known(1)
		for i, d := range out {
			if i != neg {
				rest = shapes.DimMul(rest, d)
			}
		}
		if neg >= 0 {
			out[neg] = shapes.DimDiv(total, rest)
			if shapes.IsKnown(total) && shapes.IsKnown(rest) && rest.Value != 0 && total.Value%rest.Value != 0 {
				c.Problem("RESHAPE_COUNT", "cannot reshape %s (%d elements) to %s", shapes.ShapeString(in), total.Value, shapes.ShapeString(target))
			}
		} else if shapes.IsKnown(total) && shapes.IsKnown(rest) && total.Value != rest.Value {
			c.Problem("RESHAPE_COUNT", "cannot reshape %s (%d elements) to %s (%d elements)", shapes.ShapeString(in), total.Value, shapes.ShapeString(out), rest.Value)
		} else if shapes.CountsDiffer(total, rest) {
			// Symbolic counts with the same symbols but other factors differ
			// for every non-empty tensor: N*6 elements cannot become N*12.
			c.Problem("RESHAPE_COUNT", "cannot reshape %s (%s elements) to %s (%s elements)", shapes.ShapeString(in), total, shapes.ShapeString(out), rest)
		}
	}
	c.Set(0, out, "")
}
