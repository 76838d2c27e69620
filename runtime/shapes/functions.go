package shapes

import (
	"fmt"

	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
)

// Calls of model-local functions (what torch.onnx's dynamo exporter emits
// for every module) are inferred by inferring the function body with the
// caller's input types and attributes, in the body's own name space.

func funcKey(domain, name, overload string) string {
	return op.CanonicalDomain(domain) + "\x00" + name + "\x00" + overload
}

// call infers a function call; false when the node is not one.
func (in *inferrer) call(c *Ctx, depth int) bool {
	f := in.functions[funcKey(c.p.GetDomain(), c.p.GetOpType(), c.p.GetOverload())]
	if f == nil {
		return false
	}
	if depth > 16 {
		for i := range c.outs {
			c.Set(i, nil, "functions nested too deeply")
		}
		return true
	}
	sub := &inferrer{opts: in.opts, res: &Result{Values: map[string]*Info{}}, opsets: in.opsets, functions: in.functions}
	if len(f.GetOpsetImport()) > 0 {
		sub.opsets = map[string]int{}
		for _, imp := range f.GetOpsetImport() {
			sub.opsets[op.CanonicalDomain(imp.GetDomain())] = int(imp.GetVersion())
		}
	}
	for i, name := range f.GetInput() {
		if c.Has(i) && c.ins[i] != nil {
			sub.res.Values[name] = c.ins[i]
		}
	}
	defaults := map[string]*pb.AttributeProto{}
	for _, a := range f.GetAttributeProto() {
		defaults[a.GetName()] = a
	}
	for i, n := range f.GetNode() {
		sub.node(bindRefs(n, c.attrs, defaults), i, nil, depth+1)
	}
	for i, name := range f.GetOutput() {
		if i < len(c.outs) && c.outs[i] != nil {
			if v := sub.res.Values[name]; v != nil {
				*c.outs[i] = *v
			} else {
				c.outs[i].Why = fmt.Sprintf("the body of %s does not produce %q", c.p.GetOpType(), name)
			}
		}
	}
	for _, p := range sub.res.Problems {
		p.Msg = fmt.Sprintf("in function %s, node %s: %s", c.p.GetOpType(), p.Node, p.Msg)
		p.Node, p.NodeIndex, p.Op = c.name, c.index, c.p.GetOpType()
		in.res.Problems = append(in.res.Problems, p)
	}
	return true
}

// bindRefs returns n with its attribute references replaced by the caller's
// attributes (or the function's defaults); unbound references are dropped.
func bindRefs(n *pb.NodeProto, caller, defaults map[string]*pb.AttributeProto) *pb.NodeProto {
	has := false
	for _, a := range n.GetAttribute() {
		has = has || a.GetRefAttrName() != ""
	}
	if !has {
		return n
	}
	c := &pb.NodeProto{Name: n.GetName(), OpType: n.GetOpType(), Domain: n.GetDomain(), Overload: n.GetOverload(), Input: n.GetInput(), Output: n.GetOutput()}
	for _, a := range n.GetAttribute() {
		ref := a.GetRefAttrName()
		if ref == "" {
			c.Attribute = append(c.Attribute, a)
			continue
		}
		v := caller[ref]
		if v == nil {
			v = defaults[ref]
		}
		if v == nil {
			continue
		}
		b := pb.Clone(v)
		b.Name = a.GetName()
		c.Attribute = append(c.Attribute, b)
	}
	return c
}
