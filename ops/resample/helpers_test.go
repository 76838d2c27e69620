package resample_test

import (
	"math"
	"testing"

	"github.com/gort-dev/gort/ops/internal/modeltest"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

// in is one node input: a tensor (fed, for the first; an initializer for
// the rest) or nil for an omitted optional input (empty name).
type in = *tensor.Tensor

func aInt(name string, v int64) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_INT, I: v}
}
func aFloat(name string, v float32) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_FLOAT, F: v}
}
func aStr(name, v string) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_STRING, S: []byte(v)}
}
func aInts(name string, v ...int64) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_INTS, Ints: v}
}
func aFloats(name string, v ...float32) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_FLOATS, Floats: v}
}

// runOp runs one node of opType at opset as a model (the first input fed,
// the others initializers) and returns its first output, or the error of
// loading or running.
func runOp(opset int64, opType string, attrs []*pb.AttributeProto, inputs ...in) (*tensor.Tensor, error) {
	out, err := modeltest.Run(modeltest.Node{Op: opType, Opset: int(opset), Attrs: attrs, In: inputs, Fed: 1})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

func mustRun(t *testing.T, opset int64, opType string, attrs []*pb.AttributeProto, inputs ...in) *tensor.Tensor {
	t.Helper()
	y, err := runOp(opset, opType, attrs, inputs...)
	if err != nil {
		t.Fatalf("%s-%d: %v", opType, opset, err)
	}
	return y
}

func f32(shape []int, v ...float32) *tensor.Tensor { return tensor.Of(shape, v) }
func i64(v ...int64) *tensor.Tensor                { return tensor.Of([]int{len(v)}, v) }
func vec(v ...float32) *tensor.Tensor              { return tensor.Of([]int{len(v)}, v) }
func empty() *tensor.Tensor                        { return tensor.Of([]int{0}, []float32{}) }

// iota32 is 0, 1, 2, ... shaped.
func iota32(shape ...int) *tensor.Tensor {
	n := 1
	for _, d := range shape {
		n *= d
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i)
	}
	return tensor.Of(shape, v)
}

func checkShape(t *testing.T, y *tensor.Tensor, shape ...int) {
	t.Helper()
	if len(y.Shape()) != len(shape) {
		t.Fatalf("shape %v, want %v", y.Shape(), shape)
	}
	for i := range shape {
		if y.Shape()[i] != shape[i] {
			t.Fatalf("shape %v, want %v", y.Shape(), shape)
		}
	}
}

func checkF32(t *testing.T, y *tensor.Tensor, want ...float32) {
	t.Helper()
	got := y.F32()
	if len(got) != len(want) {
		t.Fatalf("got %d values %v, want %d %v", len(got), got, len(want), want)
	}
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-5*(1+math.Abs(float64(want[i]))) {
			t.Fatalf("element %d is %v, want %v (all: %v)", i, got[i], want[i], got)
		}
	}
}

func checkI64(t *testing.T, y *tensor.Tensor, want ...int64) {
	t.Helper()
	got := y.I64()
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}
