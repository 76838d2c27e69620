package text

import (
	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("StringConcat", []int{20}, buildStringConcat)
}

// buildStringConcat: elementwise X+Y with numpy broadcasting, so a scalar
// suffix or prefix applies to every element.
func buildStringConcat(n *op.Node) (any, error) {
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 2 || in[0] == nil || in[1] == nil {
			return nil, op.Errorf("StringConcat needs X and Y")
		}
		x, y := in[0], in[1]
		if x.DType() != tensor.String || y.DType() != tensor.String {
			return nil, op.Errorf("StringConcat needs string tensors, got %s and %s", x.DType(), y.DType())
		}
		sh, err := opsutil.BroadcastShape(x.Shape(), y.Shape())
		if err != nil {
			return nil, err
		}
		out := ctx.New(tensor.String, sh...)
		xs, ys, os := x.Strings(), y.Strings(), out.Strings()
		opsutil.BroadcastIndex(x.Shape(), y.Shape(), sh, func(o, ia, ib int) {
			os[o] = xs[ia] + ys[ib]
		})
		return ctx.One(out), nil
	}), nil
}
