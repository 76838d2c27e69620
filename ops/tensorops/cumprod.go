package tensorops

import (
	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("CumProd", op.SpecVersions("", "CumProd"), buildCumProd)
}

// buildCumProd mirrors CumSum with products: exclusive starts each run from
// the multiplicative identity 1, reverse runs from the end of the axis.
// Products stay in the element type (integers wrap), as numpy's cumprod does.
func buildCumProd(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	excl := a.Int("exclusive", 0) != 0
	rev := a.Int("reverse", 0) != 0
	if a.Err != nil {
		return nil, a.Err
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 2 || in[0] == nil || in[1] == nil {
			return nil, op.Errorf("CumProd needs x and axis")
		}
		x := in[0]
		av, err := opsutil.ScalarInt(in[1], "axis")
		if err != nil {
			return nil, err
		}
		if x.Rank() == 0 {
			return nil, op.Errorf("CumProd needs an input of rank >= 1")
		}
		ax, err := opsutil.NormAxis(av, x.Rank())
		if err != nil {
			return nil, err
		}
		sh := x.Shape()
		c := cumArgs{prod(sh[:ax]), sh[ax], prod(sh[ax+1:]), excl, rev}
		out := ctx.New(x.DType(), sh...)
		switch d := out.Data().(type) {
		case []float32:
			cumprod(d, x.F32(), c)
		case []float64:
			cumprod(d, x.F64(), c)
		case []int32:
			cumprod(d, tensor.Data[int32](x), c)
		case []int64:
			cumprod(d, tensor.Data[int64](x), c)
		case []uint32:
			cumprod(d, tensor.Data[uint32](x), c)
		case []uint64:
			cumprod(d, tensor.Data[uint64](x), c)
		default:
			return nil, op.Errorf("CumProd does not support %s", x.DType())
		}
		return one(out), nil
	}), nil
}

func cumprod[T tensor.Number](d, s []T, c cumArgs) { scan(d, s, c, true) }
