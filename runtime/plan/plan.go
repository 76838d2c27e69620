// Package plan compiles a validated graph into what the executor runs: graph
// rewrites (constant folding, dead and no-op node removal, BatchNormalization
// folding, activation fusion), kernels built once with their constant inputs
// known (so weights are packed at session creation), values as integer
// slots, a device per node (the CPU today) and value lifetimes.
//
// The graph stays the model as written; a Plan is derived from it and may
// differ in nodes (folded, fused) but never in results beyond the tolerance
// stated for each rewrite (see rewrite.go).
package plan

import (
	"fmt"
	"hash/fnv"
	goruntime "runtime"
	"slices"
	"sort"
	"strconv"

	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Level selects the rewrites (onnxruntime's graphOptimizationLevel). It is
// gort's one optimisation-level type: runtime.Options.Optimization is a
// Level too. The levels run from the most rewrites to none, so that the
// zero value is All, the default: a Level left unset means every rewrite,
// wherever it is unset, with no defaulting step anywhere.
type Level int

const (
	// All is every rewrite gort has (the zero value).
	All Level = iota
	// Extended adds BatchNormalization folding and activation fusion to
	// Basic.
	Extended
	// Basic folds constants and removes dead and no-op nodes.
	Basic
	// Disabled runs the graph as written.
	Disabled
)

// levelNames are the levels as onnxruntime's graphOptimizationLevel
// spells them.
var levelNames = [...]string{All: "all", Extended: "extended", Basic: "basic", Disabled: "disabled"}

func (l Level) String() string {
	if l < All || l > Disabled {
		return "Level(" + strconv.Itoa(int(l)) + ")"
	}
	return levelNames[l]
}

// Includes reports whether l runs the rewrites of level m: All includes
// every level, Disabled only itself.
func (l Level) Includes(m Level) bool { return l <= m }

// ParseLevel reads a level by name ("disabled", "basic", "extended",
// "all"; "" is All). Callers word the error: the name is an option of
// theirs (graphOptimizationLevel in package options).
func ParseLevel(name string) (Level, bool) {
	if name == "" {
		return All, true
	}
	for l, n := range levelNames {
		if n == name {
			return Level(l), true
		}
	}
	return All, false
}

// Options control compilation.
type Options struct {
	Level Level
	// MaxTensorBytes is the session's memory budget per tensor (also the
	// budget of constant folding per tensor).
	MaxTensorBytes int64
	// FoldBytes bounds the bytes that constant folding may add to the
	// session in total; 0 means DefaultFoldBytes.
	FoldBytes int64
	// Types are the values' inferred types (package shapes), used by the
	// rewrites that need shapes (residual fusion, no-op Cast and Reshape).
	Types map[string]graph.Type
	// Accelerator, when set, is offered every step of the main graph.
	Accelerator Accelerator
	// Registry resolves the ops rewrites introduce (MatMul + Add → Gemm);
	// nil means op.Default.
	Registry *op.Registry
}

// DefaultFoldBytes is the default bound on folded constants: enough for the
// weights that classic exported models build with ConstantOfShape (VGG-19's
// are 548 MB), small enough that a hostile Expand cannot pin gigabytes.
const DefaultFoldBytes = 1 << 30

// Device names where a step runs.
type Device string

// CPU is the device every step can fall back to.
const CPU Device = "cpu"

// Accelerator is a device that runs some steps (the WebGPU backend). The
// plan asks it about every step at compile time; it answers with a kernel
// or with the reason the step stays on the CPU.
type Accelerator interface {
	Device() Device
	// Kernel builds a kernel for the node (its Consts and Fused are set;
	// cpu is its CPU kernel, built from the same node, through which the
	// op answers questions about its parsed form, such as
	// op.ActivationKernel; inputs are the inputs' inferred types,
	// Undefined where unknown). The
	// kernel is an op.ValueKernel: its inputs are CPU tensors or its own
	// tensor.Remote values, and it returns tensor.Remote values. A nil
	// kernel comes with the reason.
	Kernel(n *op.Node, cpu any, inputs []graph.Type) (kernel any, reason string)
}

// An Accelerator may also be a Segmenter (segments.go): then, once every
// step is built, segments of its steps with no heavy op go back to the CPU.

// Step is one node of the plan.
type Step struct {
	// Node is the node as compiled: the model's node, or one made by a
	// rewrite (Node.Fused lists what it absorbed).
	Node *graph.Node
	// Kernel is an op.Kernel or op.ValueKernel; nil when Problem is set.
	Kernel  any
	Problem error
	Device  Device
	// In and Out are value slots; -1 marks an omitted input or output.
	In, Out []int
	// Reads are the slots the step needs, its inputs plus what its
	// subgraphs read from this scope.
	Reads []int
	// Free lists slots whose last reader is this step.
	Free []int
	// Subplans are the compiled graph attributes of the node.
	Subplans []*Plan
	// CPUKernel is the CPU kernel of a step placed on an accelerator, for
	// runs that fall back (a lost device); Reason says why a step is on
	// the CPU when an accelerator was offered.
	CPUKernel any
	Reason    string
	// Transfer is set on the steps that copy a value between the CPU and
	// an accelerator (transfers.go); their Node is made by the plan
	// ("upload x", op type Upload in domain gort), In and Out are the
	// value and its copy, and Bytes is the copy's size when the value's
	// type is known at compile time (0 otherwise).
	Transfer Transfer
	Bytes    int64
	// OnDevice, on a step placed on an accelerator, says per input whether
	// the step reads it as a device value (the rest it reads on the CPU).
	OnDevice []bool
}

// Plan is a compiled graph (the main graph or a subgraph). It is immutable
// and safe for concurrent runs.
type Plan struct {
	Name string
	// Slots is the number of value slots a run of this plan needs.
	Slots int
	// SlotOf maps every value name of this scope to its slot.
	SlotOf map[string]int
	// Names is the value name of each slot.
	Names []string
	// Consts holds, per slot, its constant value (initializers and folded
	// values); a run starts from a copy.
	Consts []tensor.Value
	// Inputs are the graph inputs' slots (feeds, and for subgraphs the
	// positional arguments), Outputs the graph outputs' slots.
	Inputs, Outputs   []int
	InNames, OutNames []string
	// FreeVars are slots filled, at each call of a subgraph, from the
	// enclosing scope's value of the same name.
	FreeVars []int
	Steps    []*Step
	// TakesDeviceFeeds says the plan's transfer steps take feeds on either
	// side (a plan compiled with an accelerator); without them, a run
	// downloads a device-resident feed before it starts.
	TakesDeviceFeeds bool
	// Report says what the rewrites did.
	Report Report

	graph     *graph.Graph
	neededAll []bool
	// cpuCopy maps a value that a device step produced (or a feed) to the
	// slot of its CPU copy; deviceOut maps a graph output a device step
	// produced to its device slot (see ValueSlot).
	cpuCopy   map[string]int
	deviceOut map[string]int
	// constSet holds every constant of the plan and its subgraphs
	// (initializers and folded values).
	constSet map[*tensor.Tensor]bool
}

// Report records what compilation changed, for the capability report.
type Report struct {
	Level   Level
	Folded  []string // nodes replaced by constants
	Removed []string // dead or no-op nodes
	Fused   []string // "Conv+Relu" style descriptions, one per fused node
	// FoldedBytes is what folded constants add to the session.
	FoldedBytes int64
}

// IsConst reports whether t is one of the plan's constants (initializers
// or folded values, in this plan or its subgraphs): the session must copy,
// not hand out, such values.
func (p *Plan) IsConst(t *tensor.Tensor) bool { return p.constSet[t] }

// Compile builds the plan of a loaded model's main graph. overridable names
// the initializers a feed may replace: they are not constants.
func Compile(m *graph.Model, overridable map[string]bool, o Options) (*Plan, error) {
	if o.Level < All || o.Level > Disabled {
		return nil, errs.New(errs.InvalidArgument, "optimization level %d is none of all, extended, basic, disabled", int(o.Level))
	}
	c := &compiler{opts: o, budget: o.FoldBytes}
	if c.budget <= 0 {
		c.budget = DefaultFoldBytes
	}
	return c.compile(m.Graph, overridable)
}

type compiler struct {
	opts   Options
	budget int64
	// releasedBytes counts the constants released since the last
	// collection (collectAfter).
	releasedBytes int64
	depth         int // 0 for the main graph
	// outer holds, while a subgraph compiles, the constants of its
	// enclosing scopes that it reads (free variables). They are constants
	// of the subgraph too: its rewrites fold through them and its kernels
	// get them at build time. Why: exported models keep their weights in
	// the enclosing graph (often as Constant nodes) and slice, concatenate
	// and reshape them inside If branches; as free variables, those chains
	// ran at every call and the LSTM and Conv kernels packed their weights
	// anew each time (a fifth of a Silero VAD v5 run).
	outer map[string]*tensor.Tensor
	// keepDQ makes fold leave DequantizeLinear nodes for the QDQ rewrite
	// (qdq.go), which needs the weights quantized; skippedDQ says it left
	// one, to fold once the rewrite has run.
	keepDQ, skippedDQ bool
}

func (c *compiler) compile(g *graph.Graph, overridable map[string]bool) (*Plan, error) {
	w := newWorkGraph(g, overridable, c.opts.Types)
	for _, fv := range g.FreeVars {
		if t := c.outer[fv]; t != nil {
			w.setConst(fv, t)
			w.outerConsts[fv] = true
		}
	}
	rep := Report{Level: c.opts.Level}
	if c.opts.Level.Includes(Basic) {
		c.removeDead(w, &rep)
		c.keepDQ, c.skippedDQ = c.opts.Level.Includes(Extended), false
		c.fold(w, &rep)
		c.keepDQ = false
		c.removeNoOps(w, &rep)
		c.removeDead(w, &rep)
	}
	if c.opts.Level.Includes(Extended) {
		if c.skippedDQ {
			// The DequantizeLinear nodes that no QDQ group took (the
			// weights of ops gort runs in float) fold now.
			c.qdq(w, &rep)
			c.removeDead(w, &rep)
			c.fold(w, &rep)
			c.removeNoOps(w, &rep)
			c.removeDead(w, &rep)
		}
		c.removeCastPairs(w, &rep)
		c.matMulAddToGemm(w, &rep)
		c.matMulBias(w, &rep)
		c.hardSwish(w, &rep)
		c.foldBatchNorm(w, &rep)
		c.foldIntoBatchNorm(w, &rep)
		c.fuseActivations(w, &rep)
		c.removeDead(w, &rep)
	}
	p, err := c.build(w)
	if err != nil {
		return nil, err
	}
	p.Report = rep
	return p, nil
}

// build assigns slots, builds kernels and computes lifetimes.
func (c *compiler) build(w *workGraph) (*Plan, error) {
	g := w.g
	w.dropUnreadConsts()
	p := &Plan{Name: g.Name, SlotOf: map[string]int{}, graph: g, constSet: w.foldedSet}
	slot := func(name string) int {
		if s, ok := p.SlotOf[name]; ok {
			return s
		}
		s := len(p.Names)
		p.SlotOf[name] = s
		p.Names = append(p.Names, name)
		return s
	}
	for _, in := range g.Inputs {
		p.Inputs = append(p.Inputs, slot(in.Name))
		p.InNames = append(p.InNames, in.Name)
	}
	for _, fv := range g.FreeVars {
		if !w.outerConsts[fv] { // a constant here: nothing to fill at a call
			p.FreeVars = append(p.FreeVars, slot(fv))
		}
	}
	consts := map[int]tensor.Value{}
	for name, t := range w.consts {
		consts[slot(name)] = t
	}
	// Overridable initializers are not constants but are still the value
	// used when no feed is given.
	for name, t := range g.Initializers {
		if w.overridable[name] {
			consts[slot(name)] = t
		}
	}
	for _, n := range w.nodes {
		for _, o := range n.Outputs {
			if o != "" {
				slot(o)
			}
		}
	}
	for _, o := range g.Outputs {
		p.Outputs = append(p.Outputs, slot(o.Name))
		p.OutNames = append(p.OutNames, o.Name)
	}
	readers := map[string]int{}
	for _, n := range w.nodes {
		for _, r := range n.Reads {
			readers[r]++
		}
	}
	for _, o := range g.Outputs {
		readers[o.Name]++
	}
	for _, n := range w.nodes {
		st := &Step{Node: n, Device: CPU}
		for _, in := range n.Inputs {
			if in == "" {
				st.In = append(st.In, -1)
			} else {
				st.In = append(st.In, slot(in))
			}
		}
		for _, o := range n.Outputs {
			if o == "" {
				st.Out = append(st.Out, -1)
			} else {
				st.Out = append(st.Out, slot(o))
			}
		}
		for _, r := range n.Reads {
			st.Reads = append(st.Reads, slot(r))
		}
		if err := c.buildStep(st, w); err != nil {
			return nil, err
		}
		// Released right away, a constant is garbage while the next
		// steps pack theirs.
		c.releaseConsts(p, st, w, consts, readers)
		p.Steps = append(p.Steps, st)
	}
	if acc := c.opts.Accelerator; acc != nil && c.depth == 0 {
		for _, st := range placeSegments(p.Steps, acc) {
			c.releaseConsts(p, st, w, consts, readers)
		}
		// A plan with every step on the CPU needs no transfer steps: a
		// device-resident feed is downloaded at the run's edge, as without
		// an accelerator (TakesDeviceFeeds stays false).
		if slices.ContainsFunc(p.Steps, func(st *Step) bool { return st.Device != CPU }) {
			p.insertTransfers(acc, g, c.opts.Types, consts, slot)
		}
	}
	p.Slots = len(p.Names)
	p.Consts = make([]tensor.Value, p.Slots)
	for s, v := range consts {
		p.Consts[s] = v
	}
	for _, t := range g.Initializers {
		p.constSet[t] = true
	}
	p.planFrees()
	p.neededAll = p.Needed(p.Outputs)
	for _, st := range p.Steps {
		for _, sp := range st.Subplans {
			for t := range sp.constSet {
				p.constSet[t] = true
			}
		}
	}
	return p, nil
}

// buildStep compiles the node's subgraphs and builds its kernel.
func (c *compiler) buildStep(st *Step, w *workGraph) error {
	n := st.Node
	if n.Builder == nil {
		st.Problem = n.Problem
		if st.Problem == nil {
			st.Problem = errs.New(errs.UnsupportedOp, "%s has no implementation", n.OpType).WithNode(n.Name)
		}
		return nil
	}
	// The builder sees compiled subgraphs, so that control-flow kernels
	// hand plans to the executor.
	node := *n
	if len(n.Graphs) > 0 {
		node.Graphs = make(map[string][]op.Subgraph, len(n.Graphs))
		saved := c.outer
		defer func() { c.outer = saved }()
		c.outer = c.scopeConsts(w, n)
		for name, subs := range n.Graphs {
			for _, s := range subs {
				c.depth++
				sp, err := c.compile(s.(*graph.Graph), nil)
				c.depth--
				if err != nil {
					return errs.AtNode(err, n.Name)
				}
				node.Graphs[name] = append(node.Graphs[name], sp)
				st.Subplans = append(st.Subplans, sp)
			}
		}
	}
	node.Consts = make([]*tensor.Tensor, len(n.Inputs))
	for i, in := range n.Inputs {
		node.Consts[i] = w.constTensor(in)
	}
	k, err := BuildKernel(n.Builder, &node.Node)
	if err != nil {
		return errs.AtNode(err, n.Name)
	}
	st.Node = &node
	st.Kernel = k
	if acc := c.opts.Accelerator; acc != nil && c.depth == 0 {
		in := make([]graph.Type, len(n.Inputs))
		for i, name := range n.Inputs {
			if t := node.Consts[i]; t != nil {
				in[i] = graph.TypeOfTensor(t)
			} else if name != "" {
				in[i] = c.opts.Types[name]
			}
		}
		gk, reason := acc.Kernel(&node.Node, k, in)
		if gk != nil {
			st.CPUKernel, st.Kernel, st.Device = k, gk, acc.Device()
		} else {
			st.Reason = reason
		}
	}
	return nil
}

// registry is the operator registry the rewrites resolve replacement ops
// in: Options.Registry, else the default one.
func (c *compiler) registry() *op.Registry {
	if c.opts.Registry != nil {
		return c.opts.Registry
	}
	return op.Default
}

// scopeConsts is what n's subgraphs see as constants of their enclosing
// scopes: this scope's constants and those it sees itself, limited to the
// names n's subgraphs read (n.Reads beyond its inputs hold them, nested
// subgraphs' reads included).
func (c *compiler) scopeConsts(w *workGraph, n *graph.Node) map[string]*tensor.Tensor {
	m := map[string]*tensor.Tensor{}
	for _, r := range n.Reads {
		if t := w.consts[r]; t != nil {
			m[r] = t
		} else if t := c.outer[r]; t != nil {
			m[r] = t
		}
	}
	return m
}

// releaseConsts lets a kernel that keeps its own form of a constant input
// (op.ConstReleaser: packed weights) have the plan drop the constant, where
// its step is the only reader (readers counts them by value name, graph
// outputs included): the step then reads nothing from that slot, and the
// session holds one form of the weights instead of two.
func (c *compiler) releaseConsts(p *Plan, st *Step, w *workGraph, consts map[int]tensor.Value, readers map[string]int) {
	k, ok := st.Kernel.(op.ConstReleaser)
	if !ok || st.Device != CPU || len(st.Subplans) > 0 {
		return
	}
	for i, s := range st.In {
		name := p.Names[max(s, 0)]
		if s < 0 || w.consts[name] == nil || readers[name] != 1 || slices.Index(st.In, s) != i || slices.Contains(st.In[i+1:], s) || !k.CanRelease(i) {
			continue
		}
		k.Release(i)
		st.In[i] = -1
		st.Reads = slices.DeleteFunc(st.Reads, func(r int) bool { return r == s })
		st.Node.Consts[i] = nil
		t := w.consts[name]
		delete(consts, s)
		w.dropConst(name)
		if c.releasedBytes += int64(t.Len() * t.DType().ElemBytes()); c.releasedBytes >= collectAfter {
			c.releasedBytes = 0
			goruntime.GC()
		}
	}
}

// collectAfter is how many bytes of released constants trigger a
// collection at once. The collector, paced by the heap's growth, would reuse
// them only after the next layers' packed forms had been allocated beside
// them (the heap peaking at the weights, packed and not, of several
// layers), and WebAssembly memory never shrinks. The weights hold no
// pointers, so a collection costs little; the JS package turns the paced
// collector off while it loads (wasm/main.go: each cycle runs cold,
// unoptimised code there), so these are then the only collections of a load,
// and 16 MiB bounds the garbage beside the packed weights (ResNet-50 loaded
// alone in Node peaks at 168 MiB of wasm memory, 158 with the paced
// collector at 50%, 192 with 32 MiB here; make bench's 182 includes runs).
const collectAfter = 16 << 20

// BuildKernel calls a builder, turning a panic into an error so that a
// malformed attribute can never crash loading.
func BuildKernel(b op.Builder, n *op.Node) (k any, err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(*errs.Error); ok {
				err = e
				return
			}
			err = errs.New(errs.BadModel, "building %s failed: %v", n.OpType, r)
		}
	}()
	k, err = b(n)
	if err == nil {
		switch k.(type) {
		case op.Kernel, op.ValueKernel:
		default:
			err = errs.New(errs.Internal, "builder for %s returned %T", n.OpType, k)
		}
	}
	return k, err
}

// planFrees records, on each step, the slots whose last reader it is.
// Graph outputs, constants and free variables are never freed; values
// nobody reads are freed right after their producer.
func (p *Plan) planFrees() {
	keep := make([]bool, len(p.Names))
	for _, o := range p.Outputs {
		keep[o] = true
	}
	for _, f := range p.FreeVars {
		keep[f] = true
	}
	// A run may return these instead of their CPU copies (KeepOnDevice).
	for _, s := range p.deviceOut {
		keep[s] = true
	}
	last := make([]int, len(p.Names))
	for i := range last {
		last[i] = -1
	}
	for i, st := range p.Steps {
		for _, o := range st.Out {
			if o >= 0 {
				last[o] = i
			}
		}
		for _, r := range st.Reads {
			last[r] = i
		}
	}
	for s, i := range last {
		if i < 0 || keep[s] || p.Consts[s] != nil {
			continue
		}
		p.Steps[i].Free = append(p.Steps[i].Free, s)
	}
	for _, st := range p.Steps {
		sort.Ints(st.Free)
	}
}

// Needed marks the steps that contribute to the wanted slots.
func (p *Plan) Needed(wanted []int) []bool {
	need := make([]bool, p.Slots)
	for _, w := range wanted {
		need[w] = true
	}
	mark := make([]bool, len(p.Steps))
	for i := len(p.Steps) - 1; i >= 0; i-- {
		st := p.Steps[i]
		for _, o := range st.Out {
			if o >= 0 && need[o] {
				mark[i] = true
				break
			}
		}
		if mark[i] {
			for _, r := range st.Reads {
				need[r] = true
			}
		}
	}
	return mark
}

// NeededForOutputs is Needed for all graph outputs (computed at compile time).
func (p *Plan) NeededForOutputs() []bool { return p.neededAll }

// Unsupported lists the steps (in this plan and its subgraphs) that cannot run.
func (p *Plan) Unsupported() []*Step {
	var out []*Step
	p.Walk(func(st *Step) {
		if st.Problem != nil {
			out = append(out, st)
		}
	})
	return out
}

// Walk visits every step, subgraphs included (depth first, in order).
func (p *Plan) Walk(f func(*Step)) {
	for _, st := range p.Steps {
		f(st)
		for _, sp := range st.Subplans {
			sp.Walk(f)
		}
	}
}

// InputNames implements op.Subgraph.
func (p *Plan) InputNames() []string { return p.InNames }

// OutputNames implements op.Subgraph.
func (p *Plan) OutputNames() []string { return p.OutNames }

// Source returns the graph the plan was compiled from (its declared input
// and output types, for kernels such as Loop that need them).
func (p *Plan) Source() *graph.Graph { return p.graph }

// Fingerprint identifies the plan's top-level steps: for each, its op, node
// name, device, which inputs are constants (slot numbers may differ from one
// compilation to the next: constants are numbered in map order) and whether
// its kernel splits. Instances that load the same model with the same
// options compile the same steps; the thread pool compares fingerprints
// before it lets workers compute parts of this plan's steps by index.
func (p *Plan) Fingerprint() string {
	h := fnv.New64a()
	for _, st := range p.Steps {
		_, splits := st.Kernel.(op.SplittingKernel)
		fmt.Fprintf(h, "%s/%s/%s/%d/%v/%v/%d/", st.Node.Domain, st.Node.OpType, st.Node.Name, st.Node.Version, st.Device, splits, len(st.Out))
		for _, sl := range st.In {
			switch {
			case sl < 0:
				h.Write([]byte{'-'})
			case p.Consts[sl] != nil:
				h.Write([]byte{'c'})
			default:
				h.Write([]byte{'v'})
			}
		}
		h.Write([]byte{';'})
	}
	return fmt.Sprintf("%d:%016x", len(p.Steps), h.Sum64())
}
