package shapes

import (
	"fmt"
	"math"
	"slices"

	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/tensor"
)

// rules maps default-domain op types to their shape rules. A rule sets the
// output shapes (element types come from the schemas) and reports the
// contradictions it sees.
var rules = map[string]func(c *nodeCtx){}

func init() {
	for _, o := range []string{"Abs", "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Ceil", "Cos", "Cosh", "Elu", "Erf", "Exp",
		"Floor", "HardSigmoid", "HardSwish", "Identity", "IsInf", "IsNaN", "LeakyRelu", "Log", "Mish", "Neg", "Not", "Reciprocal",
		"Relu", "Round", "Selu", "Sigmoid", "Sign", "Sin", "Sinh", "Softplus", "Softsign", "Sqrt", "Tan", "Tanh", "ThresholdedRelu",
		"Celu", "Gelu", "Shrink", "BitwiseNot", "Cast", "CastLike", "Clip", "Softmax", "LogSoftmax", "Hardmax",
		"BatchNormalization", "InstanceNormalization", "LpNormalization", "LRN", "MeanVarianceNormalization", "CumSum",
		"Trilu", "ReverseSequence", "Swish", "Binarizer", "QuantizeLinear", "DequantizeLinear", "Dropout",
		"ScatterElements", "ScatterND", "Scatter", "LayerNormalization", "GroupNormalization", "RMSNormalization"} {
		rules[o] = sameAsInput0
	}
	for _, o := range []string{"Add", "Sub", "Mul", "Div", "Pow", "Mod", "And", "Or", "Xor", "Equal", "Less", "Greater",
		"LessOrEqual", "GreaterOrEqual", "BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "PRelu", "Where",
		"Max", "Min", "Sum", "Mean"} {
		rules[o] = broadcastAll
	}
	rules["Cast"] = func(c *nodeCtx) { c.setElem(0, tensor.DType(c.attrInt("to", 0))); sameAsInput0(c) }
	rules["CastLike"] = func(c *nodeCtx) {
		if t := c.input(1); t != nil {
			c.setElem(0, t.Type.Elem)
		}
		sameAsInput0(c)
	}
	rules["Constant"] = constantRule
	rules["Shape"] = shapeRule
	rules["Size"] = func(c *nodeCtx) {
		c.set(0, []graph.Dim{}, "")
		c.symOut(0, []graph.Dim{product(c.shape(0))}, c.shape(0) != nil)
	}
	rules["Reshape"] = reshapeRule
	rules["Flatten"] = flattenRule
	rules["Transpose"] = transposeRule
	rules["Concat"] = concatRule
	rules["Split"] = splitRule
	rules["Slice"] = sliceRule
	rules["Gather"] = gatherRule
	rules["GatherElements"] = func(c *nodeCtx) { c.set(0, c.shape(1), "the indices' shape is unknown") }
	rules["Squeeze"] = squeezeRule
	rules["Unsqueeze"] = unsqueezeRule
	rules["ConstantOfShape"] = constantOfShapeRule
	rules["Expand"] = expandRule
	rules["Tile"] = tileRule
	rules["Range"] = rangeRule
	rules["MatMul"] = matmulRule
	rules["MatMulInteger"] = matmulRule
	rules["Gemm"] = gemmRule
	rules["Conv"] = convRule
	rules["ConvInteger"] = convRule
	rules["MaxPool"] = convRule
	rules["AveragePool"] = convRule
	rules["LpPool"] = convRule
	rules["GlobalAveragePool"] = globalPoolRule
	rules["GlobalMaxPool"] = globalPoolRule
	rules["GlobalLpPool"] = globalPoolRule
	rules["ConvTranspose"] = convTransposeRule
	for _, o := range []string{"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
		"ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare", "ArgMax", "ArgMin"} {
		rules[o] = reduceRule
	}
	rules["Resize"] = resizeRule
	rules["Upsample"] = resizeRule
	rules["Pad"] = padRule
	rules["DepthToSpace"] = func(c *nodeCtx) { spaceDepth(c, false) }
	rules["SpaceToDepth"] = func(c *nodeCtx) { spaceDepth(c, true) }
	rules["TopK"] = topkRule
	rules["NonZero"] = func(c *nodeCtx) {
		s := c.shape(0)
		if s == nil {
			c.set(0, nil, "")
			return
		}
		c.set(0, []graph.Dim{known(int64(len(s))), unknownDim}, "")
	}
	rules["OneHot"] = oneHotRule
}

// symOut records symbolic elements of an integer output.
func (c *nodeCtx) symOut(i int, s []graph.Dim, ok bool) {
	if ok && i < len(c.outs) && c.outs[i] != nil {
		c.outs[i].Sym = s
	}
}

func sameAsInput0(c *nodeCtx) {
	c.set(0, c.shape(0), "")
	if c.p.GetOpType() == "Cast" || c.p.GetOpType() == "Identity" {
		if s, ok := c.sym(0); ok {
			c.symOut(0, s, true)
		}
	}
	if c.p.GetOpType() == "BatchNormalization" || c.p.GetOpType() == "LayerNormalization" {
		// Training outputs and statistics: shapes vary by version; left unknown.
		for i := 1; i < len(c.outs); i++ {
			c.set(i, nil, "statistics outputs are not inferred")
		}
	}
	if c.p.GetOpType() == "Dropout" && len(c.outs) > 1 {
		c.set(1, c.shape(0), "")
	}
}

func broadcastShapes(c *nodeCtx, shapes [][]graph.Dim) ([]graph.Dim, bool) {
	rank := 0
	for _, s := range shapes {
		if s == nil {
			return nil, false
		}
		rank = max(rank, len(s))
	}
	out := make([]graph.Dim, rank)
	for i := range out {
		out[i] = known(1)
	}
	for _, s := range shapes {
		off := rank - len(s)
		for i, d := range s {
			m, conflict := broadcastDims(out[off+i], d)
			if conflict {
				var txt []string
				for _, s := range shapes {
					txt = append(txt, shapeString(s))
				}
				c.problem("BROADCAST", "shapes %v cannot be broadcast (axis %d: %s against %s)", txt, off+i, out[off+i], d)
				return nil, false
			}
			out[off+i] = m
		}
	}
	return out, true
}

func broadcastAll(c *nodeCtx) {
	var shapes [][]graph.Dim
	for i := range c.ins {
		if c.has(i) {
			shapes = append(shapes, c.shape(i))
		}
	}
	out, ok := broadcastShapes(c, shapes)
	if !ok {
		c.set(0, nil, "")
		return
	}
	c.set(0, out, "")
	// Arithmetic on small symbolic vectors (shape computations).
	if len(shapes) == 2 && len(out) <= 1 {
		a, oka := c.sym(0)
		b, okb := c.sym(1)
		if oka && okb && (len(a) == len(b) || len(a) == 1 || len(b) == 1) {
			n := max(len(a), len(b))
			r := make([]graph.Dim, n)
			for i := range r {
				x, y := a[min(i, len(a)-1)], b[min(i, len(b)-1)]
				switch c.p.GetOpType() {
				case "Mul":
					r[i] = dimMul(x, y)
				case "Add":
					r[i] = dimAdd(x, y)
				case "Div":
					r[i] = dimDiv(x, y)
				case "Sub":
					if isKnown(x) && isKnown(y) {
						r[i] = known(x.Value - y.Value)
					} else if isKnown(y) && y.Value == 0 {
						r[i] = x
					} else {
						r[i] = unknownDim
					}
				default:
					return
				}
			}
			c.symOut(0, r, true)
		}
	}
}

func constantRule(c *nodeCtx) {
	// Constants are folded (their kernel runs); reaching here means the
	// value was too large: take the shape from the attribute.
	if a := c.attrs["value"]; a != nil && a.GetT() != nil {
		c.set(0, dimsOf(a.GetT().GetDims()), "")
		c.setElem(0, tensor.DType(a.GetT().GetDataType()))
		return
	}
	c.set(0, nil, "sparse or list Constant")
}

func shapeRule(c *nodeCtx) {
	s := c.shape(0)
	if s == nil {
		c.set(0, []graph.Dim{unknownDim}, "")
		return
	}
	start, end := int64(0), int64(len(s))
	if c.version >= 15 {
		r := int64(len(s))
		start = clampAxis(c.attrInt("start", 0), r)
		end = clampAxis(c.attrInt("end", r), r)
	}
	if end < start {
		end = start
	}
	sub := append([]graph.Dim(nil), s[start:end]...)
	c.set(0, []graph.Dim{known(end - start)}, "")
	c.symOut(0, sub, true)
}

func clampAxis(a, r int64) int64 {
	if a < 0 {
		a += r
	}
	return min(max(a, 0), r)
}

func normAxis(c *nodeCtx, a int64, r int) (int, bool) {
	if a < -int64(r) || a >= int64(r) {
		c.problem("AXIS", "axis %d is out of range for rank %d", a, r)
		return 0, false
	}
	if a < 0 {
		a += int64(r)
	}
	return int(a), true
}

func reshapeRule(c *nodeCtx) {
	target, ok := c.sym(1)
	if !ok {
		// The rank is still known from the shape input's length.
		if s := c.shape(1); len(s) == 1 && isKnown(s[0]) {
			out := make([]graph.Dim, s[0].Value)
			for i := range out {
				out[i] = unknownDim
			}
			c.set(0, out, "")
			return
		}
		c.set(0, nil, "the target shape is computed at run time")
		return
	}
	in := c.shape(0)
	allowZero := c.attrInt("allowzero", 0) != 0
	out := make([]graph.Dim, len(target))
	neg := -1
	for i, d := range target {
		switch {
		case isKnown(d) && d.Value == 0 && !allowZero:
			if in == nil || i >= len(in) {
				out[i] = unknownDim
				if in != nil {
					c.problem("RESHAPE", "shape %s copies axis %d of an input of rank %d", shapeString(target), i, len(in))
				}
			} else {
				out[i] = in[i]
			}
		case d.Param == "" && d.Value == -1:
			neg = i
			out[i] = unknownDim
		case d.Param == "" && d.Value < 0:
			c.problem("RESHAPE", "shape %s has the invalid dim %d", shapeString(target), d.Value)
			c.set(0, nil, "")
			return
		default:
			out[i] = d
		}
	}
	if in != nil {
		total := product(in)
		rest := known(1)
		for i, d := range out {
			if i != neg {
				rest = dimMul(rest, d)
			}
		}
		if neg >= 0 {
			out[neg] = dimDiv(total, rest)
			if isKnown(total) && isKnown(rest) && rest.Value != 0 && total.Value%rest.Value != 0 {
				c.problem("RESHAPE_COUNT", "cannot reshape %s (%d elements) to %s", shapeString(in), total.Value, shapeString(target))
			}
		} else if isKnown(total) && isKnown(rest) && total.Value != rest.Value {
			c.problem("RESHAPE_COUNT", "cannot reshape %s (%d elements) to %s (%d elements)", shapeString(in), total.Value, shapeString(out), rest.Value)
		} else if mt, ok1 := monoOf(total); ok1 && !isKnown(total) {
			// Symbolic counts with the same symbols but other factors differ
			// for every non-empty tensor: N*6 elements cannot become N*12.
			if mr, ok2 := monoOf(rest); ok2 && slices.Equal(mt.names, mr.names) && mt.coef != mr.coef {
				c.problem("RESHAPE_COUNT", "cannot reshape %s (%s elements) to %s (%s elements)", shapeString(in), total, shapeString(out), rest)
			}
		}
	}
	c.set(0, out, "")
}

func flattenRule(c *nodeCtx) {
	in := c.shape(0)
	if in == nil {
		c.set(0, nil, "")
		return
	}
	axis, ok := normAxisInclusive(c, c.attrInt("axis", 1), len(in))
	if !ok {
		return
	}
	c.set(0, []graph.Dim{product(in[:axis]), product(in[axis:])}, "")
}

func normAxisInclusive(c *nodeCtx, a int64, r int) (int, bool) {
	if a < -int64(r) || a > int64(r) {
		c.problem("AXIS", "axis %d is out of range for rank %d", a, r)
		return 0, false
	}
	if a < 0 {
		a += int64(r)
	}
	return int(a), true
}

func transposeRule(c *nodeCtx) {
	in := c.shape(0)
	if in == nil {
		c.set(0, nil, "")
		return
	}
	perm, ok := c.attrInts("perm")
	if !ok {
		for i := len(in) - 1; i >= 0; i-- {
			perm = append(perm, int64(i))
		}
	}
	if len(perm) != len(in) {
		c.problem("RANK", "perm %v has %d entries for an input of rank %d", perm, len(perm), len(in))
		return
	}
	out := make([]graph.Dim, len(in))
	for i, p := range perm {
		a, ok := normAxis(c, p, len(in))
		if !ok {
			return
		}
		out[i] = in[a]
	}
	c.set(0, out, "")
}

func concatRule(c *nodeCtx) {
	var shapes [][]graph.Dim
	for i := range c.ins {
		if c.has(i) {
			s := c.shape(i)
			if s == nil {
				c.set(0, nil, fmt.Sprintf("the shape of input %q is unknown", c.p.GetInput()[i]))
				return
			}
			shapes = append(shapes, s)
		}
	}
	if len(shapes) == 0 {
		return
	}
	r := len(shapes[0])
	axis, ok := normAxis(c, c.attrInt("axis", 0), r)
	if !ok {
		return
	}
	out := append([]graph.Dim(nil), shapes[0]...)
	for j, s := range shapes[1:] {
		if len(s) != r {
			c.problem("CONCAT", "input %d has rank %d, input 0 rank %d", j+1, len(s), r)
			return
		}
		for i := range s {
			if i == axis {
				out[i] = dimAdd(out[i], s[i])
				continue
			}
			if isKnown(out[i]) && isKnown(s[i]) && out[i].Value != s[i].Value {
				c.problem("CONCAT", "input %d has %s on axis %d, input 0 has %s", j+1, s[i], i, out[i])
				return
			}
			if !isKnown(out[i]) && isKnown(s[i]) {
				out[i] = s[i]
			}
		}
	}
	c.set(0, out, "")
	if r == 1 {
		var syms []graph.Dim
		for i := range c.ins {
			if !c.has(i) {
				continue
			}
			s, ok := c.sym(i)
			if !ok {
				return
			}
			syms = append(syms, s...)
		}
		c.symOut(0, syms, true)
	}
}

func splitRule(c *nodeCtx) {
	in := c.shape(0)
	if in == nil {
		for i := range c.outs {
			c.set(i, nil, "")
		}
		return
	}
	axis, ok := normAxis(c, c.attrInt("axis", 0), len(in))
	if !ok {
		return
	}
	var sizes []int64
	if c.version >= 13 && c.has(1) {
		s, ok := c.ints(1)
		if !ok {
			for i := range c.outs {
				c.set(i, nil, "the split sizes are computed at run time")
			}
			return
		}
		sizes = s
	} else if s, ok := c.attrInts("split"); ok {
		sizes = s
	} else if c.version < 13 && c.has(1) {
		sizes, _ = c.ints(1)
	}
	n := len(c.outs)
	if sizes == nil {
		d := in[axis]
		if !isKnown(d) {
			for i := range c.outs {
				s := append([]graph.Dim(nil), in...)
				s[axis] = dimDiv(d, known(int64(n)))
				c.set(i, s, "")
			}
			return
		}
		if no := c.attrInt("num_outputs", 0); no > 0 && no != int64(n) {
			// A hostile count must not size a loop: the node lists n outputs.
			c.problem("SPLIT", "num_outputs is %d; the node lists %d outputs", no, n)
			return
		}
		chunk := (d.Value + int64(n) - 1) / int64(n)
		for i := 0; i < n; i++ {
			sizes = append(sizes, min(chunk, max(d.Value-chunk*int64(i), 0)))
		}
		if c.version < 18 && d.Value%int64(n) != 0 {
			c.problem("SPLIT", "axis %d of length %d does not split into %d equal parts", axis, d.Value, n)
		}
	}
	if len(sizes) != len(c.outs) {
		c.problem("SPLIT", "%d split sizes for %d outputs", len(sizes), len(c.outs))
		return
	}
	var sum int64
	for i, sz := range sizes {
		s := append([]graph.Dim(nil), in...)
		s[axis] = known(sz)
		c.set(i, s, "")
		sum += sz
	}
	if isKnown(in[axis]) && sum != in[axis].Value {
		c.problem("SPLIT", "split sizes %v sum to %d, axis %d has length %d", sizes, sum, axis, in[axis].Value)
	}
}

func sliceRule(c *nodeCtx) {
	in := c.shape(0)
	if in == nil {
		c.set(0, nil, "")
		return
	}
	var starts, ends, axes, steps []int64
	var ok1, ok2 bool
	if c.version < 10 {
		starts, ok1 = c.attrInts("starts")
		ends, ok2 = c.attrInts("ends")
		axes, _ = c.attrInts("axes")
	} else {
		starts, ok1 = c.ints(1)
		ends, ok2 = c.ints(2)
		if c.has(3) {
			a, ok := c.ints(3)
			if !ok {
				ok1 = false
			}
			axes = a
		}
		if c.has(4) {
			s, ok := c.ints(4)
			if !ok {
				ok1 = false
			}
			steps = s
		}
	}
	if !ok1 || !ok2 || len(starts) != len(ends) {
		out := make([]graph.Dim, len(in))
		for i := range out {
			out[i] = unknownDim
		}
		c.set(0, out, "")
		return
	}
	out := append([]graph.Dim(nil), in...)
	if axes == nil {
		for i := range starts {
			axes = append(axes, int64(i))
		}
	}
	var symSlice []graph.Dim
	sym, hasSym := c.sym(0)
	for i, a := range axes {
		ax, ok := normAxis(c, a, len(in))
		if !ok || i >= len(starts) {
			return
		}
		step := int64(1)
		if i < len(steps) {
			step = steps[i]
		}
		if step == 0 {
			c.problem("SLICE", "step 0 on axis %d", ax)
			return
		}
		d := in[ax]
		if !isKnown(d) {
			if starts[i] == 0 && step == 1 && ends[i] >= math.MaxInt32 {
				continue
			}
			out[ax] = unknownDim
			continue
		}
		lo, hi := sliceRange(starts[i], ends[i], step, d.Value)
		n := int64(0)
		if step > 0 && hi > lo {
			n = (hi - lo + step - 1) / step
		} else if step < 0 && lo > hi {
			n = (lo - hi - step - 1) / -step
		}
		out[ax] = known(n)
		if hasSym && len(in) == 1 && int64(len(sym)) == d.Value {
			for j := int64(0); j < n; j++ {
				symSlice = append(symSlice, sym[lo+j*step])
			}
			hasSym = true
		}
	}
	c.set(0, out, "")
	if hasSym && len(in) == 1 && symSlice != nil {
		c.symOut(0, symSlice, true)
	}
}

// sliceRange clamps start and end as the Slice spec does.
func sliceRange(start, end, step, d int64) (int64, int64) {
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

func gatherRule(c *nodeCtx) {
	in, idx := c.shape(0), c.shape(1)
	if in == nil || idx == nil {
		c.set(0, nil, "")
		return
	}
	axis, ok := normAxis(c, c.attrInt("axis", 0), len(in))
	if !ok {
		return
	}
	out := append(append(append(make([]graph.Dim, 0, len(in)+len(idx)), in[:axis]...), idx...), in[axis+1:]...)
	c.set(0, out, "")
	if sym, ok := c.sym(0); ok && len(in) == 1 {
		if ix, ok := c.ints(1); ok {
			var r []graph.Dim
			for _, i := range ix {
				if i < 0 {
					i += int64(len(sym))
				}
				if i < 0 || i >= int64(len(sym)) {
					return
				}
				r = append(r, sym[i])
			}
			c.symOut(0, r, true)
		}
	}
}

func axesOf(c *nodeCtx, input int) ([]int64, bool, bool) {
	if c.version >= 13 {
		if !c.has(input) {
			return nil, false, true
		}
		a, ok := c.ints(input)
		return a, true, ok
	}
	a, ok := c.attrInts("axes")
	return a, ok, true
}

func squeezeRule(c *nodeCtx) {
	in := c.shape(0)
	if in == nil {
		c.set(0, nil, "")
		return
	}
	axes, given, ok := axesOf(c, 1)
	if !ok {
		c.set(0, nil, "the axes are computed at run time")
		return
	}
	drop := map[int]bool{}
	if !given {
		for i, d := range in {
			if !isKnown(d) {
				c.set(0, nil, "squeezing all axes of 1 with a symbolic dim")
				return
			}
			if d.Value == 1 {
				drop[i] = true
			}
		}
	}
	for _, a := range axes {
		ax, ok := normAxis(c, a, len(in))
		if !ok {
			return
		}
		if isKnown(in[ax]) && in[ax].Value != 1 {
			c.problem("SQUEEZE", "axis %d has length %d, not 1", ax, in[ax].Value)
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
	c.set(0, out, "")
	if s, ok := c.sym(0); ok && len(out) <= 1 {
		c.symOut(0, s, true)
	}
}

func unsqueezeRule(c *nodeCtx) {
	in := c.shape(0)
	if in == nil {
		c.set(0, nil, "")
		return
	}
	axes, _, ok := axesOf(c, 1)
	if !ok {
		c.set(0, nil, "the axes are computed at run time")
		return
	}
	r := len(in) + len(axes)
	ins := map[int]bool{}
	for _, a := range axes {
		ax, ok := normAxis(c, a, r)
		if !ok {
			return
		}
		ins[ax] = true
	}
	out := make([]graph.Dim, 0, r)
	j := 0
	for i := 0; i < r; i++ {
		if ins[i] {
			out = append(out, known(1))
		} else if j < len(in) {
			out = append(out, in[j])
			j++
		}
	}
	c.set(0, out, "")
	if s, ok := c.sym(0); ok && len(out) == 1 {
		c.symOut(0, s, true)
	}
}

func constantOfShapeRule(c *nodeCtx) {
	s, ok := c.sym(0)
	if !ok {
		if sh := c.shape(0); len(sh) == 1 && isKnown(sh[0]) {
			out := make([]graph.Dim, sh[0].Value)
			for i := range out {
				out[i] = unknownDim
			}
			c.set(0, out, "")
		} else {
			c.set(0, nil, "the shape is computed at run time")
		}
	} else {
		c.set(0, s, "")
	}
	dt := tensor.Float
	if a := c.attrs["value"]; a != nil && a.GetT() != nil {
		dt = tensor.DType(a.GetT().GetDataType())
	}
	c.setElem(0, dt)
}

func expandRule(c *nodeCtx) {
	in := c.shape(0)
	s, ok := c.sym(1)
	if !ok || in == nil {
		c.set(0, nil, "the target shape is computed at run time")
		return
	}
	out, ok := broadcastShapes(c, [][]graph.Dim{in, s})
	if ok {
		c.set(0, out, "")
	}
}

func tileRule(c *nodeCtx) {
	in := c.shape(0)
	rep, ok := c.sym(1)
	if in == nil || !ok {
		c.set(0, nil, "the repeats are computed at run time")
		return
	}
	if len(rep) != len(in) {
		c.problem("RANK", "%d repeats for an input of rank %d", len(rep), len(in))
		return
	}
	out := make([]graph.Dim, len(in))
	for i := range in {
		out[i] = dimMul(in[i], rep[i])
	}
	c.set(0, out, "")
}

func rangeRule(c *nodeCtx) {
	// Constant start/limit/delta are folded; Range(0, n, 1) of a symbolic n
	// (a dim read with Shape) has n elements; otherwise the length is unknown.
	start, ok1 := c.sym(0)
	limit, ok2 := c.sym(1)
	delta, ok3 := c.sym(2)
	if ok1 && ok2 && ok3 && len(start) == 1 && len(limit) == 1 && len(delta) == 1 &&
		isKnown(start[0]) && start[0].Value == 0 && isKnown(delta[0]) && delta[0].Value == 1 && !isUnknown(limit[0]) {
		c.set(0, []graph.Dim{limit[0]}, "")
		c.symOut(0, nil, false)
		return
	}
	c.set(0, []graph.Dim{unknownDim}, "")
}

func matmulRule(c *nodeCtx) {
	a, b := c.shape(0), c.shape(1)
	if a == nil || b == nil {
		c.set(0, nil, "")
		return
	}
	if len(a) == 0 || len(b) == 0 {
		c.problem("MATMUL", "MatMul of a scalar")
		return
	}
	aa, bb := a, b
	if len(a) == 1 {
		aa = []graph.Dim{known(1), a[0]}
	}
	if len(b) == 1 {
		bb = []graph.Dim{b[0], known(1)}
	}
	k1, k2 := aa[len(aa)-1], bb[len(bb)-2]
	if isKnown(k1) && isKnown(k2) && k1.Value != k2.Value {
		c.problem("MATMUL", "inner dimensions differ: %s × %s", shapeString(a), shapeString(b))
		return
	}
	batch, ok := broadcastShapes(c, [][]graph.Dim{aa[:len(aa)-2], bb[:len(bb)-2]})
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
	c.set(0, out, "")
}

func gemmRule(c *nodeCtx) {
	a, b := c.shape(0), c.shape(1)
	if len(a) != 2 || len(b) != 2 {
		if a != nil && b != nil {
			c.problem("RANK", "Gemm needs 2-D A and B, got %s and %s", shapeString(a), shapeString(b))
		}
		c.set(0, nil, "")
		return
	}
	m, k1 := a[0], a[1]
	if c.attrInt("transA", 0) != 0 {
		m, k1 = a[1], a[0]
	}
	k2, n := b[0], b[1]
	if c.attrInt("transB", 0) != 0 {
		k2, n = b[1], b[0]
	}
	if isKnown(k1) && isKnown(k2) && k1.Value != k2.Value {
		c.problem("MATMUL", "Gemm inner dimensions differ: %s and %s (transA=%d, transB=%d)", shapeString(a), shapeString(b), c.attrInt("transA", 0), c.attrInt("transB", 0))
	}
	out := []graph.Dim{m, n}
	if c.has(2) {
		if cs := c.shape(2); cs != nil {
			if _, ok := broadcastShapes(c, [][]graph.Dim{out, cs}); !ok {
				return
			}
		}
	}
	c.set(0, out, "")
}

// convRule covers Conv and the pools: N, C_out (Conv) or C, then spatial dims.
func convRule(c *nodeCtx) {
	x := c.shape(0)
	if x == nil || len(x) < 3 {
		c.set(0, nil, "")
		if x != nil {
			c.problem("RANK", "input of rank %d; expected N, C and spatial dims", len(x))
		}
		return
	}
	nsp := len(x) - 2
	isConv := c.p.GetOpType() == "Conv" || c.p.GetOpType() == "ConvInteger"
	kernel, _ := c.attrInts("kernel_shape")
	outC := x[1]
	if isConv {
		w := c.shape(1)
		if w == nil {
			c.set(0, nil, "")
			return
		}
		if len(w) != len(x) {
			c.problem("RANK", "weight %s and input %s differ in rank", shapeString(w), shapeString(x))
			return
		}
		group := c.attrInt("group", 1)
		if isKnown(x[1]) && isKnown(w[1]) && x[1].Value != w[1].Value*group {
			c.problem("CONV_CHANNELS", "input has %d channels, weight %s with group %d expects %d", x[1].Value, shapeString(w), group, w[1].Value*group)
		}
		if isKnown(w[0]) && group > 0 && w[0].Value%group != 0 {
			c.problem("CONV_CHANNELS", "%d feature maps do not divide into %d groups", w[0].Value, group)
		}
		if c.has(2) {
			if b := c.shape(2); len(b) == 1 && isKnown(b[0]) && isKnown(w[0]) && b[0].Value != w[0].Value {
				c.problem("CONV_CHANNELS", "bias has %d entries for %d feature maps", b[0].Value, w[0].Value)
			}
		}
		outC = w[0]
		if kernel == nil {
			for _, d := range w[2:] {
				if !isKnown(d) {
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
		c.set(0, out, "")
		return
	}
	strides := attrOr(c, "strides", nsp, 1)
	dil := attrOr(c, "dilations", nsp, 1)
	pads := attrOr(c, "pads", 2*nsp, 0)
	autoPad := c.attrString("auto_pad", "NOTSET")
	ceil := c.attrInt("ceil_mode", 0) != 0
	for i := 0; i < nsp; i++ {
		d := x[2+i]
		ek := (kernel[i]-1)*dil[i] + 1
		if !isKnown(d) {
			switch {
			case strides[i] == 1 && (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER"):
				out = append(out, d)
			case strides[i] == 1 && autoPad == "NOTSET" && pads[i]+pads[i+nsp] == ek-1:
				out = append(out, d) // "same" padding written out: 3×3 with pads 1
			case strides[i] == 1 && autoPad == "NOTSET" && !isUnknown(d):
				out = append(out, dimAdd(d, known(pads[i]+pads[i+nsp]-ek+1)))
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
			c.problem("CONV_SHAPE", "spatial axis %d: input %d is smaller than the kernel %d", i, d.Value, ek)
			o = 0
		}
		out = append(out, known(o))
	}
	c.set(0, out, "")
	if len(c.outs) > 1 {
		c.set(1, out, "")
	}
}

func ceilDiv(a, b int64) int64 {
	if a >= 0 {
		return (a + b - 1) / b
	}
	return a / b
}

func attrOr(c *nodeCtx, name string, n int, def int64) []int64 {
	v, _ := c.attrInts(name)
	if len(v) == n {
		return v
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = def
	}
	return out
}

func globalPoolRule(c *nodeCtx) {
	x := c.shape(0)
	if x == nil {
		c.set(0, nil, "")
		return
	}
	out := append([]graph.Dim(nil), x...)
	for i := 2; i < len(out); i++ {
		out[i] = known(1)
	}
	c.set(0, out, "")
}

func convTransposeRule(c *nodeCtx) {
	x, w := c.shape(0), c.shape(1)
	if x == nil || w == nil || len(x) < 3 || len(w) != len(x) {
		c.set(0, nil, "")
		return
	}
	nsp := len(x) - 2
	group := c.attrInt("group", 1)
	out := []graph.Dim{x[0], dimMul(w[1], known(group))}
	if os, ok := c.attrInts("output_shape"); ok && len(os) == nsp {
		for _, d := range os {
			out = append(out, known(d))
		}
		c.set(0, out, "")
		return
	}
	kernel, _ := c.attrInts("kernel_shape")
	if kernel == nil {
		for _, d := range w[2:] {
			kernel = append(kernel, d.Value)
		}
	}
	strides := attrOr(c, "strides", nsp, 1)
	dil := attrOr(c, "dilations", nsp, 1)
	pads := attrOr(c, "pads", 2*nsp, 0)
	opad := attrOr(c, "output_padding", nsp, 0)
	autoPad := c.attrString("auto_pad", "NOTSET")
	for i := 0; i < nsp; i++ {
		d := x[2+i]
		if !isKnown(d) || kernel[i] < 0 {
			out = append(out, unknownDim)
			continue
		}
		if autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER" {
			out = append(out, known(d.Value*strides[i]))
			continue
		}
		o := strides[i]*(d.Value-1) + opad[i] + (kernel[i]-1)*dil[i] + 1 - pads[i] - pads[i+nsp]
		out = append(out, known(o))
	}
	c.set(0, out, "")
}

func reduceRule(c *nodeCtx) {
	x := c.shape(0)
	if x == nil {
		c.set(0, nil, "")
		return
	}
	keep := c.attrInt("keepdims", 1) != 0
	op := c.p.GetOpType()
	var axes []int64
	if op == "ArgMax" || op == "ArgMin" {
		axes = []int64{c.attrInt("axis", 0)}
	} else if (op == "ReduceSum" && c.version >= 13) || c.version >= 18 {
		if c.has(1) {
			a, ok := c.ints(1)
			if !ok {
				if keep {
					out := make([]graph.Dim, len(x))
					for i := range out {
						out[i] = unknownDim
					}
					c.set(0, out, "")
					return
				}
				c.set(0, nil, "the axes are computed at run time")
				return
			}
			axes = a
		}
		if len(axes) == 0 && c.attrInt("noop_with_empty_axes", 0) != 0 {
			c.set(0, x, "")
			return
		}
	} else {
		axes, _ = c.attrInts("axes")
	}
	red := map[int]bool{}
	for _, a := range axes {
		ax, ok := normAxis(c, a, len(x))
		if !ok {
			return
		}
		red[ax] = true
	}
	out := []graph.Dim{}
	for i, d := range x {
		if len(axes) == 0 || red[i] {
			if keep {
				out = append(out, known(1))
			}
			continue
		}
		out = append(out, d)
	}
	c.set(0, out, "")
}

func resizeRule(c *nodeCtx) {
	x := c.shape(0)
	if x == nil {
		c.set(0, nil, "")
		return
	}
	r := len(x)
	var scales []float64
	var sizes []int64
	switch {
	case c.p.GetOpType() == "Upsample" && c.version < 9:
		if a := c.attrs["scales"]; a != nil {
			for _, f := range a.GetFloats() {
				scales = append(scales, float64(f))
			}
		} else if c.version == 1 {
			scales = []float64{1, 1, float64(attrF(c, "height_scale")), float64(attrF(c, "width_scale"))}
		}
	case c.p.GetOpType() == "Upsample" || c.version == 10:
		scales = floats(c, 1)
	default:
		if c.has(3) {
			s, ok := c.ints(3)
			if ok {
				sizes = s
			}
		} else if c.has(2) {
			scales = floats(c, 2)
		}
	}
	axes, _ := c.attrInts("axes")
	if axes == nil {
		for i := 0; i < r; i++ {
			axes = append(axes, int64(i))
		}
	}
	out := append([]graph.Dim(nil), x...)
	policy := c.attrString("keep_aspect_ratio_policy", "stretch")
	switch {
	case sizes != nil && len(sizes) == len(axes) && policy == "stretch":
		for i, a := range axes {
			ax, ok := normAxis(c, a, r)
			if !ok {
				return
			}
			out[ax] = known(sizes[i])
		}
	case scales != nil && len(scales) == len(axes) && c.attrString("coordinate_transformation_mode", "") != "tf_crop_and_resize":
		for i, a := range axes {
			ax, ok := normAxis(c, a, r)
			if !ok {
				return
			}
			if scales[i] == 1 {
				continue
			}
			if !isKnown(x[ax]) {
				f := float32Exact(scales[i])
				if f == math.Trunc(f) && f >= 1 && f < 1<<20 {
					out[ax] = dimMul(x[ax], known(int64(f))) // an integer upscale of a symbolic dim
				} else {
					out[ax] = unknownDim
				}
				continue
			}
			out[ax] = known(int64(math.Floor(float64(x[ax].Value) * float32Exact(scales[i]))))
		}
	default:
		for i := range out {
			out[i] = unknownDim
		}
	}
	c.set(0, out, "")
}

func float32Exact(f float64) float64 { return float64(float32(f)) }

func attrF(c *nodeCtx, name string) float32 {
	if a := c.attrs[name]; a != nil {
		return a.GetF()
	}
	return 1
}

func floats(c *nodeCtx, i int) []float64 {
	x := c.input(i)
	if x == nil || x.Const == nil || x.Const.Len() == 0 {
		return nil
	}
	v, err := x.Const.Float64s()
	if err != nil {
		return nil
	}
	return v
}

func padRule(c *nodeCtx) {
	x := c.shape(0)
	if x == nil {
		c.set(0, nil, "")
		return
	}
	var pads, axes []int64
	ok := true
	if c.version < 11 {
		pads, ok = c.attrInts("pads")
	} else {
		pads, ok = c.ints(1)
		if c.has(3) {
			a, ok2 := c.ints(3)
			ok = ok && ok2
			axes = a
		}
	}
	if !ok {
		out := make([]graph.Dim, len(x))
		for i := range out {
			out[i] = unknownDim
		}
		c.set(0, out, "")
		return
	}
	if axes == nil {
		for i := range x {
			axes = append(axes, int64(i))
		}
	}
	if len(pads) != 2*len(axes) {
		c.problem("PAD", "%d pads for %d axes", len(pads), len(axes))
		return
	}
	out := append([]graph.Dim(nil), x...)
	for i, a := range axes {
		ax, ok := normAxis(c, a, len(x))
		if !ok {
			return
		}
		out[ax] = dimAdd(out[ax], known(pads[i]+pads[i+len(axes)]))
	}
	c.set(0, out, "")
}

func spaceDepth(c *nodeCtx, toDepth bool) {
	x := c.shape(0)
	b := c.attrInt("blocksize", 0)
	if len(x) != 4 || b <= 0 {
		c.set(0, nil, "")
		return
	}
	if toDepth {
		c.set(0, []graph.Dim{x[0], dimMul(x[1], known(b*b)), dimDiv(x[2], known(b)), dimDiv(x[3], known(b))}, "")
	} else {
		c.set(0, []graph.Dim{x[0], dimDiv(x[1], known(b*b)), dimMul(x[2], known(b)), dimMul(x[3], known(b))}, "")
	}
}

func topkRule(c *nodeCtx) {
	x := c.shape(0)
	if x == nil {
		c.set(0, nil, "")
		c.set(1, nil, "")
		return
	}
	axis, ok := normAxis(c, c.attrInt("axis", -1), len(x))
	if !ok {
		return
	}
	out := append([]graph.Dim(nil), x...)
	if c.version < 10 {
		out[axis] = known(c.attrInt("k", 0))
	} else if k, ok := c.sym(1); ok && len(k) == 1 {
		out[axis] = k[0]
	} else {
		out[axis] = unknownDim
	}
	c.set(0, out, "")
	c.set(1, out, "")
}

func oneHotRule(c *nodeCtx) {
	idx := c.shape(0)
	if idx == nil {
		c.set(0, nil, "")
		return
	}
	depth := unknownDim
	if v := floats(c, 1); len(v) == 1 {
		depth = known(int64(v[0]))
	}
	r := len(idx) + 1
	axis, ok := normAxis(c, c.attrInt("axis", -1), r)
	if !ok {
		return
	}
	out := append(append(append([]graph.Dim(nil), idx[:axis]...), depth), idx[axis:]...)
	c.set(0, out, "")
}
