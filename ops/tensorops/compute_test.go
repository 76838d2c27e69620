package tensorops

import (
	"math"
	"testing"

	"github.com/gort-dev/gort/ops/internal/optest"
	"github.com/gort-dev/gort/runtime/tensor"
)

func f64(shape []int, v ...float64) *tensor.Tensor { return tensor.Of(shape, v) }

func TestReductions(t *testing.T) {
	x := f32(sh(2, 3), 1, 2, 3, 4, 5, 6)
	inf := float32(math.Inf(1))
	in := func(ts ...*tensor.Tensor) []*tensor.Tensor { return ts }
	cases := []struct {
		name string
		c    optest.Call
		want *tensor.Tensor
	}{
		{"sum-13 negative axis", optest.Call{Op: "ReduceSum", Opset: 13, Attrs: optest.A{"keepdims": 0}, In: in(x, vec(-1))}, f32(sh(2), 6, 15)},
		{"sum-1 attribute axes", optest.Call{Op: "ReduceSum", Opset: 1, Attrs: optest.A{"axes": []int64{0}}, In: in(x)}, f32(sh(1, 3), 5, 7, 9)},
		{"sum all", optest.Call{Op: "ReduceSum", Opset: 13, In: in(x)}, f32(sh(1, 1), 21)},
		{"sum noop empty axes", optest.Call{Op: "ReduceSum", Opset: 13, Attrs: optest.A{"noop_with_empty_axes": 1}, In: in(x, vec())}, x},
		{"sum middle axis 3-D", optest.Call{Op: "ReduceSum", Opset: 13, In: in(iota32(2, 3, 2), vec(1))}, f32(sh(2, 1, 2), 6, 9, 24, 27)},
		{"sum uint8 wraps", optest.Call{Op: "ReduceSum", Opset: 13, Attrs: optest.A{"keepdims": 0}, In: in(tensor.Of([]int{2}, []uint8{200, 100}))}, tensor.Of([]int{}, []uint8{44})},
		{"mean-18", optest.Call{Op: "ReduceMean", Opset: 18, Attrs: optest.A{"keepdims": 0}, In: in(x, vec(0))}, f32(sh(3), 2.5, 3.5, 4.5)},
		{"mean-13 attribute", optest.Call{Op: "ReduceMean", Opset: 13, Attrs: optest.A{"axes": []int64{1}, "keepdims": 0}, In: in(x)}, f32(sh(2), 2, 5)},
		{"mean int32 truncates", optest.Call{Op: "ReduceMean", Opset: 18, Attrs: optest.A{"keepdims": 0}, In: in(i32(sh(2, 2), 1, 2, 3, 5), vec(1))}, i32(sh(2), 1, 4)},
		{"max bool", optest.Call{Op: "ReduceMax", Opset: 20, Attrs: optest.A{"keepdims": 0}, In: in(bools(sh(2, 2), true, false, false, false), vec(1))}, bools(sh(2), true, false)},
		{"max empty set is -inf", optest.Call{Op: "ReduceMax", Opset: 18, In: in(f32(sh(0, 2)), vec(0))}, f32(sh(1, 2), -inf, -inf)},
		{"min empty set int32", optest.Call{Op: "ReduceMin", Opset: 18, Attrs: optest.A{"keepdims": 0}, In: in(i32(sh(2, 0)), vec(1))}, i32(sh(2), math.MaxInt32, math.MaxInt32)},
		{"min-12 int8", optest.Call{Op: "ReduceMin", Opset: 12, Attrs: optest.A{"axes": []int64{0}, "keepdims": 0}, In: in(tensor.Of([]int{2, 2}, []int8{-3, 4, 5, -6}))}, tensor.Of([]int{2}, []int8{-3, -6})},
		{"max nan propagates", optest.Call{Op: "ReduceMax", Opset: 18, Attrs: optest.A{"keepdims": 0}, In: in(f32(sh(3), 1, float32(math.NaN()), 2))}, f32(sh(), float32(math.NaN()))},
		{"prod", optest.Call{Op: "ReduceProd", Opset: 18, Attrs: optest.A{"keepdims": 0}, In: in(x, vec(1))}, f32(sh(2), 6, 120)},
		{"prod empty set", optest.Call{Op: "ReduceProd", Opset: 13, Attrs: optest.A{"axes": []int64{0}, "keepdims": 0}, In: in(i64(sh(0, 2)))}, vec(1, 1)},
		{"l1", optest.Call{Op: "ReduceL1", Opset: 18, Attrs: optest.A{"keepdims": 0}, In: in(f32(sh(2, 2), 1, -2, -3, 4), vec(1))}, f32(sh(2), 3, 7)},
		{"l2 double", optest.Call{Op: "ReduceL2", Opset: 18, Attrs: optest.A{"keepdims": 0}, In: in(f64(sh(2, 2), 3, 4, 6, 8), vec(-1))}, f64(sh(2), 5, 10)},
		{"l2 int64", optest.Call{Op: "ReduceL2", Opset: 11, Attrs: optest.A{"axes": []int64{1}, "keepdims": 0}, In: in(i64(sh(1, 2), 3, 4))}, vec(5)},
		{"logsum", optest.Call{Op: "ReduceLogSum", Opset: 18, Attrs: optest.A{"keepdims": 0}, In: in(f32(sh(2, 2), 1, 2, 3, 4), vec(1))}, f32(sh(2), float32(math.Log(3)), float32(math.Log(7)))},
		{"logsum noop is log", optest.Call{Op: "ReduceLogSum", Opset: 18, Attrs: optest.A{"noop_with_empty_axes": 1}, In: in(f32(sh(2), 1, 4))}, f32(sh(2), 0, float32(math.Log(4)))},
		{"logsumexp stable", optest.Call{Op: "ReduceLogSumExp", Opset: 18, Attrs: optest.A{"keepdims": 0}, In: in(f64(sh(2, 2), 1, 2, 1000, 1000), vec(1))}, f64(sh(2), 2.313261687518223, 1000.6931471805599)},
		{"logsumexp empty set", optest.Call{Op: "ReduceLogSumExp", Opset: 18, Attrs: optest.A{"keepdims": 0}, In: in(f32(sh(0)), vec(0))}, f32(sh(), -inf)},
		{"sumsquare", optest.Call{Op: "ReduceSumSquare", Opset: 18, Attrs: optest.A{"keepdims": 0}, In: in(f32(sh(2, 2), 1, 2, 3, 4), vec(0))}, f32(sh(2), 10, 20)},
		{"sumsquare-1 all", optest.Call{Op: "ReduceSumSquare", Opset: 1, Attrs: optest.A{"keepdims": 0}, In: in(i32(sh(2), 2, 3))}, i32(sh(), 13)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			optest.Expect(t, tc.name, optest.MustRun(t, tc.c)[0], tc.want)
		})
	}
}

func TestSortingOps(t *testing.T) {
	in := func(ts ...*tensor.Tensor) []*tensor.Tensor { return ts }
	w := func(ts ...*tensor.Tensor) []*tensor.Tensor { return ts }
	x := f32(sh(2, 4), 1, 3, 3, 2, 4, 4, 1, 0)
	cases := []struct {
		name string
		c    optest.Call
		want []*tensor.Tensor
	}{
		{"topk largest ties", optest.Call{Op: "TopK", Opset: 11, In: in(x, vec(2))}, w(f32(sh(2, 2), 3, 3, 4, 4), i64(sh(2, 2), 1, 2, 0, 1))},
		{"topk smallest", optest.Call{Op: "TopK", Opset: 24, Attrs: optest.A{"largest": 0}, In: in(x, vec(3))}, w(f32(sh(2, 3), 1, 2, 3, 0, 1, 4), i64(sh(2, 3), 0, 3, 1, 3, 2, 0))},
		{"topk axis 0 int32", optest.Call{Op: "TopK", Opset: 11, Attrs: optest.A{"axis": 0}, In: in(i32(sh(3, 2), 5, 1, 2, 7, 9, 3), vec(2))}, w(i32(sh(2, 2), 9, 7, 5, 3), i64(sh(2, 2), 2, 1, 0, 2))},
		{"topk-1 attribute", optest.Call{Op: "TopK", Opset: 1, Attrs: optest.A{"k": 1}, In: in(x)}, w(f32(sh(2, 1), 3, 4), i64(sh(2, 1), 1, 0))},

		{"cumsum", optest.Call{Op: "CumSum", Opset: 14, In: in(f32(sh(4), 1, 2, 3, 4), tensor.Scalar(int32(0)))}, w(f32(sh(4), 1, 3, 6, 10))},
		{"cumsum exclusive", optest.Call{Op: "CumSum", Opset: 11, Attrs: optest.A{"exclusive": 1}, In: in(f32(sh(4), 1, 2, 3, 4), tensor.Scalar(int64(0)))}, w(f32(sh(4), 0, 1, 3, 6))},
		{"cumsum reverse", optest.Call{Op: "CumSum", Opset: 14, Attrs: optest.A{"reverse": 1}, In: in(vec(1, 2, 3, 4), tensor.Scalar(int64(-1)))}, w(vec(10, 9, 7, 4))},
		{"cumsum exclusive reverse", optest.Call{Op: "CumSum", Opset: 14, Attrs: optest.A{"reverse": 1, "exclusive": 1}, In: in(vec(1, 2, 3, 4), vec(0))}, w(vec(9, 7, 4, 0))},
		{"cumsum axis 0 int32", optest.Call{Op: "CumSum", Opset: 14, In: in(i32(sh(2, 2), 1, 2, 3, 4), vec(0))}, w(i32(sh(2, 2), 1, 2, 4, 6))},

		{"unique unsorted", optest.Call{Op: "Unique", Opset: 11, Attrs: optest.A{"sorted": 0}, In: in(f32(sh(6), 2, 1, 1, 3, 4, 3))},
			w(f32(sh(4), 2, 1, 3, 4), vec(0, 1, 3, 4), vec(0, 1, 1, 2, 3, 2), vec(1, 2, 2, 1))},
		{"unique sorted", optest.Call{Op: "Unique", Opset: 11, In: in(f32(sh(6), 2, 1, 1, 3, 4, 3))},
			w(f32(sh(4), 1, 2, 3, 4), vec(1, 0, 3, 4), vec(1, 0, 0, 2, 3, 2), vec(2, 1, 2, 1))},
		{"unique axis 0", optest.Call{Op: "Unique", Opset: 11, Attrs: optest.A{"axis": 0}, In: in(i32(sh(3, 3), 1, 0, 0, 1, 0, 0, 2, 3, 4))},
			w(i32(sh(2, 3), 1, 0, 0, 2, 3, 4), vec(0, 2), vec(0, 0, 1), vec(2, 1))},
		{"unique strings", optest.Call{Op: "Unique", Opset: 11, In: in(tensor.Of([]int{3}, []string{"b", "a", "b"}))},
			w(tensor.Of([]int{2}, []string{"a", "b"}), vec(1, 0), vec(1, 0, 1), vec(1, 2))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.c.NOut = len(tc.want)
			got := optest.MustRun(t, tc.c)
			for i, want := range tc.want {
				optest.Expect(t, tc.name, got[i], want)
			}
		})
	}
}

func TestDropout(t *testing.T) {
	x := f32(sh(2, 3), 1, 2, 3, 4, 5, 6)
	ones := bools(sh(2, 3), true, true, true, true, true, true)
	got := optest.MustRun(t, optest.Call{Op: "Dropout", Opset: 13, NOut: 2, In: []*tensor.Tensor{x, tensor.Scalar(float32(0.5))}})
	optest.Expect(t, "inference output", got[0], x)
	optest.Expect(t, "inference mask", got[1], ones)
	got = optest.MustRun(t, optest.Call{Op: "Dropout", Opset: 7, NOut: 2, Attrs: optest.A{"ratio": float32(0.3)}, In: []*tensor.Tensor{x}})
	optest.Expect(t, "dropout-7 mask", got[1], f32(sh(2, 3), 1, 1, 1, 1, 1, 1))
	got = optest.MustRun(t, optest.Call{Op: "Dropout", Opset: 22, NOut: 2, In: []*tensor.Tensor{x, tensor.Scalar(float32(0)), tensor.Scalar(true)}})
	optest.Expect(t, "zero ratio training", got[0], x)
	optest.Expect(t, "zero ratio mask", got[1], ones)
	// Training: every output is either 0 (dropped) or x/(1-ratio), matching the mask.
	got = optest.MustRun(t, optest.Call{Op: "Dropout", Opset: 22, NOut: 2, Attrs: optest.A{"seed": 3}, In: []*tensor.Tensor{x, tensor.Scalar(float32(0.75)), tensor.Scalar(true)}})
	for i, v := range got[0].F32() {
		want := float32(0)
		if got[1].Bools()[i] {
			want = x.F32()[i] * 4
		}
		if v != want {
			t.Fatalf("training element %d = %v, want %v (mask %v)", i, v, want, got[1].Bools())
		}
	}
}

// TestMT19937 checks the generator against published values: the first
// output for the reference seed 5489, and numpy's np.random.seed(0);
// np.random.rand(2).
func TestMT19937(t *testing.T) {
	if v := newMT19937(5489).next(); v != 3499211612 {
		t.Fatalf("first output for seed 5489 = %d, want 3499211612", v)
	}
	m := newMT19937(0)
	if a, b := m.float64(), m.float64(); a != 0.5488135039273248 || b != 0.7151893663724195 {
		t.Fatalf("seed 0 doubles = %v, %v", a, b)
	}
}
