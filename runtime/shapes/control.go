package shapes

import (
	"github.com/gort-dev/gort/runtime/graph"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
)

// Control flow: the bodies of Loop and Scan get their input types from the
// node before they are inferred, and the node's outputs come from the
// bodies' outputs (If: where both branches agree).

func (in *inferrer) presetBody(c *nodeCtx, attr string, g *pb.GraphProto) {
	vals := in.res.Values
	set := func(name string, t graph.Type) {
		if name == "" || t.Kind == graph.KindUnknown {
			return
		}
		if _, exists := vals[name]; exists {
			return
		}
		vals[name] = &Info{Type: t}
	}
	ins := g.GetInput()
	switch {
	case c.p.GetOpType() == "Loop" && attr == "body":
		if len(ins) > 0 {
			set(ins[0].GetName(), scalarOf(7)) // iteration number, int64
		}
		if len(ins) > 1 {
			set(ins[1].GetName(), scalarOf(9)) // condition, bool
		}
		for i := 2; i < len(ins); i++ {
			if x := c.input(i); x != nil {
				set(ins[i].GetName(), x.Type)
			}
		}
	case c.p.GetOpType() == "Scan" && attr == "body" && c.version >= 9:
		nScan := int(c.attrInt("num_scan_inputs", 0))
		nState := len(c.p.GetInput()) - nScan
		axes, _ := c.attrInts("scan_input_axes")
		for i := 0; i < len(ins) && i < len(c.ins); i++ {
			x := c.input(i)
			if x == nil {
				continue
			}
			t := x.Type
			if i >= nState && t.Shape != nil {
				ax := int64(0)
				if k := i - nState; k < len(axes) {
					ax = axes[k]
				}
				if ax < 0 {
					ax += int64(len(t.Shape))
				}
				if ax < 0 || ax >= int64(len(t.Shape)) {
					continue
				}
				t.Shape = append(append([]graph.Dim(nil), t.Shape[:ax]...), t.Shape[ax+1:]...)
			}
			set(ins[i].GetName(), t)
		}
	}
}

func scalarOf(elem int32) graph.Type {
	return graph.Type{Kind: graph.KindTensor, Elem: typeDType(elem), Shape: []graph.Dim{}}
}

// bodyOut returns the inferred type of a subgraph's i-th output.
func (c *nodeCtx) bodyOut(attr string, i int) *Info {
	a := c.attrs[attr]
	if a == nil || a.GetG() == nil || i >= len(a.GetG().GetOutput()) {
		return nil
	}
	return c.in.res.Values[a.GetG().GetOutput()[i].GetName()]
}

// mergeShapes keeps what two shapes agree on (nil when the ranks differ).
func mergeShapes(a, b []graph.Dim) []graph.Dim {
	if a == nil || b == nil || len(a) != len(b) {
		return nil
	}
	out := make([]graph.Dim, len(a))
	for i := range a {
		if sameDim(a[i], b[i]) {
			out[i] = a[i]
		} else {
			out[i] = unknownDim
		}
	}
	return out
}

func ifRule(c *nodeCtx) {
	for i := range c.outs {
		t, e := c.bodyOut("then_branch", i), c.bodyOut("else_branch", i)
		if t == nil || e == nil {
			continue
		}
		if i < len(c.outs) && c.outs[i] != nil && c.outs[i].Type.Kind == graph.KindUnknown {
			c.outs[i].Type = graph.Type{Kind: t.Type.Kind, Elem: t.Type.Elem, Inner: t.Type.Inner}
		}
		if t.Type.Kind == graph.KindTensor {
			c.set(i, mergeShapes(t.Type.Shape, e.Type.Shape), "the branches' shapes differ in rank or are unknown")
		}
	}
}

func loopRule(c *nodeCtx) {
	nCarried := len(c.p.GetInput()) - 2
	iters := unknownDim
	if m, ok := c.ints(0); ok && len(m) == 1 && !c.has(1) {
		iters = known(m[0])
	}
	for i := range c.outs {
		b := c.bodyOut("body", i+1)
		if b == nil {
			continue
		}
		if c.outs[i] != nil && c.outs[i].Type.Kind == graph.KindUnknown {
			c.outs[i].Type = graph.Type{Kind: b.Type.Kind, Elem: b.Type.Elem, Inner: b.Type.Inner}
		}
		if b.Type.Kind != graph.KindTensor {
			continue
		}
		if i < nCarried {
			// A carried value may change shape between iterations: keep
			// what the initial value and the body's result agree on.
			var init []graph.Dim
			if x := c.input(i + 2); x != nil {
				init = x.Type.Shape
			}
			c.set(i, mergeShapes(init, b.Type.Shape), "the loop-carried value changes rank")
			continue
		}
		if b.Type.Shape != nil {
			c.set(i, append([]graph.Dim{iters}, b.Type.Shape...), "")
		}
	}
}

func scanRule(c *nodeCtx) {
	if c.version < 9 {
		return
	}
	nScan := int(c.attrInt("num_scan_inputs", 0))
	nState := len(c.p.GetInput()) - nScan
	seq := unknownDim
	if nScan > 0 {
		if x := c.shape(nState); x != nil {
			ax := int64(0)
			if axes, ok := c.attrInts("scan_input_axes"); ok && len(axes) > 0 {
				ax = axes[0]
			}
			if ax < 0 {
				ax += int64(len(x))
			}
			if ax >= 0 && ax < int64(len(x)) {
				seq = x[ax]
			}
		}
	}
	outAxes, _ := c.attrInts("scan_output_axes")
	for i := range c.outs {
		b := c.bodyOut("body", i)
		if b == nil || b.Type.Kind != graph.KindTensor {
			continue
		}
		if c.outs[i] != nil && c.outs[i].Type.Kind == graph.KindUnknown {
			c.outs[i].Type = graph.Type{Kind: b.Type.Kind, Elem: b.Type.Elem}
		}
		if i < nState {
			c.set(i, b.Type.Shape, "")
			continue
		}
		if b.Type.Shape == nil {
			continue
		}
		ax := int64(0)
		if k := i - nState; k < len(outAxes) {
			ax = outAxes[k]
		}
		r := int64(len(b.Type.Shape)) + 1
		if ax < 0 {
			ax += r
		}
		if ax < 0 || ax >= r {
			continue
		}
		s := append(append(append([]graph.Dim(nil), b.Type.Shape[:ax]...), seq), b.Type.Shape[ax:]...)
		c.set(i, s, "")
	}
}
