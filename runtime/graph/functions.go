package graph

import (
	"strconv"

	"github.com/gort-dev/gort/runtime/errs"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
)

// expanded is a node after model-local functions were inlined, with the
// opsets that apply to it (a function body has its own opset_import).
type expanded struct {
	proto  *pb.NodeProto
	opsets map[string]int
	// calls is the chain of model-local functions this node was inlined
	// from, outermost first. Subgraphs of the node are expanded with it so
	// that recursion through an If/Loop body inside a function is caught too.
	calls []funcKey
}

// maxInlinedNodes bounds the nodes that function inlining may create in one
// model. Each call is expanded separately, so a chain of functions that each
// call the next twice grows exponentially with the chain's length; without a
// bound a few hundred bytes of model could demand billions of nodes.
const maxInlinedNodes = 1 << 20

// expandFunctions inlines calls to model-local functions (FunctionProto):
// the body's nodes replace the call, formal inputs/outputs are renamed to the
// call's actual names, internal values get a unique prefix, and attribute
// references (ref_attr_name) take the call's attribute or the default.
func (l *loader) expandFunctions(nodes []*pb.NodeProto, opsets map[string]int, calls []funcKey, prefix string) ([]expanded, error) {
	var out []expanded
	for i, n := range nodes {
		k := funcKey{op.CanonicalDomain(n.GetDomain()), n.GetOpType(), n.GetOverload()}
		f := l.functions[k]
		if f == nil {
			out = append(out, expanded{proto: n, opsets: opsets, calls: calls})
			continue
		}
		for _, c := range calls {
			if c == k {
				return nil, errs.New(errs.BadModel, "model-local function %s calls itself (through %s)", funcName(k), callChain(calls))
			}
		}
		if len(calls) >= maxFunctionDepth {
			return nil, errs.New(errs.BadModel, "model-local functions nest deeper than %d (%s)", maxFunctionDepth, callChain(calls))
		}
		l.inlined += len(f.GetNode())
		if l.inlined > maxInlinedNodes {
			return nil, errs.New(errs.BadModel, "inlining model-local functions would create more than %d nodes", maxInlinedNodes)
		}
		call := n.GetName()
		if call == "" {
			call = prefix + n.GetOpType() + "#" + strconv.Itoa(i)
		}
		// The call's name prefixes the function's internal values, so it
		// must be unique even when the model reuses node names.
		call = l.uniqueCallName(call)
		body, fopsets, err := l.instantiate(f, n, call, opsets)
		if err != nil {
			return nil, errs.AtNode(err, call)
		}
		inner := append(append([]funcKey(nil), calls...), k)
		sub, err := l.expandFunctions(body, fopsets, inner, call+"/")
		if err != nil {
			return nil, err
		}
		out = append(out, sub...)
	}
	return out, nil
}

func (l *loader) uniqueCallName(name string) string {
	if l.callNames == nil {
		l.callNames = map[string]bool{}
	}
	u := name
	for i := 1; l.callNames[u]; i++ {
		u = name + "~" + strconv.Itoa(i)
	}
	l.callNames[u] = true
	return u
}

// checkInlining computes, before anything is cloned, how many nodes inlining
// the model-local functions would create (function calls inside subgraphs
// included), and rejects recursion and models whose expansion exceeds
// maxInlinedNodes. Counting first keeps a hostile model from costing
// minutes of cloning before the limit in expandFunctions is reached.
func (l *loader) checkInlining(main *pb.GraphProto) error {
	const visiting = -1
	weight := map[funcKey]int{} // nodes one call produces, or visiting
	var graphCost func(g *pb.GraphProto, stack []funcKey) (int, error)
	var nodeCost func(n *pb.NodeProto, stack []funcKey) (int, error)
	add := func(a, b int) int { return min(a+b, maxInlinedNodes+1) }
	callCost := func(k funcKey, f *pb.FunctionProto, stack []funcKey) (int, error) {
		switch w, ok := weight[k]; {
		case ok && w == visiting:
			return 0, errs.New(errs.BadModel, "model-local function %s calls itself (through %s)", funcName(k), callChain(append(stack, k)))
		case ok:
			return w, nil
		}
		weight[k] = visiting
		w := 0
		for _, bn := range f.GetNode() {
			c, err := nodeCost(bn, append(stack, k))
			if err != nil {
				return 0, err
			}
			w = add(w, c)
		}
		weight[k] = w
		return w, nil
	}
	nodeCost = func(n *pb.NodeProto, stack []funcKey) (int, error) {
		cost := 0
		k := funcKey{op.CanonicalDomain(n.GetDomain()), n.GetOpType(), n.GetOverload()}
		if f := l.functions[k]; f != nil {
			c, err := callCost(k, f, stack)
			if err != nil {
				return 0, err
			}
			cost = c
		} else {
			cost = 1
		}
		for _, a := range n.GetAttribute() {
			gs := a.GetGraphs()
			if a.GetG() != nil {
				gs = append([]*pb.GraphProto{a.GetG()}, gs...)
			}
			for _, g := range gs {
				c, err := graphCost(g, stack)
				if err != nil {
					return 0, err
				}
				cost = add(cost, c)
			}
		}
		return cost, nil
	}
	graphCost = func(g *pb.GraphProto, stack []funcKey) (int, error) {
		cost := 0
		for _, n := range g.GetNode() {
			c, err := nodeCost(n, stack)
			if err != nil {
				return 0, err
			}
			cost = add(cost, c)
		}
		return cost, nil
	}
	for k, f := range l.functions {
		if _, err := callCost(k, f, nil); err != nil {
			return err
		}
		if weight[k] > maxInlinedNodes {
			return errs.New(errs.BadModel, "inlining model-local function %s would create more than %d nodes", funcName(k), maxInlinedNodes)
		}
	}
	// Then the calls the model makes, each costing its function's weight.
	var calls func(g *pb.GraphProto) int
	calls = func(g *pb.GraphProto) int {
		total := 0
		for _, n := range g.GetNode() {
			total = add(total, weight[funcKey{op.CanonicalDomain(n.GetDomain()), n.GetOpType(), n.GetOverload()}])
			for _, a := range n.GetAttribute() {
				if a.GetG() != nil {
					total = add(total, calls(a.GetG()))
				}
				for _, sg := range a.GetGraphs() {
					total = add(total, calls(sg))
				}
			}
		}
		return total
	}
	if len(l.functions) > 0 && calls(main) > maxInlinedNodes {
		return errs.New(errs.BadModel, "inlining the model-local functions would create more than %d nodes", maxInlinedNodes)
	}
	return nil
}

func funcName(k funcKey) string {
	if k.domain == "" {
		return k.name
	}
	return k.domain + "." + k.name
}

func callChain(calls []funcKey) string {
	s := ""
	for i, c := range calls {
		if i > 0 {
			s += " → "
		}
		s += funcName(c)
	}
	return s
}

func (l *loader) instantiate(f *pb.FunctionProto, call *pb.NodeProto, callName string, outerOpsets map[string]int) ([]*pb.NodeProto, map[string]int, error) {
	fopsets, err := opsetMap(f.GetOpsetImport())
	if err != nil {
		return nil, nil, err
	}
	for d, v := range outerOpsets {
		if _, ok := fopsets[d]; !ok {
			fopsets[d] = v
		}
	}
	rename := map[string]string{}
	for i, formal := range f.GetInput() {
		actual := ""
		if i < len(call.GetInput()) {
			actual = call.GetInput()[i]
		}
		rename[formal] = actual
	}
	for i, formal := range f.GetOutput() {
		actual := ""
		if i < len(call.GetOutput()) {
			actual = call.GetOutput()[i]
		}
		rename[formal] = actual
	}
	attrs := map[string]*pb.AttributeProto{}
	for _, a := range f.GetAttributeProto() {
		attrs[a.GetName()] = a
	}
	for _, a := range call.GetAttribute() {
		attrs[a.GetName()] = a
	}
	name := func(v string) string {
		if v == "" {
			return ""
		}
		if r, ok := rename[v]; ok {
			return r
		}
		return callName + "/" + v
	}
	var body []*pb.NodeProto
	for _, bn := range f.GetNode() {
		c := pb.Clone(bn)
		for i, v := range c.Input {
			c.Input[i] = name(v)
		}
		for i, v := range c.Output {
			c.Output[i] = name(v)
		}
		if c.Name != "" {
			c.Name = callName + "/" + c.Name
		}
		c.Attribute = substituteAttrs(c.Attribute, attrs, name)
		body = append(body, c)
	}
	return body, fopsets, nil
}

// substituteAttrs resolves the ref_attr_name attributes of a function body
// node (dropping those the call does not give and that have no default) and
// rewrites the names its subgraphs take from the function's scope. A graph
// that arrives through a reference is the caller's and already uses the
// caller's names, so it is left alone.
func substituteAttrs(in []*pb.AttributeProto, attrs map[string]*pb.AttributeProto, name func(string) string) []*pb.AttributeProto {
	var kept []*pb.AttributeProto
	for _, a := range in {
		if ref := a.GetRefAttrName(); ref != "" {
			v, ok := attrs[ref]
			if !ok {
				continue // not given and no default: the attribute is absent
			}
			formalName := a.GetName()
			a = pb.Clone(v)
			a.Name = formalName
			kept = append(kept, a)
			continue
		}
		if a.G != nil {
			renameOuter(a.G, name, attrs)
		}
		for _, g := range a.Graphs {
			renameOuter(g, name, attrs)
		}
		kept = append(kept, a)
	}
	return kept
}

// renameOuter renames, inside a subgraph of a function body, the references
// to the function's values (names the subgraph does not define itself).
func renameOuter(g *pb.GraphProto, name func(string) string, attrs map[string]*pb.AttributeProto) {
	local := map[string]bool{}
	for _, in := range g.GetInput() {
		local[in.GetName()] = true
	}
	for _, in := range g.GetInitializer() {
		local[in.GetName()] = true
	}
	for _, n := range g.GetNode() {
		for _, o := range n.GetOutput() {
			local[o] = true
		}
	}
	// Nested subgraphs see this graph's locals unrenamed too.
	inner := func(v string) string {
		if local[v] {
			return v
		}
		return name(v)
	}
	for _, n := range g.GetNode() {
		for i, v := range n.Input {
			if v != "" {
				n.Input[i] = inner(v)
			}
		}
		n.Attribute = substituteAttrs(n.Attribute, attrs, inner)
	}
	for _, o := range g.GetOutput() {
		if !local[o.GetName()] {
			o.Name = name(o.GetName())
		}
	}
}
