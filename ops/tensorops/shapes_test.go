package tensorops

import (
	"testing"

	"github.com/gort-dev/gort/ops/internal/optest"
	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/tensor"
)

func TestShapeOps(t *testing.T) {
	x := iota32(2, 3, 4)
	cases := []struct {
		name string
		c    optest.Call
		want *tensor.Tensor
	}{
		{"reshape copy and infer", optest.Call{Op: "Reshape", Opset: 14, In: []*tensor.Tensor{x, vec(0, -1)}}, iota32(2, 12)},
		{"reshape infer first", optest.Call{Op: "Reshape", Opset: 13, In: []*tensor.Tensor{x, vec(-1, 4, 2)}}, iota32(3, 4, 2)},
		{"reshape-1 attribute", optest.Call{Op: "Reshape", Opset: 1, Attrs: optest.A{"shape": []int64{4, 6}}, In: []*tensor.Tensor{x}}, iota32(4, 6)},
		{"reshape allowzero empty", optest.Call{Op: "Reshape", Opset: 14, Attrs: optest.A{"allowzero": 1}, In: []*tensor.Tensor{f32(sh(0, 3)), vec(3, 0)}}, f32(sh(3, 0))},
		{"reshape int32 shape input", optest.Call{Op: "Reshape", Opset: 19, In: []*tensor.Tensor{x, tensor.Of([]int{2}, []int32{6, 4})}}, iota32(6, 4)},
		{"flatten default", optest.Call{Op: "Flatten", Opset: 13, In: []*tensor.Tensor{x}}, iota32(2, 12)},
		{"flatten 0", optest.Call{Op: "Flatten", Opset: 13, Attrs: optest.A{"axis": 0}, In: []*tensor.Tensor{x}}, iota32(1, 24)},
		{"flatten -1", optest.Call{Op: "Flatten", Opset: 13, Attrs: optest.A{"axis": -1}, In: []*tensor.Tensor{x}}, iota32(6, 4)},
		{"squeeze-11 attr negative", optest.Call{Op: "Squeeze", Opset: 11, Attrs: optest.A{"axes": []int64{-1}}, In: []*tensor.Tensor{iota32(2, 3, 1)}}, iota32(2, 3)},
		{"squeeze-13 all ones", optest.Call{Op: "Squeeze", Opset: 13, In: []*tensor.Tensor{iota32(1, 3, 1, 2)}}, iota32(3, 2)},
		{"squeeze-13 input", optest.Call{Op: "Squeeze", Opset: 13, In: []*tensor.Tensor{iota32(1, 3, 1, 2), vec(2)}}, iota32(1, 3, 2)},
		{"unsqueeze-11 attr", optest.Call{Op: "Unsqueeze", Opset: 11, Attrs: optest.A{"axes": []int64{0, -1}}, In: []*tensor.Tensor{iota32(2, 3)}}, iota32(1, 2, 3, 1)},
		{"unsqueeze-13 input unordered", optest.Call{Op: "Unsqueeze", Opset: 13, In: []*tensor.Tensor{iota32(2, 3), vec(3, 1)}}, iota32(2, 1, 3, 1)},
		{"shape", optest.Call{Op: "Shape", Opset: 13, In: []*tensor.Tensor{x}}, vec(2, 3, 4)},
		{"shape start end", optest.Call{Op: "Shape", Opset: 15, Attrs: optest.A{"start": -2, "end": 100}, In: []*tensor.Tensor{x}}, vec(3, 4)},
		{"shape empty window", optest.Call{Op: "Shape", Opset: 15, Attrs: optest.A{"start": 2, "end": 1}, In: []*tensor.Tensor{x}}, vec()},
		{"size", optest.Call{Op: "Size", Opset: 13, In: []*tensor.Tensor{x}}, tensor.Scalar(int64(24))},
		{"identity string", optest.Call{Op: "Identity", Opset: 16, In: []*tensor.Tensor{tensor.Of([]int{2}, []string{"a", "b"})}}, tensor.Of([]int{2}, []string{"a", "b"})},
		{"constant value_ints", optest.Call{Op: "Constant", Opset: 13, Attrs: optest.A{"value_ints": []int64{3, -1}}}, vec(3, -1)},
		{"constant value_float", optest.Call{Op: "Constant", Opset: 13, Attrs: optest.A{"value_float": float32(2.5)}}, tensor.Scalar(float32(2.5))},
		{"constant value_strings", optest.Call{Op: "Constant", Opset: 19, Attrs: optest.A{"value_strings": []string{"x"}}}, tensor.Of([]int{1}, []string{"x"})},
		{"constant tensor", optest.Call{Op: "Constant", Opset: 1, Attrs: optest.A{"value": tensor.Of([]int{2}, []int32{7, 8})}}, tensor.Of([]int{2}, []int32{7, 8})},
		{"constantofshape default", optest.Call{Op: "ConstantOfShape", Opset: 9, In: []*tensor.Tensor{vec(2, 1)}}, f32(sh(2, 1), 0, 0)},
		{"constantofshape int32", optest.Call{Op: "ConstantOfShape", Opset: 21, Attrs: optest.A{"value": tensor.Of([]int{1}, []int32{-4})}, In: []*tensor.Tensor{vec(3)}}, tensor.Of([]int{3}, []int32{-4, -4, -4})},
		{"constantofshape scalar", optest.Call{Op: "ConstantOfShape", Opset: 20, Attrs: optest.A{"value": tensor.Of([]int{1}, []bool{true})}, In: []*tensor.Tensor{vec()}}, tensor.Of([]int{}, []bool{true})},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			optest.Expect(t, tc.name, optest.MustRun(t, tc.c)[0], tc.want)
		})
	}
}

func TestShapeOpErrors(t *testing.T) {
	x := iota32(2, 3, 4)
	expectErr(t, optest.Call{Op: "Reshape", Opset: 14, In: []*tensor.Tensor{x, vec(-1, -1)}}, errs.Runtime, "more than one -1")
	expectErr(t, optest.Call{Op: "Reshape", Opset: 14, In: []*tensor.Tensor{x, vec(5, -1)}}, errs.Runtime, "cannot reshape")
	expectErr(t, optest.Call{Op: "Squeeze", Opset: 13, In: []*tensor.Tensor{x, vec(1)}}, errs.Runtime, "not 1")
	expectErr(t, optest.Call{Op: "Unsqueeze", Opset: 13, In: []*tensor.Tensor{x, vec(0, 0)}}, errs.Runtime, "repeated")
	// A hostile shape must be refused by the budget, not crash.
	expectErr(t, optest.Call{Op: "ConstantOfShape", Opset: 9, In: []*tensor.Tensor{vec(1_000_000_000_000)}}, errs.TooLarge, "budget")
	expectErr(t, optest.Call{Op: "ConstantOfShape", Opset: 9, In: []*tensor.Tensor{vec(1<<40, 1<<40)}}, errs.TooLarge, "overflows")
	expectErr(t, optest.Call{Op: "ConstantOfShape", Opset: 9, In: []*tensor.Tensor{vec(-1)}}, errs.Runtime, "negative")
	expectErr(t, optest.Call{Op: "Tile", Opset: 13, In: []*tensor.Tensor{x, vec(1<<20, 1<<20, 1)}}, errs.TooLarge, "budget")
	expectErr(t, optest.Call{Op: "Expand", Opset: 13, In: []*tensor.Tensor{x, vec(1<<30, 1, 1, 1)}}, errs.TooLarge, "budget")
	expectErr(t, optest.Call{Op: "Range", Opset: 11, In: []*tensor.Tensor{tensor.Scalar(int64(0)), tensor.Scalar(int64(1 << 60)), tensor.Scalar(int64(1))}}, errs.TooLarge, "budget")
}

// TestVersionedAttributes checks that the old attribute forms are read only
// at the versions that have them.
func TestVersionedAttributes(t *testing.T) {
	x := iota32(2, 3)
	// Shape-13 ignores start (it has no such attribute).
	optest.Expect(t, "shape-13", optest.MustRun(t, optest.Call{Op: "Shape", Opset: 13, Attrs: optest.A{"start": 1}, In: []*tensor.Tensor{x}})[0], vec(2, 3))
	// Squeeze-13 reads axes from the input, not the attribute.
	optest.Expect(t, "squeeze-13", optest.MustRun(t, optest.Call{Op: "Squeeze", Opset: 13, Attrs: optest.A{"axes": []int64{0}}, In: []*tensor.Tensor{iota32(1, 3, 1)}})[0], iota32(3))
}
