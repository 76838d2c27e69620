package webgpu_test

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	_ "github.com/gort-dev/gort/ops" // the operator set
	"github.com/gort-dev/gort/ops/webgpu"
	gort "github.com/gort-dev/gort/runtime"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/tensor"
)

var _ plan.Segmenter = webgpu.Dry{}

// TestDrySegments: Dry applies the plan's segment rule as WebGPU does
// (print and run agree): Relu next to the Conv stays on the device, a
// lone Add between CPU steps goes back with the rule as its reason, and
// with MinElements 0 (the cost rule off) it stays.
func TestDrySegments(t *testing.T) {
	ty := func(dims ...int64) *pb.TypeProto {
		s := &pb.TensorShapeProto{}
		for _, d := range dims {
			s.Dim = append(s.Dim, &pb.TensorShapeProto_Dimension{Value: &pb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
		}
		return &pb.TypeProto{Value: &pb.TypeProto_TensorType{TensorType: &pb.TypeProto_Tensor{ElemType: int32(tensor.Float), Shape: s}}}
	}
	nd := func(name, opType string, in ...string) *pb.NodeProto {
		return &pb.NodeProto{Name: name, OpType: opType, Input: in, Output: []string{name}}
	}
	w := &pb.TensorProto{Name: "w", Dims: []int64{8, 8, 3, 3}, DataType: int32(tensor.Float), FloatData: make([]float32, 8*8*9)}
	g := &pb.GraphProto{
		Name:        "main",
		Input:       []*pb.ValueInfoProto{{Name: "x", Type: ty(1, 8, 32, 32)}},
		Output:      []*pb.ValueInfoProto{{Name: "neg", Type: ty(1, 8, 30, 30)}},
		Initializer: []*pb.TensorProto{w},
		Node:        []*pb.NodeProto{nd("conv", "Conv", "x", "w"), nd("relu", "Relu", "conv"), nd("erf", "Erf", "relu"), nd("add", "Add", "erf", "erf"), nd("neg", "Neg", "add")},
	}
	b, err := proto.Marshal(&pb.ModelProto{IrVersion: 8, OpsetImport: []*pb.OperatorSetIdProto{{Version: 13}}, Graph: g})
	if err != nil {
		t.Fatal(err)
	}
	for _, min := range []int64{webgpu.DefaultMinElements, 0} {
		s, err := gort.Load(b, &gort.Options{Accelerator: webgpu.Dry{Options: webgpu.Options{MinElements: min}}, Optimization: plan.Disabled})
		if err != nil {
			t.Fatal(err)
		}
		where := map[string]string{}
		for _, st := range s.Plan().Steps {
			where[st.Node.Name] = string(st.Device) + ": " + st.Reason
		}
		add := "cpu: a lone light op (Add) between CPU steps"
		if min == 0 {
			add = "webgpu: "
		}
		for name, want := range map[string]string{"conv": "webgpu: ", "relu": "webgpu: ", "erf": "cpu: no WebGPU kernel", "add": add} {
			if !strings.HasPrefix(where[name], want) {
				t.Errorf("MinElements %d: %s placed %q, want %q…", min, name, where[name], want)
			}
		}
	}
}
