package tensorops

import (
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("CumSum", op.SpecVersions("", "CumSum"), buildCumSum)
}

// buildCumSum: running sums along the axis input, optionally exclusive
// (each output leaves out its own element) and/or reversed. Version 14 only
// added float16/bfloat16. Sums run in the element type, as numpy's cumsum does.
func buildCumSum(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	excl := a.Int("exclusive", 0) != 0
	rev := a.Int("reverse", 0) != 0
	if a.Err != nil {
		return nil, a.Err
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 2 || in[0] == nil || in[1] == nil {
			return nil, op.Errorf("CumSum needs x and axis")
		}
		x := in[0]
		av, err := scalarInt(in[1], "axis")
		if err != nil {
			return nil, err
		}
		ax, err := normAxis(av, x.Rank())
		if err != nil {
			return nil, err
		}
		sh := x.Shape()
		outer, dim, inner := prod(sh[:ax]), sh[ax], prod(sh[ax+1:])
		out := ctx.New(x.DType(), sh...)
		c := cumArgs{outer, dim, inner, excl, rev}
		switch d := out.Data().(type) {
		case []float32:
			cumsum(d, x.F32(), c)
		case []float64:
			cumsum(d, x.F64(), c)
		case []int8:
			cumsum(d, tensor.Data[int8](x), c)
		case []int16:
			cumsum(d, tensor.Data[int16](x), c)
		case []int32:
			cumsum(d, tensor.Data[int32](x), c)
		case []int64:
			cumsum(d, tensor.Data[int64](x), c)
		case []uint8:
			if x.DType().IsCodeType() {
				return nil, op.Errorf("CumSum does not support %s", x.DType())
			}
			cumsum(d, tensor.Data[uint8](x), c)
		case []uint16:
			cumsum(d, tensor.Data[uint16](x), c)
		case []uint32:
			cumsum(d, tensor.Data[uint32](x), c)
		case []uint64:
			cumsum(d, tensor.Data[uint64](x), c)
		default:
			return nil, op.Errorf("CumSum does not support %s", x.DType())
		}
		return one(out), nil
	}), nil
}

type cumArgs struct {
	outer, dim, inner  int
	exclusive, reverse bool
}

func cumsum[T tensor.Number](d, s []T, c cumArgs) {
	for b := 0; b < c.outer; b++ {
		for i := 0; i < c.inner; i++ {
			var acc T
			for j := 0; j < c.dim; j++ {
				jj := j
				if c.reverse {
					jj = c.dim - 1 - j
				}
				p := (b*c.dim+jj)*c.inner + i
				if c.exclusive {
					d[p] = acc
					acc += s[p]
				} else {
					acc += s[p]
					d[p] = acc
				}
			}
		}
	}
}
