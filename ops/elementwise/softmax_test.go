package elementwise

import (
	"math"
	"testing"

	"github.com/gort-dev/gort/runtime/tensor"
)

// softmaxGroups is the reference: softmax over each group of flat indices.
func softmaxGroups(x []float64, groups [][]int, log bool) []float64 {
	out := make([]float64, len(x))
	for _, g := range groups {
		s := 0.0
		for _, i := range g {
			s += math.Exp(x[i])
		}
		for _, i := range g {
			if log {
				out[i] = x[i] - math.Log(s)
			} else {
				out[i] = math.Exp(x[i]) / s
			}
		}
	}
	return out
}

func TestSoftmaxAxisSemantics(t *testing.T) {
	// shape (2, 3, 2): element (i, j, k) at 6i + 2j + k
	xs := []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, -1, 0, 1, 2, 3, 4}
	x := make([]float32, len(xs))
	for i, v := range xs {
		x[i] = float32(v)
	}
	in := f32([]int{2, 3, 2}, x...)
	// Pre-13, axis=1: each batch row of 6 elements is one group.
	old := [][]int{{0, 1, 2, 3, 4, 5}, {6, 7, 8, 9, 10, 11}}
	// 13, axis=1: groups run along j for each (i, k).
	cur := [][]int{{0, 2, 4}, {1, 3, 5}, {6, 8, 10}, {7, 9, 11}}
	// 13, default axis=-1: pairs.
	last := [][]int{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}}
	// Pre-13, axis=0: everything is one group.
	all := [][]int{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}}
	for _, name := range []string{"Softmax", "LogSoftmax"} {
		log := name == "LogSoftmax"
		checkTensor(t, name+"-11 default", mustRun(t, name, 11, nil, in), tensor.Float, []int{2, 3, 2}, softmaxGroups(xs, old, log))
		checkTensor(t, name+"-1 axis=1", mustRun(t, name, 1, map[string]any{"axis": 1}, in), tensor.Float, []int{2, 3, 2}, softmaxGroups(xs, old, log))
		checkTensor(t, name+"-11 axis=0", mustRun(t, name, 11, map[string]any{"axis": 0}, in), tensor.Float, []int{2, 3, 2}, softmaxGroups(xs, all, log))
		checkTensor(t, name+"-11 axis=-1", mustRun(t, name, 11, map[string]any{"axis": -1}, in), tensor.Float, []int{2, 3, 2}, softmaxGroups(xs, last, log))
		checkTensor(t, name+"-13 axis=1", mustRun(t, name, 13, map[string]any{"axis": 1}, in), tensor.Float, []int{2, 3, 2}, softmaxGroups(xs, cur, log))
		checkTensor(t, name+"-13 default", mustRun(t, name, 13, nil, in), tensor.Float, []int{2, 3, 2}, softmaxGroups(xs, last, log))
		d := mustRun(t, name, 13, map[string]any{"axis": 1}, tensor.Of([]int{2, 3, 2}, xs))
		checkTensor(t, name+"-13 f64", d, tensor.Double, []int{2, 3, 2}, softmaxGroups(xs, cur, log))
	}
	// Large values must not overflow.
	big := mustRun(t, "Softmax", 13, nil, f32([]int{3}, 1000, 1001, 1002))
	checkTensor(t, "Softmax large", big, tensor.Float, []int{3}, softmaxGroups([]float64{0, 1, 2}, [][]int{{0, 1, 2}}, false))
	if _, err := runOp("Softmax", 13, map[string]any{"axis": 3}, in); err == nil {
		t.Error("axis out of range: no error")
	}
}

func TestHardmax(t *testing.T) {
	in := f32([]int{2, 2, 2}, 1, 3, 3, 2, 5, 0, 0, 5)
	// 13, axis=1: per (i, k), the first max along j.
	checkTensor(t, "Hardmax-13 axis 1", mustRun(t, "Hardmax", 13, map[string]any{"axis": 1}, in), tensor.Float, []int{2, 2, 2},
		[]float64{0, 1, 1, 0, 1, 0, 0, 1})
	// 11, axis=1: one row of 4 per batch, first max wins.
	checkTensor(t, "Hardmax-11 axis 1", mustRun(t, "Hardmax", 11, map[string]any{"axis": 1}, in), tensor.Float, []int{2, 2, 2},
		[]float64{0, 1, 0, 0, 1, 0, 0, 0})
}
