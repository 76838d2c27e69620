package rnn_test

import (
	"context"
	_ "github.com/gort-dev/gort/ops" // the operator set
	"math"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/gort-dev/gort/runtime"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/tensor"
)

func f32(shape []int, v ...float32) *tensor.Tensor { return tensor.Of(shape, v) }

func strs(name string, v ...string) *pb.AttributeProto {
	a := &pb.AttributeProto{Name: name, Type: pb.AttributeProto_STRINGS}
	for _, s := range v {
		a.Strings = append(a.Strings, []byte(s))
	}
	return a
}

func floats(name string, v ...float32) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_FLOATS, Floats: v}
}

func str(name, v string) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_STRING, S: []byte(v)}
}

func integer(name string, v int64) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_INT, I: v}
}

func float(name string, v float32) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_FLOAT, F: v}
}

// identity makes every activation f(x) = x so that results can be worked
// out by hand (Affine with alpha 1, beta 0).
func identity(n int) []*pb.AttributeProto {
	acts := make([]string, n)
	alphas := make([]float32, n)
	betas := make([]float32, n)
	for i := range acts {
		acts[i], alphas[i] = "Affine", 1
	}
	return []*pb.AttributeProto{strs("activations", acts...), floats("activation_alpha", alphas...), floats("activation_beta", betas...)}
}

// runOp runs one recurrent node whose inputs are given positionally (nil =
// omitted) and returns its outputs.
func runOp(t *testing.T, opType string, opset int64, attrs []*pb.AttributeProto, ins []*tensor.Tensor, nOut int) []*tensor.Tensor {
	t.Helper()
	g := &pb.GraphProto{Name: "g"}
	names := make([]string, len(ins))
	for i, in := range ins {
		if in == nil {
			continue
		}
		names[i] = "in" + string(rune('0'+i))
		g.Initializer = append(g.Initializer, protoconv.Proto(names[i], in))
	}
	var outs []string
	for i := 0; i < nOut; i++ {
		o := "out" + string(rune('0'+i))
		outs = append(outs, o)
		g.Output = append(g.Output, &pb.ValueInfoProto{Name: o, Type: &pb.TypeProto{Value: &pb.TypeProto_TensorType{TensorType: &pb.TypeProto_Tensor{ElemType: int32(tensor.Float)}}}})
	}
	g.Node = []*pb.NodeProto{{OpType: opType, Input: names, Output: outs, Attribute: attrs}}
	data, err := proto.Marshal(&pb.ModelProto{IrVersion: 9, OpsetImport: []*pb.OperatorSetIdProto{{Version: opset}}, Graph: g})
	if err != nil {
		t.Fatal(err)
	}
	s, err := runtime.Load(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]*tensor.Tensor, nOut)
	for i, o := range outs {
		out[i] = res[o].(*tensor.Tensor)
	}
	return out
}

func expect(t *testing.T, name string, got, want *tensor.Tensor) {
	t.Helper()
	if !equalInts(got.Shape(), want.Shape()) {
		t.Fatalf("%s: shape %v, want %v", name, got.Shape(), want.Shape())
	}
	for i, w := range want.F32() {
		if math.Abs(float64(got.F32()[i]-w)) > 1e-5 {
			t.Fatalf("%s: got %v, want %v", name, got.F32(), want.F32())
		}
	}
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

// RNN with H = I = 1, W = 1, R = 0.5 and identity activation: h_t = x_t + 0.5 h_{t-1}.
// Forward over 1 2 3: 1, 2.5, 4.25. Reverse: 3, 3.5, 2.75 (stored at t = 2, 1, 0).
func TestRNNDirections(t *testing.T) {
	x := f32([]int{3, 1, 1}, 1, 2, 3)
	w1, r1 := f32([]int{1, 1, 1}, 1), f32([]int{1, 1, 1}, 0.5)
	w2, r2 := f32([]int{2, 1, 1}, 1, 1), f32([]int{2, 1, 1}, 0.5, 0.5)
	lens := tensor.Of([]int{1}, []int32{2})
	for _, tc := range []struct {
		name  string
		opset int64
		attrs []*pb.AttributeProto
		ins   []*tensor.Tensor
		y, yh *tensor.Tensor
	}{
		{"forward", 7, identity(1), []*tensor.Tensor{x, w1, r1},
			f32([]int{3, 1, 1, 1}, 1, 2.5, 4.25), f32([]int{1, 1, 1}, 4.25)},
		{"reverse", 14, append(identity(1), str("direction", "reverse")), []*tensor.Tensor{x, w1, r1},
			f32([]int{3, 1, 1, 1}, 2.75, 3.5, 3), f32([]int{1, 1, 1}, 2.75)},
		{"bidirectional", 22, append(identity(2), str("direction", "bidirectional")), []*tensor.Tensor{x, w2, r2},
			f32([]int{3, 2, 1, 1}, 1, 2.75, 2.5, 3.5, 4.25, 3), f32([]int{2, 1, 1}, 4.25, 2.75)},
		{"bidirectional one activation list", 14, append(identity(1), str("direction", "bidirectional")), []*tensor.Tensor{x, w2, r2},
			f32([]int{3, 2, 1, 1}, 1, 2.75, 2.5, 3.5, 4.25, 3), f32([]int{2, 1, 1}, 4.25, 2.75)},
		// Length 2: forward 1, 2.5, pad; reverse over t = 1, 0: 2, 2.
		{"sequence_lens", 14, append(identity(2), str("direction", "bidirectional")), []*tensor.Tensor{x, w2, r2, nil, lens},
			f32([]int{3, 2, 1, 1}, 1, 2, 2.5, 2, 0, 0), f32([]int{2, 1, 1}, 2.5, 2)},
		// Initial h = 2, bias Wb + Rb = 0.5 + 0.5: 1 + 1 + 1 = 3, 2 + 1.5 + 1 = 4.5, 3 + 2.25 + 1 = 6.25.
		{"initial_h and bias", 14, identity(1), []*tensor.Tensor{x, w1, r1, f32([]int{1, 2}, 0.5, 0.5), nil, f32([]int{1, 1, 1}, 2)},
			f32([]int{3, 1, 1, 1}, 3, 4.5, 6.25), f32([]int{1, 1, 1}, 6.25)},
		// Clip 2 bounds the activation input: 1, min(2.5, 2) = 2, min(3 + 1, 2) = 2.
		{"clip", 14, append(identity(1), float("clip", 2)), []*tensor.Tensor{x, w1, r1},
			f32([]int{3, 1, 1, 1}, 1, 2, 2), f32([]int{1, 1, 1}, 2)},
		// Layout 1: X is [batch, seq, input], Y [batch, seq, dirs, hidden].
		{"layout 1", 14, append(identity(2), str("direction", "bidirectional"), integer("layout", 1)),
			[]*tensor.Tensor{f32([]int{1, 3, 1}, 1, 2, 3), w2, r2},
			f32([]int{1, 3, 2, 1}, 1, 2.75, 2.5, 3.5, 4.25, 3), f32([]int{1, 2, 1}, 4.25, 2.75)},
		// Default Tanh: h1 = tanh(1).
		{"default tanh", 14, nil, []*tensor.Tensor{f32([]int{1, 1, 1}, 1), w1, r1},
			f32([]int{1, 1, 1, 1}, float32(math.Tanh(1))), f32([]int{1, 1, 1}, float32(math.Tanh(1)))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := runOp(t, "RNN", tc.opset, tc.attrs, tc.ins, 2)
			expect(t, "Y", out[0], tc.y)
			expect(t, "Y_h", out[1], tc.yh)
		})
	}
}

// GRU with H = I = 1, f = Affine(0, 0.5) so z = r = 0.5, g = identity,
// Wh = Rh = 1 and Rbh = 1, one step from h0 = 2 with x = 2:
//
//	linear_before_reset=0: ht = 2 + (0.5·2)·1 + 1 = 4, H = 0.5·4 + 0.5·2 = 3
//	linear_before_reset=1: ht = 2 + 0.5·(2·1 + 1) = 3.5, H = 1.75 + 1 = 2.75
func TestGRULinearBeforeReset(t *testing.T) {
	attrs := []*pb.AttributeProto{strs("activations", "Affine", "Affine"), floats("activation_alpha", 0, 1), floats("activation_beta", 0.5, 0)}
	ins := []*tensor.Tensor{
		f32([]int{1, 1, 1}, 2),
		f32([]int{1, 3, 1}, 0, 0, 1),
		f32([]int{1, 3, 1}, 0, 0, 1),
		f32([]int{1, 6}, 0, 0, 0, 0, 0, 1),
		nil,
		f32([]int{1, 1, 1}, 2),
	}
	for _, tc := range []struct {
		lbr  int64
		want float32
	}{{0, 3}, {1, 2.75}} {
		out := runOp(t, "GRU", 14, append(attrs, integer("linear_before_reset", tc.lbr)), ins, 2)
		expect(t, "Y", out[0], f32([]int{1, 1, 1, 1}, tc.want))
		expect(t, "Y_h", out[1], f32([]int{1, 1, 1}, tc.want))
	}
}

// LSTM with identity activations, H = I = 1, c0 = 2, h0 = 0, x = 1,
// Wc = 1, Wb = (i 0.5, o 0, f 0.25, c 0), P = (i 0.5, o 1, f 0.25):
//
//	i = 0.5·2 + 0.5 = 1.5, f = 0.25·2 + 0.25 = 0.75, c̃ = 1
//	C = 0.75·2 + 1.5·1 = 3, o = 1·3 = 3, H = 3·3 = 9
//
// With input_forget, f = 1 - i = -0.5: C = -1 + 1.5 = 0.5, o = 0.5, H = 0.25.
func TestLSTMPeepholesInputForget(t *testing.T) {
	ins := []*tensor.Tensor{
		f32([]int{1, 1, 1}, 1),
		f32([]int{1, 4, 1}, 0, 0, 0, 1),
		f32([]int{1, 4, 1}, 0, 0, 0, 0),
		f32([]int{1, 8}, 0.5, 0, 0.25, 0, 0, 0, 0, 0),
		nil,
		f32([]int{1, 1, 1}, 0),
		f32([]int{1, 1, 1}, 2),
		f32([]int{1, 3}, 0.5, 1, 0.25),
	}
	for _, tc := range []struct {
		inputForget int64
		h, c        float32
	}{{0, 9, 3}, {1, 0.25, 0.5}} {
		out := runOp(t, "LSTM", 14, append(identity(3), integer("input_forget", tc.inputForget)), ins, 3)
		expect(t, "Y", out[0], f32([]int{1, 1, 1, 1}, tc.h))
		expect(t, "Y_h", out[1], f32([]int{1, 1, 1}, tc.h))
		expect(t, "Y_c", out[2], f32([]int{1, 1, 1}, tc.c))
	}
}
