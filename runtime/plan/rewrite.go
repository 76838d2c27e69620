package plan

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gort-dev/gort/runtime/graph"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// The rewrites. Each keeps results identical to the graph as written
// (folding, dead and no-op removal, activation fusion: the same float32
// operations in the same order) except the folding of per-channel affine
// ops (BatchNormalization, Mul and Add by constants) into a Conv's weights
// or a BatchNormalization's parameters, which changes rounding (parameters
// are rescaled once in float64 instead of the output per element): within
// the node suite's tolerances, and the QDQ rewrite (qdq.go), whose integer
// ops requantize once: within one quantization step of the float path.

// removeDead drops nodes whose outputs nothing needs.
func (c *compiler) removeDead(w *workGraph, rep *Report) {
	need := map[string]bool{}
	for o := range w.outputs {
		need[o] = true
	}
	drop := map[*graph.Node]bool{}
	for i := len(w.nodes) - 1; i >= 0; i-- {
		n := w.nodes[i]
		used := false
		for _, o := range n.Outputs {
			if o != "" && need[o] {
				used = true
			}
		}
		if !used {
			drop[n] = true
			rep.Removed = append(rep.Removed, n.Name)
			continue
		}
		for _, r := range n.Reads {
			need[r] = true
		}
	}
	w.remove(drop)
}

// fold evaluates nodes whose inputs are all constant, within the fold budget.
func (c *compiler) fold(w *workGraph, rep *Report) {
	drop := map[*graph.Node]bool{}
	for _, n := range w.nodes {
		if n.Builder == nil || n.Domain != "" || len(n.Graphs) > 0 {
			continue
		}
		ins := make([]*tensor.Tensor, len(n.Inputs))
		constant := true
		for i, in := range n.Inputs {
			if in == "" {
				continue
			}
			if ins[i] = w.consts[in]; ins[i] == nil {
				constant = false
				break
			}
		}
		if !constant {
			continue
		}
		if c.keepDQ && n.OpType == "DequantizeLinear" {
			c.skippedDQ = true // qdq needs it: it folds after (compile)
			continue
		}
		outs, ok := c.evaluate(n, ins)
		if !ok {
			continue
		}
		var bytes int64
		for _, t := range outs {
			bytes += int64(t.Len()) * int64(t.DType().ElemBytes())
		}
		if rep.FoldedBytes+bytes > c.budget {
			continue
		}
		rep.FoldedBytes += bytes
		for j, name := range n.Outputs {
			if name != "" {
				w.setConst(name, outs[j])
				w.foldedSet[outs[j]] = true
			}
		}
		drop[n] = true
		rep.Folded = append(rep.Folded, n.Name)
	}
	w.remove(drop)
}

// evaluate runs one node at compile time; any failure (the error will
// surface at run time instead) or a non-tensor result means "don't fold".
func (c *compiler) evaluate(n *graph.Node, ins []*tensor.Tensor) (outs []*tensor.Tensor, ok bool) {
	defer func() {
		if recover() != nil {
			outs, ok = nil, false
		}
	}()
	k := probeKernel(n, ins)
	kern, isTensorKernel := k.(op.Kernel)
	if _, random := k.(op.RandomKernel); !isTensorKernel || random {
		return nil, false // random draws are not constants (op.RandomKernel)
	}
	maxBytes := c.opts.MaxTensorBytes
	outs, err := kern.Run(&op.Context{MaxBytes: maxBytes}, ins)
	if err != nil || len(outs) < len(n.Outputs) {
		return nil, false
	}
	for j, name := range n.Outputs {
		if name != "" && outs[j] == nil {
			return nil, false
		}
	}
	for _, t := range outs {
		// A pass-through (Identity of a constant) is already a constant
		// at its precision.
		if t == nil || slices.Contains(ins, t) {
			continue
		}
		if dt := t.DType(); dt == tensor.Float16 || dt == tensor.BFloat16 {
			tensor.RoundTo(dt, t.F32())
		}
	}
	return outs[:len(n.Outputs)], true
}

// removeNoOps bypasses Identity, inference-mode Dropout and Cast to the
// same type: readers of the output read the input instead.
func (c *compiler) removeNoOps(w *workGraph, rep *Report) {
	drop := map[*graph.Node]bool{}
	idx := w.index()
	bySub := idx.bySubgraph
	for _, n := range w.nodes {
		if n.Builder == nil || n.Domain != "" || len(n.Inputs) == 0 || n.Inputs[0] == "" || len(n.Outputs) == 0 {
			continue
		}
		out := n.Outputs[0]
		if out == "" || w.outputs[out] || bySub[out] {
			continue
		}
		// A Dropout mask that nothing reads (SqueezeNet's, for one) is as
		// good as absent: the node is still a no-op.
		probe := n
		if n.OpType == "Dropout" && len(n.Outputs) == 2 && n.Outputs[1] != "" && !w.outputs[n.Outputs[1]] && idx.count[n.Outputs[1]] == 0 {
			cp := *n
			cp.Outputs = n.Outputs[:1]
			probe = &cp
		}
		if !c.isNoOp(w, probe) {
			continue
		}
		w.rename(out, n.Inputs[0])
		drop[n] = true
		rep.Removed = append(rep.Removed, n.Name)
	}
	w.remove(drop)
}

func (c *compiler) isNoOp(w *workGraph, n *graph.Node) bool {
	switch n.OpType {
	case "Identity":
		return true
	case "Dropout":
		if n.HasOutput(1) {
			return false
		}
		if n.Version < 7 {
			isTest, _ := n.Int("is_test", 0)
			return isTest != 0
		}
		if n.Version < 12 || !n.HasInput(2) {
			return true
		}
		t := w.constTensor(n.Inputs[2])
		return t != nil && t.DType() == tensor.Bool && t.Len() == 1 && !t.Bools()[0]
	case "Cast":
		to, err := n.Int("to", 0)
		if err != nil {
			return false
		}
		dt := w.dtypeOf(n.Inputs[0])
		return dt != tensor.Undefined && dt == tensor.DType(to) && n.NumInputs() == 1
	case "Reshape":
		return w.sameKnownShape(n.Inputs[0], n.Outputs[0])
	}
	return false
}

// foldBatchNorm folds into the Conv that feeds it the per-channel affine
// ops that follow it: an inference BatchNormalization, and a Mul or an Add
// by a constant holding one value per output channel (or one in all), as
// Inception v2 writes its scale and shift after the BatchNormalization. The
// chain composes to y = conv·S + T per channel, and W'[m] = W[m]·S[m],
// B'[m] = B[m]·S[m] + T[m], computed in float64 and rounded once.
func (c *compiler) foldBatchNorm(w *workGraph, rep *Report) {
	drop := map[*graph.Node]bool{}
	idx := w.index()
	for _, conv := range w.nodes {
		if drop[conv] || conv.Builder == nil || conv.Domain != "" || conv.OpType != "Conv" || len(conv.Outputs) != 1 {
			continue
		}
		if conv.Fused != nil {
			continue
		}
		wt := w.constTensor(conv.Inputs[1])
		if wt == nil || wt.DType() != tensor.Float || wt.Rank() < 3 {
			continue
		}
		var bias *tensor.Tensor
		if conv.HasInput(2) {
			if bias = w.constTensor(conv.Inputs[2]); bias == nil || bias.DType() != tensor.Float {
				continue
			}
		}
		M := wt.Shape()[0]
		if bias != nil && bias.Len() != M {
			continue
		}
		S, T, folded, out := w.affineChain(idx, drop, conv.Outputs[0], M, wt.Rank(), "")
		if len(folded) == 0 {
			continue
		}
		per := wt.Len() / M
		// Weights only this Conv reads and only the plan holds (folded,
		// as ConstantOfShape builds them) are rescaled in place: a copy
		// would hold the weights twice until the old ones are collected.
		nw := wt
		if !w.exclusive(idx, conv.Inputs[1], conv) {
			nw = tensor.New(tensor.Float, wt.Shape()...)
		}
		wd, nwd := wt.F32(), nw.F32()
		nb := tensor.New(tensor.Float, M)
		nbd := nb.F32()
		for m := 0; m < M; m++ {
			scaleRow(nwd[m*per:(m+1)*per], wd[m*per:(m+1)*per], S[m])
			b := 0.0
			if bias != nil {
				b = float64(bias.F32()[m])
			}
			nbd[m] = float32(b*S[m] + T[m])
		}
		wName, bName := w.freshName(conv.Name+"/W_bn"), w.freshName(conv.Name+"/B_bn")
		w.setConst(wName, nw)
		w.setConst(bName, nb)
		w.foldedSet[nw], w.foldedSet[nb] = true, true
		rep.FoldedBytes += int64(4 * (nw.Len() + nb.Len()))
		merged := *conv
		merged.Inputs = []string{conv.Inputs[0], wName, bName}
		merged.Outputs = []string{out}
		merged.Reads = replaceUnique(append([]string{wName, bName}, conv.Inputs[0]), "", "")
		w.replace(conv, &merged)
		// The old weights and bias are garbage now unless something else
		// reads them (the folded ops' parameters go with them in
		// dropUnreadConsts).
		for _, old := range conv.Inputs[1:] {
			if old != "" && w.soleReader(idx, old) == conv {
				w.dropConst(old)
			}
		}
		rep.Fused = append(rep.Fused, dropFolded(drop, conv, folded)+" (folded into the weights)")
	}
	w.remove(drop)
}

// scaleRow sets dst[i] = src[i]·s in float64, rounded once. It is a
// separate function, called once per output channel, so that in WebAssembly
// V8 tiers it up from its baseline code after a few calls: a loop over a
// whole model's weights inside foldBatchNorm would run baseline code to the
// end (wasm has no on-stack replacement), 100+ ms of ResNet-50's create.
//
//go:noinline
func scaleRow(dst, src []float32, s float64) {
	src = src[:len(dst)]
	for i, v := range src {
		dst[i] = float32(float64(v) * s)
	}
}

// affineChain follows from value out the chain of per-channel affine ops
// (channelAffine: an inference BatchNormalization, a Mul or Add by a constant
// with one value per channel) that each solely read the previous one's
// output, stopping at an op of type stopAt, and composes them into
// y = x·S + T per channel (float64). It returns the ops and the chain's last
// output.
func (w *workGraph) affineChain(idx *readIndex, drop map[*graph.Node]bool, out string, channels, rank int, stopAt string) (S, T []float64, folded []*graph.Node, last string) {
	S, T = make([]float64, channels), make([]float64, channels)
	for m := range S {
		S[m] = 1
	}
	for {
		next := w.soleReader(idx, out)
		if next == nil || drop[next] || next.OpType == stopAt {
			return S, T, folded, out
		}
		s, shift, ok := channelAffine(w, next, out, channels, rank)
		if !ok {
			return S, T, folded, out
		}
		for m := range S {
			S[m] *= s[m]
			T[m] = T[m]*s[m] + shift[m]
		}
		folded = append(folded, next)
		out = next.Outputs[0]
	}
}

// foldIntoBatchNorm folds into a BatchNormalization that no Conv feeds
// (DenseNet's pre-activation, after a Concat) the per-channel Mul and Add
// by constants that follow it, as foldBatchNorm folds them into a Conv: the
// chain is BN(x)·S + T per channel, a BatchNormalization with scale·S and
// bias·S + T (computed in float64, rounded once). One pass over the tensor
// instead of one per op.
func (c *compiler) foldIntoBatchNorm(w *workGraph, rep *Report) {
	drop := map[*graph.Node]bool{}
	idx := w.index()
	for _, bn := range w.nodes {
		if drop[bn] || bn.OpType != "BatchNormalization" || bn.Domain != "" || bn.Builder == nil || bn.Fused != nil {
			continue
		}
		if _, _, ok := bnAffine(w, bn); !ok {
			continue
		}
		shape, ok := w.shapeOf(bn.Outputs[0])
		scale, bias := w.constTensor(bn.Inputs[1]), w.constTensor(bn.Inputs[2])
		if !ok || len(shape) < 2 || scale == nil || bias == nil || scale.Len() != bias.Len() {
			continue
		}
		C := scale.Len()
		S, T, folded, out := w.affineChain(idx, drop, bn.Outputs[0], C, len(shape), "BatchNormalization")
		if len(folded) == 0 {
			continue
		}
		ns, nb := tensor.New(tensor.Float, C), tensor.New(tensor.Float, C)
		nsd, nbd, sd, bd := ns.F32(), nb.F32(), scale.F32(), bias.F32()
		for m := 0; m < C; m++ {
			nsd[m] = float32(float64(sd[m]) * S[m])
			nbd[m] = float32(float64(bd[m])*S[m] + T[m])
		}
		sName, bName := w.freshName(bn.Name+"/scale_folded"), w.freshName(bn.Name+"/B_folded")
		w.setConst(sName, ns)
		w.setConst(bName, nb)
		w.foldedSet[ns], w.foldedSet[nb] = true, true
		rep.FoldedBytes += int64(4 * 2 * C)
		merged := *bn
		merged.Inputs = append([]string{bn.Inputs[0], sName, bName}, bn.Inputs[3:]...)
		merged.Outputs = []string{out}
		merged.Reads = replaceUnique(slices.Clone(merged.Inputs), "", "")
		w.replace(bn, &merged)
		rep.Fused = append(rep.Fused, dropFolded(drop, bn, folded)+" (folded into the BatchNormalization)")
	}
	w.remove(drop)
}

// dropFolded marks the ops folded into into for removal and names them for
// the report: "into+op (OpType)+…".
func dropFolded(drop map[*graph.Node]bool, into *graph.Node, folded []*graph.Node) string {
	names := []string{into.Name}
	for _, n := range folded {
		drop[n] = true
		names = append(names, n.Name+" ("+n.OpType+")")
	}
	return strings.Join(names, "+")
}

// channelAffine returns per-channel s and shift with n(x) = x·s + shift,
// when n applies to x (the output of a Conv with M channels and rank dims)
// an inference BatchNormalization with constant parameters, or a Mul or an
// Add whose other operand is a float32 constant of one value per channel
// (dims all 1 but the channel's, right-aligned as broadcasting aligns them)
// or a single value.
func channelAffine(w *workGraph, n *graph.Node, x string, M, rank int) (s, shift []float64, ok bool) {
	if n.Domain != "" || n.Builder == nil || len(n.Outputs) != 1 {
		return nil, nil, false
	}
	switch n.OpType {
	case "BatchNormalization":
		if n.Inputs[0] != x {
			return nil, nil, false
		}
		s, shift, ok = bnAffine(w, n)
		return s, shift, ok && len(s) == M
	case "Mul", "Add":
		if len(n.Inputs) != 2 || n.Version < 7 {
			return nil, nil, false
		}
		other := n.Inputs[0]
		if other == x {
			other = n.Inputs[1]
		}
		k := w.constTensor(other)
		if other == x || k == nil || k.DType() != tensor.Float || k.Rank() > rank {
			return nil, nil, false
		}
		// Dim d of k aligns with dim d + rank − k.Rank() of x; the channel
		// dim of x is 1.
		for d, v := range k.Shape() {
			if v != 1 && (d+rank-k.Rank() != 1 || v != M) {
				return nil, nil, false
			}
		}
		s, shift = make([]float64, M), make([]float64, M)
		kd := k.F32()
		for m := range s {
			v := float64(kd[0])
			if len(kd) == M {
				v = float64(kd[m])
			}
			if n.OpType == "Mul" {
				s[m] = v
			} else {
				s[m], shift[m] = 1, v
			}
		}
		return s, shift, true
	}
	return nil, nil, false
}

// bnAffine returns per-channel s and shift with BN(x) = x·s + shift, when
// bn is an inference BatchNormalization with constant float32 parameters.
func bnAffine(w *workGraph, bn *graph.Node) (s, shift []float64, ok bool) {
	if len(bn.Inputs) < 5 || bn.HasOutput(1) || bn.HasOutput(2) || bn.HasOutput(3) || bn.HasOutput(4) {
		return nil, nil, false
	}
	if train, _ := bn.Int("training_mode", 0); train != 0 {
		return nil, nil, false
	}
	if spatial, _ := bn.Int("spatial", 1); spatial == 0 && bn.Version < 9 {
		return nil, nil, false
	}
	eps, err := bn.Float("epsilon", 1e-5)
	if err != nil {
		return nil, nil, false
	}
	var p [4][]float32
	for i := range p {
		t := w.constTensor(bn.Inputs[i+1])
		if t == nil || t.DType() != tensor.Float {
			return nil, nil, false
		}
		p[i] = t.F32()
	}
	C := len(p[0])
	for _, v := range p {
		if len(v) != C {
			return nil, nil, false
		}
	}
	s, shift = make([]float64, C), make([]float64, C)
	for c := 0; c < C; c++ {
		s[c] = float64(p[0][c]) / math.Sqrt(float64(p[3][c])+float64(eps))
		shift[c] = float64(p[1][c]) - float64(p[2][c])*s[c]
	}
	return s, shift, true
}

// fuseActivations merges into a node whose kernel applies an epilogue
// (op.FusingKernel: Conv, ConvTranspose, Gemm, MatMul, BatchNormalization)
// the residual Add (or two-input Sum) and the activation that follow it
// (either or both). A residual must have the output's exact shape, as
// inferred; it becomes the node's last input, after the op's optional
// inputs (padded with "").
func (c *compiler) fuseActivations(w *workGraph, rep *Report) {
	drop := map[*graph.Node]bool{}
	taken := map[*graph.Node]bool{} // nodes already absorbed by a fusion
	idx := w.index()
	for _, p := range w.nodes {
		if drop[p] || p.Builder == nil || p.Domain != "" || p.Fused != nil || len(p.Outputs) != 1 {
			continue
		}
		out := p.Outputs[0]
		next := w.soleReader(idx, out)
		if next == nil || taken[next] {
			continue
		}
		fk, ok := probeKernel(p, nil).(op.FusingKernel)
		if !ok {
			continue
		}
		weight, full := fk.FusionInputs()
		if len(p.Inputs) > full || weight >= len(p.Inputs) || w.dtypeOf(p.Inputs[weight]) != tensor.Float {
			continue
		}
		f := &op.Fusion{}
		merged := *p
		var absorbed []*graph.Node
		at := p // the node whose position the merged one takes
		if add := next; add != nil && !taken[add] && residualAdd(add) {
			other := add.Inputs[0]
			if other == out {
				other = add.Inputs[1]
			}
			if other != out && w.dtypeOf(other) == tensor.Float && w.sameKnownShape(other, out) {
				f.Residual = true
				merged.Inputs = append(slices.Clone(p.Inputs), make([]string, full-len(p.Inputs))...)
				merged.Inputs = append(merged.Inputs, other)
				merged.Reads = replaceUnique(append(slices.Clone(p.Reads), other), "", "")
				absorbed = append(absorbed, add)
				// The residual may be computed after p (a shortcut branch
				// listed second): the merged node runs where the Add did.
				at = add
				out = add.Outputs[0]
				next = w.soleReader(idx, out)
			}
		}
		if act := next; act != nil && !taken[act] && act.Builder != nil && act.Domain == "" && len(act.Outputs) == 1 && act.Inputs[0] == out {
			if a, ok := activation(w, act); ok {
				f.Activation, f.Alpha, f.Beta = a.Activation, a.Alpha, a.Beta
				absorbed = append(absorbed, act)
				out = act.Outputs[0]
			}
		}
		if len(absorbed) == 0 {
			continue
		}
		names := []string{p.Name}
		for _, n := range absorbed {
			f.Fused = append(f.Fused, n.Name)
			names = append(names, n.Name)
		}
		merged.Outputs = []string{out}
		merged.Fused = f
		if !c.kernelFuses(&merged) {
			continue
		}
		w.replace(at, &merged)
		for _, n := range append(absorbed, p) {
			drop[n] = n != at
			taken[n] = true
		}
		if at != p {
			drop[p] = true
		}
		rep.Fused = append(rep.Fused, strings.Join(names, "+")+" (fused into "+p.OpType+")")
	}
	w.remove(drop)
}

// residualAdd reports whether n adds two tensors: an Add (version 7 on,
// which broadcasts like the residual check expects) or a two-input Sum, which
// computes the same a + b (ShuffleNet's Caffe2 export writes residuals so).
func residualAdd(n *graph.Node) bool {
	if n.Domain != "" || n.Builder == nil || len(n.Inputs) != 2 {
		return false
	}
	return n.OpType == "Add" && n.Version >= 7 || n.OpType == "Sum" && n.Version >= 6
}

// kernelFuses builds the merged node's kernel to ask whether it applies
// the fusion: its builder refuses a fusion it cannot apply. The kernel is
// built without its constant inputs, so that it packs no weights (see
// probeKernel).
func (c *compiler) kernelFuses(n *graph.Node) bool {
	_, ok := probeKernel(n, nil).(op.FusingKernel)
	return ok
}

// probeKernel builds n's kernel for a rewrite to ask it what it supports
// or to run it once, with consts as its constant inputs; nil consts means
// none, so that the kernel packs nothing (the plan builds each step's
// kernel once more, step by step, and releases each step's constants as
// it goes (releaseConsts), which keeps loading from holding every packed
// form beside every constant at once). Nil if the builder fails.
func probeKernel(n *graph.Node, consts []*tensor.Tensor) any {
	node := n.Node
	if consts == nil {
		consts = make([]*tensor.Tensor, len(n.Inputs))
	}
	node.Consts = consts
	k, err := BuildKernel(n.Builder, &node)
	if err != nil {
		return nil
	}
	return k
}

// activation asks n's kernel whether n computes a fusable activation
// (op.ActivationKernel), and with which parameters: the op parsed its
// attributes and constant inputs once, and the plan does not read them
// again. The kernel is built with n's one-element constants only (Clip's
// bounds), so that probing a node that is no activation packs no weights.
func activation(w *workGraph, n *graph.Node) (*op.Fusion, bool) {
	consts := make([]*tensor.Tensor, len(n.Inputs))
	for i, in := range n.Inputs {
		if t := w.constTensor(in); t != nil && t.Len() == 1 {
			consts[i] = t
		}
	}
	ak, ok := probeKernel(n, consts).(op.ActivationKernel)
	if !ok {
		return nil, false
	}
	act, alpha, beta, ok := ak.Activation()
	return &op.Fusion{Activation: act, Alpha: alpha, Beta: beta}, ok
}

// freshName returns a value name not used in the graph.
func (w *workGraph) freshName(base string) string {
	used := func(s string) bool {
		if _, ok := w.consts[s]; ok {
			return true
		}
		if _, ok := w.g.Initializers[s]; ok {
			return true
		}
		for _, n := range w.nodes {
			for _, o := range n.Outputs {
				if o == s {
					return true
				}
			}
			for _, r := range n.Reads {
				if r == s {
					return true
				}
			}
		}
		return false
	}
	name := base
	for i := 2; used(name); i++ {
		name = base + "_" + strconv.Itoa(i)
	}
	return name
}

// roundingExact are ops whose float32 result, rounded to float16 or
// bfloat16, equals the op computed on the rounded inputs: they only select,
// move or negate values. Only their input 0 may carry the chain.
var roundingExact = map[string]bool{
	"Relu": true, "MaxPool": true, "Neg": true, "Abs": true, "Identity": true, "Reshape": true,
	"Transpose": true, "Flatten": true, "Squeeze": true, "Unsqueeze": true,
}

// removeCastPairs drops Cast(x: half → float) … Cast(→ half) pairs around
// a chain of rounding-exact ops, so the chain runs on the half values:
// the results are bit-identical (float16 and bfloat16 are stored as
// float32 and rounded after every op).
func (c *compiler) removeCastPairs(w *workGraph, rep *Report) {
	idx := w.index()
	drop := map[*graph.Node]bool{}
	for _, up := range w.nodes {
		if drop[up] || !isCast(up, tensor.Float) {
			continue
		}
		half := w.dtypeOf(up.Inputs[0])
		if half != tensor.Float16 && half != tensor.BFloat16 {
			continue
		}
		var chain []*graph.Node
		cur := up.Outputs[0]
		var down *graph.Node
		for {
			next := w.soleReader(idx, cur)
			if next == nil || drop[next] || next.Inputs[0] != cur {
				break
			}
			if isCast(next, half) {
				down = next
				break
			}
			if !roundingExact[next.OpType] || next.Domain != "" || len(next.Outputs) != 1 {
				break
			}
			chain = append(chain, next)
			cur = next.Outputs[0]
		}
		if down == nil || w.outputs[down.Outputs[0]] || idx.bySubgraph[down.Outputs[0]] {
			continue
		}
		if len(chain) == 0 {
			w.rename(down.Outputs[0], up.Inputs[0])
		} else {
			first := *chain[0]
			first.Inputs = slices.Clone(first.Inputs)
			first.Inputs[0] = up.Inputs[0]
			first.Reads = replaceUnique(slices.Clone(first.Reads), up.Outputs[0], up.Inputs[0])
			w.replace(chain[0], &first)
			last := chain[len(chain)-1]
			if last == chain[0] {
				last = &first
			}
			w.rename(down.Outputs[0], last.Outputs[0])
		}
		drop[up], drop[down] = true, true
		rep.Removed = append(rep.Removed, up.Name, down.Name)
	}
	w.remove(drop)
}

func isCast(n *graph.Node, to tensor.DType) bool {
	if n.OpType != "Cast" || n.Domain != "" || n.Builder == nil || len(n.Inputs) != 1 || len(n.Outputs) != 1 {
		return false
	}
	t, err := n.Int("to", 0)
	return err == nil && tensor.DType(t) == to
}

// matMulAddToGemm turns MatMul(A, B) + C into Gemm(A, B, C) when A is a
// matrix (inferred rank 2), B a constant float32 matrix (packed once by
// Gemm's builder) and C a constant that Gemm broadcasts to the output
// ([N], [1, N], [M, N] or a scalar). Gemm then adds C in its output loop.
func (c *compiler) matMulAddToGemm(w *workGraph, rep *Report) {
	reg := c.registry()
	idx := w.index()
	drop := map[*graph.Node]bool{}
	for _, mm := range w.nodes {
		if drop[mm] || mm.OpType != "MatMul" || mm.Domain != "" || mm.Builder == nil || len(mm.Inputs) != 2 || len(mm.Outputs) != 1 {
			continue
		}
		a, okA := w.shapeOf(mm.Inputs[0])
		b := w.constTensor(mm.Inputs[1])
		if !okA || len(a) != 2 || b == nil || b.Rank() != 2 || b.DType() != tensor.Float || w.dtypeOf(mm.Inputs[0]) != tensor.Float {
			continue
		}
		add := w.soleReader(idx, mm.Outputs[0])
		if add == nil || add.OpType != "Add" || add.Domain != "" || add.Version < 7 || len(add.Inputs) != 2 {
			continue
		}
		cName := add.Inputs[1]
		if cName == mm.Outputs[0] {
			cName = add.Inputs[0]
		}
		cT := w.constTensor(cName)
		N := b.Shape()[1]
		if cT == nil || cT.DType() != tensor.Float || !gemmBias(cT.Shape(), a[0], N) {
			continue
		}
		res := reg.Resolve("", "Gemm", mm.Opset)
		if res.Builder == nil || res.Version < 11 {
			continue
		}
		gemm := *mm
		gemm.OpType, gemm.Version, gemm.Builder = "Gemm", res.Version, res.Builder
		gemm.Attrs = map[string]*pb.AttributeProto{}
		gemm.Inputs = []string{mm.Inputs[0], mm.Inputs[1], cName}
		gemm.Outputs = []string{add.Outputs[0]}
		gemm.Reads = replaceUnique(append(slices.Clone(mm.Reads), cName), "", "")
		w.replace(mm, &gemm)
		drop[add] = true
		rep.Fused = append(rep.Fused, mm.Name+"+"+add.Name+" (MatMul and Add as Gemm)")
	}
	w.remove(drop)
}

// gemmBias reports whether a C of this shape broadcasts to [M, N] the way
// Gemm allows (unidirectionally). M may be unknown (symbolic).
func gemmBias(shape []int, m graph.Dim, n int) bool {
	switch len(shape) {
	case 0:
		return true
	case 1:
		return shape[0] == n || shape[0] == 1
	case 2:
		rowsOK := shape[0] == 1 || (m.Known() && int64(shape[0]) == m.Value)
		return rowsOK && (shape[1] == n || shape[1] == 1)
	}
	return false
}
