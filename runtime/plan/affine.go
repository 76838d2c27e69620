package plan

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gort-dev/gort/runtime/graph"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Per-channel affine rewrites. Caffe2 exports (DenseNet-121, Inception v2
// of the ONNX model zoo) follow every BatchNormalization with a Mul and an
// Add by constant [C,1,1] tensors, then a Relu: four passes over the
// activations where one does. foldChannelAffine folds the Mul/Add chain
// into the Conv or BatchNormalization before it (after which the Conv's
// Relu fuses as usual), and fuseBatchNormActivation runs the activation
// in the BatchNormalization kernel: DenseNet's pre-activation blocks
// (Concat → BatchNormalization → Relu → Conv) cannot fold the affine into
// a Conv, since the Relu sits between.

// foldChannelAffine folds a chain of Mul and Add nodes by per-channel
// float32 constants into the Conv (weights and bias) or inference
// BatchNormalization (its parameters) that feeds it. The combined
// y = x·s + shift is computed in float64 and rounded once, as
// foldBatchNorm does; a BatchNormalization becomes one with scale s,
// B shift, mean 0, var 1 and epsilon 0, whose kernel factor is then s
// exactly.
func (c *compiler) foldChannelAffine(w *workGraph, rep *Report) {
	drop := map[*graph.Node]bool{}
	idx := w.index()
	for _, p := range w.nodes {
		if drop[p] || p.Builder == nil || p.Domain != "" || p.Fused != nil || len(p.Outputs) != 1 {
			continue
		}
		s, shift, ok := channelAffine(w, p)
		if !ok {
			continue
		}
		out := p.Outputs[0]
		shape, ok := w.shapeOf(out)
		if !ok || len(shape) < 2 || !shape[1].Known() || shape[1].Value != int64(len(s)) {
			continue
		}
		var absorbed []*graph.Node
		for {
			n := w.soleReader(idx, out)
			if n == nil || n.Builder == nil || n.Domain != "" || (n.OpType != "Mul" && n.OpType != "Add") ||
				n.Version < 7 || len(n.Inputs) != 2 || len(n.Outputs) != 1 || !w.sameKnownShape(out, n.Outputs[0]) {
				break
			}
			other := n.Inputs[1]
			if other == out {
				other = n.Inputs[0]
			}
			k, ok := channelConst(w.constTensor(other), len(shape), len(s))
			if !ok {
				break
			}
			for ch := range s {
				if n.OpType == "Mul" {
					s[ch] *= k(ch)
					shift[ch] *= k(ch)
				} else {
					shift[ch] += k(ch)
				}
			}
			absorbed = append(absorbed, n)
			out = n.Outputs[0]
		}
		if len(absorbed) == 0 {
			continue
		}
		merged := *p
		merged.Outputs = []string{out}
		if p.OpType == "Conv" {
			wt := w.constTensor(p.Inputs[1])
			nw := tensor.New(tensor.Float, wt.Shape()...)
			per := wt.Len() / len(s)
			for i, v := range wt.F32() {
				nw.F32()[i] = float32(float64(v) * s[i/per])
			}
			merged.Inputs = append([]string{p.Inputs[0]}, w.addConsts(rep, p.Name, []string{"W_affine", "B_affine"}, nw, floats32(shift))...)
		} else {
			ones, zeros := make([]float64, len(s)), make([]float64, len(s))
			for i := range ones {
				ones[i] = 1
			}
			merged.Inputs = append([]string{p.Inputs[0]}, w.addConsts(rep, p.Name, []string{"scale_affine", "B_affine", "mean_affine", "var_affine"},
				floats32(s), floats32(shift), floats32(zeros), floats32(ones))...)
			merged.Attrs = maps.Clone(p.Attrs)
			if merged.Attrs == nil {
				merged.Attrs = map[string]*pb.AttributeProto{}
			}
			merged.Attrs["epsilon"] = &pb.AttributeProto{Name: "epsilon", Type: pb.AttributeProto_FLOAT, F: 0}
		}
		merged.Reads = replaceUnique(slices.Clone(merged.Inputs), "", "")
		w.replace(p, &merged)
		names := []string{p.Name}
		for _, n := range absorbed {
			drop[n] = true
			names = append(names, n.Name)
		}
		rep.Fused = append(rep.Fused, fmt.Sprintf("%s (per-channel Mul/Add folded into %s)", strings.Join(names, "+"), p.OpType))
	}
	w.remove(drop)
}

// channelAffine returns p's output as x·s + shift per output channel when
// p is a Conv with constant float32 weights (and bias) or an inference
// BatchNormalization with constant float32 parameters: for a Conv, s is 1
// and shift the bias, standing for what the weights already compute.
func channelAffine(w *workGraph, p *graph.Node) (s, shift []float64, ok bool) {
	switch p.OpType {
	case "BatchNormalization":
		return bnAffine(w, p)
	case "Conv":
		if len(p.Inputs) < 2 || len(p.Inputs) > 3 {
			return nil, nil, false
		}
		wt := w.constTensor(p.Inputs[1])
		if wt == nil || wt.DType() != tensor.Float || wt.Rank() < 3 || wt.Shape()[0] == 0 {
			return nil, nil, false
		}
		M := wt.Shape()[0]
		s, shift = make([]float64, M), make([]float64, M)
		for m := range s {
			s[m] = 1
		}
		if p.HasInput(2) {
			b := w.constTensor(p.Inputs[2])
			if b == nil || b.DType() != tensor.Float || b.Len() != M {
				return nil, nil, false
			}
			for m, v := range b.F32() {
				shift[m] = float64(v)
			}
		}
		return s, shift, true
	}
	return nil, nil, false
}

// channelConst reads t as a per-channel operand of a rank-r value with C
// channels (axis 1): float32, rank ≤ r, every broadcast dim 1 but the
// channel axis, which may be C. k(c) is channel c's value.
func channelConst(t *tensor.Tensor, r, C int) (k func(int) float64, ok bool) {
	if t == nil || t.DType() != tensor.Float || t.Rank() > r {
		return nil, false
	}
	perChannel := false
	for j, d := range t.Shape() {
		axis := r - t.Rank() + j
		switch {
		case d == 1:
		case axis == 1 && d == C:
			perChannel = true
		default:
			return nil, false
		}
	}
	v := t.F32()
	if perChannel {
		return func(c int) float64 { return float64(v[c]) }, true
	}
	return func(int) float64 { return float64(v[0]) }, true
}

// addConsts registers new constants under fresh names derived from base
// and the suffixes, and returns the names.
func (w *workGraph) addConsts(rep *Report, base string, suffixes []string, ts ...*tensor.Tensor) []string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = w.freshName(base + "/" + suffixes[i])
		w.consts[names[i]] = t
		w.foldedSet[t] = true
		rep.FoldedBytes += int64(4 * t.Len())
	}
	return names
}

// floats32 rounds v into a float32 vector.
func floats32(v []float64) *tensor.Tensor {
	t := tensor.New(tensor.Float, len(v))
	for i, x := range v {
		t.F32()[i] = float32(x)
	}
	return t
}

// fuseBatchNormActivation merges an activation into the inference
// BatchNormalization feeding it (op.Fusion, no residual), when the kernel
// says it applies the fusion.
func (c *compiler) fuseBatchNormActivation(w *workGraph, rep *Report) {
	drop := map[*graph.Node]bool{}
	idx := w.index()
	for _, bn := range w.nodes {
		if drop[bn] || bn.OpType != "BatchNormalization" || bn.Builder == nil || bn.Domain != "" || bn.Fused != nil {
			continue
		}
		if _, _, ok := bnAffine(w, bn); !ok {
			continue
		}
		act := w.soleReader(idx, bn.Outputs[0])
		if act == nil || act.Builder == nil || act.Domain != "" || len(act.Outputs) != 1 || act.Inputs[0] != bn.Outputs[0] {
			continue
		}
		a, ok := activation(w, act)
		if !ok {
			continue
		}
		merged := *bn
		merged.Outputs = []string{act.Outputs[0]}
		merged.Fused = &op.Fusion{Activation: a.Activation, Alpha: a.Alpha, Beta: a.Beta, Fused: []string{act.Name}}
		if !c.kernelFuses(w, &merged) {
			continue
		}
		w.replace(bn, &merged)
		drop[act] = true
		rep.Fused = append(rep.Fused, fmt.Sprintf("%s+%s (fused into BatchNormalization)", bn.Name, act.Name))
	}
	w.remove(drop)
}
