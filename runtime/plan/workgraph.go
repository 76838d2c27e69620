package plan

import (
	"reflect"
	"slices"

	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/tensor"
)

// workGraph is the mutable copy of a graph that the rewrites edit. Nodes
// are shallow copies of the graph's nodes: a rewrite that changes a node's
// inputs clones the slice first (see rename), so the graph stays intact.
type workGraph struct {
	g     *graph.Graph
	nodes []*graph.Node
	// consts are values known at compile time: initializers no feed can
	// override, and folded values. A constant nothing reads any more (a
	// Conv's weights once BatchNormalization folding replaced them) is
	// dropped at once, so that it is garbage during the rest of loading
	// rather than held for the session's life beside its replacement.
	consts map[string]*tensor.Tensor
	// refs counts the names each constant has in consts (a folded
	// Identity gives one tensor two), so that dropping a name knows at once
	// whether the tensor is still a constant: a scan of consts per drop made
	// dropping every unread constant quadratic, tens of ms of a large
	// model's creation in WebAssembly's unoptimised first pass.
	refs      map[*tensor.Tensor]int
	foldedSet map[*tensor.Tensor]bool
	// overridable are the initializers a feed may replace (not constants).
	overridable map[string]bool
	// outputs are the graph's output names (never renamed or removed).
	outputs map[string]bool
	// types are inferred types (Options.Types), possibly incomplete.
	types map[string]graph.Type
	// outerConsts are the free variables that are constants of an
	// enclosing scope (compiler.outer): constants here, filled at no call.
	outerConsts map[string]bool
}

func newWorkGraph(g *graph.Graph, overridable map[string]bool, types map[string]graph.Type) *workGraph {
	w := &workGraph{g: g, types: types, consts: map[string]*tensor.Tensor{}, refs: map[*tensor.Tensor]int{}, foldedSet: map[*tensor.Tensor]bool{}, outputs: map[string]bool{}, overridable: overridable, outerConsts: map[string]bool{}}
	for name, t := range g.Initializers {
		if !overridable[name] {
			w.setConst(name, t)
		}
	}
	for _, n := range g.Nodes {
		c := *n
		w.nodes = append(w.nodes, &c)
	}
	for _, o := range g.Outputs {
		w.outputs[o.Name] = true
	}
	return w
}

func (w *workGraph) constTensor(name string) *tensor.Tensor {
	if name == "" {
		return nil
	}
	return w.consts[name]
}

// setConst makes name the constant t.
func (w *workGraph) setConst(name string, t *tensor.Tensor) {
	if old, ok := w.consts[name]; ok {
		if old == t {
			return
		}
		w.unref(old)
	}
	w.consts[name] = t
	w.refs[t]++
}

// dropConst forgets the constant name, which nothing reads any more.
func (w *workGraph) dropConst(name string) {
	t, ok := w.consts[name]
	if !ok {
		return
	}
	delete(w.consts, name)
	w.unref(t)
}

// unref counts one name of t less; with none left, t is no constant of the
// plan any more.
func (w *workGraph) unref(t *tensor.Tensor) {
	if w.refs[t]--; w.refs[t] <= 0 {
		delete(w.refs, t)
		delete(w.foldedSet, t)
	}
}

// dropUnreadConsts drops the constants that no node reads and no graph
// output names (the inputs of folded nodes, replaced weights), so that the
// plan holds only the constants its steps use.
func (w *workGraph) dropUnreadConsts() {
	read := map[string]bool{}
	for _, n := range w.nodes {
		for _, in := range n.Inputs {
			read[in] = true
		}
		for _, r := range n.Reads {
			read[r] = true
		}
	}
	for name := range w.consts {
		if !read[name] && !w.outputs[name] {
			w.dropConst(name)
		}
	}
}

// exclusive reports whether the constant name may be changed in place by
// its one reader n: it is a folded value (not an initializer, whose bytes
// are the caller's model), n alone reads it, and no other constant or
// initializer shares its storage (a folded Reshape or Identity returns a
// view of its input).
func (w *workGraph) exclusive(x *readIndex, name string, n *graph.Node) bool {
	t := w.consts[name]
	if t == nil || !w.foldedSet[t] || w.soleReader(x, name) != n {
		return false
	}
	lo, hi := storage(t)
	if lo == hi {
		return false
	}
	shares := func(u *tensor.Tensor) bool {
		l, h := storage(u)
		return u == t || (l < hi && lo < h)
	}
	for other, u := range w.consts {
		if other != name && shares(u) {
			return false
		}
	}
	for _, u := range w.g.Initializers {
		if shares(u) {
			return false
		}
	}
	return true
}

// storage returns the address range of a tensor's elements (empty for none).
func storage(t *tensor.Tensor) (lo, hi uintptr) {
	v := reflect.ValueOf(t.Data())
	if v.Kind() != reflect.Slice || v.Len() == 0 {
		return 0, 0
	}
	lo = v.Pointer()
	return lo, lo + uintptr(v.Len())*v.Type().Elem().Size()
}

// readIndex says who reads each value: how many nodes (inputs and subgraph
// free variables), whether a subgraph reads it, and which nodes take it as
// an input. A pass builds it once: the rewrites only merge a node with its
// sole reader, which leaves the index right for every other value.
type readIndex struct {
	count      map[string]int
	bySubgraph map[string]bool
	consumers  map[string][]*graph.Node
}

func (w *workGraph) index() *readIndex {
	x := &readIndex{count: map[string]int{}, bySubgraph: map[string]bool{}, consumers: map[string][]*graph.Node{}}
	for _, n := range w.nodes {
		direct := map[string]bool{}
		for _, in := range n.Inputs {
			if in != "" {
				if !direct[in] {
					x.consumers[in] = append(x.consumers[in], n)
				}
				direct[in] = true
			}
		}
		for _, r := range n.Reads {
			x.count[r]++
			if !direct[r] {
				x.bySubgraph[r] = true
			}
		}
	}
	return x
}

// producers maps every value the nodes compute to its node.
func (w *workGraph) producers() map[string]*graph.Node {
	m := map[string]*graph.Node{}
	for _, n := range w.nodes {
		for _, o := range n.Outputs {
			if o != "" {
				m[o] = n
			}
		}
	}
	return m
}

// soleReader returns the one node reading name, once, as a plain input,
// when nothing else (another node, a subgraph, the graph's outputs) reads it.
func (w *workGraph) soleReader(x *readIndex, name string) *graph.Node {
	if w.outputs[name] || x.count[name] != 1 || x.bySubgraph[name] || len(x.consumers[name]) != 1 {
		return nil
	}
	n := x.consumers[name][0]
	if k := slices.IndexFunc(n.Inputs, func(s string) bool { return s == name }); k < 0 || slices.Contains(n.Inputs[k+1:], name) {
		return nil
	}
	return n
}

// rename makes every reader of from read to instead.
func (w *workGraph) rename(from, to string) {
	for _, n := range w.nodes {
		if slices.Contains(n.Inputs, from) {
			n.Inputs = slices.Clone(n.Inputs)
			for i, in := range n.Inputs {
				if in == from {
					n.Inputs[i] = to
				}
			}
		}
		if slices.Contains(n.Reads, from) {
			n.Reads = replaceUnique(slices.Clone(n.Reads), from, to)
		}
	}
}

func replaceUnique(list []string, from, to string) []string {
	out := list[:0]
	seen := map[string]bool{}
	for _, r := range list {
		if r == from {
			r = to
		}
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return out
}

// remove drops the given nodes.
func (w *workGraph) remove(drop map[*graph.Node]bool) {
	w.nodes = slices.DeleteFunc(w.nodes, func(n *graph.Node) bool { return drop[n] })
}

// producedAfter reports whether the node computing name comes after n.
func (w *workGraph) producedAfter(name string, n *graph.Node) bool {
	at := slices.Index(w.nodes, n)
	for i, x := range w.nodes {
		if slices.Contains(x.Outputs, name) {
			return i > at
		}
	}
	return false
}

// replace puts n in old's position.
func (w *workGraph) replace(old, n *graph.Node) {
	for i, x := range w.nodes {
		if x == old {
			w.nodes[i] = n
		}
	}
}

// dtypeOf returns a value's element type when the plan knows it (a
// constant, a graph input or a declared value_info).
func (w *workGraph) dtypeOf(name string) tensor.DType {
	if t := w.consts[name]; t != nil {
		return t.DType()
	}
	for _, in := range w.g.Inputs {
		if in.Name == name && in.Type.Kind == graph.KindTensor {
			return in.Type.Elem
		}
	}
	if t, ok := w.g.Declared[name]; ok && t.Kind == graph.KindTensor {
		return t.Elem
	}
	if t, ok := w.types[name]; ok && t.Kind == graph.KindTensor {
		return t.Elem
	}
	return tensor.Undefined
}

// sameKnownShape reports whether two values certainly have the same shape:
// equal ranks and, per dim, equal sizes or the same symbolic name.
func (w *workGraph) sameKnownShape(a, b string) bool {
	sa, oka := w.shapeOf(a)
	sb, okb := w.shapeOf(b)
	if !oka || !okb || len(sa) != len(sb) {
		return false
	}
	for i := range sa {
		if sa[i] != sb[i] || (!sa[i].Known() && sa[i].Param == "") {
			return false
		}
	}
	return true
}

func (w *workGraph) shapeOf(name string) ([]graph.Dim, bool) {
	if t := w.consts[name]; t != nil {
		d := make([]graph.Dim, t.Rank())
		for i, v := range t.Shape() {
			d[i] = graph.Dim{Value: int64(v)}
		}
		return d, true
	}
	if t, ok := w.types[name]; ok && t.Kind == graph.KindTensor && t.Shape != nil {
		return t.Shape, true
	}
	return nil, false
}
