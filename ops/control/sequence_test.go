package control_test

import (
	"context"
	"testing"

	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

// x is [3, 2]: rows 1 2 / 3 4 / 5 6.
var seqX = f32([]int{3, 2}, 1, 2, 3, 4, 5, 6)

func TestSequenceOps(t *testing.T) {
	for _, tc := range []struct {
		name  string
		nodes []*pb.NodeProto
		extra []*pb.TensorProto
		want  *tensor.Tensor
	}{
		{"split default keepdims", []*pb.NodeProto{
			node("SplitToSequence", []string{"x"}, []string{"s"}),
			node("SequenceAt", []string{"s", "neg1"}, []string{"y"}),
		}, nil, f32([]int{1, 2}, 5, 6)},
		{"split nokeepdims axis 1", []*pb.NodeProto{
			node("SplitToSequence", []string{"x"}, []string{"s"}, iattr("axis", 1), iattr("keepdims", 0)),
			node("SequenceAt", []string{"s", "one"}, []string{"y"}),
		}, nil, f32([]int{3}, 2, 4, 6)},
		{"split scalar uneven", []*pb.NodeProto{
			node("SplitToSequence", []string{"x", "two"}, []string{"s"}),
			node("SequenceAt", []string{"s", "one"}, []string{"y"}),
		}, nil, f32([]int{1, 2}, 5, 6)},
		{"split sizes", []*pb.NodeProto{
			node("SplitToSequence", []string{"x", "sizes"}, []string{"s"}, iattr("keepdims", 0)),
			node("SequenceLength", []string{"s"}, []string{"y"}),
		}, []*pb.TensorProto{init1("sizes", tensor.Of([]int{3}, []int64{1, 0, 2}))}, tensor.Scalar(int64(3))},
		{"concat axis 1", []*pb.NodeProto{
			node("SplitToSequence", []string{"x", "two"}, []string{"s"}),
			node("ConcatFromSequence", []string{"s"}, []string{"y"}, iattr("axis", 1)),
		}, nil, nil}, // shapes [2,2] and [1,2] differ on axis 0: error
		{"concat new axis last", []*pb.NodeProto{
			node("SplitToSequence", []string{"x"}, []string{"s"}, iattr("keepdims", 0)),
			node("ConcatFromSequence", []string{"s"}, []string{"y"}, iattr("axis", -1), iattr("new_axis", 1)),
		}, nil, f32([]int{2, 3}, 1, 3, 5, 2, 4, 6)},
		{"construct insert erase", []*pb.NodeProto{
			node("SequenceConstruct", []string{"x", "x"}, []string{"s"}),
			node("SequenceInsert", []string{"s", "z", "zero"}, []string{"s2"}),
			node("SequenceErase", []string{"s2", "one"}, []string{"s3"}),
			node("ConcatFromSequence", []string{"s3"}, []string{"y"}, iattr("axis", 0)),
		}, []*pb.TensorProto{init1("z", f32([]int{1, 2}, 9, 9))}, f32([]int{4, 2}, 9, 9, 1, 2, 3, 4, 5, 6)},
		{"erase default last", []*pb.NodeProto{
			node("SplitToSequence", []string{"x"}, []string{"s"}),
			node("SequenceErase", []string{"s"}, []string{"s2"}),
			node("ConcatFromSequence", []string{"s2"}, []string{"y"}, iattr("axis", 0)),
		}, nil, f32([]int{2, 2}, 1, 2, 3, 4)},
		{"at out of range", []*pb.NodeProto{
			node("SplitToSequence", []string{"x"}, []string{"s"}),
			node("SequenceAt", []string{"s", "three"}, []string{"y"}),
		}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inits := append([]*pb.TensorProto{
				init1("zero", tensor.Scalar(int64(0))), init1("one", tensor.Scalar(int64(1))),
				init1("two", tensor.Scalar(int64(2))), init1("three", tensor.Scalar(int64(3))),
				init1("neg1", tensor.Scalar(int64(-1))),
			}, tc.extra...)
			g := graph("main", tc.nodes, []*pb.ValueInfoProto{tvi("x", tensor.Float, 3, 2)},
				[]*pb.ValueInfoProto{tvi("y", tensor.Undefined)}, inits...)
			s := load(t, g, 17)
			out, err := s.Run(context.Background(), map[string]tensor.Value{"x": seqX})
			if tc.want == nil {
				if err == nil {
					t.Fatalf("expected an error, got %v", out["y"])
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			expectTensor(t, "y", out["y"], tc.want)
		})
	}
}

// SequenceMap zips a sequence with a second sequence and passes a tensor
// (b) whole; the body also reads an outer-scope value (c).
func TestSequenceMap(t *testing.T) {
	body := graph("body", []*pb.NodeProto{
		tnode("Add", []string{"a", "b"}, []string{"u"}),
		tnode("Mul", []string{"u", "c"}, []string{"y"}),
		tnode("Add", []string{"a", "k"}, []string{"z"}),
	}, []*pb.ValueInfoProto{tvi("a", tensor.Float), tvi("k", tensor.Float), tvi("b", tensor.Float)},
		[]*pb.ValueInfoProto{tvi("y", tensor.Float), tvi("z", tensor.Float)})
	g := graph("main", []*pb.NodeProto{
		node("SplitToSequence", []string{"x"}, []string{"s"}, iattr("keepdims", 0)),
		node("SplitToSequence", []string{"x"}, []string{"s2"}, iattr("keepdims", 0)),
		node("SequenceMap", []string{"s", "s2", "b"}, []string{"ys", "zs"}, gattr("body", body)),
		node("ConcatFromSequence", []string{"ys"}, []string{"y"}, iattr("axis", 0)),
		node("ConcatFromSequence", []string{"zs"}, []string{"z"}, iattr("axis", 0), iattr("new_axis", 1)),
	}, []*pb.ValueInfoProto{tvi("x", tensor.Float, 3, 2), tvi("b", tensor.Float, 2), tvi("c", tensor.Float)},
		[]*pb.ValueInfoProto{tvi("y", tensor.Float), tvi("z", tensor.Float)})
	s := load(t, g, 17)
	out := run(t, s, map[string]tensor.Value{"x": seqX, "b": f32([]int{2}, 10, 20), "c": tensor.Scalar(float32(2))})
	expectTensor(t, "y", out["y"], f32([]int{6}, 22, 44, 26, 48, 30, 52))
	expectTensor(t, "z", out["z"], f32([]int{3, 2}, 2, 4, 6, 8, 10, 12))
}

func TestOptional(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opset int64
		nodes []*pb.NodeProto
		want  *tensor.Tensor
		fails bool
	}{
		{"wrap and test", 15, []*pb.NodeProto{
			node("Optional", []string{"x"}, []string{"o"}),
			node("OptionalHasElement", []string{"o"}, []string{"y"}),
		}, tensor.Scalar(true), false},
		{"empty", 15, []*pb.NodeProto{
			node("Optional", nil, []string{"o"}, &pb.AttributeProto{Name: "type", Type: pb.AttributeProto_TYPE_PROTO,
				Tp: &pb.TypeProto{Value: &pb.TypeProto_TensorType{TensorType: &pb.TypeProto_Tensor{ElemType: int32(tensor.Float)}}}}),
			node("OptionalHasElement", []string{"o"}, []string{"y"}),
		}, tensor.Scalar(false), false},
		{"get", 15, []*pb.NodeProto{
			node("Optional", []string{"x"}, []string{"o"}),
			node("OptionalGetElement", []string{"o"}, []string{"y"}),
		}, f32([]int{3, 2}, 1, 2, 3, 4, 5, 6), false},
		{"get plain tensor v18", 18, []*pb.NodeProto{node("OptionalGetElement", []string{"x"}, []string{"y"})},
			f32([]int{3, 2}, 1, 2, 3, 4, 5, 6), false},
		{"has plain tensor v18", 18, []*pb.NodeProto{node("OptionalHasElement", []string{"x"}, []string{"y"})},
			tensor.Scalar(true), false},
		{"has no input v18", 18, []*pb.NodeProto{node("OptionalHasElement", []string{""}, []string{"y"})},
			tensor.Scalar(false), false},
		// gort does not wrap values flowing into optional slots, so v15 takes plain values too.
		{"get plain tensor v15", 15, []*pb.NodeProto{node("OptionalGetElement", []string{"x"}, []string{"y"})},
			f32([]int{3, 2}, 1, 2, 3, 4, 5, 6), false},
		{"has plain tensor v15", 15, []*pb.NodeProto{node("OptionalHasElement", []string{"x"}, []string{"y"})},
			tensor.Scalar(true), false},
		{"get empty", 18, []*pb.NodeProto{
			node("Optional", nil, []string{"o"}, &pb.AttributeProto{Name: "type", Type: pb.AttributeProto_TYPE_PROTO,
				Tp: &pb.TypeProto{Value: &pb.TypeProto_TensorType{TensorType: &pb.TypeProto_Tensor{ElemType: int32(tensor.Float)}}}}),
			node("OptionalGetElement", []string{"o"}, []string{"y"}),
		}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := graph("main", tc.nodes, []*pb.ValueInfoProto{tvi("x", tensor.Float, 3, 2)},
				[]*pb.ValueInfoProto{tvi("y", tensor.Undefined)})
			s := load(t, g, tc.opset)
			out, err := s.Run(context.Background(), map[string]tensor.Value{"x": seqX})
			if tc.fails {
				if err == nil {
					t.Fatal("expected an error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			expectTensor(t, "y", out["y"], tc.want)
		})
	}
}
