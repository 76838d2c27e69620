package webgpu

import (
	"fmt"
	"math"

	"github.com/gort-dev/gort/ops/elementwise"
	"github.com/gort-dev/gort/ops/nn"
	"github.com/gort-dev/gort/ops/resample"
	"github.com/gort-dev/gort/ops/tensorops"
	"github.com/gort-dev/gort/ops/window"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// kind is the family of WGSL kernel a node runs with.
type kind int

const (
	kConv kind = iota
	kConvTranspose
	kPool
	kBinary
	kUnary
	kConcat
	kResize
	kAffine
	kSoftmax
	kMatMul
	kCopy
	kSum
)

// spec is what placement decided for a node: the kernel family, its
// parsed attributes and its WGSL source with the pipeline key (op,
// attribute-chosen code paths, ranks). Deciding needs no device, so the
// reasons a node stays on the CPU are testable on every platform.
type spec struct {
	kind        kind
	key, src    string
	win         *window.Attrs
	act         op.Activation
	alpha, beta float32
	residual    bool
	rank        int  // output rank (Add…, Sum); batch rank (MatMul, Gemm)
	axis        int  // Concat, Softmax, Flatten
	global      bool // GlobalAveragePool, GlobalMaxPool
	planner     *resample.Planner
	// block: Conv also has a four-channels-per-invocation pipeline
	// (blockSrc), used when the run's M/group is divisible by 4.
	block    bool
	blockSrc string
	// tiledSrc is the tiled matrix product (MatMul, Gemm, and a 1×1
	// Conv without groups, which is one), keyed tiledKey; "" when unused.
	tiledKey, tiledSrc string
	// convTiledSrc is Conv as an implicit GEMM (tiled, hardware adapters).
	convTiledSrc string
	// a, b are BatchNormalization folded to y = x·a[c] + b[c] (nil when
	// the statistics are not constant: folded per run, with eps).
	a, b []float32
	eps  float64
	// legacy is Softmax before opset 13 (the input coerced to 2-D at axis).
	legacy bool
	// gemm: transA, transB; hasC says Gemm's C input is present.
	transA, transB, hasC bool
	gAlpha, gBeta        float32
	// allowZero is Reshape's allowzero; mask says Dropout lists its mask.
	allowZero, mask bool
}

// binaryOps maps the broadcasting arithmetic ops to their WGSL operator.
var binaryOps = map[string]string{"Add": "+", "Sub": "-", "Mul": "*", "Div": "/"}

// maxBinaryRank bounds the ranks of the broadcasting kernel (one pipeline
// per rank).
const maxBinaryRank = 6

// decide returns the node's spec, or why it stays on the CPU. limit is
// the device's maxStorageBufferBindingSize in bytes; a node whose data
// inputs all have known sizes below minElems elements stays on the CPU
// (the cost rule: for tiny tensors the transfers and the dispatch cost
// more than the work).
func decide(n *op.Node, cpu any, in []graph.Type, limit int64, minElems int64) (*spec, string) {
	if n.Domain != "" {
		return nil, "WebGPU runs ai.onnx ops only"
	}
	if reason := checkContract(n, cpu); reason != "" {
		return nil, reason
	}
	data := []int{0}
	switch n.OpType {
	case "Add", "Sub", "Mul", "Div":
		data = []int{0, 1}
	case "Gemm", "MatMul", "Conv", "ConvTranspose":
		data = []int{0, 1, 2}
	case "BatchNormalization":
		data = []int{0, 1, 2, 3, 4}
	case "Concat", "Sum":
		data = nil
		for i := range n.Inputs {
			data = append(data, i)
		}
	}
	if n.Fused != nil && n.Fused.Residual { // the last input (checkContract allowed it)
		data = append(data, len(n.Inputs)-1)
	}
	for _, i := range data {
		if i >= len(n.Inputs) || n.Inputs[i] == "" {
			continue
		}
		if reason := checkType(n.Inputs[i], typeOf(in, i), limit); reason != "" {
			return nil, reason
		}
	}
	if minElems > 0 {
		largest := int64(-1)
		for _, i := range data {
			if i >= len(n.Inputs) || n.Inputs[i] == "" {
				continue
			}
			e, known := elements(typeOf(in, i))
			if !known {
				largest = minElems
				break
			}
			largest = max(largest, e)
		}
		if largest >= 0 && largest < minElems {
			return nil, fmt.Sprintf("tiny: inputs of at most %d elements, below the WebGPU cost threshold of %d", largest, minElems)
		}
	}
	for i, o := range n.Outputs {
		if i > 0 && o != "" && !(n.OpType == "Dropout" && i == 1) {
			return nil, fmt.Sprintf("output %d (%s) is not computed on WebGPU", i, o)
		}
	}
	switch n.OpType {
	case "Conv", "ConvTranspose":
		return decideConv(n, cpu, in)
	case "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool":
		return decidePool(n, cpu, in)
	case "Concat":
		a, ok := attrsOf[tensorops.ConcatAttrs](cpu)
		if !ok {
			return nil, noAttrs(n)
		}
		axis := int(a.Axis)
		r := len(in[0].Shape)
		if axis < 0 {
			axis += r
		}
		if axis < 0 || axis >= r {
			return nil, fmt.Sprintf("Concat axis %d out of range for rank %d", axis, r)
		}
		return &spec{kind: kConcat, axis: axis, key: "concat", src: concatWGSL}, ""
	case "Resize", "Upsample":
		p, ok := attrsOf[*resample.Planner](cpu)
		if !ok {
			return nil, noAttrs(n)
		}
		return &spec{kind: kResize, planner: p, key: "resample", src: resampleWGSL}, ""
	}
	switch n.OpType {
	case "Identity", "Dropout", "Flatten", "Reshape":
		return decideCopy(n, cpu, in)
	case "BatchNormalization":
		return decideBatchNorm(n, cpu, in)
	case "Softmax":
		a, ok := attrsOf[elementwise.SoftmaxAttrs](cpu)
		if !ok {
			return nil, noAttrs(n)
		}
		axis := int(a.Axis)
		r := len(in[0].Shape)
		if axis < 0 {
			axis += r
		}
		if axis < 0 || axis >= r {
			return nil, fmt.Sprintf("Softmax axis out of range for rank %d", r)
		}
		return &spec{kind: kSoftmax, axis: axis, legacy: a.Coerce2D, key: "softmax", src: softmaxWGSL}, ""
	case "MatMul", "Gemm":
		return decideMatMul(n, cpu, in)
	}
	if n.OpType == "Sum" {
		// Sum of N inputs: N-1 broadcasting additions (Add's pipeline).
		r := 0
		for i := range n.Inputs {
			r = max(r, len(typeOf(in, i).Shape))
		}
		if r > maxBinaryRank {
			return nil, fmt.Sprintf("rank %d above the broadcasting kernel's %d", r, maxBinaryRank)
		}
		return &spec{kind: kSum, rank: r, key: fmt.Sprintf("Add/r%d", r), src: binaryWGSL("+", r)}, ""
	}
	if sym, ok := binaryOps[n.OpType]; ok {
		r := max(len(in[0].Shape), len(in[1].Shape))
		if r > maxBinaryRank {
			return nil, fmt.Sprintf("rank %d above the broadcasting kernel's %d", r, maxBinaryRank)
		}
		return &spec{kind: kBinary, rank: r, key: fmt.Sprintf("%s/r%d", n.OpType, r), src: binaryWGSL(sym, r)}, ""
	}
	if ak, ok := cpu.(op.ActivationKernel); ok {
		// The op parsed its attributes and constant inputs into the
		// activation it declares; the GPU applies exactly that.
		act, alpha, beta, fusable := ak.Activation()
		if !fusable {
			return nil, n.OpType + " has parameters known only at run time"
		}
		src, err := unaryWGSL(act)
		if err != nil {
			return nil, err.Error()
		}
		return &spec{kind: kUnary, act: act, alpha: alpha, beta: beta, key: "unary/" + string(act), src: src}, ""
	}
	return nil, "no WebGPU kernel for " + n.OpType
}

// attrsOf returns the attributes the node's CPU kernel parsed, as the
// struct its op package exports (op.AttrsKernel): the GPU lowers the node
// from the values the CPU runs with, never from a second reading.
func attrsOf[T any](cpu any) (T, bool) {
	if ak, ok := cpu.(op.AttrsKernel); ok {
		a, ok := ak.Attrs().(T)
		return a, ok
	}
	var zero T
	return zero, false
}

// noAttrs is the reason a node whose CPU kernel exposes no parsed
// attributes stays on the CPU (a builder that failed, or a test's node
// offered without its CPU kernel).
func noAttrs(n *op.Node) string {
	return n.OpType + "'s CPU kernel does not expose its parsed attributes"
}

func typeOf(in []graph.Type, i int) graph.Type {
	if i < len(in) {
		return in[i]
	}
	return graph.Type{}
}

// elements is a type's element count, if every dim is known.
func elements(t graph.Type) (int64, bool) {
	if t.Shape == nil {
		return 0, false
	}
	e := int64(1)
	for _, d := range t.Shape {
		if !d.Known() {
			return 0, false
		}
		e *= d.Value
	}
	return e, true
}

// checkType accepts float32 tensors of known rank, and refuses one whose
// known size exceeds the binding limit.
func checkType(name string, t graph.Type, limit int64) string {
	if t.Kind != graph.KindTensor || t.Elem != tensor.Float {
		if t.Elem == tensor.Undefined {
			return fmt.Sprintf("input %s: type unknown at load", name)
		}
		return fmt.Sprintf("input %s is %s; WebGPU kernels are float32", name, t.Elem)
	}
	if t.Shape == nil {
		return fmt.Sprintf("input %s: rank unknown at load", name)
	}
	size, known := int64(4), true
	for _, d := range t.Shape {
		if !d.Known() {
			known = false
			break
		}
		size *= d.Value
	}
	if known && size > limit {
		return fmt.Sprintf("input %s is %d bytes, above maxStorageBufferBindingSize (%d)", name, size, limit)
	}
	return ""
}

func decideConv(n *op.Node, cpu any, in []graph.Type) (*spec, string) {
	w, ok := attrsOf[*window.Attrs](cpu)
	if !ok {
		return nil, noAttrs(n)
	}
	r := len(in[0].Shape)
	if r < 3 || r > 2+maxSpatial {
		return nil, fmt.Sprintf("%s of rank %d (WebGPU handles 1 to %d spatial dims)", n.OpType, r, maxSpatial)
	}
	s := &spec{win: w, kind: kConv}
	if f := n.Fused; f != nil {
		s.act, s.alpha, s.beta, s.residual = f.Activation, f.Alpha, f.Beta, f.Residual
	}
	var src string
	var err error
	if n.OpType == "ConvTranspose" {
		s.kind = kConvTranspose
		src, err = convTransposeWGSL(s.act, false)
		// W is (C, M/group, k...): four output channels per invocation
		// when M/group, known at load, is divisible by 4.
		if ws := in[1].Shape; err == nil && len(ws) > 1 && ws[1].Known() && ws[1].Value%4 == 0 {
			s.block = true
			s.blockSrc, err = convTransposeWGSL(s.act, true)
		}
	} else {
		src, err = convWGSL(s.act, s.residual)
		if err == nil {
			s.convTiledSrc, err = convTiledWGSL(s.act, s.residual)
		}
		// Four output channels per invocation when the weight's shape,
		// known at load, has M/group divisible by 4.
		if ws := in[1].Shape; len(ws) > 0 && ws[0].Known() && ws[0].Value%int64(4*w.Group) == 0 {
			s.block = true
			s.blockSrc, err = convBlockWGSL(s.act, s.residual)
		}
		// A 1×1 kernel without groups or a residual may run as the tiled
		// matrix product W·X[n] (bias as Gemm's C, the activation fused).
		if ws := in[1].Shape; err == nil && w.Group == 1 && !s.residual && len(ws) > 2 && allOnes(ws[2:]) {
			s.tiledKey = fmt.Sprintf("tiled/b1/%s/c=true", s.act)
			s.tiledSrc, err = matmulTiledWGSL(1, s.act, true, false)
		}
	}
	if err != nil {
		return nil, err.Error()
	}
	s.src = src
	s.key = fmt.Sprintf("%s/%s/res=%v", n.OpType, s.act, s.residual)
	return s, ""
}

func decidePool(n *op.Node, cpu any, in []graph.Type) (*spec, string) {
	r := len(in[0].Shape)
	if r < 3 || r > 2+maxSpatial {
		return nil, fmt.Sprintf("%s of rank %d (WebGPU handles 1 to %d spatial dims)", n.OpType, r, maxSpatial)
	}
	s := &spec{kind: kPool}
	isMax := n.OpType == "MaxPool" || n.OpType == "GlobalMaxPool"
	if n.OpType == "GlobalAveragePool" || n.OpType == "GlobalMaxPool" {
		s.global = true
		s.win = &window.Attrs{AutoPad: "NOTSET", Group: 1}
	} else {
		w, ok := attrsOf[*window.Attrs](cpu)
		if !ok {
			return nil, noAttrs(n)
		}
		s.win = w
	}
	s.src = poolWGSL(isMax)
	s.key = fmt.Sprintf("pool/max=%v", isMax)
	return s, ""
}

// decideBatchNorm places inference BatchNormalization as y = x·a[c] +
// b[c], folded from constant statistics at build (or per run), with the
// fused activation and residual if any.
func decideBatchNorm(n *op.Node, cpu any, in []graph.Type) (*spec, string) {
	a, ok := attrsOf[nn.BatchNormAttrs](cpu)
	if !ok {
		return nil, noAttrs(n)
	}
	eps := a.Epsilon
	if a.Training {
		return nil, "BatchNormalization in training mode"
	}
	if n.Version < 9 {
		return nil, fmt.Sprintf("BatchNormalization-%d (its spatial attribute)", n.Version)
	}
	if len(in[0].Shape) < 2 {
		return nil, "BatchNormalization input of rank < 2"
	}
	s := &spec{kind: kAffine, eps: eps}
	if f := n.Fused; f != nil {
		s.act, s.alpha, s.beta, s.residual = f.Activation, f.Alpha, f.Beta, f.Residual
	}
	src, err := affineWGSL(s.act, s.residual)
	if err != nil {
		return nil, err.Error()
	}
	s.src, s.key = src, fmt.Sprintf("affine/%s/r=%v", s.act, s.residual)
	var p [4]*tensor.Tensor
	for i := range p {
		if p[i] = n.ConstInput(i + 1); p[i] == nil {
			// Statistics a feed may override (IR-3 models list their
			// weights as inputs) are folded at run time instead.
			return s, ""
		}
	}
	if s.a, s.b, err = foldBatchNorm(p, eps); err != nil {
		return nil, err.Error()
	}
	return s, ""
}

// foldBatchNorm folds scale, B, mean and var into y = x·a[c] + b[c], in
// float64: a = scale/√(var+ε), b = B − mean·a.
func foldBatchNorm(p [4]*tensor.Tensor, eps float64) (a, b []float32, err error) {
	for _, t := range p {
		if t == nil || t.DType() != tensor.Float || t.Len() != p[0].Len() {
			return nil, nil, fmt.Errorf("BatchNormalization statistics are not float32 vectors of one length")
		}
	}
	sc, bias, mean, v := p[0].F32(), p[1].F32(), p[2].F32(), p[3].F32()
	a, b = make([]float32, len(sc)), make([]float32, len(sc))
	for c := range sc {
		k := float64(sc[c]) / math.Sqrt(float64(v[c])+eps)
		a[c] = float32(k)
		b[c] = float32(float64(bias[c]) - float64(mean[c])*k)
	}
	return a, b, nil
}

// maxBatchRank bounds MatMul's batch dims (one pipeline per batch rank).
const maxBatchRank = 4

func decideMatMul(n *op.Node, cpu any, in []graph.Type) (*spec, string) {
	s := &spec{kind: kMatMul, gAlpha: 1}
	if f := n.Fused; f != nil {
		s.act, s.alpha, s.beta, s.residual = f.Activation, f.Alpha, f.Beta, f.Residual
	}
	ra, rb := len(in[0].Shape), len(in[1].Shape)
	if n.OpType == "Gemm" {
		a, ok := attrsOf[nn.GemmAttrs](cpu)
		if !ok {
			return nil, noAttrs(n)
		}
		s.transA, s.transB = a.TransA, a.TransB
		s.hasC = n.HasInput(2)
		s.gAlpha, s.gBeta = a.Alpha, a.Beta
		if ra != 2 || rb != 2 {
			return nil, "Gemm inputs must be matrices"
		}
		if s.hasC && len(in[2].Shape) > 2 {
			return nil, "Gemm C of rank > 2"
		}
	} else {
		if ra < 2 || rb < 2 {
			return nil, "MatMul with a 1-D operand"
		}
		// The bias the plan fuses into an N-D MatMul (runtime/plan/matmulbias.go):
		// N values along the last axis, added as Gemm's C with β = 1.
		if n.HasInput(2) {
			if !lastAxisVector(in[2].Shape) {
				return nil, "MatMul bias that is not one value per output column"
			}
			s.hasC, s.gBeta = true, 1
		}
	}
	s.rank = max(ra, rb) - 2
	if s.rank > maxBatchRank {
		return nil, fmt.Sprintf("MatMul with %d batch dims (WebGPU handles %d)", s.rank, maxBatchRank)
	}
	src, err := matmulWGSL(s.rank, s.act, s.hasC, s.residual)
	if err == nil {
		s.tiledSrc, err = matmulTiledWGSL(s.rank, s.act, s.hasC, s.residual)
	}
	if err != nil {
		return nil, err.Error()
	}
	s.src = src
	s.key = fmt.Sprintf("matmul/b%d/%s/c=%v/res=%v", s.rank, s.act, s.hasC, s.residual)
	s.tiledKey = "tiled/" + s.key[len("matmul/"):]
	return s, ""
}

// decideCopy places the ops that only relabel a tensor (Identity,
// inference Dropout, Flatten, Reshape): a buffer copy under the new shape,
// so that a segment around them stays on the device.
func decideCopy(n *op.Node, cpu any, in []graph.Type) (*spec, string) {
	s := &spec{kind: kCopy, key: "copy"}
	switch n.OpType {
	case "Dropout":
		if n.HasInput(2) {
			t := n.ConstInput(2)
			if t == nil || t.Len() != 1 || t.DType() != tensor.Bool || t.Bools()[0] {
				return nil, "Dropout with training_mode not a constant false"
			}
		}
		// Before version 12 the CPU kernel is an identity whatever is_test
		// says (gort runs inference), and so is this copy.
		s.mask = len(n.Outputs) > 1 && n.Outputs[1] != ""
	case "Flatten":
		fa, ok := attrsOf[tensorops.FlattenAttrs](cpu)
		if !ok {
			return nil, noAttrs(n)
		}
		s.axis = int(fa.Axis)
		r := len(in[0].Shape)
		if s.axis < 0 {
			s.axis += r
		}
		if s.axis < 0 || s.axis > r {
			return nil, fmt.Sprintf("Flatten axis out of range for rank %d", r)
		}
	case "Reshape":
		if n.Version < 5 {
			return nil, "Reshape-1 (shape as an attribute)"
		}
		ra, ok := attrsOf[tensorops.ReshapeAttrs](cpu)
		if !ok {
			return nil, noAttrs(n)
		}
		s.allowZero = ra.AllowZero
	}
	return s, ""
}

// reshape resolves Reshape's target shape against the input's: 0 copies
// the input dim (unless allowzero), one -1 takes what is left.
func reshape(x []int, target []int64, allowZero bool) ([]int, error) {
	out := make([]int, len(target))
	infer, known := -1, 1
	for i, d := range target {
		switch {
		case d == -1:
			if infer >= 0 {
				return nil, fmt.Errorf("shape %v has two -1 dims", target)
			}
			infer = i
			continue
		case d == 0 && !allowZero:
			if i >= len(x) {
				return nil, fmt.Errorf("shape %v copies dim %d of an input of rank %d", target, i, len(x))
			}
			out[i] = x[i]
		case d < 0:
			return nil, fmt.Errorf("shape %v has a negative dim", target)
		default:
			out[i] = int(d)
		}
		known *= out[i]
	}
	total := prod(x)
	if infer >= 0 {
		if known == 0 || total%known != 0 {
			return nil, fmt.Errorf("cannot reshape %v to %v", x, target)
		}
		out[infer] = total / known
	} else if known != total {
		return nil, fmt.Errorf("cannot reshape %v to %v", x, target)
	}
	return out, nil
}

// lastAxisVector reports whether a shape of known rank ≥ 1 has 1 in every
// dim but the last ([N], [1, N], [1, 1, N]…).
func lastAxisVector(d []graph.Dim) bool {
	return len(d) > 0 && allOnes(d[:len(d)-1])
}

func allOnes(d []graph.Dim) bool {
	for _, v := range d {
		if !v.Known() || v.Value != 1 {
			return false
		}
	}
	return true
}

// heavyOps are the ops that pay for a segment's transfers: their work per
// element moved grows with a reduction (the K multiply-adds per output of
// Conv, ConvTranspose, MatMul and Gemm). The others (elementwise ops,
// activations, pools, BatchNormalization, Softmax, Concat, the copies and
// Resize) are memory-bound, a few operations per element, so on their own
// they cost the device about what their upload and download cost, and the
// CPU less. Resize is light too: it reads each input element a few times,
// and its output, larger than its input, is what the CPU would download.
var heavyOps = map[string]bool{"Conv": true, "ConvTranspose": true, "MatMul": true, "Gemm": true}

// heavy is the plan's segment rule (plan.Segmenter): a segment of WebGPU
// steps with no heavy op goes back to the CPU. It is part of the cost
// rule, so MinElements 0 switches it off (every op counts as heavy) and
// tests can force single ops onto the device.
func heavy(o Options, n *op.Node) bool { return o.MinElements <= 0 || heavyOps[n.OpType] }
