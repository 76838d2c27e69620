package plan

import (
	"math"
	"slices"

	"github.com/gort-dev/gort/runtime/graph"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

// qdq runs QDQ groups as integer ops. A statically quantized model (as
// onnxruntime's quantizer writes it) computes each Conv, MatMul and Gemm
// in float between DequantizeLinear and QuantizeLinear:
//
//	DequantizeLinear(x_q, sx, zx) ─┐
//	DequantizeLinear(w_q, sw, zw) ─┼─ Conv ─ [Relu] ─ QuantizeLinear(·, sy, zy)
//	[bias]                        ─┘
//
// which is QLinearConv(x_q, sx, zx, w_q, sw, zw, sy, zy, bias_int32): the
// exact integer accumulation requantized once, instead of three float
// passes over the activations (dequantize, convolve, quantize). MatMul
// becomes QLinearMatMul (weight scales per tensor or per column), and so
// does a Gemm without C, with alpha 1 and transA 0 (transB transposes the
// constant weights).
//
// The group must be: activation scale and zero point constants of one
// value (x per tensor), int8 or uint8 data; weights a constant int8 or
// uint8 tensor with constant scales of one value or one per output channel
// (DequantizeLinear's axis on that channel) and zero points to match; the
// output QuantizeLinear per tensor with a constant int8 or uint8 zero
// point; the Conv's bias absent, a float32 constant (quantized to int32
// with scale sx·sw[m], rounding half to even, as onnxruntime's quantizer
// does) or a DequantizeLinear of a constant int32 with zero point 0 (its
// values taken as they are when its scale is sx·sw[m] in float32, else
// requantized so). The float value between the op and the QuantizeLinear
// (and the Relu's) must have the next op of the chain as its sole reader;
// a DequantizeLinear that other nodes read too stays for them. A Relu
// between the op and the QuantizeLinear is absorbed when the zero point is
// its type's minimum (0 for uint8, −128 for int8): the quantization then
// clamps every negative value to the zero point, Q(Relu(v)) = Q(v), the
// condition of onnxruntime's ReluQuantFusion.
//
// Results: the integer op requantizes round((acc + bias)·sx·sw/sy) + zy in
// float64, where the float path rounds the dequantized values, the float32
// accumulation and the division by sy; outputs agree within one
// quantization step (tested in plan_test.go).
//
// It runs before constant folding folds the weights' DequantizeLinear
// (fold skips DequantizeLinear at the Extended level until this pass has
// run; see compile).
func (c *compiler) qdq(w *workGraph, rep *Report) {
	reg := c.registry()
	producer := w.producers()
	idx := w.index()
	drop := map[*graph.Node]bool{}
	plain := func(n *graph.Node, opType string) bool {
		return n != nil && !drop[n] && n.OpType == opType && n.Domain == "" && n.Builder != nil && n.Fused == nil && len(n.Outputs) == 1 && len(n.Graphs) == 0
	}
	for _, q := range w.nodes {
		if !plain(q, "QuantizeLinear") || len(q.Inputs) < 3 || q.Inputs[0] == "" {
			continue
		}
		_, zy, ok := w.perTensorQuant(q)
		if !ok {
			continue
		}
		if dt, _ := q.Int("output_dtype", 0); dt != 0 && tensor.DType(dt) != zy.DType() {
			continue
		}
		p := producer[q.Inputs[0]]
		if p == nil || w.soleReader(idx, q.Inputs[0]) != q {
			continue
		}
		var relu *graph.Node
		if plain(p, "Relu") && len(p.Inputs) == 1 && zeroIsMin(zy) {
			relu = p
			if p = producer[relu.Inputs[0]]; p == nil || w.soleReader(idx, relu.Inputs[0]) != relu {
				continue
			}
		}
		if p == nil || drop[p] || p.Domain != "" || p.Builder == nil || p.Fused != nil || len(p.Outputs) != 1 || len(p.Inputs) < 2 {
			continue
		}
		var g *qdqGroup
		switch p.OpType {
		case "Conv":
			g = w.qdqConv(p, producer)
		case "MatMul":
			g = w.qdqMatMul(p, producer, false)
		case "Gemm":
			g = w.qdqGemm(p, producer)
		}
		if g == nil {
			continue
		}
		opType := "QLinearConv"
		if p.OpType != "Conv" {
			opType = "QLinearMatMul"
		}
		res := reg.Resolve("", opType, p.Opset)
		if res.Builder == nil {
			continue
		}
		n := *p
		n.OpType, n.Version, n.Builder = opType, res.Version, res.Builder
		if opType == "QLinearMatMul" {
			n.Attrs = map[string]*pb.AttributeProto{}
		}
		names := make([]string, 0, 9)
		for _, t := range []struct {
			name string
			t    *tensor.Tensor
		}{{g.x, nil}, {g.sx, nil}, {g.zx, g.zxT}, {g.w, g.wT}, {g.sw, nil}, {g.zw, g.zwT}, {q.Inputs[1], nil}, {q.Inputs[2], nil}, {"", g.bias}} {
			name := t.name
			if t.t != nil {
				name = w.freshName(p.Name + "/qdq")
				w.setConst(name, t.t)
				w.foldedSet[t.t] = true
				rep.FoldedBytes += int64(t.t.Len() * t.t.DType().ElemBytes())
			}
			names = append(names, name)
		}
		if g.bias == nil {
			names = names[:8]
		}
		n.Inputs = names
		n.Outputs = slices.Clone(q.Outputs)
		n.Reads = replaceUnique(slices.Clone(names), "", "")
		if _, err := n.Builder(&n.Node); err != nil {
			continue
		}
		w.replace(q, &n)
		desc := ""
		for _, dq := range g.dqs {
			if w.soleReader(idx, dq.Outputs[0]) == p {
				drop[dq] = true
				desc += dq.Name + "+"
			}
		}
		drop[p] = true
		desc += p.Name
		if relu != nil {
			drop[relu] = true
			desc += "+" + relu.Name
		}
		rep.Fused = append(rep.Fused, desc+"+"+q.Name+" (QDQ "+p.OpType+" as "+opType+")")
	}
	w.remove(drop)
}

// qdqGroup is a QDQ group's integer operands: value names, or constants
// the rewrite made (zero points the model left out, transposed or
// quantized tensors) when the *T field is set.
type qdqGroup struct {
	x, sx, zx, w, sw, zw string
	zxT, wT, zwT, bias   *tensor.Tensor
	dqs                  []*graph.Node
}

// dequant describes the DequantizeLinear producing name: its data, scales
// and zero point (nil when absent) as constants where they are.
type dequant struct {
	node             *graph.Node
	data, scale, zp  string
	dataT, sT, zpT   *tensor.Tensor
	axis             int
	dataType, zpType tensor.DType
}

func (w *workGraph) dequantOf(producer map[string]*graph.Node, name string) *dequant {
	n := producer[name]
	if n == nil || n.OpType != "DequantizeLinear" || n.Domain != "" || n.Builder == nil || len(n.Outputs) != 1 || len(n.Inputs) < 2 || n.Inputs[0] == "" {
		return nil
	}
	if bs, _ := n.Int("block_size", 0); bs != 0 {
		return nil
	}
	d := &dequant{node: n, data: n.Inputs[0], scale: n.Inputs[1], dataT: w.constTensor(n.Inputs[0]), sT: w.constTensor(n.Inputs[1])}
	if d.sT == nil || d.sT.DType() != tensor.Float || d.sT.Len() == 0 || d.sT.Rank() > 1 {
		return nil
	}
	for _, s := range d.sT.F32() {
		if !(s > 0) || math.IsInf(float64(s), 0) {
			return nil
		}
	}
	d.dataType = w.dtypeOf(d.data)
	if n.HasInput(2) {
		d.zp = n.Inputs[2]
		if d.zpT = w.constTensor(d.zp); d.zpT == nil || d.zpT.Len() != d.sT.Len() || d.zpT.Rank() > 1 {
			return nil
		}
		d.zpType = d.zpT.DType()
		if d.dataType != d.zpType {
			return nil
		}
	}
	axis, _ := n.Int("axis", 1)
	d.axis = int(axis)
	return d
}

func quant8(dt tensor.DType) bool { return dt == tensor.Uint8 || dt == tensor.Int8 }

// perTensorQuant returns a QuantizeLinear's constant scale and zero point
// when they are one float32 and one int8 or uint8 value.
func (w *workGraph) perTensorQuant(q *graph.Node) (s, z *tensor.Tensor, ok bool) {
	s, z = w.constTensor(q.Inputs[1]), w.constTensor(q.Inputs[2])
	if s == nil || z == nil || s.DType() != tensor.Float || s.Len() != 1 || z.Len() != 1 || !quant8(z.DType()) {
		return nil, nil, false
	}
	if v := s.F32()[0]; !(v > 0) || math.IsInf(float64(v), 0) {
		return nil, nil, false
	}
	if bs, _ := q.Int("block_size", 0); bs != 0 {
		return nil, nil, false
	}
	return s, z, true
}

// zeroIsMin reports whether a quantization zero point is its type's least
// value, so that quantizing clamps every negative value to it.
func zeroIsMin(z *tensor.Tensor) bool {
	switch d := z.Data().(type) {
	case []uint8:
		return d[0] == 0
	case []int8:
		return d[0] == math.MinInt8
	}
	return false
}

// activation fills the group's x operands from the DequantizeLinear of the
// op's input name: per tensor, int8 or uint8.
func (g *qdqGroup) activation(w *workGraph, producer map[string]*graph.Node, name string) bool {
	d := w.dequantOf(producer, name)
	if d == nil || d.sT.Len() != 1 || !quant8(d.dataType) || d.dataT != nil {
		return false
	}
	g.x, g.sx, g.zx = d.data, d.scale, d.zp
	if d.zp == "" {
		g.zxT = tensor.New(d.dataType)
	}
	g.dqs = append(g.dqs, d.node)
	return true
}

// weights fills the group's w operands from the DequantizeLinear of a
// constant int8 or uint8 tensor, per tensor or per channel along axis
// (of channels values).
func (g *qdqGroup) weights(w *workGraph, producer map[string]*graph.Node, name string, axis, channels int) (*dequant, bool) {
	d := w.dequantOf(producer, name)
	if d == nil || d.dataT == nil || !quant8(d.dataT.DType()) {
		return nil, false
	}
	if d.sT.Len() != 1 {
		a := d.axis
		if a < 0 {
			a += d.dataT.Rank()
		}
		if a != axis || d.sT.Len() != channels || d.sT.Rank() != 1 {
			return nil, false
		}
	}
	g.w, g.sw, g.zw = d.data, d.scale, d.zp
	if d.zp == "" {
		g.zwT = tensor.New(d.dataT.DType())
	}
	g.dqs = append(g.dqs, d.node)
	return d, true
}

// qdqConv matches a Conv's inputs: the group, or nil.
func (w *workGraph) qdqConv(p *graph.Node, producer map[string]*graph.Node) *qdqGroup {
	g := &qdqGroup{}
	if len(p.Inputs) > 3 || !g.activation(w, producer, p.Inputs[0]) {
		return nil
	}
	wt := w.dequantOf(producer, p.Inputs[1])
	if wt == nil || wt.dataT == nil || wt.dataT.Rank() < 3 {
		return nil
	}
	M := wt.dataT.Shape()[0]
	if _, ok := g.weights(w, producer, p.Inputs[1], 0, M); !ok {
		return nil
	}
	if !p.HasInput(2) {
		return g
	}
	sx := float64(w.constTensor(g.sx).F32()[0])
	sw := w.constTensor(g.sw).F32()
	bias := tensor.New(tensor.Int32, M)
	bd := bias.I32()
	scale := func(m int) float32 { return float32(sx) * sw[min(m, len(sw)-1)] }
	quantize := func(m int, v float64) bool {
		q := math.RoundToEven(v / (sx * float64(sw[min(m, len(sw)-1)])))
		if math.IsNaN(q) || q < math.MinInt32 || q > math.MaxInt32 {
			return false
		}
		bd[m] = int32(q)
		return true
	}
	if b := w.constTensor(p.Inputs[2]); b != nil {
		if b.DType() != tensor.Float || b.Len() != M || b.Rank() != 1 {
			return nil
		}
		for m, v := range b.F32() {
			if !quantize(m, float64(v)) {
				return nil
			}
		}
		g.bias = bias
		return g
	}
	d := w.dequantOf(producer, p.Inputs[2])
	if d == nil || d.dataT == nil || d.dataT.DType() != tensor.Int32 || d.dataT.Len() != M || d.dataT.Rank() != 1 {
		return nil
	}
	if d.zpT != nil {
		for _, z := range d.zpT.I32() {
			if z != 0 {
				return nil
			}
		}
	}
	bs := d.sT.F32()
	if len(bs) != 1 && (len(bs) != M || d.axis != 0 && d.axis != -1) {
		return nil
	}
	for m, v := range d.dataT.I32() {
		s := bs[min(m, len(bs)-1)]
		if s == scale(m) {
			bd[m] = v
		} else if !quantize(m, float64(v)*float64(s)) {
			return nil
		}
	}
	g.bias = bias
	g.dqs = append(g.dqs, d.node)
	return g
}

// qdqMatMul matches a MatMul's inputs (a Gemm's, with transB, whose B is
// N×K): the group, or nil. B must be a matrix; its scales may be one per
// column.
func (w *workGraph) qdqMatMul(p *graph.Node, producer map[string]*graph.Node, transB bool) *qdqGroup {
	g := &qdqGroup{}
	if !g.activation(w, producer, p.Inputs[0]) {
		return nil
	}
	wt := w.dequantOf(producer, p.Inputs[1])
	if wt == nil || wt.dataT == nil || wt.dataT.Rank() != 2 {
		return nil
	}
	axis, n := 1, wt.dataT.Shape()[1]
	if transB {
		axis, n = 0, wt.dataT.Shape()[0]
	}
	if _, ok := g.weights(w, producer, p.Inputs[1], axis, n); !ok {
		return nil
	}
	if transB {
		g.wT = transpose8(wt.dataT)
	}
	return g
}

// qdqGemm matches a Gemm with no C, alpha 1 and transA 0: a QLinearMatMul
// (transB transposes the constant B).
func (w *workGraph) qdqGemm(p *graph.Node, producer map[string]*graph.Node) *qdqGroup {
	alpha, err1 := p.Float("alpha", 1)
	transA, err2 := p.Int("transA", 0)
	transB, err3 := p.Int("transB", 0)
	if err1 != nil || err2 != nil || err3 != nil || alpha != 1 || transA != 0 || p.HasInput(2) {
		return nil
	}
	return w.qdqMatMul(p, producer, transB != 0)
}

// transpose8 returns the transpose of an int8 or uint8 matrix.
func transpose8(t *tensor.Tensor) *tensor.Tensor {
	r, c := t.Shape()[0], t.Shape()[1]
	out := tensor.New(t.DType(), c, r)
	switch s := t.Data().(type) {
	case []uint8:
		transposeInto(out.Data().([]uint8), s, r, c)
	case []int8:
		transposeInto(out.Data().([]int8), s, r, c)
	}
	return out
}

func transposeInto[T any](dst, src []T, r, c int) {
	for i := range r {
		for j := range c {
			dst[j*r+i] = src[i*c+j]
		}
	}
}
