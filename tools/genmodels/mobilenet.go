package main

import (
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

// mobilenetV3 builds a MobileNetV3-Small-style classifier (Howard et al.,
// 2019) for a size×size RGB image: inverted residual blocks with depthwise
// 3×3 and 5×5 convs (group = channels), HardSwish activations,
// squeeze-excitation gated by HardSigmoid, residual Adds, global average
// pooling and a Gemm head with 1000 classes. BatchNorms are folded into the
// conv biases, as exporters with constant folding leave them.
func mobilenetV3(size int, seed uint64) (*pb.ModelProto, map[string]*tensor.Tensor) {
	b := newGraph("mobilenet_v3_small", seed)
	m := &mnet{graph: b}
	x := b.input("image", tensor.Float, 1, 3, size, size)
	y := m.act(m.conv(x, 3, 16, 3, 2, 1), "HS")
	c := 16
	// kernel, expansion, out, squeeze-excite, activation, stride: the paper's table 2.
	for _, s := range []struct {
		k, exp, out int
		se          bool
		act         string
		stride      int
	}{
		{3, 16, 16, true, "RE", 2},
		{3, 72, 24, false, "RE", 2},
		{3, 88, 24, false, "RE", 1},
		{5, 96, 40, true, "HS", 2},
		{5, 240, 40, true, "HS", 1},
		{5, 240, 40, true, "HS", 1},
		{5, 120, 48, true, "HS", 1},
		{5, 144, 48, true, "HS", 1},
		{5, 288, 96, true, "HS", 2},
		{5, 576, 96, true, "HS", 1},
		{5, 576, 96, true, "HS", 1},
	} {
		h := y
		if s.exp != c {
			h = m.act(m.conv(h, c, s.exp, 1, 1, 1), s.act)
		}
		h = m.act(m.conv(h, s.exp, s.exp, s.k, s.stride, s.exp), s.act)
		if s.se {
			h = m.squeeze(h, s.exp)
		}
		h = m.conv(h, s.exp, s.out, 1, 1, 1)
		if s.stride == 1 && c == s.out {
			h = b.node("Add", []string{h, y})
		}
		y, c = h, s.out
	}
	y = m.act(m.conv(y, c, 576, 1, 1, 1), "HS")
	y = b.node("GlobalAveragePool", []string{y})
	y = b.node("Flatten", []string{y}, aInt("axis", 1))
	y = m.act(m.gemm(y, 576, 1024), "HS")
	y = m.gemm(y, 1024, 1000)
	b.rename(b.node("Softmax", []string{y}, aInt("axis", 1)), "probabilities")
	b.output("probabilities", tensor.Float, []int{1, 1000})
	feeds := map[string]*tensor.Tensor{"image": randInput(seed+1, -1, 1, 1, 3, size, size)}
	return model(b, "MobileNetV3-Small-style classifier; written by gort's tools/genmodels"), feeds
}

type mnet struct{ *graph }

func (m *mnet) conv(x string, cin, cout, k, stride, group int) string {
	w := m.weight("w", tensor.Float, heScale(cin/group*k*k), cout, cin/group, k, k)
	bias := m.weight("b", tensor.Float, 0.1, cout)
	p := int64(k / 2)
	return m.node("Conv", []string{x, w, bias}, aInts("kernel_shape", int64(k), int64(k)),
		aInts("pads", p, p, p, p), aInts("strides", int64(stride), int64(stride)), aInt("group", int64(group)))
}

func (m *mnet) act(x, kind string) string {
	if kind == "HS" {
		return m.node("HardSwish", []string{x})
	}
	return m.node("Relu", []string{x})
}

// squeeze is squeeze-and-excitation: channel means → 1×1 conv to c/4, Relu →
// 1×1 conv back to c, HardSigmoid (alpha 1/6, as torch's hardsigmoid exports)
// → scale x per channel.
func (m *mnet) squeeze(x string, c int) string {
	r := (c/4 + 7) / 8 * 8
	s := m.node("GlobalAveragePool", []string{x})
	s = m.node("Relu", []string{m.conv(s, c, r, 1, 1, 1)})
	s = m.node("HardSigmoid", []string{m.conv(s, r, c, 1, 1, 1)}, aFloat("alpha", 1.0/6))
	return m.node("Mul", []string{x, s})
}

func (m *mnet) gemm(x string, in, out int) string {
	w := m.weight("fc", tensor.Float, heScale(in), out, in)
	bias := m.weight("fcb", tensor.Float, 0.1, out)
	return m.node("Gemm", []string{x, w, bias}, aInt("transB", 1))
}
