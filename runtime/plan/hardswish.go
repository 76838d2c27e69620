package plan

import (
	"github.com/gort-dev/gort/runtime/graph"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

// hardSwish replaces the chain x·Clip(x + 3, 0, 6) / 6 by one HardSwish(x)
// node, the activation the exporter wrote out (Paddle's and older PyTorch
// exports, from before opset 14 had the op). Why: four passes over the
// tensor become one, and the activation then fuses into the Conv before it
// (fuseActivations); the PP-OCR classifier has 18 such chains, a third of
// its run. HardSwish computes x·max(0, min(1, x/6 + 0.5)), which rounds
// differently from the chain (within a few ulp of x): a rewrite at the
// Extended level, as the other fusions.
//
// Every intermediate value must have its chain's next op as sole reader,
// the constants must be float32 scalars 3 and 6, and Clip's bounds 0 and 6
// (as its kernel declares them: activation).
func (c *compiler) hardSwish(w *workGraph, rep *Report) {
	reg := c.registry()
	res := reg.Resolve("", "HardSwish", 22)
	if res.Builder == nil {
		return
	}
	producer := w.producers()
	idx := w.index()
	drop := map[*graph.Node]bool{}
	plain := func(n *graph.Node, opType string) bool {
		return n != nil && !drop[n] && n.OpType == opType && n.Domain == "" && n.Builder != nil && len(n.Inputs) >= 2 && len(n.Outputs) == 1
	}
	// other returns n's input that is not name, when n reads name once
	// among exactly two inputs.
	other := func(n *graph.Node, name string) string {
		switch {
		case n.Inputs[0] == name && n.Inputs[1] != name:
			return n.Inputs[1]
		case n.Inputs[1] == name && n.Inputs[0] != name:
			return n.Inputs[0]
		}
		return ""
	}
	for _, div := range w.nodes {
		if !plain(div, "Div") || len(div.Inputs) != 2 || !w.isScalar(div.Inputs[1], 6) {
			continue
		}
		mul := producer[div.Inputs[0]]
		if !plain(mul, "Mul") || len(mul.Inputs) != 2 || w.soleReader(idx, mul.Outputs[0]) != div {
			continue
		}
		for _, clipOut := range mul.Inputs {
			clip := producer[clipOut]
			x := other(mul, clipOut)
			// Clip-6 has one input (its bounds are attributes), Clip-11 three.
			if clip == nil || drop[clip] || clip.OpType != "Clip" || clip.Domain != "" || clip.Builder == nil || len(clip.Outputs) != 1 {
				continue
			}
			if x == "" || w.dtypeOf(x) != tensor.Float || w.soleReader(idx, clipOut) != mul {
				continue
			}
			if f, ok := activation(w, clip); !ok || f.Activation != "Clip" || f.Alpha != 0 || f.Beta != 6 {
				continue
			}
			add := producer[clip.Inputs[0]]
			if !plain(add, "Add") || len(add.Inputs) != 2 || w.soleReader(idx, add.Outputs[0]) != clip {
				continue
			}
			if k := other(add, x); k == "" || !w.isScalar(k, 3) {
				continue
			}
			hs := *div
			hs.OpType, hs.Version, hs.Builder = "HardSwish", res.Version, res.Builder
			hs.Attrs = map[string]*pb.AttributeProto{}
			hs.Inputs = []string{x}
			hs.Reads = []string{x}
			w.replace(div, &hs)
			for _, n := range []*graph.Node{add, clip, mul} {
				drop[n] = true
			}
			rep.Fused = append(rep.Fused, add.Name+"+"+clip.Name+"+"+mul.Name+"+"+div.Name+" (x·Clip(x+3, 0, 6)/6 as HardSwish)")
			break
		}
	}
	w.remove(drop)
}

// isScalar reports whether name is a float32 constant of one element equal
// to v.
func (w *workGraph) isScalar(name string, v float32) bool {
	t := w.constTensor(name)
	return t != nil && t.DType() == tensor.Float && t.Len() == 1 && t.F32()[0] == v
}
