package main

import (
	"math"
	"strconv"

	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

// decoder builds one step of a GPT-2-style decoder with a KV cache, as
// PyTorch exports GPT-2 for transformers.js: token and position embeddings
// (Gather), per layer LayerNormalization, one fused Q/K/V projection
// (MatMul + Add, Split), the past keys and values concatenated with the
// step's (outputs present_key_i / present_value_i), causal attention with
// an additive mask, the output projection, residual Adds, a 4× MLP with the
// tanh GELU written out, and the logits as MatMul with the tied embedding.
// seq tokens follow past cached ones.
func decoder(seq, past, d, heads, layers, vocab int, seed uint64) (*pb.ModelProto, map[string]*tensor.Tensor) {
	b := newGraph("decoder", seed)
	ids := b.input("input_ids", tensor.Int64, 1, seq)
	dh := d / heads
	wte := b.weight("wte", tensor.Float, 0.5, vocab, d)
	wpe := b.weight("wpe", tensor.Float, 0.1, past+seq, d)
	pos := make([]int64, seq)
	for i := range pos {
		pos[i] = int64(past + i)
	}
	x := b.node("Add", []string{b.node("Gather", []string{wte, ids}), b.node("Gather", []string{wpe, b.init("positions", tensor.Of([]int{1, seq}, pos))})})
	split := b.ints("heads_shape", 1, int64(seq), int64(heads), int64(dh))
	merge := b.ints("merge_shape", 1, int64(seq), int64(d))
	thirds := b.ints("qkv_split", int64(d), int64(d), int64(d))
	scale := b.init("scale", tensor.Scalar(float32(1/math.Sqrt(float64(dh)))))
	// Query i (at position past+i) sees keys 0…past+i.
	mask := make([]float32, seq*(past+seq))
	for i := 0; i < seq; i++ {
		for j := past + i + 1; j < past+seq; j++ {
			mask[i*(past+seq)+j] = -1e9
		}
	}
	causal := b.init("causal_mask", tensor.Of([]int{1, 1, seq, past + seq}, mask))
	half := b.init("half", tensor.Scalar(float32(0.5)))
	one := b.init("one", tensor.Scalar(float32(1)))
	cubic := b.init("gelu_cubic", tensor.Scalar(float32(0.044715)))
	root := b.init("gelu_root", tensor.Scalar(float32(math.Sqrt(2/math.Pi))))
	heads4 := func(x string, perm ...int64) string {
		return b.node("Transpose", []string{b.node("Reshape", []string{x, split})}, aInts("perm", perm...))
	}
	feeds := map[string]*tensor.Tensor{}
	for l := 0; l < layers; l++ {
		qkv := b.nodeN("Split", 3, []string{b.linear(b.layerNorm(x, d), d, 3*d), thirds}, aInt("axis", -1))
		q := heads4(qkv[0], 0, 2, 1, 3)
		var kv [2]string
		for i, name := range []string{"key", "value"} {
			pastName := b.input(fmtName("past_", name, l), tensor.Float, 1, heads, past, dh)
			feeds[pastName] = randInput(seed+uint64(10*l+i), -1, 1, 1, heads, past, dh)
			kv[i] = b.node("Concat", []string{pastName, heads4(qkv[1+i], 0, 2, 1, 3)}, aInt("axis", 2))
			b.rename(kv[i], fmtName("present_", name, l))
			kv[i] = fmtName("present_", name, l)
			b.output(kv[i], tensor.Float, []int{1, heads, past + seq, dh})
		}
		kt := b.node("Transpose", []string{kv[0]}, aInts("perm", 0, 1, 3, 2))
		s := b.node("Add", []string{b.node("Mul", []string{b.node("MatMul", []string{q, kt}), scale}), causal})
		a := b.node("Transpose", []string{b.node("MatMul", []string{b.node("Softmax", []string{s}, aInt("axis", -1)), kv[1]})}, aInts("perm", 0, 2, 1, 3))
		x = b.node("Add", []string{x, b.linear(b.node("Reshape", []string{a, merge}), d, d)})

		h := b.linear(b.layerNorm(x, d), d, 4*d)
		inner := b.node("Mul", []string{root, b.node("Add", []string{h, b.node("Mul", []string{cubic, b.node("Pow", []string{h, b.init("three", tensor.Scalar(float32(3)))})})})})
		h = b.node("Mul", []string{b.node("Mul", []string{half, h}), b.node("Add", []string{one, b.node("Tanh", []string{inner})})})
		x = b.node("Add", []string{x, b.linear(h, 4*d, d)})
	}
	logits := b.node("MatMul", []string{b.layerNorm(x, d), b.node("Transpose", []string{wte}, aInts("perm", 1, 0))})
	b.rename(logits, "logits")
	b.output("logits", tensor.Float, []int{1, seq, vocab})
	tok := make([]int64, seq)
	for i := range tok {
		tok[i] = int64((i*7 + 3) % vocab)
	}
	feeds["input_ids"] = tensor.Of([]int{1, seq}, tok)
	return model(b, "GPT-2-style decoder step with a KV cache (Gather embeddings, MatMul, Split, Concat, Softmax, tanh GELU); written by gort's tools/genmodels"), feeds
}

func fmtName(prefix, name string, layer int) string {
	return prefix + name + "_" + strconv.Itoa(layer)
}
