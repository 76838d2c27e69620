package protoconv

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gort-dev/gort/runtime/errs"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

func TestSparse(t *testing.T) {
	values := func(v ...float32) *pb.TensorProto {
		return &pb.TensorProto{Name: "sp", DataType: int32(tensor.Float), Dims: []int64{int64(len(v))}, FloatData: v}
	}
	indices := func(dims []int64, v ...int64) *pb.TensorProto {
		return &pb.TensorProto{DataType: int32(tensor.Int64), Dims: dims, Int64Data: v}
	}
	cases := []struct {
		name string
		sp   *pb.SparseTensorProto
		want []float32 // nil: an error is expected
		msg  string
	}{
		{"linear", &pb.SparseTensorProto{Dims: []int64{2, 3}, Values: values(1.5, 2.5), Indices: indices([]int64{2}, 1, 5)},
			[]float32{0, 1.5, 0, 0, 0, 2.5}, ""},
		{"coordinates", &pb.SparseTensorProto{Dims: []int64{2, 3}, Values: values(1.5, 2.5), Indices: indices([]int64{2, 2}, 0, 1, 1, 2)},
			[]float32{0, 1.5, 0, 0, 0, 2.5}, ""},
		{"int32 indices", &pb.SparseTensorProto{Dims: []int64{4}, Values: values(7),
			Indices: &pb.TensorProto{DataType: int32(tensor.Int32), Dims: []int64{1}, Int32Data: []int32{3}}},
			[]float32{0, 0, 0, 7}, ""},
		{"no values", &pb.SparseTensorProto{Dims: []int64{3}, Values: values(), Indices: indices([]int64{0})},
			[]float32{0, 0, 0}, ""},
		{"linear out of range", &pb.SparseTensorProto{Dims: []int64{2, 3}, Values: values(1), Indices: indices([]int64{1}, 6)}, nil, "out of range"},
		{"linear negative", &pb.SparseTensorProto{Dims: []int64{2, 3}, Values: values(1), Indices: indices([]int64{1}, -1)}, nil, "out of range"},
		{"coordinate out of range", &pb.SparseTensorProto{Dims: []int64{2, 3}, Values: values(1), Indices: indices([]int64{1, 2}, 2, 0)}, nil, "out of range"},
		{"coordinate negative", &pb.SparseTensorProto{Dims: []int64{2, 3}, Values: values(1), Indices: indices([]int64{1, 2}, 0, -1)}, nil, "out of range"},
		{"indices count", &pb.SparseTensorProto{Dims: []int64{4}, Values: values(1, 2), Indices: indices([]int64{3}, 0, 1, 2)}, nil, "expected [2]"},
		{"indices rank mismatch", &pb.SparseTensorProto{Dims: []int64{2, 2}, Values: values(1), Indices: indices([]int64{1, 3}, 0, 0, 0)}, nil, "expected"},
		{"float indices", &pb.SparseTensorProto{Dims: []int64{2}, Values: values(1),
			Indices: &pb.TensorProto{DataType: int32(tensor.Float), Dims: []int64{1}, FloatData: []float32{0}}}, nil, "integer"},
		{"values not 1-D", &pb.SparseTensorProto{Dims: []int64{4},
			Values:  &pb.TensorProto{Name: "sp", DataType: int32(tensor.Float), Dims: []int64{1, 1}, FloatData: []float32{1}},
			Indices: indices([]int64{1}, 0)}, nil, "1-D"},
		{"dims overflow", &pb.SparseTensorProto{Dims: []int64{1 << 40, 1 << 40}, Values: values(1), Indices: indices([]int64{1}, 0)}, nil, "overflow"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Sparse(c.sp, 1<<20)
			if c.want == nil {
				if err == nil {
					t.Fatalf("got %v, want an error", got)
				}
				e, ok := err.(*errs.Error)
				if !ok || e.Tensor != "sp" || !strings.Contains(err.Error(), c.msg) {
					t.Errorf("error %v should be an *errs.Error naming %q and saying %q", err, "sp", c.msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.F32(), c.want) {
				t.Errorf("got %v, want %v", got.F32(), c.want)
			}
			wantShape := make([]int, len(c.sp.Dims))
			for i, d := range c.sp.Dims {
				wantShape[i] = int(d)
			}
			if !reflect.DeepEqual(got.Shape(), wantShape) {
				t.Errorf("shape %v, want %v", got.Shape(), wantShape)
			}
		})
	}
}
