package kvcache

import (
	"testing"

	"github.com/gort-dev/gort/ops/internal/optest"
	"github.com/gort-dev/gort/runtime/tensor"
)

// TestTensorScatter: cache [2 batches, 4 slots, 2 features] along axis 1.
func TestTensorScatter(t *testing.T) {
	past := tensor.Of([]int{2, 4, 2}, []float32{1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8})
	upd := tensor.Of([]int{2, 2, 2}, []float32{-1, -1, -2, -2, -3, -3, -4, -4})
	cases := []struct {
		name string
		at   optest.A
		idx  *tensor.Tensor
		want []float32
	}{
		{"no indices", optest.A{"axis": 1}, nil, []float32{-1, -1, -2, -2, 3, 3, 4, 4, -3, -3, -4, -4, 7, 7, 8, 8}},
		{"linear", optest.A{"axis": -2}, tensor.Of([]int{2}, []int64{2, 1}), []float32{1, 1, 2, 2, -1, -1, -2, -2, 5, 5, -3, -3, -4, -4, 8, 8}},
		{"circular wraps", optest.A{"axis": 1, "mode": "circular"}, tensor.Of([]int{2}, []int64{3, 0}), []float32{-2, -2, 2, 2, 3, 3, -1, -1, -3, -3, -4, -4, 7, 7, 8, 8}},
	}
	for _, c := range cases {
		got := optest.MustRun(t, optest.Call{Op: "TensorScatter", Opset: 24, Attrs: c.at, In: []*tensor.Tensor{past, upd, c.idx}})
		optest.Expect(t, c.name, got[0], tensor.Of([]int{2, 4, 2}, c.want))
	}
	if _, err := optest.Run(optest.Call{Op: "TensorScatter", Opset: 24, Attrs: optest.A{"axis": 1}, In: []*tensor.Tensor{past, upd, tensor.Of([]int{2}, []int64{3, 0})}}); err == nil {
		t.Error("linear overflow should fail")
	}
}
