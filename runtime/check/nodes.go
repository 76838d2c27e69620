package check

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gort-dev/gort/runtime/graph"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/schema"
	"github.com/gort-dev/gort/runtime/shapes"
)

func nodeName(n *pb.NodeProto, i int) string {
	if n.GetName() != "" {
		return n.GetName()
	}
	return fmt.Sprintf("%s#%d", n.GetOpType(), i)
}

// nodes checks a graph's node list: structure first (producers, undefined
// inputs, order, cycles, reachability), then each node against its schema.
func (g *graphCtx) nodes(nodes []*pb.NodeProto, sc *scope, inits map[string]bool) {
	producer := map[string]int{} // value → index of the node producing it
	names := map[string]int{}
	for i, n := range nodes {
		name := nodeName(n, i)
		if n.GetName() != "" {
			if j, dup := names[n.GetName()]; dup {
				g.add(Warning, "DUPLICATE_NAME", name, i, n.GetOpType(), "", "node name also used by node #%d", j)
			} else {
				names[n.GetName()] = i
			}
		}
		for _, o := range n.GetOutput() {
			if o == "" {
				continue
			}
			if j, dup := producer[o]; dup {
				g.add(Error, "MULTIPLE_PRODUCERS", name, i, n.GetOpType(), o, "value is also produced by node %s (#%d); ONNX values have one producer", nodeName(nodes[j], j), j)
				continue
			}
			if what, ok := sc.defined[o]; ok {
				g.add(Error, "MULTIPLE_PRODUCERS", name, i, n.GetOpType(), o, "value is also a %s", what)
				continue
			}
			if sc.parent != nil && sc.parent.lookup(o) {
				g.add(Error, "MULTIPLE_PRODUCERS", name, i, n.GetOpType(), o, "value shadows a value of an enclosing graph")
			}
			producer[o] = i
		}
	}
	for o, i := range producer {
		sc.defined[o] = "output of node " + nodeName(nodes[i], i)
	}
	// Undefined inputs and order; edges for the cycle search.
	edges := make([][]int, len(nodes))
	outOfOrder := false
	for i, n := range nodes {
		name := nodeName(n, i)
		for _, in := range readsOf(n) {
			if in == "" {
				continue
			}
			if j, ok := producer[in]; ok {
				edges[i] = append(edges[i], j)
				if j >= i && !outOfOrder && j != i {
					outOfOrder = true
					g.add(Warning, "NODE_ORDER", name, i, n.GetOpType(), in, "reads a value produced later by node %s (#%d); the spec wants nodes in topological order", nodeName(nodes[j], j), j)
				}
				if j == i {
					g.add(Error, "CYCLE", name, i, n.GetOpType(), in, "node reads its own output")
				}
				continue
			}
			if !sc.lookup(in) {
				g.add(Error, "UNDEFINED_INPUT", name, i, n.GetOpType(), in, "input is produced by no node, graph input or initializer in scope")
			}
		}
	}
	if cyc := findCycle(edges); cyc != nil {
		var names []string
		for _, i := range cyc {
			names = append(names, nodeName(nodes[i], i))
		}
		i := cyc[0]
		g.add(Error, "CYCLE", nodeName(nodes[i], i), i, nodes[i].GetOpType(), "", "nodes form a cycle: %s", strings.Join(names, " → "))
	}
	// Reachability: nodes whose outputs feed no graph output, and unused initializers.
	if !g.function {
		g.reachability(nodes, producer, inits)
	}
	for i, n := range nodes {
		g.node(n, i, sc)
	}
}

// readsOf lists a node's inputs and the outer names its subgraphs read.
func readsOf(n *pb.NodeProto) []string {
	out := append([]string(nil), n.GetInput()...)
	for _, a := range n.GetAttribute() {
		gs := a.GetGraphs()
		if a.GetG() != nil {
			gs = append(gs, a.GetG())
		}
		for _, sg := range gs {
			out = append(out, freeNames(sg)...)
		}
	}
	return out
}

// freeNames lists names a subgraph reads but does not define.
func freeNames(gp *pb.GraphProto) []string {
	def := map[string]bool{}
	for _, v := range gp.GetInput() {
		def[v.GetName()] = true
	}
	for _, t := range gp.GetInitializer() {
		def[t.GetName()] = true
	}
	for _, s := range gp.GetSparseInitializer() {
		def[s.GetValues().GetName()] = true
	}
	for _, n := range gp.GetNode() {
		for _, o := range n.GetOutput() {
			def[o] = true
		}
	}
	var out []string
	for _, n := range gp.GetNode() {
		for _, in := range readsOf(n) {
			if in != "" && !def[in] {
				out = append(out, in)
			}
		}
	}
	for _, o := range gp.GetOutput() {
		if !def[o.GetName()] {
			out = append(out, o.GetName())
		}
	}
	return out
}

// findCycle returns the nodes of one cycle, or nil.
func findCycle(edges [][]int) []int {
	state := make([]int8, len(edges)) // 0 new, 1 on stack, 2 done
	var stack []int
	var found []int
	var visit func(i int) bool
	visit = func(i int) bool {
		state[i] = 1
		stack = append(stack, i)
		for _, j := range edges[i] {
			if j == i {
				continue
			}
			if state[j] == 1 {
				for k := len(stack) - 1; k >= 0; k-- {
					if stack[k] == j {
						found = append([]int(nil), stack[k:]...)
						break
					}
				}
				return true
			}
			if state[j] == 0 && visit(j) {
				return true
			}
		}
		stack = stack[:len(stack)-1]
		state[i] = 2
		return false
	}
	for i := range edges {
		if state[i] == 0 && visit(i) {
			return found
		}
	}
	return nil
}

func (g *graphCtx) reachability(nodes []*pb.NodeProto, producer map[string]int, inits map[string]bool) {
	need := map[string]bool{}
	for _, o := range g.outputs {
		need[o] = true
	}
	live := make([]bool, len(nodes))
	read := map[string]bool{}
	// A node is live when one of its outputs is needed; iterate to a
	// fixed point to be independent of the node order.
	changed := true
	for changed {
		changed = false
		for i := len(nodes) - 1; i >= 0; i-- {
			n := nodes[i]
			if live[i] {
				continue
			}
			for _, o := range n.GetOutput() {
				if need[o] {
					live[i] = true
					break
				}
			}
			if live[i] {
				changed = true
				for _, in := range readsOf(n) {
					need[in] = true
				}
			}
		}
	}
	for i, n := range nodes {
		for _, in := range readsOf(n) {
			read[in] = true
		}
		if !live[i] {
			g.add(Warning, "NODE_UNUSED", nodeName(n, i), i, n.GetOpType(), "", "no graph output depends on this node")
		}
	}
	names := make([]string, 0, len(inits))
	for n := range inits {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !read[n] && !need[n] && !g.isInput[n] {
			g.graphf(Warning, "INITIALIZER_UNUSED", n, "initializer is read by no node")
		}
	}
}

// node checks one node against the schema its opset selects.
func (g *graphCtx) node(n *pb.NodeProto, i int, sc *scope) {
	name, opType := nodeName(n, i), n.GetOpType()
	add := func(sev Severity, code, tensorName, format string, args ...any) {
		g.add(sev, code, name, i, opType, tensorName, format, args...)
	}
	if opType == "" {
		add(Error, "OP_MISSING", "", "node has no op_type")
		return
	}
	// Attributes: names and duplicates; subgraphs recursively.
	attrs := map[string]*pb.AttributeProto{}
	for _, a := range n.GetAttribute() {
		an := a.GetName()
		if an == "" {
			add(Error, "ATTR_NAME", "", "an attribute has no name")
			continue
		}
		if _, dup := attrs[an]; dup {
			add(Error, "ATTR_DUPLICATE", "", "attribute %q is given twice", an)
		}
		attrs[an] = a
		if a.GetRefAttrName() != "" && !g.function {
			add(Error, "ATTR_REF", "", "attribute %q refers to %q, but references are only allowed in function bodies", an, a.GetRefAttrName())
		}
		if t := a.GetT(); t != nil {
			g.checkTensor(t, fmt.Sprintf("attribute %q of node %s", an, name))
		}
		gs := a.GetGraphs()
		if a.GetG() != nil {
			gs = append([]*pb.GraphProto{a.GetG()}, gs...)
		}
		for k, sg := range gs {
			where := fmt.Sprintf("%s/%s.%s", g.where, name, an)
			if len(gs) > 1 {
				where += fmt.Sprintf("[%d]", k)
			}
			g.c.graph(sg, where, sc, false) // a subgraph sees the enclosing names
		}
	}
	domain := op.CanonicalDomain(n.GetDomain())
	g.c.used[domain] = true
	if f, isFunc := g.c.functions[funcKey(n.GetDomain(), opType, n.GetOverload())]; isFunc {
		// A call of a model-local function; its body is checked on its own.
		if len(n.GetInput()) > len(f.GetInput()) {
			add(Error, "INPUT_COUNT", "", "function %s takes %d inputs, the call passes %d", opType, len(f.GetInput()), len(n.GetInput()))
		}
		if len(n.GetOutput()) > len(f.GetOutput()) {
			add(Error, "OUTPUT_COUNT", "", "function %s returns %d values, the call lists %d outputs", opType, len(f.GetOutput()), len(n.GetOutput()))
		}
		declared := map[string]bool{}
		for _, a := range f.GetAttribute() {
			declared[a] = true
		}
		for _, a := range f.GetAttributeProto() {
			declared[a.GetName()] = true
		}
		for _, a := range n.GetAttribute() {
			if !declared[a.GetName()] {
				add(Error, "ATTR_UNKNOWN", "", "function %s has no attribute %q", opType, a.GetName())
			}
		}
		return
	}
	opset, imported := g.opsets[domain]
	if !imported {
		add(Error, "OPSET_NOT_IMPORTED", "", "the model does not import the domain %q of this node", n.GetDomain())
		return
	}
	if !isSpecDomain(domain) {
		add(Warning, "OP_UNCHECKED", "", "domain %q is not part of the ONNX spec; the node cannot be checked", n.GetDomain())
		return
	}
	if !schema.Known(domain, opType) {
		msg := fmt.Sprintf("%s is not an operator of domain %q", opType, domainName(domain))
		for _, o := range schema.Ops(domain) {
			if strings.EqualFold(o, opType) {
				msg += fmt.Sprintf(" (did you mean %s?)", o)
			}
		}
		add(Error, "OP_UNKNOWN", "", "%s", msg)
		return
	}
	s := schema.Resolve(domain, opType, opset)
	if s == nil {
		add(Error, "OP_NOT_IN_OPSET", "", "%s does not exist at opset %d (its versions: %v)", opType, opset, schema.Versions(domain, opType))
		return
	}
	if s.Deprecated {
		add(Warning, "OP_DEPRECATED", "", "%s is deprecated since opset %d", opType, s.Version)
	}
	g.arity(n, s, add)
	g.attributes(n, s, add)
	g.types(n, s, add)
	g.semantics(n, s, add)
}

func isSpecDomain(d string) bool {
	for _, x := range schema.Domains() {
		if x == d {
			return true
		}
	}
	return false
}

func domainName(d string) string {
	if d == "" {
		return "ai.onnx"
	}
	return d
}

func (g *graphCtx) arity(n *pb.NodeProto, s *schema.Schema, add func(Severity, string, string, string, ...any)) {
	ins, outs := n.GetInput(), n.GetOutput()
	nin := len(ins)
	if nin < s.MinInputs {
		add(Error, "INPUT_COUNT", "", "%s-%d needs at least %d inputs, the node has %d", s.OpType, s.Version, s.MinInputs, nin)
	}
	if s.MaxInputs != schema.Unbounded && nin > s.MaxInputs {
		add(Error, "INPUT_COUNT", "", "%s-%d takes at most %d inputs, the node has %d", s.OpType, s.Version, s.MaxInputs, nin)
	}
	for i, in := range ins {
		if p := s.Input(i); in == "" && p != nil && !p.Optional && !p.Variadic && i < s.MinInputs {
			add(Error, "INPUT_MISSING", "", "required input %d (%s) of %s-%d is left empty", i, p.Name, s.OpType, s.Version)
		}
	}
	if len(outs) < s.MinOutputs {
		add(Error, "OUTPUT_COUNT", "", "%s-%d has at least %d outputs, the node lists %d", s.OpType, s.Version, s.MinOutputs, len(outs))
	}
	if s.MaxOutputs != schema.Unbounded && len(outs) > s.MaxOutputs {
		add(Error, "OUTPUT_COUNT", "", "%s-%d has at most %d outputs, the node lists %d", s.OpType, s.Version, s.MaxOutputs, len(outs))
	}
}

// attrTypeNames maps AttributeProto types to the schema's names.
func attrTypeName(a *pb.AttributeProto) string {
	if t := a.GetType(); t != pb.AttributeProto_UNDEFINED {
		return t.String()
	}
	// IR < 3 models may leave the type out; infer it from the field set.
	switch {
	case a.GetG() != nil:
		return "GRAPH"
	case a.GetT() != nil:
		return "TENSOR"
	case len(a.GetInts()) > 0:
		return "INTS"
	case len(a.GetFloats()) > 0:
		return "FLOATS"
	case len(a.GetStrings()) > 0:
		return "STRINGS"
	case len(a.GetS()) > 0:
		return "STRING"
	}
	return ""
}

func (g *graphCtx) attributes(n *pb.NodeProto, s *schema.Schema, add func(Severity, string, string, string, ...any)) {
	given := map[string]bool{}
	for _, a := range n.GetAttribute() {
		given[a.GetName()] = true
		sa := s.Attr(a.GetName())
		if sa == nil {
			var names []string
			for _, x := range s.Attrs {
				names = append(names, x.Name)
			}
			add(Error, "ATTR_UNKNOWN", "", "%s-%d has no attribute %q (it has %v)", s.OpType, s.Version, a.GetName(), names)
			continue
		}
		if a.GetRefAttrName() != "" {
			continue
		}
		if t := attrTypeName(a); t != "" && t != sa.Type {
			add(Error, "ATTR_TYPE", "", "attribute %q is %s, %s-%d wants %s", a.GetName(), t, s.OpType, s.Version, sa.Type)
		}
	}
	for _, sa := range s.Attrs {
		if sa.Required && !given[sa.Name] {
			add(Error, "ATTR_REQUIRED", "", "%s-%d requires attribute %q (%s)", s.OpType, s.Version, sa.Name, sa.Type)
		}
	}
}

// types checks each input's type against its parameter's constraint, and
// that inputs sharing a type variable agree.
func (g *graphCtx) types(n *pb.NodeProto, s *schema.Schema, add func(Severity, string, string, string, ...any)) {
	if g.c.shapes == nil || g.function {
		return
	}
	bound := map[string]string{}
	boundBy := map[string]string{}
	for i, in := range n.GetInput() {
		p := s.Input(i)
		info := g.c.shapes.Values[in]
		if in == "" || p == nil || info == nil || info.Type.Kind == graph.KindUnknown || info.Type.Elem == 0 && info.Type.Kind == graph.KindTensor {
			continue
		}
		ts := shapes.TypeString(info.Type)
		if ts == "" {
			continue
		}
		allowed := s.AllowedTypes(p)
		if !contains(allowed, ts) {
			add(Error, "TYPE_CONSTRAINT", in, "input %d (%s) is %s; %s-%d allows %s", i, p.Name, ts, s.OpType, s.Version, summarize(allowed))
			continue
		}
		if p.Variadic && p.Heterogeneous || s.Constraint(p.Type) == nil {
			continue
		}
		if b, ok := bound[p.Type]; ok && b != ts {
			add(Error, "TYPE_BINDING", in, "input %d (%s) is %s but %q, also of type %s, is %s", i, p.Name, ts, boundBy[p.Type], p.Type, b)
			continue
		}
		bound[p.Type], boundBy[p.Type] = ts, in
	}
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

func summarize(ts []string) string {
	if len(ts) > 8 {
		return strings.Join(ts[:8], ", ") + fmt.Sprintf(" and %d more", len(ts)-8)
	}
	return strings.Join(ts, ", ")
}

// function checks a model-local function body: its nodes against its own
// opset imports, with its inputs (untyped) in scope and attribute references allowed.
func (c *checker) function(f *pb.FunctionProto) {
	where := "function " + funcKey(f.GetDomain(), f.GetName(), f.GetOverload())
	opsets := c.opsets
	if len(f.GetOpsetImport()) > 0 {
		opsets = c.checkOpsets(f.GetOpsetImport(), where+": ")
	}
	g := &graphCtx{c: c, where: where, function: true, opsets: opsets}
	sc := &scope{defined: map[string]string{}}
	for _, in := range f.GetInput() {
		sc.defined[in] = "function input"
	}
	g.nodes(f.GetNode(), sc, nil)
	for _, o := range f.GetOutput() {
		if !sc.lookup(o) {
			g.graphf(Error, "OUTPUT_UNDEFINED", o, "function output is produced by no node or input")
		}
	}
}
