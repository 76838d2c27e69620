package elementwise

import (
	"math"
	"testing"

	"github.com/gort-dev/gort/runtime/tensor"
)

// TestArithBroadcast checks every broadcast layout the row walker handles
// against a naive per-element reference.
func TestArithBroadcast(t *testing.T) {
	ref := map[string]func(x, y float32) float32{
		"Add": func(x, y float32) float32 { return x + y },
		"Sub": func(x, y float32) float32 { return x - y },
		"Mul": func(x, y float32) float32 { return x * y },
		"Div": func(x, y float32) float32 { return x / y },
	}
	shapes := [][2][]int{
		{{2, 3, 4}, {2, 3, 4}},       // same shape
		{{2, 3, 4}, {}},              // scalar right
		{{}, {2, 3, 4}},              // scalar left
		{{2, 3, 1}, {1, 4}},          // outer product-like, both broadcast
		{{2, 3, 2, 5}, {3, 1, 1}},    // bias per channel
		{{4}, {3, 1}},                // rank differs, both broadcast
		{{2, 1, 3}, {2, 5, 1}},       // alternating
		{{1, 3, 1, 2}, {2, 1, 4, 1}}, // many groups
		{{2, 0, 3}, {3}},             // empty
		{{5, 1}, {1}},                // size-1 dims only
	}
	for name, f := range ref {
		for _, sh := range shapes {
			na, nb := tensor.MustSize(sh[0]), tensor.MustSize(sh[1])
			a := f32(sh[0], seq(na, 1, 0.5)...)
			b := f32(sh[1], seq(nb, 2, 0.25)...)
			got := mustRun(t, name, 14, nil, a, b)
			out := []int{}
			if len(sh[0]) >= len(sh[1]) {
				out = append(out, sh[0]...)
			} else {
				out = append(out, sh[1]...)
			}
			// broadcast dims by hand
			for i := range out {
				da := dimAt(sh[0], len(out), i)
				db := dimAt(sh[1], len(out), i)
				out[i] = max(da, db)
				if da == 0 || db == 0 {
					out[i] = 0
				}
			}
			want := make([]float64, tensor.MustSize(out))
			for o := range want {
				idx := coords(out, o)
				want[o] = float64(f(a.F32()[bcastAt(sh[0], idx)], b.F32()[bcastAt(sh[1], idx)]))
			}
			checkTensor(t, name, got, tensor.Float, out, want)
		}
	}
}

func dimAt(s []int, r, i int) int {
	off := r - len(s)
	if i < off {
		return 1
	}
	return s[i-off]
}

func TestArithInts(t *testing.T) {
	a := tensor.Of([]int{4}, []int32{7, -7, 7, -7})
	b := tensor.Of([]int{4}, []int32{2, 2, -2, -2})
	checkTensor(t, "Div trunc", mustRun(t, "Div", 14, nil, a, b), tensor.Int32, []int{4}, []int32{3, -3, -3, 3})
	checkTensor(t, "Sub", mustRun(t, "Sub", 14, nil, a, b), tensor.Int32, []int{4}, []int32{5, -9, 9, -5})
	u := tensor.Of([]int{2}, []uint8{250, 3})
	v := tensor.Of([]int{}, []uint8{10})
	checkTensor(t, "Add wraps", mustRun(t, "Add", 14, nil, u, v), tensor.Uint8, []int{2}, []uint8{4, 13})
	if _, err := runOp("Div", 14, nil, a, tensor.Of([]int{1}, []int32{0})); err == nil {
		t.Error("integer division by zero: no error")
	}
	if _, err := runOp("Add", 14, nil, a, f32([]int{1}, 1)); err == nil {
		t.Error("mixed dtypes: no error")
	}
	if _, err := runOp("Add", 14, nil, f32([]int{2}, 1, 2), f32([]int{3}, 1, 2, 3)); err == nil {
		t.Error("incompatible shapes: no error")
	}
	f64 := mustRun(t, "Mul", 14, nil, tensor.Of([]int{2}, []float64{1.5, -2}), tensor.Of([]int{1}, []float64{4}))
	checkTensor(t, "Mul f64", f64, tensor.Double, []int{2}, []float64{6, -8})
	h := mustRun(t, "Add", 14, nil, f32([]int{2}, 1, 2).WithDType(tensor.Float16), f32([]int{2}, 3, 4).WithDType(tensor.Float16))
	checkTensor(t, "Add f16", h, tensor.Float16, []int{2}, []float64{4, 6})
}

// TestLegacyBroadcast covers Add-1/6 style broadcast/axis attributes.
func TestLegacyBroadcast(t *testing.T) {
	a := f32([]int{2, 3, 2}, seq(12, 0, 1)...)
	b := f32([]int{3}, 100, 200, 300)
	got := mustRun(t, "Add", 6, map[string]any{"broadcast": 1, "axis": 1}, a, b)
	want := make([]float64, 12)
	for i := range want {
		want[i] = float64(i) + 100*float64(i/2%3+1)
	}
	checkTensor(t, "axis=1", got, tensor.Float, []int{2, 3, 2}, want)

	c := f32([]int{2}, 10, 20)
	got = mustRun(t, "Mul", 1, map[string]any{"broadcast": 1}, a, c) // suffix match
	for i := range want {
		want[i] = float64(i) * float64(10*(i%2+1))
	}
	checkTensor(t, "suffix", got, tensor.Float, []int{2, 3, 2}, want)

	if _, err := runOp("Add", 6, nil, a, b); err == nil {
		t.Error("broadcast=0 with different shapes: no error")
	}
	// opset 7 ignores the attributes and broadcasts numpy-style: (3) vs (2,3,2) fails.
	if _, err := runOp("Add", 7, nil, a, b); err == nil {
		t.Error("numpy broadcast of (2,3,2) and (3): no error")
	}
	eq := mustRun(t, "Equal", 1, map[string]any{"broadcast": 1, "axis": 0},
		tensor.Of([]int{2, 2}, []int32{1, 2, 3, 4}), tensor.Of([]int{2}, []int32{1, 4}))
	checkTensor(t, "Equal-1 axis 0", eq, tensor.Bool, []int{2, 2}, []bool{true, false, false, true})
}

func TestVariadic(t *testing.T) {
	nan := float32(math.NaN())
	a := f32([]int{2, 1}, 1, 5)
	b := f32([]int{3}, 2, nan, 4)
	c := f32([]int{}, 3)
	checkTensor(t, "Max", mustRun(t, "Max", 13, nil, a, b, c), tensor.Float, []int{2, 3},
		[]float64{3, math.NaN(), 4, 5, math.NaN(), 5})
	checkTensor(t, "Min", mustRun(t, "Min", 13, nil, a, b, c), tensor.Float, []int{2, 3},
		[]float64{1, math.NaN(), 1, 2, math.NaN(), 3})
	checkTensor(t, "Sum", mustRun(t, "Sum", 13, nil, a, f32([]int{3}, 1, 2, 3), c), tensor.Float, []int{2, 3},
		[]float64{5, 6, 7, 9, 10, 11})
	checkTensor(t, "Mean", mustRun(t, "Mean", 13, nil, a, f32([]int{3}, 1, 2, 3), c), tensor.Float, []int{2, 3},
		[]float64{5.0 / 3, 2, 7.0 / 3, 3, 10.0 / 3, 11.0 / 3})
	one := f32([]int{2}, 1, 2)
	if got := mustRun(t, "Sum", 13, nil, one); got != one {
		t.Error("Sum of one input should pass it through")
	}
	mi := mustRun(t, "Max", 13, nil, tensor.Of([]int{3}, []int64{-1, 5, 2}), tensor.Of([]int{1}, []int64{2}))
	checkTensor(t, "Max int", mi, tensor.Int64, []int{3}, []int64{2, 5, 2})
	if _, err := runOp("Max", 8, nil, tensor.Of([]int{1}, []int64{1}), tensor.Of([]int{1}, []int64{2})); err == nil {
		t.Error("Max-8 accepted int64")
	}
}
