// Package printer renders an ONNX model for people and for tools: a text
// form in the spirit of onnx.helper.printable_graph, with the inferred type
// and shape of every value and subgraphs indented under their node, and a
// JSON form with the same content (the demo page and `gort print --json`).
package printer

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/gort-dev/gort/runtime/graph"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Model is the JSON form of a model.
type Model struct {
	IRVersion int64            `json:"irVersion"`
	Opsets    map[string]int64 `json:"opsets"`
	Producer  string           `json:"producer,omitempty"`
	Graph     *Graph           `json:"graph"`
	Functions []*Function      `json:"functions,omitempty"`
	// Transfers are the plan's transfer steps, in run order, when the
	// model was printed with a plan (Model.Place).
	Transfers []*Transfer `json:"transfers,omitempty"`
}

// Transfer is a step of the plan that copies a value between the CPU and
// an accelerator: "upload" (to the device) or "download" (to the CPU).
type Transfer struct {
	Kind   string `json:"kind"`
	Value  string `json:"value"`
	Device string `json:"device"`
	// Bytes is the value's size when its type is known at load, else 0.
	Bytes int64 `json:"bytes,omitempty"`
	// Before names the step the copy runs before; "" at the end of a run
	// (a graph output).
	Before string `json:"before,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// Graph is the JSON form of a graph.
type Graph struct {
	Name         string   `json:"name"`
	Inputs       []*Value `json:"inputs"`
	Initializers []*Value `json:"initializers"`
	Nodes        []*Node  `json:"nodes"`
	Outputs      []*Value `json:"outputs"`
}

// Value is a named value with its (inferred or declared) type.
type Value struct {
	Name string `json:"name"`
	// Type is "float32[N,3,224,224]"-style text, "" when unknown.
	Type string `json:"type"`
	// Elem and Shape split Type for tools: Shape entries are numbers,
	// symbolic names or null (unknown); Shape is null when the rank is unknown.
	Elem  string `json:"elem,omitempty"`
	Shape []any  `json:"shape"`
	// Why tells why the shape is unknown.
	Why string `json:"why,omitempty"`
}

// Node is the JSON form of a node.
type Node struct {
	Index     int               `json:"index"`
	Name      string            `json:"name"`
	Op        string            `json:"op"`
	Domain    string            `json:"domain,omitempty"`
	Inputs    []string          `json:"inputs"`
	Outputs   []*Value          `json:"outputs"`
	Attrs     map[string]any    `json:"attrs,omitempty"`
	Subgraphs map[string]*Graph `json:"subgraphs,omitempty"`
	// Placement is where the node runs, when the model was printed with
	// a plan (Model.Place); nil otherwise.
	Placement *Placement `json:"placement,omitempty"`
}

// Placement is where a plan runs a node: its device and, when an
// accelerator declined it, why it stays on the CPU. A node merged into
// another step takes that step's placement (FusedInto names it); a node
// with no step (folded to a constant, removed, or absorbed by a rewrite)
// has Device "".
type Placement struct {
	Device    string `json:"device"`
	Reason    string `json:"reason,omitempty"`
	FusedInto string `json:"fusedInto,omitempty"`
}

// Place annotates the main graph's nodes with where p runs them, so that
// the text shows each node's device and CPU reason (the placement report
// beside the graph). cpu is the CPU's name ("cpu"; the JS API says "wasm").
func (m *Model) Place(p *plan.Plan, cpu string) {
	if m.Graph == nil {
		return
	}
	by := map[string]*Placement{}
	m.Transfers = nil
	var pending []*Transfer
	for _, st := range p.Steps {
		if st.Transfer != plan.NoTransfer {
			t := &Transfer{Kind: st.Transfer.String(), Value: st.Node.Inputs[0], Device: string(st.Device), Bytes: st.Bytes}
			if slices.Contains(p.InNames, t.Value) {
				t.Reason = "a feed, which a caller may give on either side; one already there passes through"
			}
			pending = append(pending, t)
			continue
		}
		for _, t := range pending {
			t.Before = st.Node.Name
		}
		m.Transfers, pending = append(m.Transfers, pending...), nil
		pl := &Placement{Device: string(st.Device), Reason: st.Reason}
		if st.Device == plan.CPU {
			pl.Device = cpu
		}
		by[st.Node.Name] = pl
		if f := st.Node.Fused; f != nil {
			for _, n := range f.Fused {
				by[n] = &Placement{Device: pl.Device, Reason: pl.Reason, FusedInto: st.Node.Name}
			}
		}
	}
	m.Transfers = append(m.Transfers, pending...)
	for _, n := range m.Graph.Nodes {
		if n.Placement = by[n.Name]; n.Placement == nil {
			n.Placement = &Placement{}
		}
	}
}

// Function is a model-local function.
type Function struct {
	Domain  string   `json:"domain"`
	Name    string   `json:"name"`
	Inputs  []string `json:"inputs"`
	Outputs []string `json:"outputs"`
	Attrs   []string `json:"attrs,omitempty"`
	Nodes   []*Node  `json:"nodes"`
}

// Build converts a model to its JSON form, with types from inference (res
// may be nil: inference then runs here).
func Build(mp *pb.ModelProto, res *shapes.Result) *Model {
	if res == nil {
		res = shapes.Model(mp, nil)
	}
	b := &builder{res: res}
	m := &Model{IRVersion: mp.GetIrVersion(), Opsets: map[string]int64{}, Producer: strings.TrimSpace(mp.GetProducerName() + " " + mp.GetProducerVersion())}
	for _, o := range mp.GetOpsetImport() {
		d := o.GetDomain()
		if d == "" {
			d = "ai.onnx"
		}
		m.Opsets[d] = o.GetVersion()
	}
	m.Graph = b.graph(mp.GetGraph(), 0)
	for _, f := range mp.GetFunctions() {
		fn := &Function{Domain: f.GetDomain(), Name: f.GetName(), Inputs: f.GetInput(), Outputs: f.GetOutput(), Attrs: f.GetAttribute()}
		for i, n := range f.GetNode() {
			fn.Nodes = append(fn.Nodes, b.node(n, i, 0))
		}
		m.Functions = append(m.Functions, fn)
	}
	return m
}

type builder struct{ res *shapes.Result }

func (b *builder) value(name string, declared *pb.TypeProto) *Value {
	v := &Value{Name: name}
	var t graph.Type
	if info := b.res.Values[name]; info != nil {
		t = info.Type
		v.Why = info.Why
	} else if declared != nil {
		t = shapes.TypeOf(declared)
	}
	if t.Kind == graph.KindUnknown {
		return v
	}
	v.Type = t.String()
	if t.Kind == graph.KindTensor || t.Kind == graph.KindSparseTensor {
		v.Elem = t.Elem.String()
		if t.Shape != nil {
			v.Shape = make([]any, len(t.Shape))
			for i, d := range t.Shape {
				switch {
				case d.Param != "":
					v.Shape[i] = d.Param
				case d.Value >= 0:
					v.Shape[i] = d.Value
				}
			}
		} else {
			v.Type = t.Elem.String() + "[?]"
		}
	}
	if t.Shape != nil {
		v.Why = ""
	}
	return v
}

func (b *builder) graph(g *pb.GraphProto, depth int) *Graph {
	if g == nil {
		return nil
	}
	out := &Graph{Name: g.GetName(), Inputs: []*Value{}, Initializers: []*Value{}, Nodes: []*Node{}, Outputs: []*Value{}}
	inits := map[string]bool{}
	for _, t := range g.GetInitializer() {
		inits[t.GetName()] = true
	}
	for _, vi := range g.GetInput() {
		if !inits[vi.GetName()] {
			out.Inputs = append(out.Inputs, b.value(vi.GetName(), vi.GetType()))
		}
	}
	for _, t := range g.GetInitializer() {
		out.Initializers = append(out.Initializers, b.value(t.GetName(), nil))
	}
	for i, n := range g.GetNode() {
		out.Nodes = append(out.Nodes, b.node(n, i, depth))
	}
	for _, vi := range g.GetOutput() {
		out.Outputs = append(out.Outputs, b.value(vi.GetName(), vi.GetType()))
	}
	return out
}

func (b *builder) node(n *pb.NodeProto, i, depth int) *Node {
	name := n.GetName()
	if name == "" {
		name = fmt.Sprintf("%s#%d", n.GetOpType(), i)
	}
	out := &Node{Index: i, Name: name, Op: n.GetOpType(), Domain: n.GetDomain(), Inputs: n.GetInput(), Outputs: []*Value{}}
	if out.Inputs == nil {
		out.Inputs = []string{}
	}
	for _, o := range n.GetOutput() {
		out.Outputs = append(out.Outputs, b.value(o, nil))
	}
	for _, a := range n.GetAttribute() {
		gs := a.GetGraphs()
		if a.GetG() != nil {
			gs = append([]*pb.GraphProto{a.GetG()}, gs...)
		}
		if len(gs) > 0 && depth < 32 {
			if out.Subgraphs == nil {
				out.Subgraphs = map[string]*Graph{}
			}
			for k, g := range gs {
				key := a.GetName()
				if len(gs) > 1 {
					key += "[" + strconv.Itoa(k) + "]"
				}
				out.Subgraphs[key] = b.graph(g, depth+1)
			}
			continue
		}
		if out.Attrs == nil {
			out.Attrs = map[string]any{}
		}
		out.Attrs[a.GetName()] = attrValue(a)
	}
	return out
}

// attrValue is an attribute's value for JSON: numbers, strings, lists, and
// tensors summarized as "<float32[3,3]>" (small ones listed).
func attrValue(a *pb.AttributeProto) any {
	if a.GetRefAttrName() != "" {
		return "@" + a.GetRefAttrName()
	}
	switch a.GetType() {
	case pb.AttributeProto_INT:
		return a.GetI()
	case pb.AttributeProto_FLOAT:
		return jsonFloat(a.GetF())
	case pb.AttributeProto_STRING:
		return string(a.GetS())
	case pb.AttributeProto_INTS:
		return a.GetInts()
	case pb.AttributeProto_FLOATS:
		fs := make([]any, len(a.GetFloats()))
		for i, f := range a.GetFloats() {
			fs[i] = jsonFloat(f)
		}
		return fs
	case pb.AttributeProto_STRINGS:
		ss := make([]string, len(a.GetStrings()))
		for i, s := range a.GetStrings() {
			ss[i] = string(s)
		}
		return ss
	case pb.AttributeProto_TENSOR:
		return tensorSummary(a.GetT())
	case pb.AttributeProto_TENSORS:
		var out []string
		for _, t := range a.GetTensors() {
			out = append(out, tensorSummary(t))
		}
		return out
	}
	switch {
	case a.GetT() != nil:
		return tensorSummary(a.GetT())
	case len(a.GetInts()) > 0:
		return a.GetInts()
	case len(a.GetS()) > 0:
		return string(a.GetS())
	}
	return a.GetType().String()
}

// jsonFloat keeps NaN and infinities printable in JSON (as strings).
func jsonFloat(f float32) any {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return fmt.Sprint(f)
	}
	return float64(f)
}

func tensorSummary(t *pb.TensorProto) string {
	dims := make([]string, len(t.GetDims()))
	for i, d := range t.GetDims() {
		dims[i] = strconv.FormatInt(d, 10)
	}
	s := tensor.DType(t.GetDataType()).String() + "[" + strings.Join(dims, ",") + "]"
	if n, ok := tensor.Size(intsOf(t.GetDims())); ok && n <= 8 {
		if v, err := tensorValues(t); err == nil {
			s += " " + v
		}
	}
	return s
}

func intsOf(ds []int64) []int {
	out := make([]int, len(ds))
	for i, d := range ds {
		out[i] = int(d)
	}
	return out
}

// Text writes the text form.
func Text(w io.Writer, m *Model) error {
	p := &textPrinter{w: w}
	fmt.Fprintf(p.w, "ir_version %d, opsets %s", m.IRVersion, OpsetList(m.Opsets))
	if m.Producer != "" {
		fmt.Fprintf(p.w, ", producer %s", m.Producer)
	}
	fmt.Fprintln(p.w)
	if m.Graph != nil {
		p.graph(m.Graph, "")
	}
	if len(m.Transfers) > 0 {
		p.line("", "transfers (plan steps, in run order):")
		for _, t := range m.Transfers {
			p.line("  ", "%s", transferLine(t))
		}
	}
	for _, f := range m.Functions {
		fmt.Fprintf(p.w, "function %s.%s(%s) -> (%s)", f.Domain, f.Name, strings.Join(pct(f.Inputs), ", "), strings.Join(pct(f.Outputs), ", "))
		if len(f.Attrs) > 0 {
			fmt.Fprintf(p.w, " attributes %s", strings.Join(f.Attrs, ", "))
		}
		fmt.Fprintln(p.w, " {")
		for _, n := range f.Nodes {
			p.node(n, "  ")
		}
		fmt.Fprintln(p.w, "}")
	}
	return p.err
}

// OpsetList writes a model's opset imports as "domain version" pairs,
// sorted by domain (the printer's header line and gort inspect's).
func OpsetList(m map[string]int64) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var parts []string
	for _, k := range ks {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func pct(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "%" + n
	}
	return out
}

type textPrinter struct {
	w   io.Writer
	err error
}

func (p *textPrinter) line(indent, format string, args ...any) {
	if p.err != nil {
		return
	}
	_, p.err = fmt.Fprintf(p.w, indent+format+"\n", args...)
}

func typed(v *Value) string {
	t := v.Type
	if t == "" {
		t = "?"
	}
	return "%" + v.Name + ": " + t
}

func (p *textPrinter) graph(g *Graph, indent string) {
	p.line(indent, "graph %s (", g.Name)
	for _, v := range g.Inputs {
		p.line(indent, "  %s", typed(v))
	}
	if len(g.Initializers) > 0 {
		p.line(indent, ") initializers (")
		for _, v := range g.Initializers {
			p.line(indent, "  %s", typed(v))
		}
	}
	p.line(indent, ") {")
	for _, n := range g.Nodes {
		p.node(n, indent+"  ")
	}
	outs := make([]string, len(g.Outputs))
	for i, v := range g.Outputs {
		outs[i] = typed(v)
	}
	p.line(indent, "  return %s", strings.Join(outs, ", "))
	p.line(indent, "}")
}

func (p *textPrinter) node(n *Node, indent string) {
	outs := make([]string, len(n.Outputs))
	for i, v := range n.Outputs {
		outs[i] = typed(v)
	}
	op := n.Op
	if n.Domain != "" {
		op = n.Domain + "." + op
	}
	var attrs []string
	keys := make([]string, 0, len(n.Attrs))
	for k := range n.Attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		attrs = append(attrs, k+" = "+attrText(n.Attrs[k]))
	}
	subs := make([]string, 0, len(n.Subgraphs))
	for k := range n.Subgraphs {
		subs = append(subs, k)
	}
	sort.Strings(subs)
	for _, k := range subs {
		attrs = append(attrs, k+" = @"+k)
	}
	a := ""
	if len(attrs) > 0 {
		a = "[" + strings.Join(attrs, ", ") + "]"
	}
	ins := make([]string, len(n.Inputs))
	for i, in := range n.Inputs {
		if in == "" {
			ins[i] = "_"
		} else {
			ins[i] = "%" + in
		}
	}
	p.line(indent, "%s = %s%s(%s)%s", strings.Join(outs, ", "), op, a, strings.Join(ins, ", "), placed(n.Placement))
	for _, k := range subs {
		p.line(indent, "  @%s:", k)
		p.graph(n.Subgraphs[k], indent+"    ")
	}
}

// transferLine is a transfer step's line: "upload %x to webgpu (24 B),
// before conv1", "download %y from webgpu (?), at the end".
func transferLine(t *Transfer) string {
	dir := "to"
	if t.Kind == plan.Download.String() {
		dir = "from"
	}
	size := "size unknown at load"
	if t.Bytes > 0 {
		size = plan.FormatBytes(t.Bytes)
	}
	s := fmt.Sprintf("%s %%%s %s %s (%s)", t.Kind, t.Value, dir, t.Device, size)
	if t.Before != "" {
		s += ", before " + t.Before
	} else {
		s += ", at the end"
	}
	if t.Reason != "" {
		s += ": " + t.Reason
	}
	return s
}

// placed is a node line's placement comment: "  # on webgpu",
// "  # on cpu: why", "  # on webgpu, fused into conv", or "  # no step
// (folded, fused or removed at load)"; "" without a plan.
func placed(p *Placement) string {
	switch {
	case p == nil:
		return ""
	case p.Device == "":
		return "  # no step (folded, fused or removed at load)"
	}
	s := "  # on " + p.Device
	if p.FusedInto != "" {
		s += ", fused into " + p.FusedInto
	}
	if p.Reason != "" {
		s += ": " + p.Reason
	}
	return s
}

// tensorText matches tensorSummary's output, printed unquoted.
// It is compiled on first use, not at package init: in WebAssembly every
// program that links the printer (the JS package's gort.wasm) would
// otherwise pay ~50 ms of cold regexp compilation at start-up.
var tensorText = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]+\[[0-9,]*\]( \{.*\})?$`) })

func attrText(v any) string {
	switch x := v.(type) {
	case string:
		if strings.HasPrefix(x, "@") || tensorText().MatchString(x) {
			return x
		}
		return strconv.Quote(x)
	case []int64:
		s := make([]string, len(x))
		for i, n := range x {
			s[i] = strconv.FormatInt(n, 10)
		}
		return "[" + strings.Join(s, ", ") + "]"
	case []string:
		s := make([]string, len(x))
		for i, n := range x {
			s[i] = strconv.Quote(n)
		}
		return "[" + strings.Join(s, ", ") + "]"
	case []any:
		s := make([]string, len(x))
		for i, n := range x {
			s[i] = fmt.Sprint(n)
		}
		return "[" + strings.Join(s, ", ") + "]"
	}
	return fmt.Sprint(v)
}

// Values gives every inferred value in the JSON form (for inferShapes).
func Values(res *shapes.Result) map[string]*Value {
	b := &builder{res: res}
	out := make(map[string]*Value, len(res.Values))
	for name := range res.Values {
		out[name] = b.value(name, nil)
	}
	return out
}
