package control

import (
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// If's versions differ only in the value types they allow (sequences from 13,
// optionals from 16, new element types later); values pass through untouched,
// so one kernel serves all of them.
func init() {
	op.Register("If", []int{1, 11, 13, 16, 19, 21, 23, 24, 25}, buildIf)
	shapes.Register("", "If", inferIf)
}

func buildIf(n *op.Node) (any, error) {
	thenG, elseG := n.Graph("then_branch"), n.Graph("else_branch")
	if thenG == nil || elseG == nil {
		return nil, n.Errorf("If needs graph attributes then_branch and else_branch")
	}
	nOut := len(n.Outputs)
	for _, g := range []op.Subgraph{thenG, elseG} {
		if len(g.OutputNames()) != nOut {
			return nil, n.Errorf("If has %d outputs but a branch has %d", nOut, len(g.OutputNames()))
		}
	}
	return valueKernel(func(ctx *op.Context, in []tensor.Value) ([]tensor.Value, error) {
		if len(in) < 1 {
			return nil, op.Errorf("If needs the cond input")
		}
		c, err := boolScalar(in[0], "cond")
		if err != nil {
			return nil, err
		}
		g := elseG
		if c {
			g = thenG
		}
		outs, err := ctx.RunSubgraph(g, nil)
		if err != nil {
			return nil, err
		}
		if err := checkOutputs(outs, nOut, "the If branch"); err != nil {
			return nil, err
		}
		return outs[:nOut], nil
	}), nil
}

// inferIf: each output is what the two branches agree on.
func inferIf(c *shapes.Ctx) {
	for i := range c.NumOut() {
		t, e := c.Body("then_branch", i), c.Body("else_branch", i)
		if t == nil || e == nil {
			continue
		}
		if i < c.NumOut() && c.Out(i) != nil && c.Out(i).Type.Kind == graph.KindUnknown {
			c.Out(i).Type = graph.Type{Kind: t.Type.Kind, Elem: t.Type.Elem, Inner: t.Type.Inner}
		}
		if t.Type.Kind == graph.KindTensor {
			c.Set(i, shapes.Merge(t.Type.Shape, e.Type.Shape), "the branches' shapes differ in rank or are unknown")
		}
	}
}
