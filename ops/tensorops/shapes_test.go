package tensorops

import (
	"testing"

	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/tensor"
)

func TestShapeOps(t *testing.T) {
	x := iota32(2, 3, 4)
	cases := []struct {
		name string
		c    call
		want *tensor.Tensor
	}{
		{"reshape copy and infer", call{op: "Reshape", opset: 14, in: []*tensor.Tensor{x, vec(0, -1)}}, iota32(2, 12)},
		{"reshape infer first", call{op: "Reshape", opset: 13, in: []*tensor.Tensor{x, vec(-1, 4, 2)}}, iota32(3, 4, 2)},
		{"reshape-1 attribute", call{op: "Reshape", opset: 1, attrs: A{"shape": []int64{4, 6}}, in: []*tensor.Tensor{x}}, iota32(4, 6)},
		{"reshape allowzero empty", call{op: "Reshape", opset: 14, attrs: A{"allowzero": 1}, in: []*tensor.Tensor{f32(sh(0, 3)), vec(3, 0)}}, f32(sh(3, 0))},
		{"reshape int32 shape input", call{op: "Reshape", opset: 19, in: []*tensor.Tensor{x, tensor.Of([]int{2}, []int32{6, 4})}}, iota32(6, 4)},
		{"flatten default", call{op: "Flatten", opset: 13, in: []*tensor.Tensor{x}}, iota32(2, 12)},
		{"flatten 0", call{op: "Flatten", opset: 13, attrs: A{"axis": 0}, in: []*tensor.Tensor{x}}, iota32(1, 24)},
		{"flatten -1", call{op: "Flatten", opset: 13, attrs: A{"axis": -1}, in: []*tensor.Tensor{x}}, iota32(6, 4)},
		{"squeeze-11 attr negative", call{op: "Squeeze", opset: 11, attrs: A{"axes": []int64{-1}}, in: []*tensor.Tensor{iota32(2, 3, 1)}}, iota32(2, 3)},
		{"squeeze-13 all ones", call{op: "Squeeze", opset: 13, in: []*tensor.Tensor{iota32(1, 3, 1, 2)}}, iota32(3, 2)},
		{"squeeze-13 input", call{op: "Squeeze", opset: 13, in: []*tensor.Tensor{iota32(1, 3, 1, 2), vec(2)}}, iota32(1, 3, 2)},
		{"unsqueeze-11 attr", call{op: "Unsqueeze", opset: 11, attrs: A{"axes": []int64{0, -1}}, in: []*tensor.Tensor{iota32(2, 3)}}, iota32(1, 2, 3, 1)},
		{"unsqueeze-13 input unordered", call{op: "Unsqueeze", opset: 13, in: []*tensor.Tensor{iota32(2, 3), vec(3, 1)}}, iota32(2, 1, 3, 1)},
		{"shape", call{op: "Shape", opset: 13, in: []*tensor.Tensor{x}}, vec(2, 3, 4)},
		{"shape start end", call{op: "Shape", opset: 15, attrs: A{"start": -2, "end": 100}, in: []*tensor.Tensor{x}}, vec(3, 4)},
		{"shape empty window", call{op: "Shape", opset: 15, attrs: A{"start": 2, "end": 1}, in: []*tensor.Tensor{x}}, vec()},
		{"size", call{op: "Size", opset: 13, in: []*tensor.Tensor{x}}, tensor.Scalar(int64(24))},
		{"identity string", call{op: "Identity", opset: 16, in: []*tensor.Tensor{tensor.Of([]int{2}, []string{"a", "b"})}}, tensor.Of([]int{2}, []string{"a", "b"})},
		{"constant value_ints", call{op: "Constant", opset: 13, attrs: A{"value_ints": []int64{3, -1}}}, vec(3, -1)},
		{"constant value_float", call{op: "Constant", opset: 13, attrs: A{"value_float": float32(2.5)}}, tensor.Scalar(float32(2.5))},
		{"constant value_strings", call{op: "Constant", opset: 19, attrs: A{"value_strings": []string{"x"}}}, tensor.Of([]int{1}, []string{"x"})},
		{"constant tensor", call{op: "Constant", opset: 1, attrs: A{"value": tensor.Of([]int{2}, []int32{7, 8})}}, tensor.Of([]int{2}, []int32{7, 8})},
		{"constantofshape default", call{op: "ConstantOfShape", opset: 9, in: []*tensor.Tensor{vec(2, 1)}}, f32(sh(2, 1), 0, 0)},
		{"constantofshape int32", call{op: "ConstantOfShape", opset: 21, attrs: A{"value": tensor.Of([]int{1}, []int32{-4})}, in: []*tensor.Tensor{vec(3)}}, tensor.Of([]int{3}, []int32{-4, -4, -4})},
		{"constantofshape scalar", call{op: "ConstantOfShape", opset: 20, attrs: A{"value": tensor.Of([]int{1}, []bool{true})}, in: []*tensor.Tensor{vec()}}, tensor.Of([]int{}, []bool{true})},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			expect(t, tc.name, mustRun(t, tc.c)[0], tc.want)
		})
	}
}

func TestShapeOpErrors(t *testing.T) {
	x := iota32(2, 3, 4)
	expectErr(t, call{op: "Reshape", opset: 14, in: []*tensor.Tensor{x, vec(-1, -1)}}, errs.Runtime, "more than one -1")
	expectErr(t, call{op: "Reshape", opset: 14, in: []*tensor.Tensor{x, vec(5, -1)}}, errs.Runtime, "cannot reshape")
	expectErr(t, call{op: "Squeeze", opset: 13, in: []*tensor.Tensor{x, vec(1)}}, errs.Runtime, "not 1")
	expectErr(t, call{op: "Unsqueeze", opset: 13, in: []*tensor.Tensor{x, vec(0, 0)}}, errs.Runtime, "repeated")
	// A hostile shape must be refused by the budget, not crash.
	expectErr(t, call{op: "ConstantOfShape", opset: 9, in: []*tensor.Tensor{vec(1_000_000_000_000)}}, errs.TooLarge, "budget")
	expectErr(t, call{op: "ConstantOfShape", opset: 9, in: []*tensor.Tensor{vec(1<<40, 1<<40)}}, errs.TooLarge, "overflows")
	expectErr(t, call{op: "ConstantOfShape", opset: 9, in: []*tensor.Tensor{vec(-1)}}, errs.Runtime, "negative")
	expectErr(t, call{op: "Tile", opset: 13, in: []*tensor.Tensor{x, vec(1<<20, 1<<20, 1)}}, errs.TooLarge, "budget")
	expectErr(t, call{op: "Expand", opset: 13, in: []*tensor.Tensor{x, vec(1<<30, 1, 1, 1)}}, errs.TooLarge, "budget")
	expectErr(t, call{op: "Range", opset: 11, in: []*tensor.Tensor{tensor.Scalar(int64(0)), tensor.Scalar(int64(1 << 60)), tensor.Scalar(int64(1))}}, errs.TooLarge, "budget")
}

// TestVersionedAttributes checks that the old attribute forms are read only
// at the versions that have them.
func TestVersionedAttributes(t *testing.T) {
	x := iota32(2, 3)
	// Shape-13 ignores start (it has no such attribute).
	expect(t, "shape-13", mustRun(t, call{op: "Shape", opset: 13, attrs: A{"start": 1}, in: []*tensor.Tensor{x}})[0], vec(2, 3))
	// Squeeze-13 reads axes from the input, not the attribute.
	expect(t, "squeeze-13", mustRun(t, call{op: "Squeeze", opset: 13, attrs: A{"axes": []int64{0}}, in: []*tensor.Tensor{iota32(1, 3, 1)}})[0], iota32(3))
}
