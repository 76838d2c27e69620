package control_test

import (
	"context"
	_ "github.com/gort-dev/gort/ops" // the operator set
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/gort-dev/gort/runtime"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/tensor"
)

// testDomain holds tiny arithmetic ops for subgraph bodies, so these tests
// depend only on package control, not on the elementwise ops.
const testDomain = "test.control"

func init() {
	binary := func(name string, f func(a, b float64) float64) {
		op.Default.Register(testDomain, name, []int{1}, func(n *op.Node) (any, error) {
			return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
				a, b := in[0], in[1]
				bv, _ := b.Float64s()
				out := ctx.New(a.DType(), a.Shape()...)
				switch a.DType() {
				case tensor.Float:
					for i, x := range a.F32() {
						out.F32()[i] = float32(f(float64(x), bv[i%len(bv)]))
					}
				case tensor.Int64:
					for i, x := range a.I64() {
						out.I64()[i] = int64(f(float64(x), bv[i%len(bv)]))
					}
				default:
					return nil, op.Errorf("test op: %s", a.DType())
				}
				return []*tensor.Tensor{out}, nil
			}), nil
		})
	}
	binary("Add", func(a, b float64) float64 { return a + b })
	binary("Mul", func(a, b float64) float64 { return a * b })
	op.Default.Register(testDomain, "Less", []int{1}, func(n *op.Node) (any, error) {
		return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
			a, _ := in[0].Float64s()
			b, _ := in[1].Float64s()
			return []*tensor.Tensor{tensor.Scalar(a[0] < b[0])}, nil
		}), nil
	})
}

func tnode(opType string, ins, outs []string, attrs ...*pb.AttributeProto) *pb.NodeProto {
	n := node(opType, ins, outs, attrs...)
	n.Domain = testDomain
	return n
}

func node(opType string, ins, outs []string, attrs ...*pb.AttributeProto) *pb.NodeProto {
	return &pb.NodeProto{OpType: opType, Input: ins, Output: outs, Attribute: attrs}
}

func gattr(name string, g *pb.GraphProto) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_GRAPH, G: g}
}

func iattr(name string, v int64) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_INT, I: v}
}

func intsAttr(name string, v ...int64) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_INTS, Ints: v}
}

// tvi declares a tensor value; dims nil means unknown rank.
func tvi(name string, dt tensor.DType, dims ...int64) *pb.ValueInfoProto {
	tt := &pb.TypeProto_Tensor{ElemType: int32(dt)}
	if dims != nil {
		tt.Shape = &pb.TensorShapeProto{}
		for _, d := range dims {
			tt.Shape.Dim = append(tt.Shape.Dim, &pb.TensorShapeProto_Dimension{Value: &pb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
		}
	}
	return &pb.ValueInfoProto{Name: name, Type: &pb.TypeProto{Value: &pb.TypeProto_TensorType{TensorType: tt}}}
}

func svi(name string, dt tensor.DType) *pb.ValueInfoProto {
	elem := &pb.TypeProto{Value: &pb.TypeProto_TensorType{TensorType: &pb.TypeProto_Tensor{ElemType: int32(dt)}}}
	return &pb.ValueInfoProto{Name: name, Type: &pb.TypeProto{Value: &pb.TypeProto_SequenceType{SequenceType: &pb.TypeProto_Sequence{ElemType: elem}}}}
}

func ovi(name string, dt tensor.DType) *pb.ValueInfoProto {
	elem := &pb.TypeProto{Value: &pb.TypeProto_TensorType{TensorType: &pb.TypeProto_Tensor{ElemType: int32(dt)}}}
	return &pb.ValueInfoProto{Name: name, Type: &pb.TypeProto{Value: &pb.TypeProto_OptionalType{OptionalType: &pb.TypeProto_Optional{ElemType: elem}}}}
}

func init1(name string, t *tensor.Tensor) *pb.TensorProto { return protoconv.Proto(name, t) }

func graph(name string, nodes []*pb.NodeProto, ins, outs []*pb.ValueInfoProto, inits ...*pb.TensorProto) *pb.GraphProto {
	return &pb.GraphProto{Name: name, Node: nodes, Input: ins, Output: outs, Initializer: inits}
}

// load builds a model at the given default-domain opset and loads it.
func load(t *testing.T, g *pb.GraphProto, opset int64) *runtime.Session {
	t.Helper()
	s, err := loadErr(g, opset)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return s
}

func loadErr(g *pb.GraphProto, opset int64) (*runtime.Session, error) {
	m := &pb.ModelProto{
		IrVersion: 9,
		OpsetImport: []*pb.OperatorSetIdProto{
			{Domain: "", Version: opset},
			{Domain: testDomain, Version: 1},
		},
		Graph: g,
	}
	data, err := proto.Marshal(m)
	if err != nil {
		return nil, err
	}
	return runtime.Load(data, nil)
}

func run(t *testing.T, s *runtime.Session, feeds map[string]tensor.Value) map[string]tensor.Value {
	t.Helper()
	out, err := s.Run(context.Background(), feeds)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return out
}

func f32(shape []int, v ...float32) *tensor.Tensor { return tensor.Of(shape, v) }

// expectTensor compares dtype, shape and values exactly (test values are
// small integers in float, so exact comparison is intended).
func expectTensor(t *testing.T, name string, got tensor.Value, want *tensor.Tensor) {
	t.Helper()
	g, ok := got.(*tensor.Tensor)
	if !ok {
		t.Fatalf("%s: got %T, want a tensor", name, got)
	}
	if g.DType() != want.DType() || !equalInts(g.Shape(), want.Shape()) {
		t.Fatalf("%s: got %s%v, want %s%v", name, g.DType(), g.Shape(), want.DType(), want.Shape())
	}
	gv, _ := g.Float64s()
	wv, _ := want.Float64s()
	if g.DType() == tensor.Bool {
		gv, wv = boolsAsFloats(g.Bools()), boolsAsFloats(want.Bools())
	}
	for i := range wv {
		if gv[i] != wv[i] {
			t.Fatalf("%s: got %v, want %v", name, gv, wv)
		}
	}
}

func boolsAsFloats(b []bool) []float64 {
	out := make([]float64, len(b))
	for i, v := range b {
		if v {
			out[i] = 1
		}
	}
	return out
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
