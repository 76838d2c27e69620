package attention_test

import (
	"fmt"
	_ "github.com/gort-dev/gort/ops" // the operator set
	"math"
	"testing"

	"github.com/gort-dev/gort/ops/internal/modeltest"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

func iattr(name string, v int64) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_INT, I: v}
}

func fattr(name string, v float32) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_FLOAT, F: v}
}

func sattr(name, v string) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_STRING, S: []byte(v)}
}

// runOp runs one node of the default domain at opset whose inputs are
// initializers (nil = omitted) and returns its nOut outputs.
func runOp(t *testing.T, opType string, opset int64, attrs []*pb.AttributeProto, ins []*tensor.Tensor, nOut int) []*tensor.Tensor {
	t.Helper()
	outs, err := tryOp(opType, opset, attrs, ins, nOut)
	if err != nil {
		t.Fatal(err)
	}
	return outs
}

func tryOp(opType string, opset int64, attrs []*pb.AttributeProto, ins []*tensor.Tensor, nOut int) ([]*tensor.Tensor, error) {
	return modeltest.Run(modeltest.Node{Op: opType, Opset: int(opset), Attrs: attrs, In: ins, NOut: nOut})
}

// tryFlex runs ai.onnx.preview FlexAttention and returns Y.
func tryFlex(attrs []*pb.AttributeProto, ins []*tensor.Tensor) (*tensor.Tensor, error) {
	out, err := modeltest.Run(modeltest.Node{Domain: "ai.onnx.preview", Op: "FlexAttention", Opset: 1, DefaultOpset: 26, Attrs: attrs, In: ins})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// rnd returns n deterministic values in [-1, 1) (a small LCG), so tests need
// no fixtures and differ from one call to the next.
func rnd(seed uint32, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		seed = seed*1664525 + 1013904223
		out[i] = float32(seed>>8)/float32(1<<23) - 1
	}
	return out
}

func expectClose(t *testing.T, name string, got *tensor.Tensor, shape []int, want []float64, tol float64) {
	t.Helper()
	if fmt.Sprint(got.Shape()) != fmt.Sprint(shape) {
		t.Fatalf("%s: shape %v, want %v", name, got.Shape(), shape)
	}
	g, _ := got.Float64s()
	for i, w := range want {
		if math.IsNaN(w) != math.IsNaN(g[i]) || math.Abs(g[i]-w) > tol*(1+math.Abs(w)) {
			t.Fatalf("%s: element %d = %v, want %v\n got %v\nwant %v", name, i, g[i], w, g, want)
		}
	}
}

func f64s(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}
