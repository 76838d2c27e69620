package tensorops

import (
	"testing"

	"github.com/gort-dev/gort/ops/internal/optest"
	"github.com/gort-dev/gort/runtime/tensor"
)

func TestCumProd(t *testing.T) {
	x := tensor.Of([]int{2, 3}, []int32{1, 2, 3, 4, 5, 6})
	cases := []struct {
		name string
		axis int64
		at   optest.A
		want []int32
	}{
		{"axis 1", 1, optest.A{}, []int32{1, 2, 6, 4, 20, 120}},
		{"axis 0", 0, optest.A{}, []int32{1, 2, 3, 4, 10, 18}},
		{"exclusive reverse", -1, optest.A{"exclusive": 1, "reverse": 1}, []int32{6, 3, 1, 30, 6, 1}},
	}
	for _, c := range cases {
		got := optest.MustRun(t, optest.Call{Op: "CumProd", Opset: 26, Attrs: c.at, In: []*tensor.Tensor{x, tensor.Scalar(c.axis)}})
		optest.Expect(t, c.name, got[0], tensor.Of([]int{2, 3}, c.want))
	}
}
