// Package op defines what an operator implementation sees: the node it was
// built for (with attributes parsed once, at load), the Context of a run, and
// the registry that maps (domain, op_type, since_version) to a builder.
//
// Operators live in package ops and register themselves in init functions.
package op

import (
	"fmt"

	"github.com/gort-dev/gort/runtime/errs"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Subgraph is a graph attribute (If branches, Loop/Scan bodies) made
// executable by the loader. Kernels run it through Context.RunSubgraph.
type Subgraph interface {
	InputNames() []string
	OutputNames() []string
}

// Node is the static description of one node, handed to a Builder.
type Node struct {
	Name    string // the node's name, or "OpType#index" when the model left it empty
	OpType  string
	Domain  string // "" for the default domain
	Inputs  []string
	Outputs []string
	// Version is the since_version of the implementation chosen for the model's opset.
	Version int
	// Opset is the model's opset for the node's domain.
	Opset int
	Attrs map[string]*pb.AttributeProto
	// Graphs holds the executable subgraphs of GRAPH/GRAPHS attributes.
	Graphs map[string][]Subgraph
	// MaxBytes is the session's memory budget, for attribute tensors.
	MaxBytes int64
	// Consts holds, per input, its value when it is constant for the session
	// (see ConstInput); nil entries (or a short slice) mean "not constant".
	Consts []*tensor.Tensor
	// Fused, when set, is the epilogue the plan stage fused into this node;
	// a builder that cannot honour it must return an error.
	Fused *Fusion
}

// NumInputs is the number of input slots (trailing omitted ones not counted).
func (n *Node) NumInputs() int { return len(n.Inputs) }

// HasInput reports whether input i is given (present and not the empty name).
func (n *Node) HasInput(i int) bool { return i < len(n.Inputs) && n.Inputs[i] != "" }

// HasOutput reports whether output i is requested.
func (n *Node) HasOutput(i int) bool { return i < len(n.Outputs) && n.Outputs[i] != "" }

// Has reports whether the attribute is set.
func (n *Node) Has(name string) bool { _, ok := n.Attrs[name]; return ok }

// Errorf returns a BadModel error about this node (for builders).
func (n *Node) Errorf(format string, args ...any) error {
	return &errs.Error{Code: errs.BadModel, Node: n.Name, Msg: fmt.Sprintf(format, args...)}
}

func (n *Node) attr(name string, want pb.AttributeProto_AttributeType) (*pb.AttributeProto, error) {
	a, ok := n.Attrs[name]
	if !ok {
		return nil, nil
	}
	if a.GetType() != want && a.GetType() != pb.AttributeProto_UNDEFINED {
		return nil, n.Errorf("attribute %s is %s, expected %s", name, a.GetType(), want)
	}
	return a, nil
}

// Int returns an INT attribute or def when absent.
func (n *Node) Int(name string, def int64) (int64, error) {
	a, err := n.attr(name, pb.AttributeProto_INT)
	if a == nil || err != nil {
		return def, err
	}
	return a.GetI(), nil
}

// Float returns a FLOAT attribute or def when absent.
func (n *Node) Float(name string, def float32) (float32, error) {
	a, err := n.attr(name, pb.AttributeProto_FLOAT)
	if a == nil || err != nil {
		return def, err
	}
	return a.GetF(), nil
}

// String returns a STRING attribute or def when absent.
func (n *Node) String(name string, def string) (string, error) {
	a, err := n.attr(name, pb.AttributeProto_STRING)
	if a == nil || err != nil {
		return def, err
	}
	return string(a.GetS()), nil
}

// Ints returns an INTS attribute (nil, false when absent).
func (n *Node) Ints(name string) ([]int64, bool, error) {
	a, err := n.attr(name, pb.AttributeProto_INTS)
	if a == nil || err != nil {
		return nil, false, err
	}
	return a.GetInts(), true, nil
}

// Floats returns a FLOATS attribute (nil, false when absent).
func (n *Node) Floats(name string) ([]float32, bool, error) {
	a, err := n.attr(name, pb.AttributeProto_FLOATS)
	if a == nil || err != nil {
		return nil, false, err
	}
	return a.GetFloats(), true, nil
}

// Strings returns a STRINGS attribute (nil, false when absent).
func (n *Node) Strings(name string) ([]string, bool, error) {
	a, err := n.attr(name, pb.AttributeProto_STRINGS)
	if a == nil || err != nil {
		return nil, false, err
	}
	out := make([]string, len(a.GetStrings()))
	for i, s := range a.GetStrings() {
		out[i] = string(s)
	}
	return out, true, nil
}

// Tensor returns a TENSOR attribute decoded (nil when absent).
func (n *Node) Tensor(name string) (*tensor.Tensor, error) {
	a, err := n.attr(name, pb.AttributeProto_TENSOR)
	if a == nil || err != nil {
		return nil, err
	}
	t, err := protoconv.Tensor(a.GetT(), n.MaxBytes)
	if err != nil {
		return nil, errs.AtNode(err, n.Name)
	}
	return t, nil
}

// Graph returns the executable subgraph of a GRAPH attribute (nil when absent).
func (n *Node) Graph(name string) Subgraph {
	if g := n.Graphs[name]; len(g) == 1 {
		return g[0]
	}
	return nil
}

// Attribs is a convenience collector: it reads attributes and remembers the
// first error, so builders can read many attributes and check once.
type Attribs struct {
	N   *Node
	Err error
}

func (a *Attribs) keep(err error) {
	if a.Err == nil {
		a.Err = err
	}
}

func (a *Attribs) Int(name string, def int64) int64 {
	v, err := a.N.Int(name, def)
	a.keep(err)
	return v
}

func (a *Attribs) Float(name string, def float32) float32 {
	v, err := a.N.Float(name, def)
	a.keep(err)
	return v
}

func (a *Attribs) String(name, def string) string {
	v, err := a.N.String(name, def)
	a.keep(err)
	return v
}

func (a *Attribs) Ints(name string) []int64 {
	v, _, err := a.N.Ints(name)
	a.keep(err)
	return v
}

func (a *Attribs) Floats(name string) []float32 {
	v, _, err := a.N.Floats(name)
	a.keep(err)
	return v
}

func (a *Attribs) Strings(name string) []string {
	v, _, err := a.N.Strings(name)
	a.keep(err)
	return v
}

func (a *Attribs) Tensor(name string) *tensor.Tensor {
	v, err := a.N.Tensor(name)
	a.keep(err)
	return v
}
