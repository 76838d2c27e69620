package nn

import (
	"context"
	"fmt"
	"math"
	"testing"

	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// runOpErr is runOp returning the build or run error instead of failing.
func runOpErr(opType string, opset int, at attrs, in ...*tensor.Tensor) ([]*tensor.Tensor, error) {
	res := op.Default.Resolve("", opType, opset)
	if res.Builder == nil {
		return nil, fmt.Errorf("%s", res.Problem)
	}
	n := &op.Node{Name: opType, OpType: opType, Version: res.Version, Opset: opset, Attrs: map[string]*pb.AttributeProto{}, Outputs: []string{"y"}}
	for i := range in {
		n.Inputs = append(n.Inputs, fmt.Sprint("in", i))
	}
	for k, v := range at {
		n.Attrs[k] = &pb.AttributeProto{Name: k, Type: pb.AttributeProto_INT, I: int64(v.(int))}
	}
	k, err := res.Builder(n)
	if err != nil {
		return nil, err
	}
	return k.(op.Kernel).Run(&op.Context{Ctx: context.Background()}, in)
}

// withDType builds a tensor of a float16/bfloat16 (float32 storage) or a
// code dtype (uint8 storage) from its storage values.
func withDType[T tensor.Elem](dt tensor.DType, shape []int, v []T) *tensor.Tensor {
	return tensor.Of(shape, v).WithDType(dt)
}

func f32s(v ...float32) *tensor.Tensor { return tensor.Of([]int{len(v)}, v) }

// storage returns a tensor's elements widened to float64 (codes as codes).
func storage(t *tensor.Tensor) []float64 {
	if t.DType().IsCodeType() {
		var out []float64
		for _, c := range tensor.Data[uint8](t) {
			out = append(out, float64(c))
		}
		return out
	}
	v, _ := t.Float64s()
	return v
}

func TestQuantizeLinear(t *testing.T) {
	// float32(5/255): 0.5 divided by it is exactly 25.5 in float32 (→ 26),
	// but 25.4999… in float64 (→ 25).
	s255 := float32(5.0 / 255)
	inf := float32(math.Inf(1))
	cases := []struct {
		name   string
		opset  int
		at     attrs
		in     []*tensor.Tensor
		wantDT tensor.DType
		want   []float64
	}{
		{"per-tensor uint8 default zp", 10, nil,
			[]*tensor.Tensor{f32s(0, 2, 3, 1000, -254, 5, 7), tensor.Scalar(float32(2)), tensor.Scalar(uint8(128))},
			tensor.Uint8, []float64{128, 129, 130, 255, 1, 130, 132}},
		{"no zero point is uint8", 13, nil,
			[]*tensor.Tensor{f32s(-1, 3, 300), tensor.Scalar(float32(1))},
			tensor.Uint8, []float64{0, 3, 255}},
		{"float32 division tie", 13, nil,
			[]*tensor.Tensor{f32s(0.5), tensor.Scalar(s255), tensor.Scalar(uint8(0))},
			tensor.Uint8, []float64{26}},
		{"float32 division tie at 25", 25, nil,
			[]*tensor.Tensor{f32s(0.5), tensor.Scalar(s255), tensor.Scalar(uint8(0))},
			tensor.Uint8, []float64{26}},
		{"per-axis axis 0 rank 3", 13, attrs{"axis": 0},
			[]*tensor.Tensor{tensor.Of([]int{2, 1, 2}, []float32{5, 6, 50, -70}), f32s(1, 10), tensor.Of([]int{2}, []int8{0, 0})},
			tensor.Int8, []float64{5, 6, 5, -7}},
		{"per-axis negative axis", 19, attrs{"axis": -1},
			[]*tensor.Tensor{tensor.Of([]int{2, 2}, []float32{4, 4, 8, 8}), f32s(2, 4), tensor.Of([]int{2}, []int8{1, -1})},
			tensor.Int8, []float64{3, 0, 5, 1}},
		{"blocked int8", 21, attrs{"axis": 1, "block_size": 2},
			[]*tensor.Tensor{tensor.Of([]int{2, 4}, []float32{1, 2, 4, 6, 8, 12, 16, -24}),
				tensor.Of([]int{2, 2}, []float32{1, 2, 4, 8}), tensor.Of([]int{2, 2}, []int8{0, 1, -1, 0})},
			tensor.Int8, []float64{1, 2, 3, 4, 1, 2, 2, -3}},
		{"blocked with a short last block", 21, attrs{"axis": 1, "block_size": 2},
			[]*tensor.Tensor{tensor.Of([]int{1, 5}, []float32{1, 1, 4, 4, 8}), tensor.Of([]int{1, 3}, []float32{1, 2, 4})},
			tensor.Uint8, []float64{1, 1, 2, 2, 2}},
		{"blocked along axis 0", 21, attrs{"axis": 0, "block_size": 3},
			[]*tensor.Tensor{tensor.Of([]int{4, 2}, []float32{1, 2, 3, 4, 5, 6, 70, 80}), tensor.Of([]int{2, 2}, []float32{1, 1, 10, 20})},
			tensor.Uint8, []float64{1, 2, 3, 4, 5, 6, 7, 4}},
		{"int16 saturates", 21, nil,
			[]*tensor.Tensor{f32s(40000, -40000, 1.5), tensor.Scalar(float32(1)), tensor.Scalar(int16(0))},
			tensor.Int16, []float64{32767, -32768, 2}},
		{"uint16 with zero point", 21, nil,
			[]*tensor.Tensor{f32s(70000, -200, 1.5), tensor.Scalar(float32(1)), tensor.Scalar(uint16(100))},
			tensor.Uint16, []float64{65535, 0, 102}},
		{"int4", 21, nil,
			[]*tensor.Tensor{f32s(-20, 7.5, 6.5, 20), tensor.Scalar(float32(1)), withDType(tensor.Int4, []int{}, []int8{0})},
			tensor.Int4, []float64{-8, 7, 6, 7}},
		{"uint4 via output_dtype", 21, attrs{"output_dtype": int(tensor.Uint4)},
			[]*tensor.Tensor{f32s(-20, 7.5, 6.5, 20), tensor.Scalar(float32(1))},
			tensor.Uint4, []float64{0, 8, 6, 15}},
		{"int2", 25, nil,
			[]*tensor.Tensor{f32s(-3, -0.5, 0.5, 1.5), tensor.Scalar(float32(1)), withDType(tensor.Int2, []int{}, []int8{0})},
			tensor.Int2, []float64{-2, 0, 0, 1}},
		{"uint2", 25, nil,
			[]*tensor.Tensor{f32s(-3, 0.5, 1.5, 9), tensor.Scalar(float32(1)), withDType(tensor.Uint2, []int{}, []uint8{0})},
			tensor.Uint2, []float64{0, 0, 2, 3}},
		{"int32 input", 10, nil,
			[]*tensor.Tensor{tensor.Of([]int{2}, []int32{7, -7}), tensor.Scalar(float32(2)), tensor.Scalar(int8(0))},
			tensor.Int8, []float64{4, -4}},
		// 1/0.39990234375 = 2.5006…: float16 division rounds it to 2.5 (→ 2),
		// float32 keeps it above the tie (→ 3).
		{"float16 operands divide in float16", 19, nil,
			[]*tensor.Tensor{withDType(tensor.Float16, []int{1}, []float32{1}), withDType(tensor.Float16, []int{}, []float32{0.39990234375}), tensor.Scalar(uint8(0))},
			tensor.Uint8, []float64{2}},
		{"float32 operands divide in float32", 19, nil,
			[]*tensor.Tensor{f32s(1), tensor.Scalar(float32(0.39990234375)), tensor.Scalar(uint8(0))},
			tensor.Uint8, []float64{3}},
		{"precision attribute", 23, attrs{"precision": int(tensor.Float16)},
			[]*tensor.Tensor{f32s(1), tensor.Scalar(float32(0.39990234375)), tensor.Scalar(uint8(0))},
			tensor.Uint8, []float64{2}},
		{"int32 scale", 23, nil,
			[]*tensor.Tensor{f32s(9, 10), tensor.Scalar(int32(4)), tensor.Scalar(int8(0))},
			tensor.Int8, []float64{2, 2}},
		{"e8m0 scale", 24, nil,
			[]*tensor.Tensor{f32s(12, -3), withDType(tensor.Float8E8M0, []int{}, []uint8{128}), tensor.Scalar(int8(0))},
			tensor.Int8, []float64{6, -2}},
		// e4m3fn: 1 → 0x38, 448 is the max 0x7E, NaN 0x7F; 0.3 → 1.25·2^-2 = 0x2A.
		{"e4m3fn saturating", 19, nil,
			[]*tensor.Tensor{f32s(1, 500, -500, 0.3), tensor.Scalar(float32(1)), withDType(tensor.Float8E4M3FN, []int{}, []uint8{0})},
			tensor.Float8E4M3FN, []float64{0x38, 0x7E, 0xFE, 0x2A}},
		{"e4m3fn not saturating", 19, attrs{"saturate": 0},
			[]*tensor.Tensor{f32s(1, 500, -500), tensor.Scalar(float32(1)), withDType(tensor.Float8E4M3FN, []int{}, []uint8{0})},
			tensor.Float8E4M3FN, []float64{0x38, 0x7F, 0xFF}},
		{"e4m3fn scale divides", 21, attrs{"output_dtype": int(tensor.Float8E4M3FN)},
			[]*tensor.Tensor{f32s(4, -1), tensor.Scalar(float32(4))},
			tensor.Float8E4M3FN, []float64{0x38, 0xA8}}, // -0.25 = -1·2^-2
		{"e5m2 -inf not saturating", 19, attrs{"saturate": 0},
			[]*tensor.Tensor{f32s(-inf, 1), tensor.Scalar(float32(1)), withDType(tensor.Float8E5M2, []int{}, []uint8{0})},
			tensor.Float8E5M2, []float64{0xFC, 0x3C}},
		{"e4m3fnuz inf before 24 is NaN", 23, nil,
			[]*tensor.Tensor{f32s(inf), tensor.Scalar(float32(1)), withDType(tensor.Float8E4M3FNUZ, []int{}, []uint8{0})},
			tensor.Float8E4M3FNUZ, []float64{0x80}},
		{"e4m3fnuz inf from 24 saturates", 24, nil,
			[]*tensor.Tensor{f32s(inf), tensor.Scalar(float32(1)), withDType(tensor.Float8E4M3FNUZ, []int{}, []uint8{0})},
			tensor.Float8E4M3FNUZ, []float64{0x7F}},
		// e2m1: -0 + zero point 0 = +0; 5 ties to 4 (0x6); 100 saturates to
		// 6 (0x7); 0.25 ties to 0.
		{"float4e2m1", 23, nil,
			[]*tensor.Tensor{f32s(float32(math.Copysign(0, -1)), 5, 100, 0.25), tensor.Scalar(float32(1)), withDType(tensor.Float4E2M1, []int{}, []uint8{0})},
			tensor.Float4E2M1, []float64{0, 0x6, 0x7, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := runOpErr("QuantizeLinear", c.opset, c.at, c.in...)
			if err != nil {
				t.Fatal(err)
			}
			y := out[0]
			if y.DType() != c.wantDT {
				t.Fatalf("dtype %s, want %s", y.DType(), c.wantDT)
			}
			if got := storage(y); fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestDequantizeLinear(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name   string
		opset  int
		at     attrs
		in     []*tensor.Tensor
		wantDT tensor.DType
		want   []float64
	}{
		{"per-tensor uint8", 10, nil,
			[]*tensor.Tensor{tensor.Of([]int{4}, []uint8{0, 3, 128, 255}), tensor.Scalar(float32(2)), tensor.Scalar(uint8(128))},
			tensor.Float, []float64{-256, -250, 0, 254}},
		{"int32 input", 10, nil,
			[]*tensor.Tensor{tensor.Of([]int{1}, []int32{-5}), tensor.Scalar(float32(0.5))},
			tensor.Float, []float64{-2.5}},
		{"per-axis", 13, attrs{"axis": 1},
			[]*tensor.Tensor{tensor.Of([]int{2, 2}, []int8{1, 2, 3, 4}), f32s(1, 10), tensor.Of([]int{2}, []int8{1, 0})},
			tensor.Float, []float64{0, 20, 2, 40}},
		{"blocked", 21, attrs{"axis": 1, "block_size": 2},
			[]*tensor.Tensor{tensor.Of([]int{2, 3}, []int8{1, 2, 3, 4, 5, 6}),
				tensor.Of([]int{2, 2}, []float32{1, 10, 2, 20}), tensor.Of([]int{2, 2}, []int8{0, 1, 1, 0})},
			tensor.Float, []float64{1, 2, 20, 6, 8, 120}},
		{"e4m3fn", 19, nil,
			[]*tensor.Tensor{withDType(tensor.Float8E4M3FN, []int{4}, []uint8{0x38, 0xB8, 0x7E, 0x7F}), tensor.Scalar(float32(2))},
			tensor.Float, []float64{2, -2, 896, nan}},
		{"int4 with zero point", 21, nil,
			[]*tensor.Tensor{withDType(tensor.Int4, []int{2}, []int8{-8, 7}), tensor.Scalar(float32(0.5)), withDType(tensor.Int4, []int{}, []int8{-1})},
			tensor.Float, []float64{-3.5, 4}},
		{"uint2", 25, nil,
			[]*tensor.Tensor{withDType(tensor.Uint2, []int{2}, []uint8{0, 3}), tensor.Scalar(float32(3)), withDType(tensor.Uint2, []int{}, []uint8{1})},
			tensor.Float, []float64{-3, 6}},
		{"float4e2m1", 23, nil,
			[]*tensor.Tensor{withDType(tensor.Float4E2M1, []int{3}, []uint8{0x1, 0x7, 0xD}), tensor.Scalar(float32(2))},
			tensor.Float, []float64{1, 12, -6}},
		{"float16 scale gives float16", 19, nil,
			[]*tensor.Tensor{tensor.Of([]int{1}, []uint8{3}), withDType(tensor.Float16, []int{}, []float32{0.5})},
			tensor.Float16, []float64{1.5}},
		{"output_dtype", 23, attrs{"output_dtype": int(tensor.BFloat16)},
			[]*tensor.Tensor{tensor.Of([]int{1}, []int8{-3}), tensor.Scalar(float32(0.25))},
			tensor.BFloat16, []float64{-0.75}},
		{"e8m0 scale", 24, attrs{"output_dtype": int(tensor.Float)},
			[]*tensor.Tensor{tensor.Of([]int{2}, []int8{3, -1}), withDType(tensor.Float8E8M0, []int{}, []uint8{125})},
			tensor.Float, []float64{0.75, -0.25}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := runOpErr("DequantizeLinear", c.opset, c.at, c.in...)
			if err != nil {
				t.Fatal(err)
			}
			y := out[0]
			if y.DType() != c.wantDT {
				t.Fatalf("dtype %s, want %s", y.DType(), c.wantDT)
			}
			if got := storage(y); fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestQuantizeErrors(t *testing.T) {
	one := tensor.Scalar(float32(1))
	cases := []struct {
		name  string
		op    string
		opset int
		at    attrs
		in    []*tensor.Tensor
	}{
		{"int16 before 21", "QuantizeLinear", 19, nil, []*tensor.Tensor{f32s(1), one, tensor.Scalar(int16(0))}},
		{"float8 before 19", "QuantizeLinear", 13, nil, []*tensor.Tensor{f32s(1), one, withDType(tensor.Float8E4M3FN, []int{}, []uint8{0})}},
		{"output_dtype disagrees with zero point", "QuantizeLinear", 21, attrs{"output_dtype": int(tensor.Int8)}, []*tensor.Tensor{f32s(1), one, tensor.Scalar(uint8(0))}},
		{"per-axis before 13", "QuantizeLinear", 10, nil, []*tensor.Tensor{tensor.Of([]int{1, 2}, []float32{1, 2}), f32s(1, 2)}},
		{"per-axis length", "QuantizeLinear", 13, nil, []*tensor.Tensor{tensor.Of([]int{1, 2}, []float32{1, 2}), f32s(1, 2, 3)}},
		{"blocked block count", "QuantizeLinear", 21, attrs{"block_size": 2}, []*tensor.Tensor{tensor.Of([]int{1, 5}, []float32{1, 2, 3, 4, 5}), tensor.Of([]int{1, 2}, []float32{1, 2})}},
		{"zero point shape", "QuantizeLinear", 13, nil, []*tensor.Tensor{tensor.Of([]int{1, 2}, []float32{1, 2}), f32s(1, 2), tensor.Scalar(uint8(0))}},
		{"dequantize zero point type", "DequantizeLinear", 13, nil, []*tensor.Tensor{tensor.Of([]int{1}, []uint8{1}), one, tensor.Scalar(int8(0))}},
		{"dequantize int4 before 21", "DequantizeLinear", 19, nil, []*tensor.Tensor{withDType(tensor.Int4, []int{1}, []int8{1}), one}},
		{"dequantize e8m0 scale needs output_dtype", "DequantizeLinear", 24, nil, []*tensor.Tensor{tensor.Of([]int{1}, []int8{1}), withDType(tensor.Float8E8M0, []int{}, []uint8{127})}},
	}
	for _, c := range cases {
		if _, err := runOpErr(c.op, c.opset, c.at, c.in...); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}
