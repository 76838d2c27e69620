package tensorops

import (
	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("CumSum", []int{11, 14}, buildCumulative("CumSum", false))
	shapes.Register("", "CumSum", shapes.SameAsInput0)
	op.Register("CumProd", []int{26}, buildCumulative("CumProd", true))
	shapes.Register("", "CumProd", shapes.SameAsInput0)
}

// buildCumulative builds CumSum (running sums) and CumProd (running
// products) along the axis input, optionally exclusive (each output leaves
// out its own element, starting from the identity 0 or 1) and/or reversed.
// Results stay in the element type (integers wrap), as numpy's cumsum and
// cumprod do. CumSum-14 only added float16/bfloat16; CumProd takes fewer
// types (float and 32/64-bit integers), as its spec lists.
//
// Not inlined: each inlined call (one per registered op) would carry its
// own copy of the kernel closure, kilobytes each in gort.wasm.
//
//go:noinline
func buildCumulative(name string, product bool) op.Builder {
	return func(n *op.Node) (any, error) {
		a := &op.Attribs{N: n}
		excl := a.Int("exclusive", 0) != 0
		rev := a.Int("reverse", 0) != 0
		if a.Err != nil {
			return nil, a.Err
		}
		return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
			if len(in) < 2 || in[0] == nil || in[1] == nil {
				return nil, op.Errorf("%s needs x and axis", name)
			}
			x := in[0]
			av, err := opsutil.ScalarInt(in[1], "axis")
			if err != nil {
				return nil, err
			}
			if x.Rank() == 0 {
				return nil, op.Errorf("%s needs an input of rank >= 1", name)
			}
			ax, err := opsutil.NormAxis(av, x.Rank())
			if err != nil {
				return nil, err
			}
			if product && !cumProdType(x.DType()) || x.DType().IsCodeType() {
				return nil, op.Errorf("%s does not support %s", name, x.DType())
			}
			sh := x.Shape()
			c := cumArgs{opsutil.Product(sh[:ax]), sh[ax], opsutil.Product(sh[ax+1:]), excl, rev}
			out := ctx.New(x.DType(), sh...)
			switch d := out.Data().(type) {
			case []float32:
				scan(d, x.F32(), c, product)
			case []float64:
				scan(d, x.F64(), c, product)
			case []int8:
				scan(d, tensor.Data[int8](x), c, product)
			case []int16:
				scan(d, tensor.Data[int16](x), c, product)
			case []int32:
				scan(d, tensor.Data[int32](x), c, product)
			case []int64:
				scan(d, tensor.Data[int64](x), c, product)
			case []uint8:
				scan(d, tensor.Data[uint8](x), c, product)
			case []uint16:
				scan(d, tensor.Data[uint16](x), c, product)
			case []uint32:
				scan(d, tensor.Data[uint32](x), c, product)
			case []uint64:
				scan(d, tensor.Data[uint64](x), c, product)
			default:
				return nil, op.Errorf("%s does not support %s", name, x.DType())
			}
			return ctx.One(out), nil
		}), nil
	}
}

// cumProdType reports whether CumProd's type constraint admits dt.
func cumProdType(dt tensor.DType) bool {
	switch dt {
	case tensor.Float, tensor.Float16, tensor.BFloat16, tensor.Double, tensor.Int32, tensor.Int64, tensor.Uint32, tensor.Uint64:
		return true
	}
	return false
}

// cumArgs describes a running scan (CumSum, CumProd) over the middle dim of
// an [outer, dim, inner] view of the input.
type cumArgs struct {
	outer, dim, inner  int
	exclusive, reverse bool
}

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
