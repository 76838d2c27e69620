package control_test

import (
	"testing"

	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

// cumsumBody: s_out = s_in + x_t + bias (bias from the outer scope);
// the scan output is s_out.
func cumsumBody(elem ...int64) *pb.GraphProto {
	return graph("body", []*pb.NodeProto{
		tnode("Add", []string{"s_in", "x_t"}, []string{"u"}),
		tnode("Add", []string{"u", "bias"}, []string{"s_out"}),
	}, []*pb.ValueInfoProto{tvi("s_in", tensor.Float, elem...), tvi("x_t", tensor.Float, elem...)},
		[]*pb.ValueInfoProto{tvi("s_out", tensor.Float, elem...), tvi("s_out", tensor.Float, elem...)})
}

func TestScan9(t *testing.T) {
	// X is [3 steps, 2] along axis 0 or its transpose [2, 3] along axis 1.
	x := f32([]int{3, 2}, 1, 2, 3, 4, 5, 6)
	xT := f32([]int{2, 3}, 1, 3, 5, 2, 4, 6)
	for _, tc := range []struct {
		name      string
		opset     int64
		x         *tensor.Tensor
		attrs     []*pb.AttributeProto
		bias      float32
		final, ys *tensor.Tensor
	}{
		{"forward", 9, x, nil, 0, f32([]int{2}, 9, 12), f32([]int{3, 2}, 1, 2, 4, 6, 9, 12)},
		{"bias from outer scope", 16, x, nil, 1, f32([]int{2}, 12, 15), f32([]int{3, 2}, 2, 3, 6, 8, 12, 15)},
		{"reverse input", 11, x, []*pb.AttributeProto{intsAttr("scan_input_directions", 1)}, 0,
			f32([]int{2}, 9, 12), f32([]int{3, 2}, 5, 6, 8, 10, 9, 12)},
		{"reverse output", 11, x, []*pb.AttributeProto{intsAttr("scan_output_directions", 1)}, 0,
			f32([]int{2}, 9, 12), f32([]int{3, 2}, 9, 12, 4, 6, 1, 2)},
		{"input axis 1", 11, xT, []*pb.AttributeProto{intsAttr("scan_input_axes", 1)}, 0,
			f32([]int{2}, 9, 12), f32([]int{3, 2}, 1, 2, 4, 6, 9, 12)},
		{"negative axes", 11, xT, []*pb.AttributeProto{intsAttr("scan_input_axes", -1), intsAttr("scan_output_axes", -1)}, 0,
			f32([]int{2}, 9, 12), f32([]int{2, 3}, 1, 4, 9, 2, 6, 12)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			attrs := append([]*pb.AttributeProto{gattr("body", cumsumBody(2)), iattr("num_scan_inputs", 1)}, tc.attrs...)
			g := graph("main", []*pb.NodeProto{node("Scan", []string{"s0", "x"}, []string{"s", "ys"}, attrs...)},
				[]*pb.ValueInfoProto{tvi("s0", tensor.Float, 2), tvi("x", tensor.Float), tvi("bias", tensor.Float)},
				[]*pb.ValueInfoProto{tvi("s", tensor.Float), tvi("ys", tensor.Float)})
			s := load(t, g, tc.opset)
			out := run(t, s, map[string]tensor.Value{"s0": f32([]int{2}, 0, 0), "x": tc.x, "bias": tensor.Scalar(tc.bias)})
			expectTensor(t, "s", out["s"], tc.final)
			expectTensor(t, "ys", out["ys"], tc.ys)
		})
	}
}

// Scan-8: batch axis 0, sequence axis 1, per-batch sequence_lens; the
// outputs past a batch entry's length stay zero.
func TestScan8(t *testing.T) {
	// batch 0: 1, 2, 3; batch 1: 10, 20, 30 (elements of shape [1]).
	x := f32([]int{2, 3, 1}, 1, 2, 3, 10, 20, 30)
	for _, tc := range []struct {
		name      string
		lens      *tensor.Tensor
		dirs      []int64
		final, ys *tensor.Tensor
	}{
		{"full", nil, nil, f32([]int{2, 1}, 6, 60), f32([]int{2, 3, 1}, 1, 3, 6, 10, 30, 60)},
		{"lens", tensor.Of([]int{2}, []int64{3, 2}), nil, f32([]int{2, 1}, 6, 30), f32([]int{2, 3, 1}, 1, 3, 6, 10, 30, 0)},
		{"lens reverse", tensor.Of([]int{2}, []int64{3, 2}), []int64{1}, f32([]int{2, 1}, 6, 30), f32([]int{2, 3, 1}, 3, 5, 6, 20, 30, 0)},
		{"zero length", tensor.Of([]int{2}, []int64{0, 1}), nil, f32([]int{2, 1}, 0, 10), f32([]int{2, 3, 1}, 0, 0, 0, 10, 0, 0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			attrs := []*pb.AttributeProto{gattr("body", cumsumBody(1)), iattr("num_scan_inputs", 1)}
			if tc.dirs != nil {
				attrs = append(attrs, intsAttr("directions", tc.dirs...))
			}
			lensName := ""
			ins := []*pb.ValueInfoProto{tvi("s0", tensor.Float, 2, 1), tvi("x", tensor.Float, 2, 3, 1), tvi("bias", tensor.Float)}
			feeds := map[string]tensor.Value{"s0": f32([]int{2, 1}, 0, 0), "x": x, "bias": tensor.Scalar(float32(0))}
			if tc.lens != nil {
				lensName = "lens"
				ins = append(ins, tvi("lens", tensor.Int64, 2))
				feeds["lens"] = tc.lens
			}
			g := graph("main", []*pb.NodeProto{node("Scan", []string{lensName, "s0", "x"}, []string{"s", "ys"}, attrs...)},
				ins, []*pb.ValueInfoProto{tvi("s", tensor.Float), tvi("ys", tensor.Float)})
			s := load(t, g, 8)
			out := run(t, s, feeds)
			expectTensor(t, "s", out["s"], tc.final)
			expectTensor(t, "ys", out["ys"], tc.ys)
		})
	}
}
