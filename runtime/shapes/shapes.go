// Package shapes infers the type and shape of every value of an ONNX model
// before anything runs, on the raw ModelProto: element types from the op
// schemas' type constraints, shapes from per-op rules with symbolic dims
// ("batch", "2*N"), and constant shape subgraphs (Shape → Gather → Concat →
// Reshape, ConstantOfShape, Range, Resize sizes) folded by running gort's own
// kernels on the constant values. Where a shape cannot be known it says why.
// Contradictions it meets (a broadcast of 3 against 4, a Conv whose weight
// disagrees with its input's channels, a Reshape that changes the element
// count, a declared value_info that disagrees) are reported as Problems; the
// checker (runtime/check) turns them into findings.
//
// The package names no op. Each op binds its Rule with Register in its own
// file under ops/ (beside op.Register), so inference knows only the ops a
// program imports (the module root package gort imports them all); what is
// here is the engine, the Ctx a rule reads and writes, the dim algebra
// (Known, DimMul, Product, …) and the rules several ops share
// (SameAsInput0, BroadcastAll, MatMul, Conv, Pool, Reduce, …).
package shapes

import (
	"fmt"
	"strings"

	"github.com/gort-dev/gort/runtime/graph"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Info is what inference knows about one value.
type Info struct {
	Type graph.Type
	// Const is the value when it is known before running (an initializer,
	// a Constant, or folded from constants).
	Const *tensor.Tensor `json:"-"`
	// Sym holds the elements of a small integer vector (or scalar) that
	// are known symbolically, such as the output of Shape.
	Sym []graph.Dim `json:"-"`
	// Why says why the shape is not (fully) known.
	Why string
}

// ShapeKnown reports whether the rank is known.
func (i *Info) ShapeKnown() bool {
	return i != nil && i.Type.Kind == graph.KindTensor && i.Type.Shape != nil
}

// Problem is a contradiction found while inferring.
type Problem struct {
	Code      string `json:"code"` // BROADCAST, CONV_CHANNELS, RESHAPE_COUNT, SHAPE_MISMATCH, TYPE_MISMATCH, RANK, AXIS, MATMUL, CONCAT, …
	Node      string `json:"node"`
	NodeIndex int    `json:"nodeIndex"`
	Op        string `json:"op"`
	Tensor    string `json:"tensor,omitempty"`
	Msg       string `json:"message"`
}

// Result is the outcome of inference.
type Result struct {
	// Values maps every value name (of the main graph and of subgraphs,
	// whose names ONNX keeps distinct from enclosing ones) to its Info.
	Values   map[string]*Info
	Problems []Problem
}

// Options tune inference.
type Options struct {
	// Registry folds constants with its kernels; nil means op.Default.
	Registry *op.Registry
	// MaxFoldElements bounds the constants folded (default 1<<16).
	MaxFoldElements int
	// Inputs, when set, replaces the declared types of main-graph inputs
	// (the shapes of a run's feeds, or symbolic dims bound by the caller).
	Inputs map[string]graph.Type
}

// Model infers a decoded model. It never panics on a malformed model: what it
// cannot read it leaves unknown.
func Model(m *pb.ModelProto, opts *Options) (r *Result) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Registry == nil {
		o.Registry = op.Default
	}
	if o.MaxFoldElements <= 0 {
		o.MaxFoldElements = 1 << 16
	}
	r = &Result{Values: map[string]*Info{}}
	in := &inferrer{opts: o, res: r, opsets: map[string]int{}, functions: map[string]*pb.FunctionProto{}}
	for _, f := range m.GetFunctions() {
		in.functions[funcKey(f.GetDomain(), f.GetName(), f.GetOverload())] = f
	}
	for _, imp := range m.GetOpsetImport() {
		in.opsets[op.CanonicalDomain(imp.GetDomain())] = int(imp.GetVersion())
	}
	defer func() {
		if p := recover(); p != nil {
			r.Problems = append(r.Problems, Problem{Code: "INFERENCE_FAILED", NodeIndex: -1, Msg: fmt.Sprint("inference stopped: ", p)})
		}
	}()
	if g := m.GetGraph(); g != nil {
		in.graph(g, 0)
	}
	return r
}

type inferrer struct {
	opts      Options
	res       *Result
	opsets    map[string]int
	functions map[string]*pb.FunctionProto // model-local functions by funcKey
}

// TypeOf converts a declared TypeProto.
func TypeOf(tp *pb.TypeProto) graph.Type {
	if tp == nil {
		return graph.Type{}
	}
	switch {
	case tp.GetTensorType() != nil:
		tt := tp.GetTensorType()
		return graph.Type{Kind: graph.KindTensor, Elem: tensor.DType(tt.GetElemType()), Shape: shapeOf(tt.GetShape())}
	case tp.GetSparseTensorType() != nil:
		tt := tp.GetSparseTensorType()
		return graph.Type{Kind: graph.KindSparseTensor, Elem: tensor.DType(tt.GetElemType()), Shape: shapeOf(tt.GetShape())}
	case tp.GetSequenceType() != nil:
		inner := TypeOf(tp.GetSequenceType().GetElemType())
		return graph.Type{Kind: graph.KindSequence, Elem: inner.Elem, Inner: &inner}
	case tp.GetOptionalType() != nil:
		inner := TypeOf(tp.GetOptionalType().GetElemType())
		return graph.Type{Kind: graph.KindOptional, Elem: inner.Elem, Inner: &inner}
	case tp.GetMapType() != nil:
		return graph.Type{Kind: graph.KindMap}
	}
	return graph.Type{}
}

func shapeOf(s *pb.TensorShapeProto) []graph.Dim {
	if s == nil {
		return nil
	}
	out := make([]graph.Dim, len(s.GetDim()))
	for i, d := range s.GetDim() {
		switch {
		case d.GetDimParam() != "":
			out[i] = graph.Dim{Value: -1, Param: d.GetDimParam()}
		case d.GetDimValue() > 0 || (d.GetDimValue() == 0 && isValueSet(d)):
			out[i] = Known(d.GetDimValue())
		default:
			out[i] = unknownDim
		}
	}
	return out
}

// isValueSet tells a dim_value of 0 from an absent one.
func isValueSet(d *pb.TensorShapeProto_Dimension) bool {
	_, ok := d.GetValue().(*pb.TensorShapeProto_Dimension_DimValue)
	return ok
}

// TypeString renders a type in the spec's notation: tensor(float), seq(tensor(int64)), …
func TypeString(t graph.Type) string {
	switch t.Kind {
	case graph.KindTensor:
		return "tensor(" + elemName(t.Elem) + ")"
	case graph.KindSparseTensor:
		return "sparse_tensor(" + elemName(t.Elem) + ")"
	case graph.KindSequence, graph.KindOptional:
		if t.Inner == nil {
			return ""
		}
		inner := TypeString(*t.Inner)
		if inner == "" {
			return ""
		}
		if t.Kind == graph.KindSequence {
			return "seq(" + inner + ")"
		}
		return "optional(" + inner + ")"
	}
	return ""
}

// elemName is the spec's name of an element type ("float", "int64", "float16").
func elemName(d tensor.DType) string {
	if s, ok := pb.TensorProto_DataType_name[int32(d)]; ok && d != 0 {
		return strings.ToLower(s)
	}
	return "?"
}

// parseType reads a spec type string ("tensor(float)") into a Type.
func parseType(s string) (graph.Type, bool) {
	open := strings.IndexByte(s, '(')
	if open < 0 || !strings.HasSuffix(s, ")") {
		return graph.Type{}, false
	}
	kind, inner := s[:open], s[open+1:len(s)-1]
	switch kind {
	case "tensor", "sparse_tensor":
		for v, n := range pb.TensorProto_DataType_name {
			if strings.ToLower(n) == inner && v != 0 {
				k := graph.KindTensor
				if kind == "sparse_tensor" {
					k = graph.KindSparseTensor
				}
				return graph.Type{Kind: k, Elem: tensor.DType(v)}, true
			}
		}
	case "seq", "optional":
		it, ok := parseType(inner)
		if !ok {
			return graph.Type{}, false
		}
		k := graph.KindSequence
		if kind == "optional" {
			k = graph.KindOptional
		}
		return graph.Type{Kind: k, Elem: it.Elem, Inner: &it}, true
	}
	return graph.Type{}, false
}

// graph infers one graph; its inputs (for subgraphs, set by the caller when
// it knows them) and outer values are already in res.Values.
func (in *inferrer) graph(g *pb.GraphProto, depth int) {
	if depth > 32 {
		return
	}
	vals := in.res.Values
	declared := map[string]graph.Type{}
	for _, vi := range g.GetValueInfo() {
		declared[vi.GetName()] = TypeOf(vi.GetType())
	}
	for _, vi := range g.GetOutput() {
		if vi.GetType() != nil {
			declared[vi.GetName()] = TypeOf(vi.GetType())
		}
	}
	for _, vi := range g.GetInput() {
		t := TypeOf(vi.GetType())
		if pre, set := vals[vi.GetName()]; set && depth > 0 && (t.Kind == graph.KindUnknown || t.Kind == pre.Type.Kind && t.Shape == nil) {
			// A body input the enclosing node typed (presetBody); the
			// declaration adds nothing but perhaps the element type.
			if pre.Type.Elem == 0 {
				pre.Type.Elem = t.Elem
			}
			continue
		}
		if bound, ok := in.opts.Inputs[vi.GetName()]; ok && depth == 0 {
			t = bound
		}
		info := &Info{Type: t}
		if t.Kind == graph.KindTensor && t.Shape == nil {
			info.Why = "the graph input declares no shape"
		}
		vals[vi.GetName()] = info
	}
	for _, tp := range g.GetInitializer() {
		info := &Info{Type: graph.Type{Kind: graph.KindTensor, Elem: tensor.DType(tp.GetDataType()), Shape: Dims(tp.GetDims())}}
		if n, ok := tensor.Size(intsOf(tp.GetDims())); ok && n <= in.opts.MaxFoldElements && tp.GetDataLocation() != pb.TensorProto_EXTERNAL {
			if t, err := protoconv.Tensor(tp, 1<<24); err == nil {
				info.Const = t
			}
		}
		vals[tp.GetName()] = info
	}
	for _, sp := range g.GetSparseInitializer() {
		vals[sp.GetValues().GetName()] = &Info{Type: graph.Type{Kind: graph.KindTensor, Elem: tensor.DType(sp.GetValues().GetDataType()), Shape: Dims(sp.GetDims())}}
	}
	for i, n := range g.GetNode() {
		in.node(n, i, declared, depth)
	}
}

// Dims is the shape of known dims.
func Dims(ds []int64) []graph.Dim {
	out := make([]graph.Dim, len(ds))
	for i, d := range ds {
		out[i] = Known(d)
	}
	return out
}

func intsOf(ds []int64) []int {
	out := make([]int, len(ds))
	for i, d := range ds {
		out[i] = int(d)
	}
	return out
}

func (in *inferrer) problem(c *Ctx, code, tensorName, format string, args ...any) {
	in.res.Problems = append(in.res.Problems, Problem{Code: code, Node: c.name, NodeIndex: c.index, Op: c.p.GetOpType(), Tensor: tensorName, Msg: fmt.Sprintf(format, args...)})
}
