// Package exec runs a compiled plan: steps in order over a slice of value
// slots, each value dropped after its last reader (its float32 buffer goes
// back to the session's pool when no other live value shares it), subgraphs
// (If/Loop/Scan bodies) run as their own plans with the enclosing scope's
// values visible.
package exec

import (
	"context"
	rt "runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Options for one run.
type Options struct {
	MaxTensorBytes int64
	// Yield, when set, is called between nodes; the WebAssembly build uses it
	// to give the JS event loop a turn so that an abort can arrive.
	Yield func()
	// Trace, when set, receives every node's outputs as they are produced
	// (used to compare backends node by node).
	Trace func(n *graph.Node, outputs []tensor.Value)
	// Profile, when set, is told how long each step took (kernel time,
	// including waiting for a device); unlike Trace it keeps buffer reuse on,
	// so the figures are those of a normal run.
	Profile func(n *graph.Node, d time.Duration)
	// Pool, when set, recycles float32 buffers between values whose
	// lifetimes do not overlap, within and across runs.
	Pool *Pool
	// CPUOnly runs every step with its CPU kernel (after a device loss).
	CPUOnly bool
	// DeviceLost, when set, is told that an accelerator was lost; the run
	// then starts over on the CPU.
	DeviceLost func(error)
	// KeepOnDevice names outputs returned as the accelerator's
	// tensor.Remote values when a device step produced them (the run then
	// skips the plan's download step); the caller owns and releases them.
	KeepOnDevice map[string]bool
	// Threads, when set, takes parts of the top-level steps whose kernels
	// split (op.SplittingKernel) where ThreadCost (DefaultThreadCost when
	// zero) says splitting pays; see split.go.
	Threads    Threads
	ThreadCost ThreadCost
	// SplitNote, when set with Threads, is told for each top-level step
	// whose kernel splits how it ran: in how many parts, or why whole.
	SplitNote func(step int, note string)
	// PartOutput, on a RunPart, returns a float32 buffer of n elements
	// for the part's output (the executor zeroes it), so that a worker
	// reuses one buffer from part to part instead of allocating.
	PartOutput func(n int) []float32
}

// frame is the set of live values of one plan invocation.
type frame struct {
	p      *plan.Plan
	vals   []tensor.Value
	parent *frame
}

// Run executes p. inputs holds the graph inputs by name (feeds, which may
// override overridable initializers); only the values in wanted are
// returned, and only the steps needed for them run.
func Run(ctx context.Context, p *plan.Plan, inputs map[string]tensor.Value, wanted []string, opts Options) (map[string]tensor.Value, error) {
	out, err := run(ctx, p, inputs, wanted, opts)
	if e, ok := err.(*errs.Error); ok && e.Code == errs.DeviceLost && !opts.CPUOnly {
		if opts.DeviceLost != nil {
			opts.DeviceLost(err)
		}
		opts.CPUOnly = true
		return run(ctx, p, inputs, wanted, opts)
	}
	return out, err
}

func run(ctx context.Context, p *plan.Plan, inputs map[string]tensor.Value, wanted []string, opts Options) (map[string]tensor.Value, error) {
	r := &runner{ctx: ctx, opts: opts}
	// A trace may keep the values it sees, so tracing runs recycle nothing.
	if opts.Pool != nil && opts.Trace == nil {
		r.buffers = newTracker(opts.Pool)
		r.scratch = r.buffers.scratch
		defer func() {
			for _, s := range r.scratch {
				s.forget()
			}
			r.buffers.scratch = r.scratch
			r.buffers.done()
		}()
	}
	slots := make([]int, len(wanted))
	for i, w := range wanted {
		s, ok := p.ValueSlot(w, opts.KeepOnDevice[w])
		if !ok {
			return nil, errs.New(errs.Internal, "value is not in the plan").WithTensor(w)
		}
		slots[i] = s
	}
	vals := make([]tensor.Value, p.Slots)
	copy(vals, p.Consts)
	for name, v := range inputs {
		s, ok := p.SlotOf[name]
		if !ok {
			continue // an input no step reads
		}
		vals[s] = v
		if rv, ok := v.(tensor.Remote); ok && !p.TakesDeviceFeeds {
			// A plan without an accelerator has no transfer steps: a
			// device-resident feed (another session's GPU output) is
			// downloaded here, at the run's edge, as outputs are.
			t, err := rv.Download()
			if err != nil {
				return nil, err
			}
			vals[s] = t
		} else if ok {
			// A device-resident feed stays the caller's.
			if r.fed == nil {
				r.fed = map[tensor.Remote]bool{}
			}
			r.fed[rv] = true
		}
	}
	f, err := r.run(p, vals, nil, slots)
	if err != nil {
		return nil, err
	}
	out := make(map[string]tensor.Value, len(wanted))
	for i, w := range wanted {
		v := f.vals[slots[i]]
		if v == nil {
			return nil, errs.New(errs.Internal, "value was not computed").WithTensor(w)
		}
		if rv, ok := v.(tensor.Remote); ok {
			if opts.KeepOnDevice[w] {
				f.vals[slots[i]] = nil // the caller's now
				out[w] = v
				continue
			}
			// Graph outputs a device step made come through the plan's
			// download steps; what is left is the run's edge: a value
			// with no CPU copy in the plan (a device-resident feed
			// returned as an output, an intermediate value asked for).
			t, err := rv.Download()
			if err != nil {
				return nil, err
			}
			v = t
		}
		out[w] = v
	}
	for i, v := range f.vals {
		r.release(v)
		f.vals[i] = nil
	}
	return out, nil
}

// release gives back the device memory of a value that is no longer
// needed (not the caller's feeds).
func (r *runner) release(v tensor.Value) {
	if rv, ok := v.(tensor.Remote); ok && !r.fed[rv] {
		rv.Release()
	}
}

type runner struct {
	ctx     context.Context
	opts    Options
	steps   int      // nodes run and checkpoints passed, for yield
	buffers *tracker // nil without a pool
	// scratch holds step's reusable slices and Context, one per subgraph
	// nesting depth; depth is the current one.
	scratch []*scratch
	depth   int
	// fed holds the device-resident feeds, which the run never releases.
	fed map[tensor.Remote]bool
	// index is the top-level step running (Threads name steps by it);
	// part, on a worker (RunPart), is the part its one step computes.
	index int
	part  op.Part
}

// yield gives other goroutines and the host a turn. On GOOS=js there is no
// preemption: without an explicit yield, a long run (a Loop of many small
// iterations) would starve the timers that cancel its context. The scheduler
// yield is cheap but not free, so it happens every 64 steps.
func (r *runner) yield() {
	r.steps++
	if r.steps%64 == 0 {
		schedYield()
	}
	if r.opts.Yield != nil {
		r.opts.Yield()
	}
}

func (r *runner) run(p *plan.Plan, vals []tensor.Value, parent *frame, wanted []int) (*frame, error) {
	f := &frame{p: p, vals: vals, parent: parent}
	if parent != nil {
		for _, s := range p.FreeVars {
			v, ok := parent.lookup(p.Names[s])
			if !ok {
				return nil, errs.New(errs.Internal, "subgraph %q reads %q, which its enclosing scope does not have", p.Name, p.Names[s])
			}
			f.vals[s] = v
		}
	}
	needed := p.NeededForOutputs()
	if !sameSlots(p.Outputs, wanted) {
		needed = p.Needed(wanted)
	}
	for i, st := range p.Steps {
		if !needed[i] {
			continue
		}
		if r.ctx != nil && r.ctx.Err() != nil {
			return nil, errs.New(errs.Aborted, "run aborted before node %s: %v", st.Node.Name, context.Cause(r.ctx))
		}
		r.yield()
		if parent == nil {
			r.index = i
		}
		var t0 time.Time
		if r.opts.Profile != nil {
			t0 = time.Now()
		}
		outs, err := r.step(st, f)
		if err != nil {
			return nil, err
		}
		if r.opts.Profile != nil {
			r.opts.Profile(st.Node, time.Since(t0))
		}
		for j, s := range st.Out {
			if s < 0 {
				continue
			}
			if j >= len(outs) {
				// The model lists more outputs than the op defines.
				return nil, errs.New(errs.BadModel, "%s-%d has %d outputs; the node lists %d", st.Node.OpType, st.Node.Version, len(outs), len(st.Out)).WithNode(st.Node.Name)
			}
			if outs[j] == nil {
				return nil, errs.New(errs.Internal, "kernel %s-%d produced no value for output %d (%q)", st.Node.OpType, st.Node.Version, j, p.Names[s]).WithNode(st.Node.Name)
			}
			f.vals[s] = outs[j]
			r.buffers.hold(outs[j])
		}
		if r.opts.Trace != nil && st.Transfer == plan.NoTransfer {
			r.opts.Trace(st.Node, slices.Clone(outs)) // outs is step's scratch
		}
		for _, s := range st.Free {
			r.release(f.vals[s])
			r.buffers.release(f.vals[s])
			f.vals[s] = nil
		}
	}
	return f, nil
}

// lookup finds a value by name in this frame (its own slots include the
// free variables it received from its parent).
func (f *frame) lookup(name string) (tensor.Value, bool) {
	s, ok := f.p.ValueSlot(name, false)
	if !ok || f.vals[s] == nil {
		return nil, false
	}
	return f.vals[s], true
}

func sameSlots(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// scratch is what step reuses from one step to the next: the argument and
// result slices and the kernel's Context, whose callbacks are bound once, so
// that a step allocates nothing of its own. A subgraph's steps run while the
// calling kernel still uses its scratch, so there is one per nesting depth.
type scratch struct {
	r           *runner
	st          *plan.Step
	f           *frame
	valueKernel bool
	ctx         op.Context
	ins         []tensor.Value
	tins        []*tensor.Tensor
	outs        []tensor.Value
}

// newScratch makes a scratch whose callbacks go through it to the runner
// it is lent to, so that the pool's tracker can keep it from run to run.
func (r *runner) newScratch() *scratch {
	s := &scratch{}
	s.ctx = op.Context{YieldFunc: s.yield, RunSubgraphFunc: s.runSubgraph}
	if r.buffers != nil {
		s.ctx.AllocFloat32 = s.alloc
		s.ctx.Headers = &r.buffers.headers
		s.ctx.ReuseInput = s.reuseInput
	}
	return s
}

func (s *scratch) yield()                { s.r.yield() }
func (s *scratch) alloc(n int) []float32 { return s.r.buffers.alloc(n) }

func (s *scratch) runSubgraph(sg op.Subgraph, args []tensor.Value) ([]tensor.Value, error) {
	return s.r.subgraph(sg.(*plan.Plan), args, s.f)
}

// forget drops what the scratch refers to once its run is over.
func (s *scratch) forget() {
	s.r, s.st, s.f = nil, nil, nil
	s.ctx.Ctx = nil
	s.ctx.One(nil)
	clear(s.outs)
}

// reuseInput is the Context's ReuseInput: only tensor kernels write over
// their inputs.
func (s *scratch) reuseInput(i int) bool {
	return !s.valueKernel && s.r.buffers.reusable(s.st, s.tins, i)
}

// step runs one step, converting panics to errors that name the node. The
// slice it returns is reused by the next step at the same depth.
func (r *runner) step(st *plan.Step, f *frame) (outs []tensor.Value, err error) {
	n := st.Node
	kernel := st.Kernel
	onCPU := st.Device == plan.CPU
	if !onCPU && r.opts.CPUOnly {
		kernel, onCPU = st.CPUKernel, true
	}
	if kernel == nil {
		return nil, st.Problem
	}
	if r.depth == len(r.scratch) {
		r.scratch = append(r.scratch, r.newScratch())
	}
	s := r.scratch[r.depth]
	s.r, s.st, s.f = r, st, f
	s.ctx.Ctx, s.ctx.MaxBytes, s.ctx.Part = r.ctx, r.opts.MaxTensorBytes, r.part
	ins := resize(s.ins, len(st.In))
	s.ins = ins
	for i, sl := range st.In {
		if sl < 0 {
			continue
		}
		v := f.vals[sl]
		if v == nil {
			return nil, errs.New(errs.Internal, "input %q is not available", n.Inputs[i]).WithNode(n.Name)
		}
		if st.Transfer == plan.NoTransfer {
			// Device boundaries are the plan's transfer steps: a value
			// on the wrong side is a plan without one, never copied here.
			// (A host tensor first: the interface assertion alone, which
			// fails for every CPU value, was a slow itab lookup per input.)
			_, host := v.(*tensor.Tensor)
			remote := false
			if !host {
				_, remote = v.(tensor.Remote)
			}
			if want := !onCPU && st.OnDevice[i]; remote != want {
				have, where := "the CPU", "on the CPU"
				if remote {
					have = "a device"
				}
				if want {
					where = "on " + string(st.Device)
				}
				return nil, errs.New(errs.Internal, "input %q is on %s; the step reads it %s and the plan has no transfer for it", n.Inputs[i], have, where).WithNode(n.Name)
			}
		}
		ins[i] = v
	}
	ctx := &s.ctx
	r.depth++
	defer func() {
		r.depth--
		if p := recover(); p != nil {
			outs = nil
			if e, ok := p.(*errs.Error); ok {
				err = errs.AtNode(e, n.Name)
				return
			}
			if re, ok := p.(rt.Error); ok && isMemoryError(re) {
				err = errs.New(errs.TooLarge, "out of memory: %v", p).WithNode(n.Name)
				return
			}
			err = errs.New(errs.Internal, "%s-%d panicked: %v\n%s", n.OpType, n.Version, p, debug.Stack()).WithNode(n.Name)
		}
	}()
	switch k := kernel.(type) {
	case op.ValueKernel:
		s.valueKernel = true
		outs, err = k.RunValues(ctx, ins)
		for _, v := range outs {
			r.buffers.pin(v)
		}
	case op.Kernel:
		s.valueKernel = false
		tins := resize(s.tins, len(ins))
		s.tins = tins
		for i, v := range ins {
			if v == nil {
				continue
			}
			t, ok := v.(*tensor.Tensor)
			if !ok {
				return nil, errs.New(errs.Runtime, "input %d (%q) is a %T, %s expects a tensor", i, n.Inputs[i], v, n.OpType).WithNode(n.Name)
			}
			tins[i] = t
		}
		var touts []*tensor.Tensor
		// Threads first: the interface assertion is a lookup, paid by
		// every step of a run without threads otherwise.
		if sk, ok := r.splitting(k, st, f, onCPU); ok {
			touts, err = r.runSplit(sk, ctx, st, f, tins)
		} else {
			touts, err = k.Run(ctx, tins)
		}
		outs = resize(s.outs, len(touts))
		s.outs = outs
		for i, t := range touts {
			if t != nil {
				if !isOneOf(t, tins) {
					roundHalf(t)
				}
				outs[i] = t
			}
		}
		clear(tins) // the scratch must not keep values alive
	}
	clear(ins)
	if err != nil {
		return nil, errs.AtNode(err, n.Name)
	}
	return outs, nil
}

// resize returns s with length n and every element zero, reusing its array
// when it is large enough.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// roundHalf keeps float16/bfloat16 values at their precision after an op
// computed them in float32.
func roundHalf(t *tensor.Tensor) {
	if dt := t.DType(); dt == tensor.Float16 || dt == tensor.BFloat16 {
		tensor.RoundTo(dt, t.F32())
	}
}

func isOneOf(t *tensor.Tensor, ins []*tensor.Tensor) bool {
	for _, in := range ins {
		if in == t {
			return true
		}
	}
	return false
}

func isMemoryError(e rt.Error) bool {
	return strings.Contains(e.Error(), "makeslice: len out of range") || strings.Contains(e.Error(), "makeslice: cap out of range")
}

// subgraph runs a graph attribute with positional inputs, in a frame whose
// parent is the calling node's frame. Its outputs escape to the calling
// kernel, so their buffers are never recycled.
func (r *runner) subgraph(p *plan.Plan, args []tensor.Value, parent *frame) ([]tensor.Value, error) {
	if len(args) != len(p.Inputs) {
		return nil, errs.New(errs.BadModel, "subgraph %q declares %d inputs; the op passes %d", p.Name, len(p.Inputs), len(args))
	}
	vals := make([]tensor.Value, p.Slots)
	copy(vals, p.Consts)
	for i, a := range args {
		if a != nil {
			vals[p.Inputs[i]] = a
			// The calling kernel still owns its arguments.
			r.buffers.pin(a)
		}
	}
	f, err := r.run(p, vals, parent, p.Outputs)
	if err != nil {
		return nil, err
	}
	out := make([]tensor.Value, len(p.Outputs))
	for i, s := range p.Outputs {
		out[i] = f.vals[s]
		r.buffers.pin(out[i])
	}
	return out, nil
}
