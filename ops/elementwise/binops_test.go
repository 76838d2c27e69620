package elementwise

import (
	"math"
	"testing"

	"github.com/gort-dev/gort/runtime/tensor"
)

func TestMod(t *testing.T) {
	a := tensor.Of([]int{4}, []int32{5, -5, 5, -5})
	b := tensor.Of([]int{4}, []int32{3, 3, -3, -3})
	checkTensor(t, "int fmod=0 (sign of divisor)", mustRun(t, "Mod", 13, nil, a, b), tensor.Int32, []int{4}, []int32{2, 1, -1, -2})
	checkTensor(t, "int fmod=1 (sign of dividend)", mustRun(t, "Mod", 13, map[string]any{"fmod": 1}, a, b), tensor.Int32, []int{4}, []int32{2, -2, 2, -2})
	m := tensor.Of([]int{2}, []int8{-128, 7})
	checkTensor(t, "MinInt % -1", mustRun(t, "Mod", 13, nil, m, tensor.Of([]int{1}, []int8{-1})), tensor.Int8, []int{2}, []int8{0, 0})
	fa := f32([]int{2, 2}, 5.5, -5.5, 5.5, -5.5)
	fb := f32([]int{2}, 2, -2)
	checkTensor(t, "float fmod=1", mustRun(t, "Mod", 13, map[string]any{"fmod": 1}, fa, fb), tensor.Float, []int{2, 2}, []float64{1.5, -1.5, 1.5, -1.5})
	if _, err := runOp("Mod", 13, nil, a, tensor.Of([]int{1}, []int32{0})); err == nil {
		t.Error("mod by zero: no error")
	}
}

func TestPow(t *testing.T) {
	checkTensor(t, "f32^i64", mustRun(t, "Pow", 15, nil, f32([]int{3}, 2, 3, 0.5), tensor.Of([]int{3}, []int64{3, -1, 2})),
		tensor.Float, []int{3}, []float64{8, 1.0 / 3, 0.25})
	checkTensor(t, "i32^i32", mustRun(t, "Pow", 15, nil, tensor.Of([]int{3}, []int32{2, -3, 5}), tensor.Of([]int{3}, []int32{10, 3, 0})),
		tensor.Int32, []int{3}, []int32{1024, -27, 1})
	checkTensor(t, "i64^f32 truncates", mustRun(t, "Pow", 15, nil, tensor.Of([]int{2}, []int64{4, 2}), f32([]int{2}, 0.5, 0.5)),
		tensor.Int64, []int{2}, []int64{2, 1})
	checkTensor(t, "x^2 fast path", mustRun(t, "Pow", 15, nil, f32([]int{2, 2}, 1, -2, 3, 4), f32([]int{}, 2)),
		tensor.Float, []int{2, 2}, []float64{1, 4, 9, 16})
	checkTensor(t, "broadcast", mustRun(t, "Pow", 15, nil, f32([]int{2, 1}, 2, 3), f32([]int{3}, 0, 1, 2)),
		tensor.Float, []int{2, 3}, []float64{1, 2, 4, 1, 3, 9})
	if _, err := runOp("Pow", 7, nil, f32([]int{1}, 2), tensor.Of([]int{1}, []int64{2})); err == nil {
		t.Error("Pow-7 accepted mixed types")
	}
}

func TestCompareLogic(t *testing.T) {
	a := f32([]int{2, 3}, 1, 2, 3, 4, 5, float32(math.NaN()))
	b := f32([]int{3}, 2, 2, 2)
	cases := map[string][]bool{
		"Equal":          {false, true, false, false, false, false},
		"Less":           {true, false, false, false, false, false},
		"Greater":        {false, false, true, true, true, false},
		"LessOrEqual":    {true, true, false, false, false, false},
		"GreaterOrEqual": {false, true, true, true, true, false},
	}
	for name, want := range cases {
		checkTensor(t, name, mustRun(t, name, 19, nil, a, b), tensor.Bool, []int{2, 3}, want)
	}
	s := mustRun(t, "Equal", 19, nil, tensor.Of([]int{3}, []string{"a", "b", "c"}), tensor.Of([]int{1}, []string{"b"}))
	checkTensor(t, "Equal string", s, tensor.Bool, []int{3}, []bool{false, true, false})

	x := tensor.Of([]int{2, 2}, []bool{true, true, false, false})
	y := tensor.Of([]int{2}, []bool{true, false})
	checkTensor(t, "And", mustRun(t, "And", 7, nil, x, y), tensor.Bool, []int{2, 2}, []bool{true, false, false, false})
	checkTensor(t, "Or", mustRun(t, "Or", 7, nil, x, y), tensor.Bool, []int{2, 2}, []bool{true, true, true, false})
	checkTensor(t, "Xor", mustRun(t, "Xor", 7, nil, x, y), tensor.Bool, []int{2, 2}, []bool{false, true, true, false})
	checkTensor(t, "Not", mustRun(t, "Not", 1, nil, y), tensor.Bool, []int{2}, []bool{false, true})
}

func TestBitOps(t *testing.T) {
	a := tensor.Of([]int{3}, []int16{0b1100, -1, 5})
	b := tensor.Of([]int{1}, []int16{0b1010})
	checkTensor(t, "BitwiseAnd", mustRun(t, "BitwiseAnd", 18, nil, a, b), tensor.Int16, []int{3}, []int16{8, 10, 0})
	checkTensor(t, "BitwiseOr", mustRun(t, "BitwiseOr", 18, nil, a, b), tensor.Int16, []int{3}, []int16{14, -1, 15})
	checkTensor(t, "BitwiseXor", mustRun(t, "BitwiseXor", 18, nil, a, b), tensor.Int16, []int{3}, []int16{6, -11, 15})
	checkTensor(t, "BitwiseNot", mustRun(t, "BitwiseNot", 18, nil, a), tensor.Int16, []int{3}, []int16{-13, 0, -6})
	u := tensor.Of([]int{3}, []uint8{1, 255, 16})
	sh := tensor.Of([]int{3}, []uint8{3, 1, 9})
	checkTensor(t, "BitShift LEFT", mustRun(t, "BitShift", 11, map[string]any{"direction": "LEFT"}, u, sh), tensor.Uint8, []int{3}, []uint8{8, 254, 0})
	checkTensor(t, "BitShift RIGHT", mustRun(t, "BitShift", 11, map[string]any{"direction": "RIGHT"}, u, sh), tensor.Uint8, []int{3}, []uint8{0, 127, 0})
}

func TestPReluWhere(t *testing.T) {
	x := f32([]int{2, 3, 2}, -1, 2, -3, 4, -5, 6, -1, -2, 3, -4, 5, -6)
	slope := f32([]int{3, 1}, 0.1, 0.2, 0.3)
	want := []float64{-0.1, 2, -0.6, 4, -1.5, 6, -0.1, -0.2, 3, -0.8, 5, -1.8}
	checkTensor(t, "PRelu", mustRun(t, "PRelu", 16, nil, x, slope), tensor.Float, []int{2, 3, 2}, want)
	if _, err := runOp("PRelu", 16, nil, slope, x); err == nil {
		t.Error("PRelu with slope larger than X: no error")
	}
	c := tensor.Of([]int{2, 1}, []bool{true, false})
	xs := tensor.Of([]int{3}, []string{"a", "b", "c"})
	ys := tensor.Of([]int{}, []string{"z"})
	checkTensor(t, "Where strings", mustRun(t, "Where", 16, nil, c, xs, ys), tensor.String, []int{2, 3},
		[]string{"a", "b", "c", "z", "z", "z"})
	ci := tensor.Of([]int{3}, []bool{true, false, true})
	xi := tensor.Of([]int{2, 1}, []int64{1, 2})
	yi := tensor.Of([]int{2, 3}, []int64{10, 11, 12, 13, 14, 15})
	checkTensor(t, "Where ints", mustRun(t, "Where", 16, nil, ci, xi, yi), tensor.Int64, []int{2, 3},
		[]int64{1, 11, 1, 2, 14, 2})
}
