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

// cumArgs describes a running scan (CumSum, CumProd) over the middle dim of
// an [outer, dim, inner] view of the input.
type cumArgs struct {
	outer, dim, inner  int
	exclusive, reverse bool
}

func cumsum[T tensor.Number](d, s []T, c cumArgs) { scan(d, s, c, false) }

// scan writes into d the running sums (product false) or products (product
// true) of s along the scan axis, each run starting from the identity (0 or
// 1): exclusive leaves each element out of its own output, reverse runs from
// the end of the axis. CumSum and CumProd share it. The operation is a flag
// rather than a combine func because an indirect call per element made
// CumSum about twice as slow; the flag costs far less.
func scan[T tensor.Number](d, s []T, c cumArgs, product bool) {
	var identity T
	if product {
		identity = 1
	}
	for b := 0; b < c.outer; b++ {
		for i := 0; i < c.inner; i++ {
			acc := identity
			for j := 0; j < c.dim; j++ {
				jj := j
				if c.reverse {
					jj = c.dim - 1 - j
				}
				p := (b*c.dim+jj)*c.inner + i
				if c.exclusive {
					d[p] = acc
				}
				if product {
					acc *= s[p]
				} else {
					acc += s[p]
				}
				if !c.exclusive {
					d[p] = acc
				}
			}
		}
	}
}
