// Package check validates an ONNX model before anything runs, the way
// onnx.checker.check_model(full_check=True) does, but returning every finding
// at once instead of stopping at the first, each with a severity, a stable
// code, the node (name and index), the op and a message.
//
// It works on the raw ModelProto, not on the loader's graph, because it must
// describe the problems that make the loader refuse a model. It checks the
// IR version and opset imports; each node against the schema of the op
// version its opset selects (runtime/schema): arity, attributes, type
// constraints; the graph's structure (one producer per value, undefined
// inputs, cycles and order, typed inputs and outputs, duplicate names,
// initializer sizes, external-data references); subgraphs and model-local
// functions recursively; and it reports the contradictions shape inference
// (runtime/shapes) finds. Unused initializers, nodes that feed no output and
// unused opset imports are warnings.
package check

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/gort-dev/gort/runtime/graph"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/schema"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Severity of a finding.
type Severity string

const (
	// Error: the model is invalid; runtimes may refuse it or misbehave.
	Error Severity = "error"
	// Warning: valid but suspicious (dead nodes, unused initializers, …).
	Warning Severity = "warning"
)

// Finding is one problem. Code is stable: tools may match on it.
type Finding struct {
	Severity Severity `json:"severity"`
	Code     string   `json:"code"`
	// Graph locates the graph: "main", "main/<node>.<attr>" for subgraphs,
	// "function <domain>.<name>" for model-local functions.
	Graph     string `json:"graph,omitempty"`
	Node      string `json:"node,omitempty"`
	NodeIndex int    `json:"nodeIndex"` // -1 when the finding is not about a node
	Op        string `json:"op,omitempty"`
	Tensor    string `json:"tensor,omitempty"`
	Message   string `json:"message"`
}

func (f Finding) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", f.Severity, f.Code)
	if f.Node != "" {
		fmt.Fprintf(&b, " node %s (#%d %s)", f.Node, f.NodeIndex, f.Op)
	}
	if f.Graph != "" && f.Graph != "main" {
		fmt.Fprintf(&b, " in %s", f.Graph)
	}
	if f.Tensor != "" {
		fmt.Fprintf(&b, " %q", f.Tensor)
	}
	return b.String() + ": " + f.Message
}

// Report is the outcome of a check.
type Report struct {
	Findings []Finding `json:"findings"`
	Errors   int       `json:"errors"`
	Warnings int       `json:"warnings"`
	// Shapes is the inference result the checker used (nil when the model
	// could not be decoded).
	Shapes *shapes.Result `json:"-"`
}

// OK reports whether there is no error finding.
func (r *Report) OK() bool { return r.Errors == 0 }

// Options tune a check.
type Options struct {
	// ExternalData, when set, holds the files external tensors refer to, so
	// their offsets and lengths are checked too.
	ExternalData map[string][]byte
	// MaxBytes bounds decoding (default 2 GiB).
	MaxBytes int64
}

// Known IR versions (IR.md of the pinned spec).
const (
	minIR = 3
	maxIR = 13
)

// Bytes decodes and checks a serialized model.
func Bytes(data []byte, opts *Options) *Report {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = graph.DefaultMaxTensorBytes
	}
	mp := &pb.ModelProto{}
	if len(data) == 0 {
		r := &Report{}
		r.add(Finding{Severity: Error, Code: "MODEL_DECODE", NodeIndex: -1, Message: "the model is empty (0 bytes)"})
		return r
	}
	if err := protoconv.Unmarshal(data, mp, "ONNX model", max(o.MaxBytes, graph.MinStructureBytes)); err != nil {
		r := &Report{}
		r.add(Finding{Severity: Error, Code: "MODEL_DECODE", NodeIndex: -1, Message: err.Error()})
		return r
	}
	return Model(mp, &o)
}

// Model checks a decoded model. It never panics: a checker bug becomes a
// CHECKER_FAILED finding.
func Model(mp *pb.ModelProto, opts *Options) (r *Report) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = graph.DefaultMaxTensorBytes
	}
	c := &checker{opts: o, rep: &Report{}, used: map[string]bool{}, functions: map[string]*pb.FunctionProto{}}
	r = c.rep
	defer func() {
		if p := recover(); p != nil {
			r.add(Finding{Severity: Error, Code: "CHECKER_FAILED", NodeIndex: -1, Message: fmt.Sprintf("the checker stopped (a gort bug): %v", p)})
		}
		// Errors first; within a severity, model-level findings, then by graph and node.
		sort.SliceStable(r.Findings, func(i, j int) bool {
			a, b := r.Findings[i], r.Findings[j]
			if (a.Severity == Error) != (b.Severity == Error) {
				return a.Severity == Error
			}
			if a.Graph != b.Graph {
				return a.Graph == "" || (b.Graph != "" && a.Graph == "main")
			}
			return a.NodeIndex < b.NodeIndex
		})
	}()
	ir := mp.GetIrVersion()
	c.ir = ir
	switch {
	case ir == 0:
		c.modelf(Error, "IR_VERSION", "ir_version is missing")
	case ir < minIR:
		c.modelf(Error, "IR_VERSION", "ir_version %d predates opset imports (IR 3); gort reads %d to %d", ir, minIR, maxIR)
	case ir > maxIR:
		c.modelf(Error, "IR_VERSION", "ir_version %d is newer than the spec gort knows (IR %d)", ir, maxIR)
	}
	c.opsets = c.checkOpsets(mp.GetOpsetImport(), "")
	for _, f := range mp.GetFunctions() {
		k := funcKey(f.GetDomain(), f.GetName(), f.GetOverload())
		if _, dup := c.functions[k]; dup {
			c.modelf(Error, "FUNCTION_DUPLICATE", "model-local function %s is defined twice", k)
		}
		c.functions[k] = f
	}
	g := mp.GetGraph()
	if g == nil {
		c.modelf(Error, "GRAPH_MISSING", "the model has no graph")
		return r
	}
	r.Shapes = shapes.Model(mp, nil)
	c.shapes = r.Shapes
	c.graph(g, "main", nil, true)
	for _, f := range mp.GetFunctions() {
		c.function(f)
	}
	for _, imp := range mp.GetOpsetImport() {
		d := op.CanonicalDomain(imp.GetDomain())
		if !c.used[d] {
			c.modelf(Warning, "OPSET_UNUSED", "opset_import lists domain %q (version %d), which no node uses", imp.GetDomain(), imp.GetVersion())
		}
	}
	for _, p := range r.Shapes.Problems {
		f := Finding{Severity: Error, Code: p.Code, Graph: "main", Node: p.Node, NodeIndex: p.NodeIndex, Op: p.Op, Tensor: p.Tensor, Message: p.Msg}
		if p.Code == "INFERENCE_FAILED" {
			f.Severity = Warning
		}
		r.add(f)
	}
	return r
}

func (r *Report) add(f Finding) {
	r.Findings = append(r.Findings, f)
	if f.Severity == Error {
		r.Errors++
	} else {
		r.Warnings++
	}
}

func funcKey(domain, name, overload string) string {
	k := name
	if d := op.CanonicalDomain(domain); d != "" {
		k = d + "." + name
	}
	if overload != "" {
		k += ":" + overload
	}
	return k
}

type checker struct {
	opts      Options
	rep       *Report
	opsets    map[string]int
	used      map[string]bool // domains used by nodes
	functions map[string]*pb.FunctionProto
	shapes    *shapes.Result
	ir        int64
}

func (c *checker) modelf(sev Severity, code, format string, args ...any) {
	c.rep.add(Finding{Severity: sev, Code: code, NodeIndex: -1, Message: fmt.Sprintf(format, args...)})
}

// maxSpecOpset is the newest default-domain opset the schemas know.
var maxSpecOpset = sync.OnceValue(func() int {
	m := 0
	for _, o := range schema.Ops("") {
		for _, v := range schema.Versions("", o) {
			m = max(m, v)
		}
	}
	return m
})

func (c *checker) checkOpsets(imports []*pb.OperatorSetIdProto, where string) map[string]int {
	m := map[string]int{}
	for _, imp := range imports {
		d := op.CanonicalDomain(imp.GetDomain())
		if _, dup := m[d]; dup {
			c.modelf(Error, "OPSET_DUPLICATE", "%sopset_import lists domain %q twice", where, imp.GetDomain())
			continue
		}
		v := imp.GetVersion()
		if v < 1 {
			c.modelf(Error, "OPSET_INVALID", "%sopset_import for domain %q has version %d", where, imp.GetDomain(), v)
		}
		if d == "" && int(v) > maxSpecOpset()+1 {
			c.modelf(Warning, "OPSET_NEWER", "%sdefault-domain opset %d is newer than the spec gort knows (%d)", where, v, maxSpecOpset())
		}
		m[d] = int(v)
	}
	return m
}

// scope is the set of names visible in a graph: its own definitions and the enclosing ones.
type scope struct {
	defined map[string]string // name → what defines it ("input", "initializer", "node X")
	parent  *scope
}

func (s *scope) lookup(name string) bool {
	for c := s; c != nil; c = c.parent {
		if _, ok := c.defined[name]; ok {
			return true
		}
	}
	return false
}

// graphCtx is one graph (or function body) being checked.
type graphCtx struct {
	c        *checker
	where    string
	main     bool
	function bool
	opsets   map[string]int
	outputs  []string        // the graph's outputs (for reachability)
	isInput  map[string]bool // the graph's inputs
}

func (g *graphCtx) add(sev Severity, code, node string, index int, opType, tensorName, format string, args ...any) {
	g.c.rep.add(Finding{Severity: sev, Code: code, Graph: g.where, Node: node, NodeIndex: index, Op: opType, Tensor: tensorName, Message: fmt.Sprintf(format, args...)})
}

func (g *graphCtx) graphf(sev Severity, code, tensorName, format string, args ...any) {
	g.add(sev, code, "", -1, "", tensorName, format, args...)
}

func (c *checker) graph(gp *pb.GraphProto, where string, outer *scope, main bool) {
	g := &graphCtx{c: c, where: where, main: main, opsets: c.opsets}
	sc := &scope{defined: map[string]string{}, parent: outer}
	inputs := map[string]bool{}
	for _, vi := range gp.GetInput() {
		n := vi.GetName()
		if n == "" {
			g.graphf(Error, "NAME_EMPTY", "", "a graph input has no name")
			continue
		}
		if inputs[n] {
			g.graphf(Error, "DUPLICATE_NAME", n, "graph input listed twice")
		}
		inputs[n] = true
		sc.defined[n] = "graph input"
		if main {
			g.checkDeclaredType(vi, "graph input")
		}
	}
	inits := map[string]bool{}
	for _, tp := range gp.GetInitializer() {
		n := tp.GetName()
		if n == "" {
			g.graphf(Error, "NAME_EMPTY", "", "an initializer has no name")
			continue
		}
		if inits[n] {
			g.graphf(Error, "DUPLICATE_NAME", n, "initializer defined twice")
		}
		inits[n] = true
		if !inputs[n] {
			sc.defined[n] = "initializer"
			if c.ir > 0 && c.ir < 4 {
				g.graphf(Error, "INITIALIZER_NOT_INPUT", n, "IR %d requires every initializer to be listed as a graph input too (IR 4 lifted this)", c.ir)
			}
		}
		g.checkTensor(tp, "initializer")
	}
	for _, sp := range gp.GetSparseInitializer() {
		n := sp.GetValues().GetName()
		if inits[n] {
			g.graphf(Error, "DUPLICATE_NAME", n, "sparse initializer shares its name with another initializer")
		}
		inits[n] = true
		sc.defined[n] = "initializer"
	}
	if main && len(gp.GetOutput()) == 0 {
		g.graphf(Error, "GRAPH_NO_OUTPUT", "", "the graph declares no outputs")
	}
	g.isInput = inputs
	for _, vi := range gp.GetOutput() {
		g.outputs = append(g.outputs, vi.GetName())
	}
	g.nodes(gp.GetNode(), sc, inits)
	outs := map[string]bool{}
	for _, vi := range gp.GetOutput() {
		n := vi.GetName()
		if n == "" {
			g.graphf(Error, "NAME_EMPTY", "", "a graph output has no name")
			continue
		}
		if outs[n] {
			g.graphf(Warning, "DUPLICATE_NAME", n, "graph output listed twice")
		}
		outs[n] = true
		if !sc.lookup(n) {
			g.graphf(Error, "OUTPUT_UNDEFINED", n, "graph output is produced by no node, input or initializer")
		}
		if main {
			g.checkDeclaredType(vi, "graph output")
		}
	}
	for _, vi := range gp.GetValueInfo() {
		if vi.GetName() != "" && !sc.lookup(vi.GetName()) {
			g.graphf(Warning, "VALUE_INFO_UNUSED", vi.GetName(), "value_info describes a value no node produces")
		}
	}
}

// checkDeclaredType: main-graph inputs and outputs must be typed (IR.md:
// "the type of every graph input and output must be specified").
func (g *graphCtx) checkDeclaredType(vi *pb.ValueInfoProto, what string) {
	t := vi.GetType()
	if t == nil || t.GetValue() == nil {
		g.graphf(Error, "UNTYPED", vi.GetName(), "%s has no type", what)
		return
	}
	if tt := t.GetTensorType(); tt != nil {
		dt := tensor.DType(tt.GetElemType())
		if dt == tensor.Undefined || !dt.Valid() {
			g.graphf(Error, "UNTYPED", vi.GetName(), "%s has element type %d, not a valid ONNX type", what, tt.GetElemType())
		}
		for i, d := range tt.GetShape().GetDim() {
			if d.GetDimValue() < 0 {
				g.graphf(Error, "NEGATIVE_DIM", vi.GetName(), "%s has dim %d = %d", what, i, d.GetDimValue())
			}
		}
	}
}

// checkTensor checks an initializer or attribute tensor: dtype, dims, and
// that its data matches its dims (or that an external reference is sound).
func (g *graphCtx) checkTensor(tp *pb.TensorProto, what string) {
	n := tp.GetName()
	dt := tensor.DType(tp.GetDataType())
	if dt == tensor.Undefined || !dt.Valid() {
		g.graphf(Error, "TENSOR_DTYPE", n, "%s has data_type %d, not a valid ONNX type", what, tp.GetDataType())
		return
	}
	for _, d := range tp.GetDims() {
		if d < 0 {
			g.graphf(Error, "TENSOR_DIMS", n, "%s has negative dims %v", what, tp.GetDims())
			return
		}
	}
	if tp.GetDataLocation() == pb.TensorProto_EXTERNAL {
		g.checkExternal(tp, what)
		return
	}
	if raw := tp.GetRawData(); len(raw) > 1<<20 && dt != tensor.String && noTypedData(tp) {
		// Large weights: compare the byte count instead of decoding a copy.
		if n, ok := tensor.Size(intsOf(tp.GetDims())); ok {
			if need := rawBytes(dt, n); need != len(raw) {
				g.graphf(Error, "TENSOR_DATA", tp.GetName(), "%s: raw_data has %d bytes, %d %s elements need %d", what, len(raw), n, dt, need)
			}
			return
		}
	}
	if _, err := protoconv.Tensor(tp, g.c.opts.MaxBytes); err != nil {
		g.graphf(Error, "TENSOR_DATA", n, "%s: %s", what, strings.TrimPrefix(err.Error(), "GORT_BAD_MODEL: "))
	}
}

func (g *graphCtx) checkExternal(tp *pb.TensorProto, what string) {
	n := tp.GetName()
	var loc string
	var offset, length int64 = 0, -1
	for _, kv := range tp.GetExternalData() {
		switch kv.GetKey() {
		case "location":
			loc = kv.GetValue()
		case "offset", "length":
			v, err := strconv.ParseInt(kv.GetValue(), 10, 64)
			if err != nil || v < 0 {
				g.graphf(Error, "EXTERNAL_DATA", n, "%s: external_data %s is %q, not a byte count", what, kv.GetKey(), kv.GetValue())
				return
			}
			if kv.GetKey() == "offset" {
				offset = v
			} else {
				length = v
			}
		case "checksum":
		default:
			g.graphf(Warning, "EXTERNAL_DATA", n, "%s: unknown external_data key %q", what, kv.GetKey())
		}
	}
	if loc == "" {
		g.graphf(Error, "EXTERNAL_DATA", n, "%s is marked as external data but has no location", what)
		return
	}
	if path.IsAbs(loc) || strings.HasPrefix(loc, `\`) || strings.Contains(loc, ":") || strings.HasPrefix(path.Clean(loc), "..") {
		g.graphf(Error, "EXTERNAL_DATA", n, "%s: location %q must be a relative path inside the model's directory", what, loc)
		return
	}
	want := -1
	if sz, ok := tensor.Size(intsOf(tp.GetDims())); ok {
		if eb := tensor.DType(tp.GetDataType()).ElemBytes(); eb > 0 && !tensor.DType(tp.GetDataType()).IsCodeType() {
			want = sz * eb
		}
	}
	if length >= 0 && want >= 0 && length != int64(want) && tensor.DType(tp.GetDataType()) != tensor.String {
		g.graphf(Error, "EXTERNAL_DATA", n, "%s: external length %d bytes, its dims %v of %s need %d", what, length, tp.GetDims(), tensor.DType(tp.GetDataType()), want)
	}
	if g.c.opts.ExternalData == nil {
		g.graphf(Warning, "EXTERNAL_DATA_NOT_CHECKED", n, "%s is stored in %q, which was not provided", what, loc)
		return
	}
	data, ok := g.c.opts.ExternalData[loc]
	if !ok {
		g.graphf(Error, "EXTERNAL_DATA", n, "%s is stored in %q, which was not provided", what, loc)
		return
	}
	if length < 0 {
		length = int64(len(data)) - offset
	}
	if offset > int64(len(data)) || length > int64(len(data))-offset || length < 0 {
		g.graphf(Error, "EXTERNAL_DATA", n, "%s: %q has %d bytes; offset %d length %d is outside it", what, loc, len(data), offset, length)
	}
}

func intsOf(ds []int64) []int {
	out := make([]int, len(ds))
	for i, d := range ds {
		out[i] = int(d)
	}
	return out
}

func noTypedData(tp *pb.TensorProto) bool {
	return len(tp.GetFloatData()) == 0 && len(tp.GetInt32Data()) == 0 && len(tp.GetInt64Data()) == 0 &&
		len(tp.GetDoubleData()) == 0 && len(tp.GetUint64Data()) == 0 && len(tp.GetStringData()) == 0
}

// rawBytes is the raw_data size of n elements (sub-byte types packed, as
// the ONNX IR stores int4/uint4/float4e2m1 two per byte and int2/uint2 four).
func rawBytes(dt tensor.DType, n int) int {
	switch dt {
	case tensor.Int4, tensor.Uint4, tensor.Float4E2M1:
		return (n + 1) / 2
	case tensor.Int2, tensor.Uint2:
		return (n + 3) / 4
	case tensor.Float, tensor.Int32, tensor.Uint32:
		return 4 * n
	case tensor.Double, tensor.Int64, tensor.Uint64, tensor.Complex64:
		return 8 * n
	case tensor.Complex128:
		return 16 * n
	case tensor.Float16, tensor.BFloat16, tensor.Int16, tensor.Uint16:
		return 2 * n
	}
	return n
}
