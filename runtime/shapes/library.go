package shapes

import (
	"github.com/gort-dev/gort/runtime/graph"
)

// The rules here are shared by several ops; each op binds its rule with
// Register in its own file under ops/, where the rules only it uses live.

// SameAsInput0: output 0 has input 0's shape (an elementwise unary op).
func SameAsInput0(c *Ctx) { c.Set(0, c.Shape(0), "") }

// Pass: output 0 has input 0's shape and, for an integer vector, its
// symbolic elements (Identity, Cast).
func Pass(c *Ctx) {
	c.Set(0, c.Shape(0), "")
	if s, ok := c.Sym(0); ok {
		c.SetSym(0, s)
	}
}

// BroadcastAll: output 0 is the broadcast of the given inputs' shapes.
func BroadcastAll(c *Ctx) { broadcast(c) }

func broadcast(c *Ctx) ([]graph.Dim, bool) {
	var shapes [][]graph.Dim
	for i := range c.ins {
		if c.Has(i) {
			shapes = append(shapes, c.Shape(i))
		}
	}
	out, ok := c.Broadcast(shapes...)
	if !ok {
		c.Set(0, nil, "")
		return nil, false
	}
	c.Set(0, out, "")
	return out, len(shapes) == 2
}

// BroadcastArith is BroadcastAll for a binary arithmetic op that also
// computes f on small symbolic vectors (a shape times 2, a dim minus 1).
func BroadcastArith(f func(x, y graph.Dim) graph.Dim) Rule {
	return func(c *Ctx) {
		out, two := broadcast(c)
		if !two || len(out) > 1 {
			return
		}
		a, oka := c.Sym(0)
		b, okb := c.Sym(1)
		if oka && okb && (len(a) == len(b) || len(a) == 1 || len(b) == 1) {
			r := make([]graph.Dim, max(len(a), len(b)))
			for i := range r {
				r[i] = f(a[min(i, len(a)-1)], b[min(i, len(b)-1)])
			}
			c.SetSym(0, r)
		}
	}
}

// MatMul: NumPy matmul of inputs 0 and 1 (batch dims broadcast; a 1-D
// operand gains and loses an axis).
func MatMul(c *Ctx) {
	a, b := c.Shape(0), c.Shape(1)
	if a == nil || b == nil {
		c.Set(0, nil, "")
		return
	}
	if len(a) == 0 || len(b) == 0 {
		c.Problem("MATMUL", "MatMul of a scalar")
		return
	}
	aa, bb := a, b
	if len(a) == 1 {
		aa = []graph.Dim{Known(1), a[0]}
	}
	if len(b) == 1 {
		bb = []graph.Dim{b[0], Known(1)}
	}
	k1, k2 := aa[len(aa)-1], bb[len(bb)-2]
	if IsKnown(k1) && IsKnown(k2) && k1.Value != k2.Value {
		c.Problem("MATMUL", "inner dimensions differ: %s × %s", ShapeString(a), ShapeString(b))
		return
	}
	batch, ok := c.Broadcast(aa[:len(aa)-2], bb[:len(bb)-2])
	if !ok {
		return
	}
	out := append([]graph.Dim{}, batch...)
	if len(a) > 1 {
		out = append(out, aa[len(aa)-2])
	}
	if len(b) > 1 {
		out = append(out, bb[len(bb)-1])
	}
	c.Set(0, out, "")
}

// MatMulOf is MatMul of inputs a and b (QLinearMatMul: 0 and 3).
func MatMulOf(a, b int) Rule {
	return func(c *Ctx) {
		ins := c.ins
		c.ins = []*Info{c.Input(a), c.Input(b)}
		defer func() { c.ins = ins }()
		MatMul(c)
	}
}

// Conv: N, the weight's feature maps, then the spatial dims by kernel,
// strides, dilations, pads and auto_pad (Conv, ConvInteger); it checks the
// input's channels against the weight's and the groups.
func Conv(c *Ctx) { window(c, true) }

// Pool: N, C, then the spatial dims by kernel_shape, strides, pads,
// auto_pad and ceil_mode (MaxPool and its indices, AveragePool, LpPool).
func Pool(c *Ctx) { window(c, false) }

func window(c *Ctx, isConv bool) {
	x := c.Shape(0)
	if x == nil || len(x) < 3 {
		c.Set(0, nil, "")
		if x != nil {
			c.Problem("RANK", "input of rank %d; expected N, C and spatial dims", len(x))
		}
		return
	}
	nsp := len(x) - 2
	kernel, _ := c.AttrInts("kernel_shape")
	outC := x[1]
	if isConv {
		w := c.Shape(1)
		if w == nil {
			c.Set(0, nil, "")
			return
		}
		if len(w) != len(x) {
			c.Problem("RANK", "weight %s and input %s differ in rank", ShapeString(w), ShapeString(x))
			return
		}
		group := c.AttrInt("group", 1)
		if IsKnown(x[1]) && IsKnown(w[1]) && x[1].Value != w[1].Value*group {
			c.Problem("CONV_CHANNELS", "input has %d channels, weight %s with group %d expects %d", x[1].Value, ShapeString(w), group, w[1].Value*group)
		}
		if IsKnown(w[0]) && group > 0 && w[0].Value%group != 0 {
			c.Problem("CONV_CHANNELS", "%d feature maps do not divide into %d groups", w[0].Value, group)
		}
		if c.Has(2) {
			if b := c.Shape(2); len(b) == 1 && IsKnown(b[0]) && IsKnown(w[0]) && b[0].Value != w[0].Value {
				c.Problem("CONV_CHANNELS", "bias has %d entries for %d feature maps", b[0].Value, w[0].Value)
			}
		}
		outC = w[0]
		if kernel == nil {
			for _, d := range w[2:] {
				if !IsKnown(d) {
					kernel = nil
					break
				}
				kernel = append(kernel, d.Value)
			}
		}
	}
	out := []graph.Dim{x[0], outC}
	if len(kernel) != nsp {
		for i := 0; i < nsp; i++ {
			out = append(out, unknownDim)
		}
		c.Set(0, out, "")
		return
	}
	strides := c.AttrIntsOr("strides", nsp, 1)
	dil := c.AttrIntsOr("dilations", nsp, 1)
	pads := c.AttrIntsOr("pads", 2*nsp, 0)
	autoPad := c.AttrString("auto_pad", "NOTSET")
	ceil := c.AttrInt("ceil_mode", 0) != 0
	for i := 0; i < nsp; i++ {
		d := x[2+i]
		ek := (kernel[i]-1)*dil[i] + 1
		if !IsKnown(d) {
			switch {
			case strides[i] == 1 && (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER"):
				out = append(out, d)
			case strides[i] == 1 && autoPad == "NOTSET" && pads[i]+pads[i+nsp] == ek-1:
				out = append(out, d) // "same" padding written out: 3×3 with pads 1
			case strides[i] == 1 && autoPad == "NOTSET" && !IsUnknown(d):
				out = append(out, DimAdd(d, Known(pads[i]+pads[i+nsp]-ek+1)))
			default:
				out = append(out, unknownDim)
			}
			continue
		}
		var o int64
		switch autoPad {
		case "SAME_UPPER", "SAME_LOWER":
			o = (d.Value + strides[i] - 1) / strides[i]
		case "VALID":
			o = (d.Value-ek)/strides[i] + 1
			if ceil {
				o = ceilDiv(d.Value-ek, strides[i]) + 1
			}
		default:
			span := d.Value + pads[i] + pads[i+nsp] - ek
			o = span/strides[i] + 1
			if ceil {
				o = ceilDiv(span, strides[i]) + 1
				if (o-1)*strides[i] >= d.Value+pads[i] {
					o--
				}
			}
		}
		if o < 0 {
			c.Problem("CONV_SHAPE", "spatial axis %d: input %d is smaller than the kernel %d", i, d.Value, ek)
			o = 0
		}
		out = append(out, Known(o))
	}
	c.Set(0, out, "")
	if len(c.outs) > 1 {
		c.Set(1, out, "")
	}
}

func ceilDiv(a, b int64) int64 {
	if a >= 0 {
		return (a + b - 1) / b
	}
	return a / b
}

// GlobalPool: N, C, then 1 for each spatial dim.
func GlobalPool(c *Ctx) {
	x := c.Shape(0)
	if x == nil {
		c.Set(0, nil, "")
		return
	}
	out := append([]graph.Dim(nil), x...)
	for i := 2; i < len(out); i++ {
		out[i] = Known(1)
	}
	c.Set(0, out, "")
}

// Reduce is the rule of a reduction (ReduceSum, ReduceMean, …) whose axes
// are an input from version axesInput on, an attribute before: the reduced
// axes are dropped, or kept as 1 with keepdims.
func Reduce(axesInput int) Rule {
	return func(c *Ctx) {
		x := c.Shape(0)
		if x == nil {
			c.Set(0, nil, "")
			return
		}
		keep := c.AttrInt("keepdims", 1) != 0
		var axes []int64
		if c.version >= axesInput {
			if c.Has(1) {
				a, ok := c.Ints(1)
				if !ok {
					if keep {
						c.Set(0, Unknowns(len(x)), "")
						return
					}
					c.Set(0, nil, "the axes are computed at run time")
					return
				}
				axes = a
			}
			if len(axes) == 0 && c.AttrInt("noop_with_empty_axes", 0) != 0 {
				c.Set(0, x, "")
				return
			}
		} else {
			axes, _ = c.AttrInts("axes")
		}
		reduce(c, x, axes, keep)
	}
}

// ArgReduce: the rule of ArgMax and ArgMin, a reduction of the one axis
// attribute.
func ArgReduce(c *Ctx) {
	x := c.Shape(0)
	if x == nil {
		c.Set(0, nil, "")
		return
	}
	reduce(c, x, []int64{c.AttrInt("axis", 0)}, c.AttrInt("keepdims", 1) != 0)
}

// reduce sets output 0 to x with axes (all when empty) dropped or kept as 1.
func reduce(c *Ctx, x []graph.Dim, axes []int64, keep bool) {
	red := map[int]bool{}
	for _, a := range axes {
		ax, ok := c.Axis(a, len(x))
		if !ok {
			return
		}
		red[ax] = true
	}
	out := []graph.Dim{}
	for i, d := range x {
		if len(axes) == 0 || red[i] {
			if keep {
				out = append(out, Known(1))
			}
			continue
		}
		out = append(out, d)
	}
	c.Set(0, out, "")
}

// Loss: per-element losses (the target's shape) with reduction "none", a
// scalar otherwise; output 1 (log_prob) has the scores' shape.
func Loss(c *Ctx) {
	target := c.Shape(1)
	if c.AttrString("reduction", "mean") == "none" {
		c.Set(0, target, "")
	} else {
		c.Set(0, []graph.Dim{}, "")
	}
	if len(c.outs) > 1 {
		c.Set(1, c.Shape(0), "") // SoftmaxCrossEntropyLoss log_prob
	}
}

// RNN (RNN, GRU, LSTM): Y [seq, directions, batch, hidden] (batch first with layout=1),
// Y_h and Y_c [directions, batch, hidden].
func RNN(c *Ctx) {
	x := c.Shape(0)
	h := c.AttrInt("hidden_size", -1)
	dirs := int64(1)
	if c.AttrString("direction", "forward") == "bidirectional" {
		dirs = 2
	}
	if x == nil || len(x) != 3 || h < 0 {
		for i := range c.outs {
			c.Set(i, nil, "")
		}
		return
	}
	hd := Known(h)
	seq, batch := x[0], x[1]
	layout := c.AttrInt("layout", 0)
	if layout == 1 {
		seq, batch = x[1], x[0]
	}
	y := []graph.Dim{seq, Known(dirs), batch, hd}
	state := []graph.Dim{Known(dirs), batch, hd}
	if layout == 1 {
		y = []graph.Dim{batch, seq, Known(dirs), hd}
		state = []graph.Dim{batch, Known(dirs), hd}
	}
	c.Set(0, y, "")
	for i := 1; i < len(c.outs); i++ {
		c.Set(i, state, "")
	}
}
