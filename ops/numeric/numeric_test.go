package numeric

import (
	"math"
	"testing"

	"github.com/gort-dev/gort/ops/internal/optest"
	"github.com/gort-dev/gort/runtime/tensor"
)

func TestDet(t *testing.T) {
	// det [[2,0,1],[1,3,2],[1,1,1]] = 2(3-2) - 0 + 1(1-3) = 0; the second needs a pivot swap:
	// det [[0,1,0],[2,0,0],[0,0,3]] = -6.
	x := tensor.Of([]int{2, 3, 3}, []float32{2, 0, 1, 1, 3, 2, 1, 1, 1, 0, 1, 0, 2, 0, 0, 0, 0, 3})
	got := optest.MustRun(t, optest.Call{Op: "Det", Opset: 22, In: []*tensor.Tensor{x}})
	optest.Expect(t, "det", got[0], tensor.Of([]int{2}, []float32{0, -6}))
}

func TestBitCast(t *testing.T) {
	cases := []struct {
		name string
		to   tensor.DType
		in   *tensor.Tensor
		want *tensor.Tensor
	}{
		{"float to int32", tensor.Int32, tensor.Of([]int{2}, []float32{1, -2}), tensor.Of([]int{2}, []int32{0x3f800000, -0x40000000})},
		{"int8 to uint8", tensor.Uint8, tensor.Of([]int{3}, []int8{-1, 0, 127}), tensor.Of([]int{3}, []uint8{255, 0, 127})},
		{"float16 to uint16", tensor.Uint16, tensor.Must(tensor.FromSlice(tensor.Float16, []int{2}, []float32{1, -0.5})), tensor.Of([]int{2}, []uint16{0x3c00, 0xb800})},
		{"uint4 to int4", tensor.Int4, tensor.Must(tensor.FromSlice(tensor.Uint4, []int{2}, []uint8{15, 7})), tensor.Must(tensor.FromSlice(tensor.Int4, []int{2}, []int8{-1, 7}))},
		{"double to uint64", tensor.Uint64, tensor.Of([]int{1}, []float64{2}), tensor.Of([]int{1}, []uint64{math.Float64bits(2)})},
	}
	for _, c := range cases {
		got := optest.MustRun(t, optest.Call{Op: "BitCast", Opset: 26, Attrs: optest.A{"to": int(c.to)}, In: []*tensor.Tensor{c.in}})
		optest.Expect(t, c.name, got[0], c.want)
	}
	if _, err := optest.Run(optest.Call{Op: "BitCast", Opset: 26, Attrs: optest.A{"to": int(tensor.Int64)}, In: []*tensor.Tensor{tensor.Of([]int{1}, []float32{1})}}); err == nil {
		t.Error("32-to-64-bit BitCast should fail")
	}
}

func TestShrinkAndLpNorm(t *testing.T) {
	x := tensor.Of([]int{2, 3}, []float32{-2, -0.5, 0.25, 1, 3, -4})
	got := optest.MustRun(t, optest.Call{Op: "Shrink", Opset: 9, Attrs: optest.A{"lambd": float32(0.5), "bias": float32(0.5)}, In: []*tensor.Tensor{x}})
	optest.Expect(t, "soft shrink", got[0], tensor.Of([]int{2, 3}, []float32{-1.5, 0, 0, 0.5, 2.5, -3.5}))
	got = optest.MustRun(t, optest.Call{Op: "LpNormalization", Opset: 22, Attrs: optest.A{"axis": 0, "p": 1}, In: []*tensor.Tensor{x}})
	optest.Expect(t, "l1 axis 0", got[0], tensor.Of([]int{2, 3}, []float32{-2.0 / 3, -0.5 / 3.5, 0.25 / 4.25, 1.0 / 3, 3 / 3.5, -4 / 4.25}))
	got = optest.MustRun(t, optest.Call{Op: "LpNormalization", Opset: 1, In: []*tensor.Tensor{tensor.Of([]int{2, 2}, []float32{3, 4, 0, 0})}})
	optest.Expect(t, "l2 last axis, zero row", got[0], tensor.Of([]int{2, 2}, []float32{0.6, 0.8, 0, 0}))
}

func TestDynamicQuantizeLinear(t *testing.T) {
	// Range [-1, 2.5] → scale 3.5/255, zero point round(1/scale) = round(72.857) = 73.
	x := tensor.Of([]int{2, 2}, []float32{-1, 0, 1, 2.5})
	got := optest.MustRun(t, optest.Call{Op: "DynamicQuantizeLinear", Opset: 11, NOut: 3, In: []*tensor.Tensor{x}})
	scale := float32(3.5) / 255
	optest.Expect(t, "scale", got[1], tensor.Scalar(scale))
	optest.Expect(t, "zero point", got[2], tensor.Scalar(uint8(73)))
	// 1/scale = 72.857 → 73+73 = 146; 2.5/scale = 182.14 → 182+73 clamps to 255.
	optest.Expect(t, "y", got[0], tensor.Of([]int{2, 2}, []uint8{0, 73, 146, 255}))
}
