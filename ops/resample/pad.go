package resample

import (
	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
	"math"
)

func init() {
	op.Register("Pad", []int{1, 2, 11, 13, 18, 19, 21, 23, 24, 25}, buildPad)
	shapes.Register("", "Pad", inferPad)
	op.Register("CenterCropPad", []int{18}, buildCenterCropPad)
}

// PadMode is Pad's mode attribute.
type PadMode int

const (
	PadConstant PadMode = iota
	PadReflect
	PadEdge
	PadWrap
)

// PadIndex maps output index o of an axis padded by begin/end (either may
// be negative: a crop) to the source index, or -1 for the constant. Cropping
// happens first and padding then extends the cropped extent: reflect, edge
// and wrap read the cropped data, like numpy.pad applied to the slice.
// Reflect mirrors about the first and last element without repeating them
// (numpy "reflect"), again and again for pads longer than the axis; wrap
// repeats the axis as if it were a torus.
func PadIndex(o, n, begin, end int, mode PadMode) int {
	lo, hi := max(-begin, 0), n-max(-end, 0) // the cropped extent [lo, hi)
	return padSource(o-max(begin, 0), lo, hi, mode)
}

func padSource(i, lo, hi int, mode PadMode) int {
	m := hi - lo // cropped length
	if i >= 0 && i < m {
		return lo + i
	}
	if m <= 0 {
		return -1
	}
	switch mode {
	case PadEdge:
		if i < 0 {
			return lo
		}
		return hi - 1
	case PadWrap:
		return lo + ((i%m)+m)%m
	case PadReflect:
		if m == 1 {
			return lo
		}
		p := 2 * (m - 1)
		j := ((i % p) + p) % p
		if j >= m {
			j = p - j
		}
		return lo + j
	}
	return -1
}

type padder struct {
	version int
	mode    PadMode
	pads    []int64 // Pad-1/2 attribute
	value   float64 // Pad-1/2 attribute
}

func buildPad(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	p := &padder{version: n.Version}
	ms := a.String("mode", "constant")
	if n.Version < 11 {
		name := "pads"
		if n.Version == 1 {
			name = "paddings"
		}
		if !n.Has(name) {
			return nil, n.Errorf("attribute %s is required", name)
		}
		p.pads = a.Ints(name)
		p.value = float64(a.Float("value", 0))
	}
	if a.Err != nil {
		return nil, a.Err
	}
	switch ms {
	case "constant":
		p.mode = PadConstant
	case "reflect":
		p.mode = PadReflect
	case "edge":
		p.mode = PadEdge
	case "wrap":
		if n.Version < 19 {
			return nil, n.Errorf("mode wrap needs Pad-19 or later")
		}
		p.mode = PadWrap
	default:
		return nil, n.Errorf("unknown mode %q", ms)
	}
	return op.KernelFunc(p.run), nil
}

func (p *padder) run(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
	x := in[0]
	rank := x.Rank()
	pads := p.pads
	var fill *tensor.Tensor
	if p.version < 11 {
		if p.mode == PadConstant {
			fill = scalarLike(x.DType(), p.value)
		}
	} else {
		if len(in) < 2 || in[1] == nil {
			return nil, op.Errorf("Pad needs the pads input")
		}
		var err error
		if pads, err = in[1].Int64s(); err != nil {
			return nil, op.Errorf("pads: %v", err)
		}
		if len(in) > 2 && in[2] != nil && p.mode == PadConstant {
			if in[2].DType() != x.DType() {
				return nil, op.Errorf("constant_value is %s, data is %s", in[2].DType(), x.DType())
			}
			fill = in[2]
		}
	}
	axes := make([]int, rank)
	for i := range axes {
		axes[i] = i
	}
	if p.version >= 18 && len(in) > 3 && in[3] != nil {
		ax, err := in[3].Int64s()
		if err != nil {
			return nil, op.Errorf("axes: %v", err)
		}
		if axes, err = opsutil.NormAxes(ax, rank); err != nil {
			return nil, err
		}
	}
	if len(pads) != 2*len(axes) {
		return nil, op.Errorf("pads has %d values, expected %d (2 per axis)", len(pads), 2*len(axes))
	}
	begin, end := make([]int, rank), make([]int, rank)
	for i, d := range axes {
		begin[d], end[d] = int(pads[i]), int(pads[len(axes)+i])
	}
	return padTo(ctx, x, begin, end, p.mode, fill)
}

// padTo pads (or crops) every axis d by begin[d], end[d].
func padTo(ctx *op.Context, x *tensor.Tensor, begin, end []int, mode PadMode, fill *tensor.Tensor) ([]*tensor.Tensor, error) {
	shape := x.Shape()
	outShape := make([]int, len(shape))
	for d, n := range shape {
		o := n + begin[d] + end[d]
		if begin[d] > math.MaxInt32 || end[d] > math.MaxInt32 || o < 0 {
			return nil, op.Errorf("pads %d, %d on axis %d of length %d leave a length that is negative or too large", begin[d], end[d], d, n)
		}
		outShape[d] = o
	}
	// Check the whole output against the budget before building the per-axis
	// index maps: an empty output needs no maps, however long one axis is.
	total, err := ctx.CheckShape(x.DType(), outShape)
	if err != nil {
		return nil, err
	}
	if total == 0 {
		return []*tensor.Tensor{ctx.New(x.DType(), outShape...)}, nil
	}
	maps := make([][]int, len(shape))
	for d, n := range shape {
		o := outShape[d]
		lo, hi := max(-begin[d], 0), n-max(-end[d], 0)
		if mode != PadConstant && o > 0 && hi-lo <= 0 && (begin[d] > 0 || end[d] > 0) {
			return nil, op.Errorf("%s padding of axis %d needs a non-empty axis", modeName(mode), d)
		}
		m := make([]int, o)
		for i := range m {
			m[i] = PadIndex(i, n, begin[d], end[d], mode)
		}
		maps[d] = m
	}
	out := ctx.New(x.DType(), outShape...)
	gatherAxes(out, x, maps, fill)
	return ctx.One(out), nil
}

func modeName(m PadMode) string {
	return [...]string{"constant", "reflect", "edge", "wrap"}[m]
}

func buildCenterCropPad(n *op.Node) (any, error) {
	axesAttr, _, err := n.Ints("axes")
	if err != nil {
		return nil, err
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		x := in[0]
		rank := x.Rank()
		want, err := in[1].Int64s()
		if err != nil {
			return nil, op.Errorf("shape: %v", err)
		}
		axes := make([]int, rank)
		for i := range axes {
			axes[i] = i
		}
		if axesAttr != nil {
			if axes, err = opsutil.NormAxes(axesAttr, rank); err != nil {
				return nil, err
			}
		}
		if len(want) != len(axes) {
			return nil, op.Errorf("shape has %d values for %d axes", len(want), len(axes))
		}
		begin, end := make([]int, rank), make([]int, rank)
		for i, d := range axes {
			if want[i] < 0 {
				return nil, op.Errorf("shape[%d] = %d is negative", i, want[i])
			}
			diff := int(want[i]) - x.Shape()[d]
			if diff >= 0 {
				// pad equally, the odd pixel on the right
				begin[d] = diff / 2
				end[d] = diff - diff/2
			} else {
				// crop window starting at floor((in - out) / 2)
				c := -diff
				begin[d] = -(c / 2)
				end[d] = -(c - c/2)
			}
		}
		return padTo(ctx, x, begin, end, PadConstant, nil)
	}), nil
}

func inferPad(c *shapes.Ctx) {
	x := c.Shape(0)
	if x == nil {
		c.Set(0, nil, "")
		return
	}
	var pads, axes []int64
	ok := true
	if c.Version() < 11 {
		pads, ok = c.AttrInts("pads")
	} else {
		pads, ok = c.Ints(1)
		if c.Has(3) {
			a, ok2 := c.Ints(3)
			ok = ok && ok2
			axes = a
		}
	}
	if !ok {
		c.Set(0, shapes.Unknowns(len(x)), "")
		return
	}
	if axes == nil {
		for i := range x {
			axes = append(axes, int64(i))
		}
	}
	if len(pads) != 2*len(axes) {
		c.Problem("PAD", "%d pads for %d axes", len(pads), len(axes))
		return
	}
	out := append([]graph.Dim(nil), x...)
	for i, a := range axes {
		ax, ok := c.Axis(a, len(x))
		if !ok {
			return
		}
		out[ax] = shapes.DimAdd(out[ax], shapes.Known(pads[i]+pads[i+len(axes)]))
	}
	c.Set(0, out, "")
}
