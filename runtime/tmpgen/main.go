package main

import (
	"math"
	"os"

	tm "github.com/gort-dev/gort/runtime/internal/testmodel"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

func ints(name string, v ...int64) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Ints: v, Type: pb.AttributeProto_INTS}
}

func filled(shape ...int) *tensor.Tensor {
	t := tensor.New(tensor.Float, shape...)
	for i := range t.F32() {
		t.F32()[i] = float32(math.Sin(float64(i))) * 0.1
	}
	return t
}

func build(broken bool) []byte {
	m := tm.New(17)
	m.Input("image", tensor.Float, "batch", 3, 32, 32)
	cin := int(3)
	if broken {
		cin = 4
	}
	m.Init("conv.weight", filled(16, cin, 3, 3))
	m.Init("conv.bias", filled(16))
	m.Init("fc.weight", filled(10, 4096))
	m.Init("fc.bias", filled(10))
	m.Init("zero", tensor.Of([]int{1}, []int64{0}))
	m.Init("minus_one", tensor.Of([]int{1}, []int64{-1}))
	tm.Named(m.Node("Conv", []string{"image", "conv.weight", "conv.bias"}, []string{"conv"}, ints("pads", 1, 1, 1, 1)), "conv", "")
	tm.Named(m.Node("Relu", []string{"conv"}, []string{"relu"}), "relu", "")
	tm.Named(m.Node("MaxPool", []string{"relu"}, []string{"pool"}, ints("kernel_shape", 2, 2), ints("strides", 2, 2)), "pool", "")
	tm.Named(m.Node("Shape", []string{"pool"}, []string{"shape"}), "shape", "")
	tm.Named(m.Node("Gather", []string{"shape", "zero"}, []string{"n"}), "batch_size", "")
	tm.Named(m.Node("Concat", []string{"n", "minus_one"}, []string{"flat_shape"}, tm.Int("axis", 0)), "flat_shape", "")
	tm.Named(m.Node("Reshape", []string{"pool", "flat_shape"}, []string{"flat"}), "flatten", "")
	tm.Named(m.Node("Gemm", []string{"flat", "fc.weight", "fc.bias"}, []string{"logits"}, tm.Int("transB", 1)), "fc", "")
	if broken {
		m.Init("fc.scale", tensor.Of([]int{1}, []float32{1}))
		tm.Named(m.Node("Softmax", []string{"logits"}, []string{"probs"}, tm.Int("axs", 1)), "softmax", "")
		tm.Named(m.Node("Argmax", []string{"probs"}, []string{"label"}), "argmax", "")
		m.Output("probs", tensor.Float, "batch", 10)
		m.Output("label", tensor.Int64, "batch")
	} else {
		tm.Named(m.Node("Softmax", []string{"logits"}, []string{"probs"}, tm.Int("axis", 1)), "softmax", "")
		m.Output("probs", tensor.Float, "batch", 10)
	}
	return m.Bytes()
}

func main() {
	os.WriteFile(os.Args[1]+"/classifier.onnx", build(false), 0o644)
	os.WriteFile(os.Args[1]+"/broken.onnx", build(true), 0o644)
}
