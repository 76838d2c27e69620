package main

import (
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

// vad builds a small voice-activity model in the shape of Silero VAD's
// export: the sample rate picks one of two weight sets through an If whose
// branches each hold a conv front end, two stacked LSTMs that carry a state
// in and out, and a sigmoid head giving one speech probability per frame.
//
// Inputs: features [1, frames, 40] (log-mel), sr (int64 scalar, 16000 or
// 8000), h and c [2, 1, 64] (the two LSTMs' state). Outputs: prob
// [1, frames, 1], hn and cn [2, 1, 64].
func vad(frames int, seed uint64) (*pb.ModelProto, map[string]*tensor.Tensor) {
	const feat, hidden = 40, 64
	b := newGraph("vad", seed)
	b.input("features", tensor.Float, 1, frames, feat)
	b.input("sr", tensor.Int64)
	b.input("h", tensor.Float, 2, 1, hidden)
	b.input("c", tensor.Float, 2, 1, hidden)
	is16k := b.node("Equal", []string{"sr", b.init("k16", tensor.Scalar(int64(16000)))})
	then := vadBranch(b.sub("vad_16k"), feat, hidden)
	els := vadBranch(b.sub("vad_8k"), feat, hidden)
	outs := b.nodeN("If", 3, []string{is16k}, aGraph("then_branch", then), aGraph("else_branch", els))
	for i, name := range []string{"prob", "hn", "cn"} {
		b.rename(outs[i], name)
	}
	b.output("prob", tensor.Float, []int{1, frames, 1})
	b.output("hn", tensor.Float, []int{2, 1, hidden})
	b.output("cn", tensor.Float, []int{2, 1, hidden})

	h := randInput(seed+2, -0.5, 0.5, 2, 1, hidden)
	c := randInput(seed+3, -0.5, 0.5, 2, 1, hidden)
	feeds := map[string]*tensor.Tensor{
		"features": randInput(seed+1, -2, 2, 1, frames, feat),
		"sr":       tensor.Scalar(int64(16000)),
		"h":        h,
		"c":        c,
	}
	return model(b, "LSTM voice-activity model inside If (Silero-VAD-like); written by gort's tools/genmodels"), feeds
}

func vadBranch(g *graph, feat, hidden int) *graph {
	conv := func(x string, cin, cout int) string {
		w := g.weight("w", tensor.Float, heScale(cin*3), cout, cin, 3)
		bias := g.weight("b", tensor.Float, 0.1, cout)
		return g.node("Relu", []string{g.node("Conv", []string{x, w, bias}, aInts("kernel_shape", 3), aInts("pads", 1, 1))})
	}
	x := g.node("Transpose", []string{"features"}, aInts("perm", 0, 2, 1)) // [1, feat, T]
	x = conv(x, feat, hidden)
	x = conv(x, hidden, hidden)
	x = g.node("Transpose", []string{x}, aInts("perm", 2, 0, 1)) // [T, 1, hidden]
	hs := g.nodeN("Split", 2, []string{"h"}, aInt("axis", 0))
	cs := g.nodeN("Split", 2, []string{"c"}, aInt("axis", 0))
	axis1 := g.ints("axes", 1)
	var yh, yc []string
	for l := 0; l < 2; l++ {
		s := heScale(hidden) / 2
		w := g.weight("W", tensor.Float, s, 1, 4*hidden, hidden)
		r := g.weight("R", tensor.Float, s, 1, 4*hidden, hidden)
		bias := g.weight("B", tensor.Float, 0.1, 1, 8*hidden)
		o := g.nodeN("LSTM", 3, []string{x, w, r, bias, "", hs[l], cs[l]}, aInt("hidden_size", int64(hidden)))
		x = g.node("Squeeze", []string{o[0], axis1}) // [T, 1, hidden]
		yh, yc = append(yh, o[1]), append(yc, o[2])
	}
	x = g.node("Relu", []string{x})
	x = g.node("MatMul", []string{x, g.weight("head", tensor.Float, heScale(hidden), hidden, 1)})
	x = g.node("Add", []string{x, g.weight("headb", tensor.Float, 0.1, 1)})
	x = g.node("Sigmoid", []string{x})
	prob := g.node("Transpose", []string{x}, aInts("perm", 1, 0, 2)) // [1, T, 1]
	hn := g.node("Concat", yh, aInt("axis", 0))
	cn := g.node("Concat", yc, aInt("axis", 0))
	g.output(prob, tensor.Float, nil)
	g.output(hn, tensor.Float, nil)
	g.output(cn, tensor.Float, nil)
	return g
}
