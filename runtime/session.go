// Package runtime is gort's Go API: load an ONNX model, inspect its inputs and
// outputs, and run it.
//
//	s, err := runtime.Load(modelBytes, nil)
//	out, err := s.Run(ctx, map[string]tensor.Value{"x": x})
//
// Every error it returns is an *errs.Error with a stable code; no panic
// escapes it.
package runtime

import (
	"context"
	"fmt"
	"maps"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/exec"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Options control loading and running.
type Options struct {
	// MaxTensorBytes bounds any single tensor, at load and at run time.
	// 0 means graph.DefaultMaxTensorBytes (2 GiB).
	MaxTensorBytes int64
	// FreeDimensionOverrides fixes symbolic dims (dim_param) by name.
	FreeDimensionOverrides map[string]int64
	// ExternalData maps the location of external tensor data to its bytes.
	ExternalData map[string][]byte
	// Registry resolves operators; nil means op.Default (all of package ops).
	Registry *op.Registry
	// MaxMemoryBytes bounds the memory a run's computed values take at
	// their peak, checked before the run starts (GORT_TOO_LARGE naming the
	// largest values). 0 means: under WebAssembly, what is left of the 4 GiB
	// address space; natively, no limit.
	MaxMemoryBytes int64
	// Accelerator, when set, is offered every step of the main graph (the
	// WebGPU backend); steps it declines run on the CPU, with the reason in
	// the plan. After a device loss every run uses the CPU.
	Accelerator plan.Accelerator
	// Log, when set, receives notable events (a lost device).
	Log func(msg string)
	// Optimization selects the plan stage's graph rewrites, as onnxruntime's
	// graphOptimizationLevel does. The zero value is plan.All (every
	// rewrite); package options reads the level names.
	Optimization plan.Level
	// Threads is how many threads a run uses, its own included (0 or 1:
	// one). Each further thread compiles a plan of its own, with its own
	// copy of the packed weights, and computes parts of the heavy steps
	// (exec.Goroutines); outputs are bit-identical to one thread's.
	// Sessions with an Accelerator use one thread.
	Threads int
	// ThreadCost replaces exec.DefaultThreadCost, the rule that decides
	// which steps to split (tests split every step they can).
	ThreadCost exec.ThreadCost
}

// Session is a loaded model ready to run. It is immutable after Load, so it
// may be used from several goroutines at once.
type Session struct {
	model        *graph.Model
	opts         Options
	inputs       []IOInfo
	overridable  []IOInfo
	outputs      []IOInfo
	inputByName  map[string]IOInfo
	outputByName map[string]bool
	// plan treats every initializer as a constant; a run that feeds an
	// overridable initializer uses a plan compiled with those names as
	// inputs (overridePlans, by the sorted names), so that folding and
	// weight packing never hide a feed.
	plan          *plan.Plan
	overridePlans sync.Map
	pool          *exec.Pool
	// threads are the session's own worker goroutines (Options.Threads), or nil.
	threads *exec.Goroutines
	// splitNotes holds, per step of plan, how its last threaded run ran
	// it (exec.Options.SplitNote).
	splitNotes    sync.Map
	estimates     sync.Map // estimateKey → *estimate
	estimateCount atomic.Int64
	// declared are the inputs' types (FreeDimensionOverrides applied);
	// types are every value's type inferred from them at load.
	declared   map[string]graph.Type
	types      map[string]graph.Type
	deviceLost atomic.Bool
}

// IOInfo describes a graph input or output.
type IOInfo struct {
	Name string
	Type graph.Type
}

// Load decodes, validates and compiles a model. Unsupported ops do not fail
// loading (see Session.Unsupported); running a graph that reaches one does.
//
// The session keeps using data: float32 weights are read in place rather
// than copied (so loading needs no second copy of the model), so data must
// not be modified while the session is in use.
func Load(data []byte, opts *Options) (s *Session, err error) {
	defer recoverTo(&err)
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxTensorBytes <= 0 {
		o.MaxTensorBytes = graph.DefaultMaxTensorBytes
	}
	for name, v := range o.FreeDimensionOverrides {
		// A negative size would read as "unknown" and silently do nothing.
		if v < 0 || name == "" {
			return nil, errs.New(errs.InvalidArgument, "FreeDimensionOverrides[%q] = %d: the name must be a dim_param and the size ≥ 0", name, v)
		}
	}
	m, err := graph.Load(data, graph.Options{MaxTensorBytes: o.MaxTensorBytes, Registry: o.Registry, ExternalData: o.ExternalData})
	if err != nil {
		return nil, err
	}
	if o.Registry == nil && len(op.Default.Ops("")) == 0 {
		return nil, errs.New(errs.Internal, "no operators are registered: use package gort (the module root), or import _ \"github.com/gort-dev/gort/ops\"")
	}
	s = &Session{model: m, opts: o, inputByName: map[string]IOInfo{}, outputByName: map[string]bool{}}
	for _, in := range m.Graph.Inputs {
		info := IOInfo{Name: in.Name, Type: s.override(in.Type)}
		if _, isInit := m.Graph.Initializers[in.Name]; isInit {
			s.overridable = append(s.overridable, info)
		} else {
			s.inputs = append(s.inputs, info)
		}
		s.inputByName[in.Name] = info
	}
	// Inferred types let the plan prove shapes equal (residual fusion,
	// no-op Reshape); symbolic dims are bound by FreeDimensionOverrides.
	s.declared = map[string]graph.Type{}
	for _, in := range m.Graph.Inputs {
		s.declared[in.Name] = s.override(in.Type)
	}
	if o.Optimization != plan.Disabled || o.Accelerator != nil {
		s.types = s.inferTypes(s.declared)
	}
	s.plan, err = s.compile(nil)
	if err != nil {
		return nil, err
	}
	if o.Threads > 1 && o.Accelerator == nil {
		g := &exec.Goroutines{Options: exec.Options{MaxTensorBytes: o.MaxTensorBytes}}
		for range o.Threads - 1 {
			p, err := s.compile(nil)
			if err != nil {
				return nil, err
			}
			g.Plans = append(g.Plans, p)
		}
		s.threads = g
	}
	s.pool = exec.NewPool()
	for _, out := range m.Graph.Outputs {
		// A graph may list one value as an output twice; the session
		// lists it once, so that Run with no selection does not ask for
		// it twice.
		if s.outputByName[out.Name] {
			continue
		}
		s.outputs = append(s.outputs, IOInfo{Name: out.Name, Type: s.override(out.Type)})
		s.outputByName[out.Name] = true
	}
	return s, nil
}

func (s *Session) compile(overridden map[string]bool) (*plan.Plan, error) {
	return plan.Compile(s.model, overridden, plan.Options{Level: s.opts.Optimization, MaxTensorBytes: s.opts.MaxTensorBytes, Types: s.types, Accelerator: s.opts.Accelerator, Registry: s.opts.Registry})
}

// onDeviceLost switches the session to the CPU for good.
func (s *Session) onDeviceLost(err error) {
	if !s.deviceLost.Swap(true) && s.opts.Log != nil {
		s.opts.Log(fmt.Sprintf("gort: the accelerator was lost (%v); this run and later ones use the CPU", err))
	}
}

// planFor returns the plan for a run with these feeds.
func (s *Session) planFor(feeds map[string]tensor.Value) (*plan.Plan, error) {
	var names []string
	for _, in := range s.overridable {
		if _, fed := feeds[in.Name]; fed {
			names = append(names, in.Name)
		}
	}
	if len(names) == 0 {
		return s.plan, nil
	}
	key := strings.Join(names, "\x00")
	if p, ok := s.overridePlans.Load(key); ok {
		return p.(*plan.Plan), nil
	}
	set := map[string]bool{}
	for _, n := range names {
		set[n] = true
	}
	p, err := s.compile(set)
	if err != nil {
		return nil, err
	}
	actual, _ := s.overridePlans.LoadOrStore(key, p)
	return actual.(*plan.Plan), nil
}

// override applies FreeDimensionOverrides to a declared type.
func (s *Session) override(t graph.Type) graph.Type {
	if len(s.opts.FreeDimensionOverrides) == 0 || t.Shape == nil {
		return t
	}
	shape := append([]graph.Dim(nil), t.Shape...)
	for i, d := range shape {
		if v, ok := s.opts.FreeDimensionOverrides[d.Param]; ok && d.Param != "" {
			shape[i] = graph.Dim{Value: v}
		}
	}
	t.Shape = shape
	return t
}

// Model returns the loaded graph (read-only), for inspection tools.
func (s *Session) Model() *graph.Model { return s.model }

// Plan returns the compiled plan (read-only): what the rewrites did
// (Plan.Report) and where each step runs.
func (s *Session) Plan() *plan.Plan { return s.plan }

// Inputs lists the inputs a caller must feed.
func (s *Session) Inputs() []IOInfo { return s.inputs }

// OverridableInitializers lists graph inputs that also have an initializer
// (IR-3 models, keep_initializers_as_inputs=True): a feed overrides the
// weight, otherwise the initializer is used.
func (s *Session) OverridableInitializers() []IOInfo { return s.overridable }

// Outputs lists the graph outputs.
func (s *Session) Outputs() []IOInfo { return s.outputs }

// Unsupported returns one error per node that cannot run (unknown op or a
// version gort does not implement), for reporting before running.
func (s *Session) Unsupported() []error {
	var out []error
	for _, st := range s.plan.Unsupported() {
		out = append(out, st.Problem)
	}
	return out
}

// RunOptions tune one Run call.
type RunOptions struct {
	// Yield is called between nodes (the wasm build gives the event loop a turn).
	Yield func()
	// Trace receives every node's outputs (for node-by-node comparison).
	Trace func(n *graph.Node, outputs []tensor.Value)
	// Profile is told how long each node took (see exec.Options.Profile).
	Profile func(n *graph.Node, d time.Duration)
	// KeepOnDevice names outputs left on the accelerator when a device
	// step produced them (see exec.Options.KeepOnDevice).
	KeepOnDevice map[string]bool
	// Threads takes parts of the heavy steps (see exec.Threads): workers
	// that loaded the same model with the same options and report the
	// same Plan().Fingerprint() (the JS worker pool). It replaces the
	// session's own threads (Options.Threads). Runs that use another plan
	// (an overridden initializer) run on this thread alone.
	Threads exec.Threads
}

// Run executes the model. feeds maps input names to values; outputs selects
// the outputs to compute (all when empty).
func (s *Session) Run(ctx context.Context, feeds map[string]tensor.Value, outputs ...string) (map[string]tensor.Value, error) {
	return s.RunWith(ctx, feeds, outputs, RunOptions{})
}

// RunWith is Run with per-run options.
func (s *Session) RunWith(ctx context.Context, feeds map[string]tensor.Value, outputs []string, ro RunOptions) (res map[string]tensor.Value, err error) {
	defer recoverTo(&err)
	if ctx == nil {
		ctx = context.Background()
	}
	feeds, err = s.checkFeeds(feeds)
	if err != nil {
		return nil, err
	}
	if len(outputs) == 0 {
		for _, o := range s.outputs {
			outputs = append(outputs, o.Name)
		}
	}
	seen := map[string]bool{}
	for _, o := range outputs {
		if !s.outputByName[o] {
			return nil, errs.New(errs.InvalidArgument, "unknown output; the model's outputs are %v", s.outputNames()).WithTensor(o)
		}
		if seen[o] {
			return nil, errs.New(errs.InvalidArgument, "output requested twice").WithTensor(o)
		}
		seen[o] = true
	}
	p, err := s.planFor(feeds)
	if err != nil {
		return nil, err
	}
	if err := s.checkMemory(p, feeds); err != nil {
		return nil, err
	}
	eo := exec.Options{MaxTensorBytes: s.opts.MaxTensorBytes, Yield: ro.Yield, Trace: ro.Trace, Profile: ro.Profile, Pool: s.pool,
		CPUOnly: s.deviceLost.Load(), DeviceLost: s.onDeviceLost, KeepOnDevice: ro.KeepOnDevice}
	if p == s.plan {
		eo.Threads, eo.ThreadCost = ro.Threads, s.opts.ThreadCost
		if eo.Threads == nil && s.threads != nil {
			eo.Threads = s.threads
		}
		if eo.Threads != nil {
			eo.SplitNote = func(step int, note string) { s.splitNotes.Store(step, note) }
		}
	}
	res, err = exec.Run(ctx, p, feeds, outputs, eo)
	if err != nil {
		return nil, err
	}
	// An output may be an initializer itself (a pass-through output, or one
	// reached through Identity). The caller owns what Run returns and may
	// modify it, so such outputs are copied: the session's weights must stay
	// intact for later and concurrent runs.
	for name, v := range res {
		if t, ok := v.(*tensor.Tensor); ok && p.IsConst(t) {
			res[name] = t.Clone()
		}
	}
	return res, nil
}

// SplitNote says how the last run with threads ran step i of Plan(): in
// how many parts, or why whole ("" when no such run split or considered
// it).
func (s *Session) SplitNote(i int) string {
	v, _ := s.splitNotes.Load(i)
	note, _ := v.(string)
	return note
}

// RunPart computes a worker's part of a split step of the session's plan
// (see exec.RunPart and RunOptions.Threads).
// output, when set, supplies the part's output buffer (exec.Options.PartOutput).
func (s *Session) RunPart(ctx context.Context, step int, ins []*tensor.Tensor, p op.Part, output func(n int) []float32) (out [][]float32, err error) {
	defer recoverTo(&err)
	if ctx == nil {
		ctx = context.Background()
	}
	return exec.RunPart(ctx, s.plan, step, ins, p, exec.Options{MaxTensorBytes: s.opts.MaxTensorBytes, PartOutput: output})
}

func (s *Session) outputNames() []string {
	out := make([]string, len(s.outputs))
	for i, o := range s.outputs {
		out[i] = o.Name
	}
	return out
}

func (s *Session) inputNames() []string {
	out := make([]string, len(s.inputs))
	for i, o := range s.inputs {
		out[i] = o.Name
	}
	return out
}

// checkFeeds validates feeds against the declared inputs before anything runs:
// unknown names, missing inputs, kind, dtype, rank, fixed dims, and symbolic
// dims bound consistently across inputs. It returns the feeds the run
// takes: the caller's, or a copy where a one-element tensor fed for a
// scalar input is viewed as the scalar (see checkValue).
func (s *Session) checkFeeds(feeds map[string]tensor.Value) (map[string]tensor.Value, error) {
	names := make([]string, 0, len(feeds))
	for k := range feeds {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		if _, ok := s.inputByName[name]; !ok {
			return nil, errs.New(errs.InvalidFeed, "the model has no input of this name; its inputs are %v", s.inputNames()).WithTensor(name)
		}
		if isNil(feeds[name]) {
			return nil, errs.New(errs.InvalidFeed, "feed is nil").WithTensor(name)
		}
	}
	for _, in := range s.inputs {
		if _, ok := feeds[in.Name]; !ok {
			return nil, errs.New(errs.InvalidFeed, "missing input (expected %s)", in.Type).WithTensor(in.Name)
		}
	}
	bound := map[string]int{}
	boundBy := map[string]string{}
	out, copied := feeds, false
	for _, name := range names {
		info := s.inputByName[name]
		v, err := checkValue(info, feeds[name], bound, boundBy)
		if err != nil {
			return nil, err
		}
		if v != feeds[name] {
			if !copied {
				out, copied = maps.Clone(feeds), true
			}
			out[name] = v
		}
	}
	return out, nil
}

// isNil reports whether v is nil or a nil pointer in an interface (a typed
// nil would otherwise reach the kernels and crash them).
func isNil(v tensor.Value) bool {
	switch x := v.(type) {
	case nil:
		return true
	case *tensor.Tensor:
		return x == nil || x.Data() == nil
	case *tensor.Sequence:
		return x == nil
	case *tensor.Optional:
		return x == nil
	}
	return false
}

// checkValue checks one feed against its input's declared type and
// returns the value the run takes: v itself, or, for an input declared as
// a scalar, a one-element tensor of another rank viewed as the scalar.
// onnxruntime checks the shape only of inputs of rank > 0, and libraries
// written against it rely on that (a voice-activity detector feeds its
// scalar sample rate as a tensor of shape [1]); with one element the data
// is unambiguous, and the model then sees the scalar it declares.
func checkValue(info IOInfo, v tensor.Value, bound map[string]int, boundBy map[string]string) (tensor.Value, error) {
	want := info.Type
	fail := func(format string, args ...any) (tensor.Value, error) {
		return nil, errs.New(errs.InvalidFeed, format, args...).WithTensor(info.Name)
	}
	switch want.Kind {
	case graph.KindTensor:
		// A tensor, or an accelerator's (a GPU buffer fed by the caller).
		t, ok := v.(shaped)
		if !ok {
			return fail("expected a tensor %s, got %T", want, v)
		}
		if want.Elem != tensor.Undefined && t.DType() != want.Elem {
			return fail("expected element type %s, got %s", want.Elem, t.DType())
		}
		if want.Shape == nil {
			return v, nil
		}
		if tt, ok := v.(*tensor.Tensor); ok && len(want.Shape) == 0 && len(t.Shape()) > 0 && tt.Len() == 1 {
			return tt.Reshaped([]int{}), nil
		}
		if len(t.Shape()) != len(want.Shape) {
			return fail("expected rank %d (shape %s), got shape %v", len(want.Shape), want, t.Shape())
		}
		for i, d := range want.Shape {
			got := t.Shape()[i]
			switch {
			case d.Param != "":
				if b, ok := bound[d.Param]; ok && b != got {
					return fail("dim %d is %q = %d, but input %q bound %q = %d", i, d.Param, got, boundBy[d.Param], d.Param, b)
				}
				bound[d.Param], boundBy[d.Param] = got, info.Name
			case d.Value >= 0 && int64(got) != d.Value:
				return fail("dim %d must be %d (shape %s), got shape %v", i, d.Value, want, t.Shape())
			}
		}
	case graph.KindSequence:
		if _, ok := v.(*tensor.Sequence); !ok {
			return fail("expected a sequence, got %T", v)
		}
	case graph.KindOptional:
		if _, ok := v.(*tensor.Optional); !ok {
			return fail("expected an optional, got %T", v)
		}
	}
	return v, nil
}

// shaped is what *tensor.Tensor and tensor.Remote share.
type shaped interface {
	DType() tensor.DType
	Shape() []int
}

// recoverTo turns a panic escaping the API into an Internal error.
func recoverTo(err *error) {
	if p := recover(); p != nil {
		if e, ok := p.(*errs.Error); ok {
			*err = e
			return
		}
		*err = errs.New(errs.Internal, "gort panicked: %v", fmt.Sprint(p))
	}
}
