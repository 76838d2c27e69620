package tensorops

import (
	"math"
	"testing"

	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/tensor"
)

func i32(shape []int, v ...int32) *tensor.Tensor  { return tensor.Of(shape, orZeros(shape, v)) }
func bools(shape []int, v ...bool) *tensor.Tensor { return tensor.Of(shape, v) }

func TestMovementOps(t *testing.T) {
	x34 := iota32(3, 4)
	x2x3x2 := i64(sh(2, 3, 2), 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)
	type tc struct {
		name string
		c    call
		want []*tensor.Tensor
	}
	w := func(ts ...*tensor.Tensor) []*tensor.Tensor { return ts }
	in := func(ts ...*tensor.Tensor) []*tensor.Tensor { return ts }
	cases := []tc{
		{"transpose default", call{op: "Transpose", opset: 13, in: in(iota32(2, 3))}, w(f32(sh(3, 2), 0, 3, 1, 4, 2, 5))},
		{"transpose int64 perm", call{op: "Transpose", opset: 21, attrs: A{"perm": []int64{1, 0, 2}}, in: in(x2x3x2)},
			w(i64(sh(3, 2, 2), 0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11))},
		{"transpose strings", call{op: "Transpose", opset: 13, in: in(tensor.Of([]int{1, 2}, []string{"a", "b"}))}, w(tensor.Of([]int{2, 1}, []string{"a", "b"}))},

		{"slice negative step clamped", call{op: "Slice", opset: 13, in: in(x34, vec(-1), vec(-1000), vec(1), vec(-2))}, w(f32(sh(3, 2), 3, 1, 7, 5, 11, 9))},
		{"slice two axes clamped end", call{op: "Slice", opset: 10, in: in(x34, vec(1, 0), vec(1000, 3), vec(0, 1))}, w(f32(sh(2, 3), 4, 5, 6, 8, 9, 10))},
		{"slice-1 attributes", call{op: "Slice", opset: 1, attrs: A{"starts": []int64{0}, "ends": []int64{-1}, "axes": []int64{0}}, in: in(x34)}, w(iota32(2, 4))},
		{"slice full reverse int32 indices", call{op: "Slice", opset: 13, in: in(x34, i32(sh(1), -1), i32(sh(1), math.MinInt32), i32(sh(1), 0), i32(sh(1), -1))},
			w(f32(sh(3, 4), 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3))},
		{"slice empty", call{op: "Slice", opset: 13, in: in(x34, vec(2), vec(1), vec(0))}, w(f32(sh(0, 4)))},

		{"concat axis -1 int32", call{op: "Concat", opset: 13, attrs: A{"axis": -1}, in: in(i32(sh(2, 1), 1, 2), i32(sh(2, 2), 3, 4, 5, 6))}, w(i32(sh(2, 3), 1, 3, 4, 2, 5, 6))},
		{"concat axis 0 strings with empty", call{op: "Concat", opset: 11, attrs: A{"axis": 0}, in: in(tensor.Of([]int{1}, []string{"a"}), tensor.Of([]int{0}, []string{}), tensor.Of([]int{2}, []string{"b", "c"}))},
			w(tensor.Of([]int{3}, []string{"a", "b", "c"}))},

		{"split num_outputs uneven", call{op: "Split", opset: 18, nOut: 3, attrs: A{"num_outputs": 3}, in: in(iota32(7))},
			w(f32(sh(3), 0, 1, 2), f32(sh(3), 3, 4, 5), f32(sh(1), 6))},
		{"split input sizes axis 1", call{op: "Split", opset: 13, nOut: 2, attrs: A{"axis": 1}, in: in(iota32(2, 3), vec(1, 2))},
			w(f32(sh(2, 1), 0, 3), f32(sh(2, 2), 1, 2, 4, 5))},
		{"split-11 attribute negative axis", call{op: "Split", opset: 11, nOut: 2, attrs: A{"axis": -1, "split": []int64{2, 1}}, in: in(iota32(2, 3))},
			w(f32(sh(2, 2), 0, 1, 3, 4), f32(sh(2, 1), 2, 5))},
		{"split equal", call{op: "Split", opset: 2, nOut: 2, in: in(i64(sh(4), 1, 2, 3, 4))}, w(i64(sh(2), 1, 2), i64(sh(2), 3, 4))},

		{"gather axis 1 negative", call{op: "Gather", opset: 13, attrs: A{"axis": 1}, in: in(x34, i64(sh(1, 2), -1, 0))},
			w(f32(sh(3, 1, 2), 3, 0, 7, 4, 11, 8))},
		{"gather scalar index", call{op: "Gather", opset: 13, in: in(x34, tensor.Scalar(int32(2)))}, w(f32(sh(4), 8, 9, 10, 11))},
		{"gatherelements", call{op: "GatherElements", opset: 13, attrs: A{"axis": 1}, in: in(i32(sh(2, 2), 1, 2, 3, 4), i64(sh(2, 2), 0, 0, 1, 0))},
			w(i32(sh(2, 2), 1, 1, 4, 3))},
		{"gatherelements axis 0 smaller indices", call{op: "GatherElements", opset: 11, in: in(x34, i64(sh(1, 3), 2, -3, 1))},
			w(f32(sh(1, 3), 8, 1, 6))},
		{"gathernd batch_dims", call{op: "GatherND", opset: 12, attrs: A{"batch_dims": 1}, in: in(iota32(2, 2, 2), i64(sh(2, 1), 1, 0))},
			w(f32(sh(2, 2), 2, 3, 4, 5))},
		{"gathernd elements", call{op: "GatherND", opset: 13, in: in(i32(sh(2, 2), 0, 1, 2, 3), i64(sh(2, 2), 0, 0, 1, 1))}, w(i32(sh(2), 0, 3))},
		{"gathernd slices", call{op: "GatherND", opset: 11, in: in(i32(sh(2, 2), 0, 1, 2, 3), i64(sh(2, 1), 1, 0))}, w(i32(sh(2, 2), 2, 3, 0, 1))},

		{"scatterelements add duplicates", call{op: "ScatterElements", opset: 16, attrs: A{"reduction": "add"}, in: in(f32(sh(3, 2), 1, 2, 3, 4, 5, 6), i64(sh(2, 2), 0, 1, 0, 2), f32(sh(2, 2), 10, 20, 30, 40))},
			w(f32(sh(3, 2), 41, 2, 3, 24, 5, 46))},
		{"scatterelements max", call{op: "ScatterElements", opset: 18, attrs: A{"reduction": "max"}, in: in(f32(sh(3, 2), 1, 2, 3, 4, 5, 6), i64(sh(2, 2), 0, 1, 0, 2), f32(sh(2, 2), 10, 20, 30, 40))},
			w(f32(sh(3, 2), 30, 2, 3, 20, 5, 40))},
		{"scatter-9", call{op: "Scatter", opset: 9, in: in(f32(sh(3, 3)), i64(sh(2, 3), 1, 0, 2, 0, 2, 1), f32(sh(2, 3), 1, 1.1, 1.2, 2, 2.1, 2.2))},
			w(f32(sh(3, 3), 2, 1.1, 0, 1, 0, 2.2, 0, 2.1, 1.2))},
		{"scatternd mul int64", call{op: "ScatterND", opset: 16, attrs: A{"reduction": "mul"}, in: in(vec(1, 2, 3, 4), i64(sh(3, 1), 1, 1, 3), vec(10, 3, 5))},
			w(vec(1, 60, 3, 20))},
		{"scatternd rows", call{op: "ScatterND", opset: 13, in: in(i32(sh(2, 3)), i64(sh(1, 1), -1), i32(sh(1, 3), 7, 8, 9))}, w(i32(sh(2, 3), 0, 0, 0, 7, 8, 9))},

		{"tile rows", call{op: "Tile", opset: 13, in: in(i64(sh(2, 3), 0, 1, 2, 3, 4, 5), vec(2, 1))}, w(i64(sh(4, 3), 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5))},
		{"tile cols", call{op: "Tile", opset: 6, in: in(i64(sh(2, 3), 0, 1, 2, 3, 4, 5), vec(1, 2))}, w(i64(sh(2, 6), 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5))},
		{"tile-1", call{op: "Tile", opset: 1, in: in(iota32(2, 3), tensor.Scalar(int64(2)), tensor.Scalar(int64(1)))}, w(f32(sh(2, 6), 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5))},
		{"expand", call{op: "Expand", opset: 13, in: in(f32(sh(3, 1), 1, 2, 3), vec(2, 1, 2))}, w(f32(sh(2, 3, 2), 1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3))},
		{"expand bool smaller shape", call{op: "Expand", opset: 8, in: in(bools(sh(2), true, false), vec(2, 1))}, w(bools(sh(2, 2), true, false, true, false))},

		{"compress axis 0", call{op: "Compress", opset: 11, attrs: A{"axis": 0}, in: in(iota32(3, 2), bools(sh(3), false, true, true))}, w(f32(sh(2, 2), 2, 3, 4, 5))},
		{"compress flat", call{op: "Compress", opset: 9, in: in(iota32(2, 2), bools(sh(4), false, true, false, true))}, w(f32(sh(2), 1, 3))},
		{"compress short condition", call{op: "Compress", opset: 11, attrs: A{"axis": -1}, in: in(iota32(3, 2), bools(sh(1), true))}, w(f32(sh(3, 1), 0, 2, 4))},

		{"reversesequence time major", call{op: "ReverseSequence", opset: 10, attrs: A{"time_axis": 0, "batch_axis": 1}, in: in(iota32(4, 2), vec(4, 2))},
			w(f32(sh(4, 2), 6, 3, 4, 1, 2, 5, 0, 7))},
		{"reversesequence batch major", call{op: "ReverseSequence", opset: 10, attrs: A{"time_axis": 1, "batch_axis": 0}, in: in(iota32(2, 3), vec(2, 3))},
			w(f32(sh(2, 3), 1, 0, 2, 5, 4, 3))},

		{"trilu upper k=1", call{op: "Trilu", opset: 14, in: in(f32(sh(3, 4), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12), vec(1))},
			w(f32(sh(3, 4), 0, 2, 3, 4, 0, 0, 7, 8, 0, 0, 0, 12))},
		{"trilu lower k=-1", call{op: "Trilu", opset: 14, attrs: A{"upper": 0}, in: in(f32(sh(3, 4), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12), vec(-1))},
			w(f32(sh(3, 4), 0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0))},
		{"trilu batched int64", call{op: "Trilu", opset: 14, in: in(i64(sh(2, 2, 2), 1, 2, 3, 4, 5, 6, 7, 8))}, w(i64(sh(2, 2, 2), 1, 2, 0, 4, 5, 6, 0, 8))},

		{"eyelike int32 k=1", call{op: "EyeLike", opset: 22, attrs: A{"dtype": int(tensor.Int32), "k": 1}, in: in(f32(sh(2, 3)))}, w(i32(sh(2, 3), 0, 1, 0, 0, 0, 1))},
		{"eyelike bool k=-1", call{op: "EyeLike", opset: 9, attrs: A{"dtype": int(tensor.Bool), "k": -1}, in: in(f32(sh(3, 2)))}, w(bools(sh(3, 2), false, false, true, false, false, true))},

		{"onehot-11 negative index", call{op: "OneHot", opset: 11, in: in(vec(1, -1), tensor.Scalar(float32(3)), vec(0, 5))}, w(i64(sh(2, 3), 0, 5, 0, 0, 0, 5))},
		{"onehot-9 negative is off", call{op: "OneHot", opset: 9, in: in(vec(1, -1), tensor.Scalar(float32(3)), vec(0, 5))}, w(i64(sh(2, 3), 0, 5, 0, 0, 0, 0))},
		{"onehot axis 0", call{op: "OneHot", opset: 11, attrs: A{"axis": 0}, in: in(vec(1, 2), vec(3), f32(sh(2), -1, 1))}, w(f32(sh(3, 2), -1, -1, 1, -1, -1, 1))},

		{"nonzero int32", call{op: "NonZero", opset: 13, in: in(i32(sh(2, 2), 1, 0, 0, 3))}, w(i64(sh(2, 2), 0, 1, 0, 1))},
		{"nonzero float 2x3", call{op: "NonZero", opset: 9, in: in(f32(sh(2, 3), 0, 2, 0, 4, 5, 0))}, w(i64(sh(2, 3), 0, 1, 1, 1, 0, 1))},

		{"range int32 negative delta", call{op: "Range", opset: 11, in: in(tensor.Scalar(int32(10)), tensor.Scalar(int32(4)), tensor.Scalar(int32(-2)))}, w(i32(sh(3), 10, 8, 6))},
		{"range float", call{op: "Range", opset: 11, in: in(tensor.Scalar(float32(0)), tensor.Scalar(float32(1)), tensor.Scalar(float32(0.3)))}, w(f32(sh(4), 0, 0.3, 0.6, 0.9))},
		{"range int64", call{op: "Range", opset: 27, in: in(tensor.Scalar(int64(3)), tensor.Scalar(int64(9)), tensor.Scalar(int64(3)))}, w(vec(3, 6))},
		{"range empty", call{op: "Range", opset: 11, in: in(tensor.Scalar(int64(1)), tensor.Scalar(int64(1)), tensor.Scalar(int64(1)))}, w(vec())},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.c.nOut = max(tc.c.nOut, len(tc.want))
			got := mustRun(t, tc.c)
			if len(got) < len(tc.want) {
				t.Fatalf("got %d outputs, want %d", len(got), len(tc.want))
			}
			for i, want := range tc.want {
				expect(t, tc.name, got[i], want)
			}
		})
	}
}

// TestTransposeNCHW checks 4-D layouts (N, C > 1, H != W) against a
// reference computed by explicit loops; the larger shape takes the tiled path.
func TestTransposeNCHW(t *testing.T) {
	for _, dims := range [][4]int{{2, 3, 2, 5}, {2, 37, 3, 40}} {
		N, C, H, W := dims[0], dims[1], dims[2], dims[3]
		x := iota32(N, C, H, W)
		xs := x.F32()
		for _, perm := range [][]int64{{0, 2, 3, 1}, {0, 3, 1, 2}, {3, 2, 1, 0}, {1, 0, 2, 3}, {0, 1, 3, 2}, {2, 3, 0, 1}} {
			outShape := []int{dims[perm[0]], dims[perm[1]], dims[perm[2]], dims[perm[3]]}
			want := make([]float32, 0, len(xs))
			var idx [4]int
			for a := 0; a < outShape[0]; a++ {
				for b := 0; b < outShape[1]; b++ {
					for c := 0; c < outShape[2]; c++ {
						for d := 0; d < outShape[3]; d++ {
							o := [4]int{a, b, c, d}
							for k := range perm {
								idx[perm[k]] = o[k]
							}
							want = append(want, xs[((idx[0]*C+idx[1])*H+idx[2])*W+idx[3]])
						}
					}
				}
			}
			got := mustRun(t, call{op: "Transpose", opset: 13, attrs: A{"perm": perm}, in: []*tensor.Tensor{x}})[0]
			expect(t, "transpose", got, tensor.Of(outShape, want))
		}
	}
}

func TestMovementErrors(t *testing.T) {
	x34 := iota32(3, 4)
	expectErr(t, call{op: "Gather", opset: 13, in: []*tensor.Tensor{x34, vec(3)}}, errs.Runtime, "out of range")
	expectErr(t, call{op: "Slice", opset: 13, in: []*tensor.Tensor{x34, vec(0), vec(1), vec(0), vec(0)}}, errs.Runtime, "step cannot be 0")
	expectErr(t, call{op: "Concat", opset: 13, attrs: A{"axis": 0}, in: []*tensor.Tensor{x34, iota32(3, 3)}}, errs.Runtime, "differ")
	expectErr(t, call{op: "Split", opset: 13, nOut: 2, in: []*tensor.Tensor{iota32(3)}}, errs.Runtime, "evenly")
	expectErr(t, call{op: "Transpose", opset: 13, attrs: A{"perm": []int64{0, 0}}, in: []*tensor.Tensor{x34}}, errs.Runtime, "permutation")
	expectErr(t, call{op: "ScatterND", opset: 13, in: []*tensor.Tensor{vec(1, 2), i64(sh(1, 1), 2), vec(5)}}, errs.Runtime, "out of range")
	expectErr(t, call{op: "Range", opset: 11, in: []*tensor.Tensor{tensor.Scalar(int64(0)), tensor.Scalar(int64(3)), tensor.Scalar(int64(0))}}, errs.Runtime, "delta")
}
