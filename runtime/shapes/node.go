package shapes

import (
	"fmt"
	"strconv"

	"github.com/gort-dev/gort/runtime/graph"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/schema"
	"github.com/gort-dev/gort/runtime/tensor"
)

func (in *inferrer) node(p *pb.NodeProto, index int, declared map[string]graph.Type, depth int) {
	vals := in.res.Values
	name := p.GetName()
	if name == "" {
		name = p.GetOpType() + "#" + strconv.Itoa(index)
	}
	domain := op.CanonicalDomain(p.GetDomain())
	c := &Ctx{in: in, p: p, name: name, index: index, attrs: map[string]*pb.AttributeProto{}}
	if opset, ok := in.opsets[domain]; ok {
		if s := schema.Resolve(domain, p.GetOpType(), opset); s != nil {
			c.sch, c.version = s, s.Version
		} else if !schema.Known(domain, p.GetOpType()) {
			// An op outside the ONNX spec (onnxruntime's com.microsoft
			// contrib ops): the registry's version selects its rule, which
			// then also gives the element types (no schema to take them from).
			if res := in.opts.Registry.Resolve(domain, p.GetOpType(), opset); res.Builder != nil {
				c.version = res.Version
			}
		}
	}
	for _, a := range p.GetAttribute() {
		c.attrs[a.GetName()] = a
	}
	for _, n := range p.GetInput() {
		c.ins = append(c.ins, vals[n]) // nil when omitted or undefined
	}
	for _, n := range p.GetOutput() {
		if n == "" {
			c.outs = append(c.outs, nil)
			continue
		}
		o := &Info{}
		c.outs = append(c.outs, o)
	}
	// Subgraphs first, so that rules can read their output types.
	for _, a := range p.GetAttribute() {
		if g := a.GetG(); g != nil {
			in.subgraph(c, a.GetName(), g, depth)
		}
		for _, g := range a.GetGraphs() {
			in.subgraph(c, a.GetName(), g, depth)
		}
	}
	if in.call(c, depth) {
		// a model-local function: its body gave the outputs
	} else if c.propagateTypes(); !in.fold(c) {
		if rule := rules[key(domain, p.GetOpType())]; rule != nil && c.version > 0 {
			func() {
				defer func() {
					if r := recover(); r != nil {
						for i := range c.outs {
							c.Set(i, nil, fmt.Sprintf("%s inference failed: %v", p.GetOpType(), r))
						}
					}
				}()
				rule(c)
			}()
		} else if len(c.outs) > 0 && c.outs[0] != nil && c.outs[0].Why == "" {
			for _, o := range c.outs {
				if o != nil && o.Type.Shape == nil {
					o.Why = fmt.Sprintf("no shape rule for %s", qualified(domain, p.GetOpType()))
				}
			}
		}
	}
	for i, n := range p.GetOutput() {
		o := c.outs[i]
		if n == "" || o == nil {
			continue
		}
		if d, ok := declared[n]; ok {
			in.reconcile(c, n, o, d)
		}
		if o.Type.Kind == graph.KindTensor && o.Type.Shape == nil && o.Why == "" {
			o.Why = "unknown input shapes"
			for j, x := range c.ins {
				if c.Has(j) && !x.ShapeKnown() {
					o.Why = fmt.Sprintf("the shape of input %q is unknown", p.GetInput()[j])
					break
				}
			}
		}
		vals[n] = o
	}
}

func qualified(domain, opType string) string {
	if domain == "" {
		return opType
	}
	return domain + "." + opType
}

// reconcile compares an inferred type with a declared one (value_info or
// graph output): a contradiction is a problem, and what the declaration adds
// (a rank, a dim, a symbolic name) is kept.
func (in *inferrer) reconcile(c *Ctx, name string, o *Info, d graph.Type) {
	if d.Kind == graph.KindUnknown {
		return
	}
	if o.Type.Kind == graph.KindUnknown {
		o.Type = d
		if d.Shape != nil {
			o.Why = ""
		}
		return
	}
	if o.Type.Kind == graph.KindTensor && d.Kind == graph.KindTensor {
		if o.Type.Elem != 0 && d.Elem != 0 && o.Type.Elem != d.Elem {
			in.problem(c, "TYPE_MISMATCH", name, "declared %s, inferred %s", d.Elem, o.Type.Elem)
			return
		}
		if o.Type.Elem == 0 {
			o.Type.Elem = d.Elem
		}
		if d.Shape == nil {
			return
		}
		if o.Type.Shape == nil {
			o.Type.Shape = d.Shape
			o.Why = ""
			return
		}
		if len(d.Shape) != len(o.Type.Shape) {
			in.problem(c, "SHAPE_MISMATCH", name, "declared shape %s, inferred %s", ShapeString(d.Shape), ShapeString(o.Type.Shape))
			return
		}
		merged := make([]graph.Dim, len(d.Shape))
		for i := range d.Shape {
			a, b := o.Type.Shape[i], d.Shape[i]
			merged[i] = a
			switch {
			case IsKnown(a) && IsKnown(b) && a.Value != b.Value:
				in.problem(c, "SHAPE_MISMATCH", name, "declared shape %s, inferred %s (axis %d)", ShapeString(d.Shape), ShapeString(o.Type.Shape), i)
				return
			case IsUnknown(a) || (!IsKnown(a) && IsKnown(b)):
				merged[i] = b
			}
		}
		o.Type.Shape = merged
	}
}

// propagateTypes binds the schema's type variables from the inputs and gives
// each output the type its parameter names.
func (c *Ctx) propagateTypes() {
	if c.sch == nil {
		return
	}
	bound := map[string]graph.Type{}
	for i, x := range c.ins {
		p := c.sch.Input(i)
		if x == nil || p == nil || x.Type.Kind == graph.KindUnknown || (p.Variadic && p.Heterogeneous) {
			continue
		}
		if _, ok := bound[p.Type]; !ok {
			bound[p.Type] = x.Type
		}
	}
	for i, o := range c.outs {
		p := c.sch.Output(i)
		if o == nil || p == nil {
			continue
		}
		if t, ok := bound[p.Type]; ok && !(p.Variadic && p.Heterogeneous) {
			o.Type = graph.Type{Kind: t.Kind, Elem: t.Elem, Inner: t.Inner}
			continue
		}
		if t, ok := parseType(p.Type); ok {
			o.Type = t
			continue
		}
		if ts := c.sch.AllowedTypes(p); len(ts) == 1 {
			if t, ok := parseType(ts[0]); ok {
				o.Type = t
			}
		}
	}
}

// fold computes a node whose inputs are all constant (and small) with gort's
// own kernel; its outputs become constants with exact shapes.
func (in *inferrer) fold(c *Ctx) bool {
	if c.version == 0 {
		return false
	}
	domain := op.CanonicalDomain(c.p.GetDomain())
	if skip := noFold[opKey{domain, c.p.GetOpType()}]; skip != nil && skip(c) {
		return false
	}
	total := 0
	for i, x := range c.ins {
		if !c.Has(i) {
			continue
		}
		if x == nil || x.Const == nil {
			return false
		}
		total += x.Const.Len()
	}
	for _, a := range c.p.GetAttribute() {
		if a.GetG() != nil || len(a.GetGraphs()) > 0 || a.GetRefAttrName() != "" {
			return false
		}
	}
	if total > in.opts.MaxFoldElements {
		return false
	}
	res := in.opts.Registry.Resolve(domain, c.p.GetOpType(), in.opsets[domain])
	if res.Builder == nil {
		return false
	}
	n := &op.Node{Name: c.name, OpType: c.p.GetOpType(), Domain: domain, Inputs: c.p.GetInput(), Outputs: c.p.GetOutput(),
		// Outputs over the fold limit are refused as they are allocated
		// (ConstantOfShape weights would otherwise be computed and dropped).
		Version: res.Version, Opset: in.opsets[domain], Attrs: c.attrs, MaxBytes: int64(in.opts.MaxFoldElements) * 16}
	outs, ok := runKernel(res.Builder, n, c.ins)
	if !ok || len(outs) > len(c.outs) {
		return false
	}
	for i, t := range outs {
		if c.outs[i] == nil || t == nil {
			continue
		}
		if t.Len() > in.opts.MaxFoldElements {
			return false
		}
	}
	for i, t := range outs {
		if c.outs[i] == nil || t == nil {
			continue
		}
		c.outs[i].Type = graph.Type{Kind: graph.KindTensor, Elem: t.DType(), Shape: Dims(int64s(t.Shape()))}
		c.outs[i].Const = t
		c.outs[i].Why = ""
	}
	return true
}

func int64s(s []int) []int64 {
	out := make([]int64, len(s))
	for i, v := range s {
		out[i] = int64(v)
	}
	return out
}

// runKernel builds and runs a kernel on constants; any error or panic means "not folded".
func runKernel(b op.Builder, n *op.Node, ins []*Info) (outs []*tensor.Tensor, ok bool) {
	defer func() {
		if recover() != nil {
			outs, ok = nil, false
		}
	}()
	k, err := b(n)
	if err != nil {
		return nil, false
	}
	ctx := &op.Context{MaxBytes: n.MaxBytes}
	tins := make([]*tensor.Tensor, len(ins))
	for i, x := range ins {
		if x != nil && i < len(n.Inputs) && n.Inputs[i] != "" {
			tins[i] = x.Const
		}
	}
	switch k := k.(type) {
	case op.Kernel:
		outs, err = k.Run(ctx, tins)
	case op.ValueKernel:
		vins := make([]tensor.Value, len(tins))
		for i, t := range tins {
			if t != nil {
				vins[i] = t
			}
		}
		vs, e := k.RunValues(ctx, vins)
		err = e
		for _, v := range vs {
			t, isT := v.(*tensor.Tensor)
			if !isT && v != nil {
				return nil, false
			}
			outs = append(outs, t)
		}
	default:
		return nil, false
	}
	if err != nil {
		return nil, false
	}
	return outs, true
}

// subgraph infers a graph attribute. The inputs of Loop and Scan bodies get
// the types the node implies where the body leaves them undeclared.
func (in *inferrer) subgraph(c *Ctx, attr string, g *pb.GraphProto, depth int) {
	in.presetBody(c, attr, g)
	in.graph(g, depth+1)
}
