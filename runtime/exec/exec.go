// Package exec runs a loaded graph: nodes in the loader's topological order,
// each value dropped after its last reader, subgraphs (If/Loop/Scan bodies)
// run with the values of their enclosing scopes visible.
package exec

import (
	"context"
	rt "runtime"
	"runtime/debug"
	"strings"

	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
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
}

// scope is the set of live values of one graph invocation.
type scope struct {
	vals   map[string]tensor.Value
	consts map[string]*tensor.Tensor // the graph's initializers (read-only)
	parent *scope
}

func (s *scope) get(name string) (tensor.Value, bool) {
	for c := s; c != nil; c = c.parent {
		if v, ok := c.vals[name]; ok {
			return v, true
		}
		if t, ok := c.consts[name]; ok {
			return t, true
		}
	}
	return nil, false
}

// Run executes g. inputs holds the graph inputs by name (for the main graph,
// feeds merged with initializers by the caller); only the values in wanted
// are returned, and only the nodes needed for them run.
func Run(ctx context.Context, g *graph.Graph, inputs map[string]tensor.Value, wanted []string, opts Options) (map[string]tensor.Value, error) {
	r := &runner{ctx: ctx, opts: opts}
	return r.run(g, inputs, nil, wanted)
}

type runner struct {
	ctx   context.Context
	opts  Options
	steps int // nodes run and checkpoints passed, for yieldNow
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

func (r *runner) run(g *graph.Graph, inputs map[string]tensor.Value, parent *scope, wanted []string) (map[string]tensor.Value, error) {
	// Initializers are looked up in the graph, not copied into the scope: a
	// Loop body's scope is rebuilt on every iteration. Feeds and computed
	// values (in vals) take precedence over them.
	s := &scope{vals: make(map[string]tensor.Value, len(inputs)), consts: g.Initializers, parent: parent}
	for k, v := range inputs {
		s.vals[k] = v
	}
	needed := g.NeededForOutputs()
	if !allOutputs(g, wanted) {
		needed = g.Needed(wanted)
	}
	for i, n := range g.Nodes {
		if !needed[i] {
			continue
		}
		if r.ctx != nil && r.ctx.Err() != nil {
			return nil, errs.New(errs.Aborted, "run aborted before node %s: %v", n.Name, context.Cause(r.ctx))
		}
		r.yield()
		outs, err := r.node(n, s)
		if err != nil {
			return nil, err
		}
		for j, name := range n.Outputs {
			if name == "" {
				continue
			}
			if j >= len(outs) {
				// The model lists more outputs than the op defines.
				return nil, errs.New(errs.BadModel, "%s-%d has %d outputs; the node lists %d", n.OpType, n.Version, len(outs), len(n.Outputs)).WithNode(n.Name)
			}
			if outs[j] == nil {
				return nil, errs.New(errs.Internal, "kernel %s-%d produced no value for output %d (%q)", n.OpType, n.Version, j, name).WithNode(n.Name)
			}
			s.vals[name] = outs[j]
		}
		if r.opts.Trace != nil {
			r.opts.Trace(n, outs)
		}
		for _, name := range n.FreeAfter {
			delete(s.vals, name)
		}
	}
	out := make(map[string]tensor.Value, len(wanted))
	for _, w := range wanted {
		v, ok := s.get(w)
		if !ok {
			return nil, errs.New(errs.Internal, "value was not computed").WithTensor(w)
		}
		out[w] = v
	}
	return out, nil
}

// allOutputs reports whether wanted is exactly the graph's outputs in order
// (every subgraph call, and a Run without output selection).
func allOutputs(g *graph.Graph, wanted []string) bool {
	if len(wanted) != len(g.Outputs) {
		return false
	}
	for i, w := range wanted {
		if g.Outputs[i].Name != w {
			return false
		}
	}
	return true
}

// node runs one node, converting panics to errors that name the node.
func (r *runner) node(n *graph.Node, s *scope) (outs []tensor.Value, err error) {
	if n.Kernel == nil {
		return nil, n.Problem
	}
	ins := make([]tensor.Value, len(n.Inputs))
	for i, name := range n.Inputs {
		if name == "" {
			continue
		}
		v, ok := s.get(name)
		if !ok {
			return nil, errs.New(errs.Internal, "input %q is not available", name).WithNode(n.Name)
		}
		ins[i] = v
	}
	ctx := &op.Context{
		Ctx:       r.ctx,
		MaxBytes:  r.opts.MaxTensorBytes,
		YieldFunc: r.yield,
		RunSubgraphFunc: func(sg op.Subgraph, args []tensor.Value) ([]tensor.Value, error) {
			return r.subgraph(sg.(*graph.Graph), args, s)
		},
	}
	defer func() {
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
	switch k := n.Kernel.(type) {
	case op.ValueKernel:
		outs, err = k.RunValues(ctx, ins)
	case op.Kernel:
		tins := make([]*tensor.Tensor, len(ins))
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
		touts, err = k.Run(ctx, tins)
		outs = make([]tensor.Value, len(touts))
		for i, t := range touts {
			if t != nil {
				if !isOneOf(t, tins) {
					roundHalf(t)
				}
				outs[i] = t
			}
		}
	}
	if err != nil {
		return nil, errs.AtNode(err, n.Name)
	}
	return outs, nil
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

// subgraph runs a graph attribute with positional inputs, in a scope whose
// parent is the calling node's scope.
func (r *runner) subgraph(g *graph.Graph, args []tensor.Value, parent *scope) ([]tensor.Value, error) {
	if len(args) != len(g.Inputs) {
		return nil, errs.New(errs.BadModel, "subgraph %q declares %d inputs; the op passes %d", g.Name, len(g.Inputs), len(args))
	}
	ins := make(map[string]tensor.Value, len(args))
	for i, a := range args {
		if a != nil {
			ins[g.Inputs[i].Name] = a
		}
	}
	names := g.OutputNames()
	res, err := r.run(g, ins, parent, names)
	if err != nil {
		return nil, err
	}
	out := make([]tensor.Value, len(names))
	for i, nm := range names {
		out[i] = res[nm]
	}
	return out, nil
}
