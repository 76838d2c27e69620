package graph

import (
	"container/heap"
	"slices"
	"sort"
	"strconv"

	"github.com/gort-dev/gort/runtime/errs"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Options control loading.
type Options struct {
	// MaxTensorBytes bounds the size of any one tensor (initializers, and at
	// run time every output), and the memory of the decoded model structure
	// (with a floor of MinStructureBytes). 0 means DefaultMaxTensorBytes.
	MaxTensorBytes int64
	// Registry resolves ops; nil means op.Default.
	Registry *op.Registry
	// ExternalData maps the "location" of external tensors to their file bytes.
	ExternalData map[string][]byte
}

// DefaultMaxTensorBytes is 2 GiB: large enough for real models, small enough
// that a hostile dim is refused before a WebAssembly heap (4 GiB max) is exhausted.
const DefaultMaxTensorBytes int64 = 2 << 30

// MinStructureBytes is the least memory the decoded model structure (its
// messages, not its tensor payloads) may take whatever MaxTensorBytes says:
// a small tensor budget must not refuse a model with many small nodes.
const MinStructureBytes int64 = 64 << 20

const (
	maxSubgraphDepth = 64
	maxFunctionDepth = 32
	minIRVersion     = 3
	maxIRVersion     = 13
)

// Load decodes and validates a model.
func Load(data []byte, opts Options) (*Model, error) {
	if opts.MaxTensorBytes <= 0 {
		opts.MaxTensorBytes = DefaultMaxTensorBytes
	}
	if opts.Registry == nil {
		opts.Registry = op.Default
	}
	if len(data) == 0 {
		return nil, errs.New(errs.BadModel, "model is empty (0 bytes)")
	}
	mp := &pb.ModelProto{}
	if err := protoconv.Unmarshal(data, mp, "ONNX model", max(opts.MaxTensorBytes, MinStructureBytes)); err != nil {
		return nil, err
	}
	return FromProto(mp, opts)
}

// FromProto validates a decoded model.
func FromProto(mp *pb.ModelProto, opts Options) (*Model, error) {
	if opts.MaxTensorBytes <= 0 {
		opts.MaxTensorBytes = DefaultMaxTensorBytes
	}
	if opts.Registry == nil {
		opts.Registry = op.Default
	}
	ir := mp.GetIrVersion()
	if ir < minIRVersion || ir > maxIRVersion {
		return nil, errs.New(errs.BadModel, "ir_version %d is not supported (gort reads IR versions %d to %d)", ir, minIRVersion, maxIRVersion)
	}
	if mp.GetGraph() == nil {
		return nil, errs.New(errs.BadModel, "model has no graph")
	}
	m := &Model{
		Proto:           mp,
		IRVersion:       ir,
		Opsets:          map[string]int{},
		ProducerName:    mp.GetProducerName(),
		ProducerVersion: mp.GetProducerVersion(),
		Doc:             mp.GetDocString(),
		Metadata:        map[string]string{},
	}
	for _, kv := range mp.GetMetadataProps() {
		m.Metadata[kv.GetKey()] = kv.GetValue()
	}
	opsets, err := opsetMap(mp.GetOpsetImport())
	if err != nil {
		return nil, err
	}
	m.Opsets = opsets
	l := &loader{opts: opts, ir: ir, functions: map[funcKey]*pb.FunctionProto{}}
	for _, f := range mp.GetFunctions() {
		k := funcKey{op.CanonicalDomain(f.GetDomain()), f.GetName(), f.GetOverload()}
		if _, dup := l.functions[k]; dup {
			return nil, errs.New(errs.BadModel, "model-local function %s.%s is defined twice", f.GetDomain(), f.GetName())
		}
		l.functions[k] = f
	}
	if err := l.checkInlining(mp.GetGraph()); err != nil {
		return nil, err
	}
	g, err := l.graph(mp.GetGraph(), opsets, nil, 0, true, nil)
	if err != nil {
		return nil, err
	}
	m.Graph = g
	return m, nil
}

func opsetMap(imports []*pb.OperatorSetIdProto) (map[string]int, error) {
	m := map[string]int{}
	for _, o := range imports {
		d := op.CanonicalDomain(o.GetDomain())
		if _, dup := m[d]; dup {
			return nil, errs.New(errs.BadModel, "opset_import lists domain %q twice", o.GetDomain())
		}
		if o.GetVersion() < 1 || o.GetVersion() > 1000 {
			return nil, errs.New(errs.BadModel, "opset_import for domain %q has version %d", o.GetDomain(), o.GetVersion())
		}
		m[d] = int(o.GetVersion())
	}
	return m, nil
}

type funcKey struct{ domain, name, overload string }

type loader struct {
	opts      Options
	ir        int64
	functions map[funcKey]*pb.FunctionProto
	inlined   int             // nodes created by function inlining so far
	callNames map[string]bool // prefixes given to inlined calls
}

// scopeNames is the chain of names defined by enclosing graphs. Subgraphs
// look names up through it instead of copying their parents' names, which
// would cost time quadratic in the model's size for a model with many
// subgraph-carrying nodes.
type scopeNames struct {
	defined map[string]string
	parent  *scopeNames
}

func (s *scopeNames) has(name string) bool {
	for c := s; c != nil; c = c.parent {
		if c.defined[name] != "" {
			return true
		}
	}
	return false
}

// graph builds a Graph from its proto. outer holds the names visible from
// enclosing scopes (nil for the main graph).
func (l *loader) graph(gp *pb.GraphProto, opsets map[string]int, outer *scopeNames, depth int, main bool, calls []funcKey) (*Graph, error) {
	if depth > maxSubgraphDepth {
		return nil, errs.New(errs.BadModel, "subgraphs nested deeper than %d levels", maxSubgraphDepth)
	}
	g := &Graph{Name: gp.GetName(), Initializers: map[string]*tensor.Tensor{}, Declared: map[string]Type{}}
	// producers: name → "input", "initializer" or node index
	defined := map[string]string{}
	define := func(name, by string) error {
		if name == "" {
			return nil
		}
		if prev, dup := defined[name]; dup {
			return errs.New(errs.BadModel, "value is produced twice (by %s and by %s)", prev, by).WithTensor(name)
		}
		defined[name] = by
		return nil
	}

	for _, tp := range gp.GetInitializer() {
		t, err := l.initializer(tp)
		if err != nil {
			return nil, err
		}
		if err := define(tp.GetName(), "an initializer"); err != nil {
			return nil, err
		}
		g.Initializers[tp.GetName()] = t
	}
	for _, sp := range gp.GetSparseInitializer() {
		name := sp.GetValues().GetName()
		if name == "" {
			return nil, errs.New(errs.BadModel, "a sparse initializer has no name (its values tensor must be named)")
		}
		t, err := protoconv.Sparse(sp, l.opts.MaxTensorBytes)
		if err != nil {
			return nil, err
		}
		if err := define(name, "a sparse initializer"); err != nil {
			return nil, err
		}
		g.Initializers[name] = t
	}
	listed := map[string]bool{}
	for _, vi := range gp.GetInput() {
		info := ValueInfo{Name: vi.GetName(), Type: typeFromProto(vi.GetType())}
		if info.Name == "" {
			return nil, errs.New(errs.BadModel, "graph %q has an input without a name", gp.GetName())
		}
		if listed[info.Name] {
			return nil, errs.New(errs.BadModel, "graph input listed twice").WithTensor(info.Name)
		}
		listed[info.Name] = true
		// An input that is also an initializer (IR-3 /
		// keep_initializers_as_inputs) is an overridable initializer: it is
		// already defined, and a feed may replace it.
		if _, isInit := g.Initializers[info.Name]; !isInit {
			if err := define(info.Name, "a graph input"); err != nil {
				return nil, err
			}
		}
		g.Inputs = append(g.Inputs, info)
	}
	for _, vi := range gp.GetValueInfo() {
		g.Declared[vi.GetName()] = typeFromProto(vi.GetType())
	}

	// Expand model-local function calls, then build nodes.
	nodes, err := l.expandFunctions(gp.GetNode(), opsets, calls, "")
	if err != nil {
		return nil, err
	}
	for i, np := range nodes {
		name := np.proto.GetName()
		if name == "" {
			name = np.proto.GetOpType() + "#" + strconv.Itoa(i)
		}
		for _, out := range np.proto.GetOutput() {
			if err := define(out, "node "+name); err != nil {
				return nil, err.(*errs.Error).WithNode(name)
			}
		}
	}
	visible := func(name string) bool { return defined[name] != "" || outer.has(name) }
	var built []*Node
	for i, np := range nodes {
		n, err := l.node(np, i, visible, outer, defined, depth)
		if err != nil {
			return nil, err
		}
		built = append(built, n)
	}
	for _, vi := range gp.GetOutput() {
		info := ValueInfo{Name: vi.GetName(), Type: typeFromProto(vi.GetType())}
		if !visible(info.Name) {
			return nil, errs.New(errs.BadModel, "graph output is not produced by any node, input or initializer").WithTensor(info.Name)
		}
		g.Outputs = append(g.Outputs, info)
	}
	order, err := topoSort(built, defined)
	if err != nil {
		return nil, err
	}
	g.Nodes = order
	g.FreeVars = freeVars(g, defined)
	return g, nil
}

func (l *loader) initializer(tp *pb.TensorProto) (*tensor.Tensor, error) {
	if tp.GetName() == "" {
		return nil, errs.New(errs.BadModel, "an initializer has no name")
	}
	if tp.GetDataLocation() == pb.TensorProto_EXTERNAL {
		resolved, err := resolveExternal(tp, l.opts.ExternalData)
		if err != nil {
			return nil, err
		}
		tp = resolved
	}
	return protoconv.Tensor(tp, l.opts.MaxTensorBytes)
}

// resolveAttrExternal returns a, or a copy of it whose external tensors
// (a Constant's value, say) carry their data from Options.ExternalData, so
// that builders decode them like any other attribute tensor. Without the
// files the attribute is left as is and decoding it names the missing file.
func (l *loader) resolveAttrExternal(a *pb.AttributeProto) (*pb.AttributeProto, error) {
	if len(l.opts.ExternalData) == 0 {
		return a, nil
	}
	isExt := func(t *pb.TensorProto) bool { return t.GetDataLocation() == pb.TensorProto_EXTERNAL }
	ext := isExt(a.GetT())
	for _, t := range a.GetTensors() {
		ext = ext || isExt(t)
	}
	if !ext {
		return a, nil
	}
	c := pb.Clone(a)
	if isExt(c.T) {
		r, err := resolveExternal(c.T, l.opts.ExternalData)
		if err != nil {
			return nil, err
		}
		c.T = r
	}
	for i, t := range c.Tensors {
		if isExt(t) {
			r, err := resolveExternal(t, l.opts.ExternalData)
			if err != nil {
				return nil, err
			}
			c.Tensors[i] = r
		}
	}
	return c, nil
}

// resolveExternal replaces an external reference by raw_data from the
// provided files (location, offset, length as in the ONNX IR spec).
func resolveExternal(tp *pb.TensorProto, files map[string][]byte) (*pb.TensorProto, error) {
	var loc string
	var offset, length int64 = 0, -1
	for _, kv := range tp.GetExternalData() {
		var err error
		switch kv.GetKey() {
		case "location":
			loc = kv.GetValue()
		case "offset":
			offset, err = strconv.ParseInt(kv.GetValue(), 10, 64)
		case "length":
			length, err = strconv.ParseInt(kv.GetValue(), 10, 64)
		}
		if err != nil {
			// A misread offset would silently load the wrong bytes.
			return nil, errs.New(errs.ExternalData, "external_data %s is %q, not a byte count", kv.GetKey(), kv.GetValue()).WithTensor(tp.GetName())
		}
	}
	if loc == "" {
		return nil, errs.New(errs.ExternalData, "tensor is marked as external data but has no location").WithTensor(tp.GetName())
	}
	data, ok := files[loc]
	if !ok {
		return nil, errs.New(errs.ExternalData, "data is stored in external file %q, which was not provided", loc).WithTensor(tp.GetName())
	}
	if length < 0 {
		length = int64(len(data)) - offset
	}
	if offset < 0 || length < 0 || offset > int64(len(data)) || length > int64(len(data))-offset {
		return nil, errs.New(errs.ExternalData, "external file %q has %d bytes; offset %d length %d is outside it", loc, len(data), offset, length).WithTensor(tp.GetName())
	}
	c := pb.Clone(tp)
	c.DataLocation = pb.TensorProto_DEFAULT
	c.ExternalData = nil
	c.RawData = data[offset : offset+length]
	return c, nil
}

func (l *loader) node(np expanded, index int, visible func(string) bool, outer *scopeNames, defined map[string]string, depth int) (*Node, error) {
	p, opsets := np.proto, np.opsets
	name := p.GetName()
	if name == "" {
		name = p.GetOpType() + "#" + strconv.Itoa(index) // not Sprintf: every unnamed node of a model takes this path
	}
	domain := op.CanonicalDomain(p.GetDomain())
	n := &Node{Node: op.Node{
		Name: name, OpType: p.GetOpType(), Domain: domain,
		Inputs: p.GetInput(), Outputs: p.GetOutput(),
		Attrs: map[string]*pb.AttributeProto{}, Graphs: map[string][]op.Subgraph{},
		MaxBytes: l.opts.MaxTensorBytes,
	}}
	if p.GetOpType() == "" {
		return nil, errs.New(errs.BadModel, "node has no op_type").WithNode(name)
	}
	for _, in := range n.Inputs {
		if in != "" && !visible(in) {
			return nil, errs.New(errs.BadModel, "input %q is not produced by any node, graph input or initializer", in).WithNode(name)
		}
	}
	// Reads: the node's inputs and its subgraphs' free variables, sorted and
	// without repeats. A slice sorted then compacted, not a set per node:
	// nodes read few names and this runs for every node at load.
	reads := make([]string, 0, len(n.Inputs))
	for _, in := range n.Inputs {
		if in != "" {
			reads = append(reads, in)
		}
	}
	// Names visible to subgraphs: everything visible here.
	inner := &scopeNames{defined: defined, parent: outer}
	for _, a := range p.GetAttribute() {
		if a.GetName() == "" {
			return nil, errs.New(errs.BadModel, "attribute without a name").WithNode(name)
		}
		if _, dup := n.Attrs[a.GetName()]; dup {
			return nil, errs.New(errs.BadModel, "attribute %q given twice", a.GetName()).WithNode(name)
		}
		a, err := l.resolveAttrExternal(a)
		if err != nil {
			return nil, errs.AtNode(err, name)
		}
		n.Attrs[a.GetName()] = a
		var gps []*pb.GraphProto
		switch {
		case a.GetG() != nil:
			gps = []*pb.GraphProto{a.GetG()}
		case len(a.GetGraphs()) > 0:
			gps = a.GetGraphs()
		}
		for _, gp := range gps {
			sub, err := l.graph(gp, opsets, inner, depth+1, false, np.calls)
			if err != nil {
				return nil, errs.AtNode(err, name)
			}
			n.Graphs[a.GetName()] = append(n.Graphs[a.GetName()], sub)
			reads = append(reads, sub.FreeVars...)
		}
	}
	slices.Sort(reads)
	if reads = slices.Compact(reads); len(reads) > 0 {
		n.Reads = reads
	}

	opset, ok := opsets[domain]
	if !ok {
		n.Problem = errs.New(errs.UnsupportedOp, "the model does not import the domain %q of op %s", p.GetDomain(), p.GetOpType()).WithNode(name)
		return n, nil
	}
	n.Opset = opset
	res := l.opts.Registry.Resolve(domain, p.GetOpType(), opset)
	if res.Builder == nil {
		n.Problem = errs.New(errs.UnsupportedOp, "%s", res.Problem).WithNode(name)
		return n, nil
	}
	n.Version = res.Version
	for i, req := range op.SpecRequiredInputs(domain, p.GetOpType(), res.Version) {
		if req != "" && (i >= len(n.Inputs) || n.Inputs[i] == "") {
			return nil, errs.New(errs.BadModel, "%s-%d requires input %d (%s); the node lists %d inputs %q",
				p.GetOpType(), res.Version, i, req, len(n.Inputs), n.Inputs).WithNode(name)
		}
	}
	n.Builder = res.Builder
	return n, nil
}

// topoSort orders nodes so that every node follows the producers of what it
// reads (stable: ties keep model order) and rejects cycles.
func topoSort(nodes []*Node, defined map[string]string) ([]*Node, error) {
	producer := map[string]int{}
	for i, n := range nodes {
		for _, o := range n.Outputs {
			if o != "" {
				producer[o] = i
			}
		}
	}
	indeg := make([]int, len(nodes))
	users := make([][]int, len(nodes))
	for i, n := range nodes {
		seen := map[int]bool{}
		for _, r := range n.Reads {
			if p, ok := producer[r]; ok && !seen[p] {
				seen[p] = true
				indeg[i]++
				users[p] = append(users[p], i)
			}
		}
	}
	// Kahn's algorithm; the ready set is a min-heap of model positions, so
	// that ties keep model order in O(log n) per node even on hostile,
	// very wide graphs.
	ready := &intHeap{}
	for i := range nodes {
		if indeg[i] == 0 {
			heap.Push(ready, i)
		}
	}
	order := make([]*Node, 0, len(nodes))
	for ready.Len() > 0 {
		i := heap.Pop(ready).(int)
		order = append(order, nodes[i])
		for _, u := range users[i] {
			indeg[u]--
			if indeg[u] == 0 {
				heap.Push(ready, u)
			}
		}
	}
	if len(order) != len(nodes) {
		for i, d := range indeg {
			if d > 0 {
				return nil, errs.New(errs.BadModel, "the graph has a cycle through this node").WithNode(nodes[i].Name)
			}
		}
	}
	return order, nil
}

// freeVars are the names read by the graph's nodes that the graph itself does not define.
func freeVars(g *Graph, defined map[string]string) []string {
	set := map[string]bool{}
	for _, n := range g.Nodes {
		for _, r := range n.Reads {
			if defined[r] == "" {
				if _, isInit := g.Initializers[r]; !isInit {
					set[r] = true
				}
			}
		}
	}
	for _, o := range g.Outputs {
		if defined[o.Name] == "" {
			if _, isInit := g.Initializers[o.Name]; !isInit {
				set[o.Name] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// intHeap is a min-heap of ints for container/heap.
type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
