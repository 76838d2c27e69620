package main

import (
	"math"

	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

// transformer builds a pre-norm transformer encoder (BERT-small-like widths)
// as PyTorch exports it without fused attention: per layer LayerNormalization,
// Q/K/V MatMul + Add, Reshape and Transpose into heads, MatMul, scale,
// Softmax, MatMul, back to [1, seq, d], output projection, residual Add, then
// LayerNormalization, a 4× MLP with the exact (Erf) GELU and a residual Add.
func transformer(seq, d, heads, layers int, seed uint64) (*pb.ModelProto, map[string]*tensor.Tensor) {
	b := newGraph("encoder", seed)
	x := b.input("tokens", tensor.Float, 1, seq, d)
	dh := d / heads
	split := b.ints("heads_shape", 1, int64(seq), int64(heads), int64(dh))
	merge := b.ints("merge_shape", 1, int64(seq), int64(d))
	scale := b.init("scale", tensor.Scalar(float32(1/math.Sqrt(float64(dh)))))
	half := b.init("half", tensor.Scalar(float32(0.5)))
	one := b.init("one", tensor.Scalar(float32(1)))
	sqrt2 := b.init("sqrt2", tensor.Scalar(float32(math.Sqrt2)))
	for l := 0; l < layers; l++ {
		h := b.layerNorm(x, d)
		q := b.node("Transpose", []string{b.node("Reshape", []string{b.linear(h, d, d), split})}, aInts("perm", 0, 2, 1, 3))
		k := b.node("Transpose", []string{b.node("Reshape", []string{b.linear(h, d, d), split})}, aInts("perm", 0, 2, 3, 1))
		v := b.node("Transpose", []string{b.node("Reshape", []string{b.linear(h, d, d), split})}, aInts("perm", 0, 2, 1, 3))
		s := b.node("Mul", []string{b.node("MatMul", []string{q, k}), scale})
		p := b.node("Softmax", []string{s}, aInt("axis", -1))
		a := b.node("Transpose", []string{b.node("MatMul", []string{p, v})}, aInts("perm", 0, 2, 1, 3))
		a = b.node("Reshape", []string{a, merge})
		x = b.node("Add", []string{x, b.linear(a, d, d)})

		h = b.linear(b.layerNorm(x, d), d, 4*d)
		erf := b.node("Erf", []string{b.node("Div", []string{h, sqrt2})})
		h = b.node("Mul", []string{b.node("Mul", []string{h, half}), b.node("Add", []string{erf, one})})
		x = b.node("Add", []string{x, b.linear(h, 4*d, d)})
	}
	b.rename(b.layerNorm(x, d), "hidden")
	b.output("hidden", tensor.Float, []int{1, seq, d})
	feeds := map[string]*tensor.Tensor{"tokens": randInput(seed+1, -1, 1, 1, seq, d)}
	return model(b, "Transformer encoder (MatMul, Softmax, LayerNormalization, Erf GELU); written by gort's tools/genmodels"), feeds
}

// linear is a PyTorch Linear layer as exported: MatMul by an in×out weight,
// then Add of a bias of out values.
func (b *graph) linear(x string, in, out int) string {
	if b.q8 {
		y := b.quantMatMul(x, b.draw(math.Sqrt(3/float64(in)), in, out), in, out)
		return b.node("Add", []string{y, b.weight("b", tensor.Float, 0.05, out)})
	}
	y := b.node("MatMul", []string{x, b.weight("w", tensor.Float, math.Sqrt(3/float64(in)), in, out)})
	return b.node("Add", []string{y, b.weight("b", tensor.Float, 0.05, out)})
}

// layerNorm is LayerNormalization over the last axis of width d (γ = 1,
// β drawn), ε = 1e-5.
func (b *graph) layerNorm(x string, d int) string {
	g := make([]float32, d)
	for i := range g {
		g[i] = 1
	}
	gamma := b.init("gamma", tensor.Of([]int{d}, g))
	beta := b.weight("beta", tensor.Float, 0.05, d)
	return b.node("LayerNormalization", []string{x, gamma, beta}, aInt("axis", -1), aFloat("epsilon", 1e-5))
}

// quantMatMul is x·w as onnxruntime's quantize_dynamic writes it with
// weight_type QUInt8 (the q8 form transformers.js loads as
// model_quantized.onnx): w as uint8 with one scale and zero point 128, x
// quantized per call by DynamicQuantizeLinear (uint8), MatMulInteger, then
// Cast and Mul by x's scale times w's. (Not int8 weights: onnxruntime's x86
// kernel for uint8 × int8 adds pairs of products in int16 (VPMADDUBSW) where
// the CPU lacks VNNI, which saturates for weights and activations that use
// their whole range, so its results depend on the CPU.)
func (b *graph) quantMatMul(x string, w []float32, in, out int) string {
	var amax float32
	for _, v := range w {
		amax = max(amax, float32(math.Abs(float64(v))))
	}
	ws := amax / 127
	q := make([]uint8, len(w))
	for i, v := range w {
		q[i] = uint8(128 + max(-127, min(127, math.RoundToEven(float64(v/ws)))))
	}
	wq := b.init("w_quantized", tensor.Of([]int{in, out}, q))
	wzp := b.init("w_zero_point", tensor.Scalar(uint8(128)))
	dq := b.nodeN("DynamicQuantizeLinear", 3, []string{x})
	y := b.node("Cast", []string{b.node("MatMulInteger", []string{dq[0], wq, dq[2], wzp})}, aInt("to", int64(tensor.Float)))
	scale := b.node("Mul", []string{dq[1], b.init("w_scale", tensor.Scalar(ws))})
	return b.node("Mul", []string{y, scale})
}
