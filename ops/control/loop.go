package control

import (
	"slices"

	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Loop's versions differ in the value types loop-carried dependencies may
// have (sequences from 13, optionals from 16, new element types later) and in
// Loop-1 requiring at least one loop-carried value; the iteration semantics
// are the same, so one kernel serves all of them.
func init() {
	op.Register("Loop", []int{1, 11, 13, 16, 19, 21, 23, 24, 25}, buildLoop)
	shapes.Register("", "Loop", inferLoop)
	shapes.RegisterBody("", "Loop", loopBody)
}

func buildLoop(n *op.Node) (any, error) {
	body := n.Graph("body")
	if body == nil {
		return nil, n.Errorf("Loop needs the graph attribute body")
	}
	nBodyIn, nBodyOut := len(body.InputNames()), len(body.OutputNames())
	nState := nBodyIn - 2
	nScan := nBodyOut - 1 - nState
	if nState < 0 || nScan < 0 {
		return nil, n.Errorf("Loop body has %d inputs and %d outputs; it needs 2+N inputs (iteration, cond, N states) and 1+N+K outputs", nBodyIn, nBodyOut)
	}
	if got := len(n.Inputs) - 2; got != nState && !(got < 0 && nState == 0) {
		return nil, n.Errorf("Loop has %d initial values but its body carries %d", max(got, 0), nState)
	}
	if len(n.Outputs) > nState+nScan {
		return nil, n.Errorf("Loop has %d outputs but its body yields %d states and %d scan outputs", len(n.Outputs), nState, nScan)
	}
	l := &loop{n: n, body: body, nState: nState, nScan: nScan}
	return valueKernel(l.run), nil
}

type loop struct {
	n             *op.Node
	body          op.Subgraph
	nState, nScan int
}

func (l *loop) run(ctx *op.Context, in []tensor.Value) ([]tensor.Value, error) {
	maxTrip := int64(-1) // no trip count
	if len(in) > 0 && in[0] != nil {
		m, err := intScalar(in[0], "trip count M")
		if err != nil {
			return nil, err
		}
		maxTrip = max(m, 0)
	}
	hasCond := len(in) > 1 && in[1] != nil
	cond := true
	if hasCond {
		c, err := boolScalar(in[1], "cond")
		if err != nil {
			return nil, err
		}
		cond = c
	}
	state := make([]tensor.Value, l.nState)
	for j := range state {
		if 2+j >= len(in) || in[2+j] == nil {
			return nil, op.Errorf("loop-carried input %d is missing", j)
		}
		state[j] = in[2+j]
	}
	scans := make([][]*tensor.Tensor, l.nScan)
	args := make([]tensor.Value, 2+l.nState)
	for i := int64(0); (maxTrip < 0 || i < maxTrip) && cond; i++ {
		// The body checks cancellation between its nodes too, but an empty
		// body (pure pass-through) would not, so check here as well.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		args[0] = tensor.Scalar(i)
		args[1] = tensor.Scalar(cond)
		copy(args[2:], state)
		outs, err := ctx.RunSubgraph(l.body, args)
		if err != nil {
			return nil, err
		}
		if err := checkOutputs(outs, 1+l.nState+l.nScan, "the Loop body"); err != nil {
			return nil, err
		}
		// Without a cond input the body's condition output is ignored (spec:
		// a for loop, or an endless loop when M is omitted too).
		if hasCond {
			if cond, err = boolScalar(outs[0], "the body's condition output"); err != nil {
				return nil, err
			}
		}
		copy(state, outs[1:1+l.nState])
		for k := range scans {
			t, err := asTensor(outs[1+l.nState+k], "scan output "+itoa(k))
			if err != nil {
				return nil, err
			}
			if len(scans[k]) > 0 {
				if f := scans[k][0]; !slices.Equal(f.Shape(), t.Shape()) || f.DType() != t.DType() {
					return nil, op.Errorf("scan output %d is %s%v in iteration %d but %s%v in iteration 0", k, t.DType(), t.Shape(), i, f.DType(), f.Shape())
				}
			}
			scans[k] = append(scans[k], t)
			// Refuse growth past the budget now rather than after a long loop.
			if _, err := ctx.CheckShape(t.DType(), []int{len(scans[k]), t.Len()}); err != nil {
				return nil, err
			}
		}
	}
	res := make([]tensor.Value, l.nState+l.nScan)
	copy(res, state)
	for k, items := range scans {
		if !l.n.HasOutput(l.nState + k) {
			continue // not requested: skip the copy
		}
		if len(items) == 0 {
			res[l.nState+k] = emptyStacked(ctx, declaredOutput(l.body, 1+l.nState+k), 0)
			continue
		}
		t, err := stack(ctx, items, 0, nil)
		if err != nil {
			return nil, err
		}
		res[l.nState+k] = t
	}
	return res, nil
}

// loopBody types the body's inputs: the iteration number (int64 scalar),
// the condition (bool scalar), then the loop-carried values as given.
func loopBody(c *shapes.Ctx, attr string, n int) []graph.Type {
	if attr != "body" {
		return nil
	}
	scalar := func(dt tensor.DType) graph.Type {
		return graph.Type{Kind: graph.KindTensor, Elem: dt, Shape: []graph.Dim{}}
	}
	ts := make([]graph.Type, n)
	for i := range ts {
		switch i {
		case 0:
			ts[i] = scalar(tensor.Int64)
		case 1:
			ts[i] = scalar(tensor.Bool)
		default:
			if x := c.Input(i); x != nil {
				ts[i] = x.Type
			}
		}
	}
	return ts
}

// inferLoop: loop-carried outputs are what the initial values and the
// body agree on; scan outputs stack the body's per-iteration values.
func inferLoop(c *shapes.Ctx) {
	nCarried := c.NumIn() - 2
	iters := shapes.Unknown()
	if m, ok := c.Ints(0); ok && len(m) == 1 && !c.Has(1) {
		iters = shapes.Known(m[0])
	}
	for i := range c.NumOut() {
		b := c.Body("body", i+1)
		if b == nil {
			continue
		}
		if c.Out(i) != nil && c.Out(i).Type.Kind == graph.KindUnknown {
			c.Out(i).Type = graph.Type{Kind: b.Type.Kind, Elem: b.Type.Elem, Inner: b.Type.Inner}
		}
		if b.Type.Kind != graph.KindTensor {
			continue
		}
		if i < nCarried {
			// A carried value may change shape between iterations: keep
			// what the initial value and the body's result agree on.
			var init []graph.Dim
			if x := c.Input(i + 2); x != nil {
				init = x.Type.Shape
			}
			c.Set(i, shapes.Merge(init, b.Type.Shape), "the loop-carried value changes rank")
			continue
		}
		if b.Type.Shape != nil {
			c.Set(i, append([]graph.Dim{iters}, b.Type.Shape...), "")
		}
	}
}
