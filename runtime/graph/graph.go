// Package graph turns model bytes into an immutable, validated graph: values
// are resolved to producers, nodes are ordered topologically, model-local
// functions are inlined and each node knows the builder of its kernel. The
// plan stage (package plan) compiles a graph into something executable.
package graph

import (
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"sync"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Node is one executable node.
type Node struct {
	op.Node
	// Builder makes the node's kernel (the plan stage calls it, once the
	// node's constant inputs and fusions are known); nil when the op is unsupported.
	Builder op.Builder
	// Problem explains why Builder is nil (an *errs.Error with code UnsupportedOp or BadModel).
	Problem error
	// Reads lists every value the node needs: its inputs plus the values its
	// subgraphs take from enclosing scopes.
	Reads []string
}

// Graph is a validated graph (the main graph or a subgraph).
type Graph struct {
	Name string
	// Inputs are the declared graph inputs in order, including initializers
	// that IR-3 style models also list as inputs.
	Inputs  []ValueInfo
	Outputs []ValueInfo
	// Initializers are constant values. Those also listed in Inputs may be
	// overridden by a feed (for the main graph).
	Initializers map[string]*tensor.Tensor
	// Nodes in execution order.
	Nodes []*Node
	// FreeVars are the names this graph reads from enclosing scopes.
	FreeVars []string
	// Declared holds the value_info types, for printing and checks.
	Declared map[string]Type

	neededOnce sync.Once
	neededAll  []bool
}

// Needed marks the nodes that contribute to the wanted values, so that
// neither unrequested outputs nor dead nodes (which feed no output) run.
func (g *Graph) Needed(wanted []string) []bool {
	need := make(map[string]bool, len(wanted))
	for _, w := range wanted {
		need[w] = true
	}
	mark := make([]bool, len(g.Nodes))
	for i := len(g.Nodes) - 1; i >= 0; i-- {
		n := g.Nodes[i]
		for _, o := range n.Outputs {
			if need[o] {
				mark[i] = true
				break
			}
		}
		if mark[i] {
			for _, in := range n.Reads {
				need[in] = true
			}
		}
	}
	return mark
}

// NeededForOutputs is Needed for all graph outputs, computed once: a Loop
// body runs it on every iteration.
func (g *Graph) NeededForOutputs() []bool {
	g.neededOnce.Do(func() { g.neededAll = g.Needed(g.OutputNames()) })
	return g.neededAll
}

// InputNames implements op.Subgraph.
func (g *Graph) InputNames() []string {
	out := make([]string, len(g.Inputs))
	for i, v := range g.Inputs {
		out[i] = v.Name
	}
	return out
}

// OutputNames implements op.Subgraph.
func (g *Graph) OutputNames() []string {
	out := make([]string, len(g.Outputs))
	for i, v := range g.Outputs {
		out[i] = v.Name
	}
	return out
}

// Model is a loaded model.
type Model struct {
	// Proto is the decoded model the graph was built from (read-only), for
	// analyses that work on the model as written (shape inference, checks).
	Proto           *pb.ModelProto
	IRVersion       int64
	Opsets          map[string]int // canonical domain → version
	ProducerName    string
	ProducerVersion string
	Doc             string
	Metadata        map[string]string
	Graph           *Graph
}

// Unsupported lists the nodes (main graph and subgraphs) that cannot run,
// each with its problem.
func (m *Model) Unsupported() []*Node {
	var out []*Node
	var walk func(g *Graph)
	walk = func(g *Graph) {
		for _, n := range g.Nodes {
			if n.Problem != nil {
				out = append(out, n)
			}
			for _, subs := range n.Graphs {
				for _, s := range subs {
					walk(s.(*Graph))
				}
			}
		}
	}
	walk(m.Graph)
	return out
}
