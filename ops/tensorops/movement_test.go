package tensorops

import (
	"math"
	"testing"

	"github.com/gort-dev/gort/ops/internal/optest"
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
		c    optest.Call
		want []*tensor.Tensor
	}
	w := func(ts ...*tensor.Tensor) []*tensor.Tensor { return ts }
	in := func(ts ...*tensor.Tensor) []*tensor.Tensor { return ts }
	cases := []tc{
		{"transpose default", optest.Call{Op: "Transpose", Opset: 13, In: in(iota32(2, 3))}, w(f32(sh(3, 2), 0, 3, 1, 4, 2, 5))},
		{"transpose int64 perm", optest.Call{Op: "Transpose", Opset: 21, Attrs: optest.A{"perm": []int64{1, 0, 2}}, In: in(x2x3x2)},
			w(i64(sh(3, 2, 2), 0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11))},
		{"transpose strings", optest.Call{Op: "Transpose", Opset: 13, In: in(tensor.Of([]int{1, 2}, []string{"a", "b"}))}, w(tensor.Of([]int{2, 1}, []string{"a", "b"}))},

		{"slice negative step clamped", optest.Call{Op: "Slice", Opset: 13, In: in(x34, vec(-1), vec(-1000), vec(1), vec(-2))}, w(f32(sh(3, 2), 3, 1, 7, 5, 11, 9))},
		{"slice two axes clamped end", optest.Call{Op: "Slice", Opset: 10, In: in(x34, vec(1, 0), vec(1000, 3), vec(0, 1))}, w(f32(sh(2, 3), 4, 5, 6, 8, 9, 10))},
		{"slice-1 attributes", optest.Call{Op: "Slice", Opset: 1, Attrs: optest.A{"starts": []int64{0}, "ends": []int64{-1}, "axes": []int64{0}}, In: in(x34)}, w(iota32(2, 4))},
		{"slice full reverse int32 indices", optest.Call{Op: "Slice", Opset: 13, In: in(x34, i32(sh(1), -1), i32(sh(1), math.MinInt32), i32(sh(1), 0), i32(sh(1), -1))},
			w(f32(sh(3, 4), 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3))},
		{"slice empty", optest.Call{Op: "Slice", Opset: 13, In: in(x34, vec(2), vec(1), vec(0))}, w(f32(sh(0, 4)))},

		{"concat axis -1 int32", optest.Call{Op: "Concat", Opset: 13, Attrs: optest.A{"axis": -1}, In: in(i32(sh(2, 1), 1, 2), i32(sh(2, 2), 3, 4, 5, 6))}, w(i32(sh(2, 3), 1, 3, 4, 2, 5, 6))},
		{"concat axis 0 strings with empty", optest.Call{Op: "Concat", Opset: 11, Attrs: optest.A{"axis": 0}, In: in(tensor.Of([]int{1}, []string{"a"}), tensor.Of([]int{0}, []string{}), tensor.Of([]int{2}, []string{"b", "c"}))},
			w(tensor.Of([]int{3}, []string{"a", "b", "c"}))},

		{"split num_outputs uneven", optest.Call{Op: "Split", Opset: 18, NOut: 3, Attrs: optest.A{"num_outputs": 3}, In: in(iota32(7))},
			w(f32(sh(3), 0, 1, 2), f32(sh(3), 3, 4, 5), f32(sh(1), 6))},
		{"split input sizes axis 1", optest.Call{Op: "Split", Opset: 13, NOut: 2, Attrs: optest.A{"axis": 1}, In: in(iota32(2, 3), vec(1, 2))},
			w(f32(sh(2, 1), 0, 3), f32(sh(2, 2), 1, 2, 4, 5))},
		{"split-11 attribute negative axis", optest.Call{Op: "Split", Opset: 11, NOut: 2, Attrs: optest.A{"axis": -1, "split": []int64{2, 1}}, In: in(iota32(2, 3))},
			w(f32(sh(2, 2), 0, 1, 3, 4), f32(sh(2, 1), 2, 5))},
		{"split equal", optest.Call{Op: "Split", Opset: 2, NOut: 2, In: in(i64(sh(4), 1, 2, 3, 4))}, w(i64(sh(2), 1, 2), i64(sh(2), 3, 4))},

		{"gather axis 1 negative", optest.Call{Op: "Gather", Opset: 13, Attrs: optest.A{"axis": 1}, In: in(x34, i64(sh(1, 2), -1, 0))},
			w(f32(sh(3, 1, 2), 3, 0, 7, 4, 11, 8))},
		{"gather scalar index", optest.Call{Op: "Gather", Opset: 13, In: in(x34, tensor.Scalar(int32(2)))}, w(f32(sh(4), 8, 9, 10, 11))},
		{"gatherelements", optest.Call{Op: "GatherElements", Opset: 13, Attrs: optest.A{"axis": 1}, In: in(i32(sh(2, 2), 1, 2, 3, 4), i64(sh(2, 2), 0, 0, 1, 0))},
			w(i32(sh(2, 2), 1, 1, 4, 3))},
		{"gatherelements axis 0 smaller indices", optest.Call{Op: "GatherElements", Opset: 11, In: in(x34, i64(sh(1, 3), 2, -3, 1))},
			w(f32(sh(1, 3), 8, 1, 6))},
		{"gathernd batch_dims", optest.Call{Op: "GatherND", Opset: 12, Attrs: optest.A{"batch_dims": 1}, In: in(iota32(2, 2, 2), i64(sh(2, 1), 1, 0))},
			w(f32(sh(2, 2), 2, 3, 4, 5))},
		{"gathernd elements", optest.Call{Op: "GatherND", Opset: 13, In: in(i32(sh(2, 2), 0, 1, 2, 3), i64(sh(2, 2), 0, 0, 1, 1))}, w(i32(sh(2), 0, 3))},
		{"gathernd slices", optest.Call{Op: "GatherND", Opset: 11, In: in(i32(sh(2, 2), 0, 1, 2, 3), i64(sh(2, 1), 1, 0))}, w(i32(sh(2, 2), 2, 3, 0, 1))},

		{"scatterelements add duplicates", optest.Call{Op: "ScatterElements", Opset: 16, Attrs: optest.A{"reduction": "add"}, In: in(f32(sh(3, 2), 1, 2, 3, 4, 5, 6), i64(sh(2, 2), 0, 1, 0, 2), f32(sh(2, 2), 10, 20, 30, 40))},
			w(f32(sh(3, 2), 41, 2, 3, 24, 5, 46))},
		{"scatterelements max", optest.Call{Op: "ScatterElements", Opset: 18, Attrs: optest.A{"reduction": "max"}, In: in(f32(sh(3, 2), 1, 2, 3, 4, 5, 6), i64(sh(2, 2), 0, 1, 0, 2), f32(sh(2, 2), 10, 20, 30, 40))},
			w(f32(sh(3, 2), 30, 2, 3, 20, 5, 40))},
		{"scatter-9", optest.Call{Op: "Scatter", Opset: 9, In: in(f32(sh(3, 3)), i64(sh(2, 3), 1, 0, 2, 0, 2, 1), f32(sh(2, 3), 1, 1.1, 1.2, 2, 2.1, 2.2))},
			w(f32(sh(3, 3), 2, 1.1, 0, 1, 0, 2.2, 0, 2.1, 1.2))},
		{"scatternd mul int64", optest.Call{Op: "ScatterND", Opset: 16, Attrs: optest.A{"reduction": "mul"}, In: in(vec(1, 2, 3, 4), i64(sh(3, 1), 1, 1, 3), vec(10, 3, 5))},
			w(vec(1, 60, 3, 20))},
		{"scatternd rows", optest.Call{Op: "ScatterND", Opset: 13, In: in(i32(sh(2, 3)), i64(sh(1, 1), -1), i32(sh(1, 3), 7, 8, 9))}, w(i32(sh(2, 3), 0, 0, 0, 7, 8, 9))},

		{"tile rows", optest.Call{Op: "Tile", Opset: 13, In: in(i64(sh(2, 3), 0, 1, 2, 3, 4, 5), vec(2, 1))}, w(i64(sh(4, 3), 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5))},
		{"tile cols", optest.Call{Op: "Tile", Opset: 6, In: in(i64(sh(2, 3), 0, 1, 2, 3, 4, 5), vec(1, 2))}, w(i64(sh(2, 6), 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5))},
		{"tile-1", optest.Call{Op: "Tile", Opset: 1, In: in(iota32(2, 3), tensor.Scalar(int64(2)), tensor.Scalar(int64(1)))}, w(f32(sh(2, 6), 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5))},
		{"expand", optest.Call{Op: "Expand", Opset: 13, In: in(f32(sh(3, 1), 1, 2, 3), vec(2, 1, 2))}, w(f32(sh(2, 3, 2), 1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3))},
		{"expand bool smaller shape", optest.Call{Op: "Expand", Opset: 8, In: in(bools(sh(2), true, false), vec(2, 1))}, w(bools(sh(2, 2), true, false, true, false))},

		{"compress axis 0", optest.Call{Op: "Compress", Opset: 11, Attrs: optest.A{"axis": 0}, In: in(iota32(3, 2), bools(sh(3), false, true, true))}, w(f32(sh(2, 2), 2, 3, 4, 5))},
		{"compress flat", optest.Call{Op: "Compress", Opset: 9, In: in(iota32(2, 2), bools(sh(4), false, true, false, true))}, w(f32(sh(2), 1, 3))},
		{"compress short condition", optest.Call{Op: "Compress", Opset: 11, Attrs: optest.A{"axis": -1}, In: in(iota32(3, 2), bools(sh(1), true))}, w(f32(sh(3, 1), 0, 2, 4))},

		{"reversesequence time major", optest.Call{Op: "ReverseSequence", Opset: 10, Attrs: optest.A{"time_axis": 0, "batch_axis": 1}, In: in(iota32(4, 2), vec(4, 2))},
			w(f32(sh(4, 2), 6, 3, 4, 1, 2, 5, 0, 7))},
		{"reversesequence batch major", optest.Call{Op: "ReverseSequence", Opset: 10, Attrs: optest.A{"time_axis": 1, "batch_axis": 0}, In: in(iota32(2, 3), vec(2, 3))},
			w(f32(sh(2, 3), 1, 0, 2, 5, 4, 3))},

		{"trilu upper k=1", optest.Call{Op: "Trilu", Opset: 14, In: in(f32(sh(3, 4), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12), vec(1))},
			w(f32(sh(3, 4), 0, 2, 3, 4, 0, 0, 7, 8, 0, 0, 0, 12))},
		{"trilu lower k=-1", optest.Call{Op: "Trilu", Opset: 14, Attrs: optest.A{"upper": 0}, In: in(f32(sh(3, 4), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12), vec(-1))},
			w(f32(sh(3, 4), 0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0))},
		{"trilu batched int64", optest.Call{Op: "Trilu", Opset: 14, In: in(i64(sh(2, 2, 2), 1, 2, 3, 4, 5, 6, 7, 8))}, w(i64(sh(2, 2, 2), 1, 2, 0, 4, 5, 6, 0, 8))},

		{"eyelike int32 k=1", optest.Call{Op: "EyeLike", Opset: 22, Attrs: optest.A{"dtype": int(tensor.Int32), "k": 1}, In: in(f32(sh(2, 3)))}, w(i32(sh(2, 3), 0, 1, 0, 0, 0, 1))},
		{"eyelike bool k=-1", optest.Call{Op: "EyeLike", Opset: 9, Attrs: optest.A{"dtype": int(tensor.Bool), "k": -1}, In: in(f32(sh(3, 2)))}, w(bools(sh(3, 2), false, false, true, false, false, true))},

		{"onehot-11 negative index", optest.Call{Op: "OneHot", Opset: 11, In: in(vec(1, -1), tensor.Scalar(float32(3)), vec(0, 5))}, w(i64(sh(2, 3), 0, 5, 0, 0, 0, 5))},
		{"onehot-9 negative is off", optest.Call{Op: "OneHot", Opset: 9, In: in(vec(1, -1), tensor.Scalar(float32(3)), vec(0, 5))}, w(i64(sh(2, 3), 0, 5, 0, 0, 0, 0))},
		{"onehot axis 0", optest.Call{Op: "OneHot", Opset: 11, Attrs: optest.A{"axis": 0}, In: in(vec(1, 2), vec(3), f32(sh(2), -1, 1))}, w(f32(sh(3, 2), -1, -1, 1, -1, -1, 1))},

		{"nonzero int32", optest.Call{Op: "NonZero", Opset: 13, In: in(i32(sh(2, 2), 1, 0, 0, 3))}, w(i64(sh(2, 2), 0, 1, 0, 1))},
		{"nonzero float 2x3", optest.Call{Op: "NonZero", Opset: 9, In: in(f32(sh(2, 3), 0, 2, 0, 4, 5, 0))}, w(i64(sh(2, 3), 0, 1, 1, 1, 0, 1))},

		{"range int32 negative delta", optest.Call{Op: "Range", Opset: 11, In: in(tensor.Scalar(int32(10)), tensor.Scalar(int32(4)), tensor.Scalar(int32(-2)))}, w(i32(sh(3), 10, 8, 6))},
		{"range float", optest.Call{Op: "Range", Opset: 11, In: in(tensor.Scalar(float32(0)), tensor.Scalar(float32(1)), tensor.Scalar(float32(0.3)))}, w(f32(sh(4), 0, 0.3, 0.6, 0.9))},
		{"range int64", optest.Call{Op: "Range", Opset: 27, In: in(tensor.Scalar(int64(3)), tensor.Scalar(int64(9)), tensor.Scalar(int64(3)))}, w(vec(3, 6))},
		{"range empty", optest.Call{Op: "Range", Opset: 11, In: in(tensor.Scalar(int64(1)), tensor.Scalar(int64(1)), tensor.Scalar(int64(1)))}, w(vec())},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.c.NOut = max(tc.c.NOut, len(tc.want))
			got := optest.MustRun(t, tc.c)
			if len(got) < len(tc.want) {
				t.Fatalf("got %d outputs, want %d", len(got), len(tc.want))
			}
			for i, want := range tc.want {
				optest.Expect(t, tc.name, got[i], want)
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
			got := optest.MustRun(t, optest.Call{Op: "Transpose", Opset: 13, Attrs: optest.A{"perm": perm}, In: []*tensor.Tensor{x}})[0]
			optest.Expect(t, "transpose", got, tensor.Of(outShape, want))
		}
	}
}

func TestMovementErrors(t *testing.T) {
	x34 := iota32(3, 4)
	expectErr(t, optest.Call{Op: "Gather", Opset: 13, In: []*tensor.Tensor{x34, vec(3)}}, errs.Runtime, "out of range")
	expectErr(t, optest.Call{Op: "Slice", Opset: 13, In: []*tensor.Tensor{x34, vec(0), vec(1), vec(0), vec(0)}}, errs.Runtime, "step cannot be 0")
	expectErr(t, optest.Call{Op: "Concat", Opset: 13, Attrs: optest.A{"axis": 0}, In: []*tensor.Tensor{x34, iota32(3, 3)}}, errs.Runtime, "differ")
	expectErr(t, optest.Call{Op: "Split", Opset: 13, NOut: 2, In: []*tensor.Tensor{iota32(3)}}, errs.Runtime, "evenly")
	expectErr(t, optest.Call{Op: "Transpose", Opset: 13, Attrs: optest.A{"perm": []int64{0, 0}}, In: []*tensor.Tensor{x34}}, errs.Runtime, "permutation")
	expectErr(t, optest.Call{Op: "ScatterND", Opset: 13, In: []*tensor.Tensor{vec(1, 2), i64(sh(1, 1), 2), vec(5)}}, errs.Runtime, "out of range")
	expectErr(t, optest.Call{Op: "Range", Opset: 11, In: []*tensor.Tensor{tensor.Scalar(int64(0)), tensor.Scalar(int64(3)), tensor.Scalar(int64(0))}}, errs.Runtime, "delta")
}
