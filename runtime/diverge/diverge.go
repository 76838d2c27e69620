// Package diverge finds where two runs of a model part ways: it records every
// node's outputs (through the executor's trace) and names the first node, in
// execution (topological) order, whose output differs from a reference
// beyond tolerance, with the comparison of that output and whether the
// node's inputs still agreed (so the node itself, not its inputs, went wrong).
//
// The reference is another run (another registry or backend, optimisation
// off against on) or per-node reference outputs, e.g. a folder of .npy files
// dumped from onnxruntime or PyTorch.
package diverge

import (
	"context"

	"github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/compare"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Step is one node execution.
type Step struct {
	Node    string
	Op      string
	Inputs  []string
	Outputs []string
}

// Run is a recorded run: the steps in execution order and every value
// (feeds included) by name. Values produced more than once (inside Loop or
// Scan bodies) are in Repeated and not compared.
type Run struct {
	Steps    []Step
	Values   map[string]tensor.Value
	Repeated map[string]bool
	Outputs  map[string]tensor.Value
}

// Record runs a session on feeds, keeping every node's outputs.
func Record(ctx context.Context, s *runtime.Session, feeds map[string]tensor.Value) (*Run, error) {
	r := &Run{Values: map[string]tensor.Value{}, Repeated: map[string]bool{}}
	for k, v := range feeds {
		r.Values[k] = v
	}
	out, err := s.RunWith(ctx, feeds, nil, runtime.RunOptions{Trace: func(n *graph.Node, outs []tensor.Value) {
		r.Steps = append(r.Steps, Step{Node: n.Name, Op: n.OpType, Inputs: n.Inputs, Outputs: n.Outputs})
		for i, v := range outs {
			if i >= len(n.Outputs) || n.Outputs[i] == "" {
				continue
			}
			name := n.Outputs[i]
			if _, seen := r.Values[name]; seen {
				r.Repeated[name] = true
			}
			r.Values[name] = v
		}
	}})
	if err != nil {
		return r, err
	}
	r.Outputs = out
	return r, nil
}

// OutputComparison is one compared output of a node.
type OutputComparison struct {
	Name  string        `json:"name"`
	Stats compare.Stats `json:"stats"`
}

// Divergence names the first node whose outputs differ.
type Divergence struct {
	Node  string `json:"node"`
	Op    string `json:"op"`
	Index int    `json:"index"` // position in execution order
	// Outputs compares each of the node's outputs that has a reference.
	Outputs []OutputComparison `json:"outputs"`
	// InputsAgreed is true when every input with a reference matched it:
	// the node itself computed differently.
	InputsAgreed bool `json:"inputsAgreed"`
	// InputNotes lists inputs that differ or have no reference.
	InputNotes []string `json:"inputNotes,omitempty"`
}

// Summary counts what First compared.
type Summary struct {
	Steps    int `json:"steps"`
	Compared int `json:"compared"` // values with a reference
	Skipped  int `json:"skipped"`  // values without a reference, repeated or not tensors
}

// First walks got's steps in order and returns the first node with an output
// that differs from ref beyond tol (nil when none does).
func First(got *Run, ref map[string]tensor.Value, tol compare.Tolerance) (*Divergence, Summary) {
	var sum Summary
	sum.Steps = len(got.Steps)
	for i, st := range got.Steps {
		var outs []OutputComparison
		bad := false
		for _, o := range st.Outputs {
			g, w, ok := pair(got, ref, o)
			if !ok {
				if o != "" {
					sum.Skipped++
				}
				continue
			}
			sum.Compared++
			s := compare.TensorStats(g, w, tol)
			outs = append(outs, OutputComparison{Name: o, Stats: s})
			bad = bad || !s.Pass
		}
		if !bad {
			continue
		}
		d := &Divergence{Node: st.Node, Op: st.Op, Index: i, Outputs: outs, InputsAgreed: true}
		for _, in := range st.Inputs {
			if in == "" {
				continue
			}
			g, w, ok := pair(got, ref, in)
			if !ok {
				d.InputNotes = append(d.InputNotes, in+": no reference")
				continue
			}
			if s := compare.TensorStats(g, w, tol); !s.Pass {
				d.InputsAgreed = false
				d.InputNotes = append(d.InputNotes, in+": differs")
			}
		}
		return d, sum
	}
	return nil, sum
}

func pair(got *Run, ref map[string]tensor.Value, name string) (*tensor.Tensor, *tensor.Tensor, bool) {
	if name == "" || got.Repeated[name] {
		return nil, nil, false
	}
	g, ok1 := got.Values[name].(*tensor.Tensor)
	w, ok2 := ref[name].(*tensor.Tensor)
	return g, w, ok1 && ok2 && g != nil && w != nil
}

// Sessions runs two sessions of one model (say, with optimisation off and
// on, or with two registries) on the same feeds and returns the first node
// of a where b differs; the values of b are the reference.
func Sessions(ctx context.Context, a, b *runtime.Session, feeds map[string]tensor.Value, tol compare.Tolerance) (*Divergence, Summary, error) {
	ra, err := Record(ctx, a, feeds)
	if err != nil {
		return nil, Summary{}, err
	}
	rb, err := Record(ctx, b, feeds)
	if err != nil {
		return nil, Summary{}, err
	}
	ref := map[string]tensor.Value{}
	for k, v := range rb.Values {
		if !rb.Repeated[k] {
			ref[k] = v
		}
	}
	d, s := First(ra, ref, tol)
	return d, s, nil
}
