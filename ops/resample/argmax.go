package resample

import (
	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("ArgMax", []int{1, 11, 12, 13}, func(n *op.Node) (any, error) { return buildArg(n, true) })
	shapes.Register("", "ArgMax", shapes.ArgReduce)
	op.Register("ArgMin", []int{1, 11, 12, 13}, func(n *op.Node) (any, error) { return buildArg(n, false) })
	shapes.Register("", "ArgMin", shapes.ArgReduce)
}

func buildArg(n *op.Node, isMax bool) (any, error) {
	a := &op.Attribs{N: n}
	axis := a.Int("axis", 0)
	keep := a.Int("keepdims", 1)
	last := int64(0)
	if n.Version >= 12 {
		last = a.Int("select_last_index", 0)
	}
	if a.Err != nil {
		return nil, a.Err
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		x := in[0]
		ax, err := opsutil.NormAxis(axis, x.Rank())
		if err != nil {
			return nil, err
		}
		shape := x.Shape()
		if shape[ax] == 0 {
			return nil, op.Errorf("%s over an empty axis", n.OpType)
		}
		var outShape []int
		for d, v := range shape {
			switch {
			case d != ax:
				outShape = append(outShape, v)
			case keep != 0:
				outShape = append(outShape, 1)
			}
		}
		out := ctx.New(tensor.Int64, outShape...)
		outer := opsutil.Product(shape[:ax])
		inner := opsutil.Product(shape[ax+1:])
		res := out.I64()
		switch d := x.Data().(type) {
		case []float32:
			argFloat(res, d, outer, shape[ax], inner, isMax, last != 0)
		case []float64:
			argFloat(res, d, outer, shape[ax], inner, isMax, last != 0)
		case []int8:
			argOrd(res, d, outer, shape[ax], inner, isMax, last != 0)
		case []int16:
			argOrd(res, d, outer, shape[ax], inner, isMax, last != 0)
		case []int32:
			argOrd(res, d, outer, shape[ax], inner, isMax, last != 0)
		case []int64:
			argOrd(res, d, outer, shape[ax], inner, isMax, last != 0)
		case []uint8:
			if x.DType().IsCodeType() {
				return nil, op.Errorf("%s does not support %s", n.OpType, x.DType())
			}
			argOrd(res, d, outer, shape[ax], inner, isMax, last != 0)
		case []uint16:
			argOrd(res, d, outer, shape[ax], inner, isMax, last != 0)
		case []uint32:
			argOrd(res, d, outer, shape[ax], inner, isMax, last != 0)
		case []uint64:
			argOrd(res, d, outer, shape[ax], inner, isMax, last != 0)
		default:
			return nil, op.Errorf("%s does not support %s", n.OpType, x.DType())
		}
		return ctx.One(out), nil
	}), nil
}

type ordered interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// argOrd writes, for every (outer, inner) position, the index along the
// axis of the extreme value: the first one on ties, or the last one with
// select_last_index.
func argOrd[T ordered](res []int64, x []T, outer, n, inner int, isMax, last bool) {
	for o := 0; o < outer; o++ {
		for i := 0; i < inner; i++ {
			base := o*n*inner + i
			best, bi := x[base], 0
			for k := 1; k < n; k++ {
				v := x[base+k*inner]
				better := v > best
				if !isMax {
					better = v < best
				}
				if better || (last && v == best) {
					best, bi = v, k
				}
			}
			res[o*inner+i] = int64(bi)
		}
	}
}

// argFloat is argOrd for floats, where NaN wins as numpy's argmax and
// argmin (the reference) have it: the first NaN, or the last one with
// select_last_index (the reference flips the axis and takes the first).
func argFloat[T float32 | float64](res []int64, x []T, outer, n, inner int, isMax, last bool) {
	for o := 0; o < outer; o++ {
		for i := 0; i < inner; i++ {
			base := o*n*inner + i
			best, bi := x[base], 0
			for k := 1; k < n; k++ {
				v := x[base+k*inner]
				if best != best { // NaN already chosen
					if last && v != v {
						bi = k
					}
					continue
				}
				if v != v {
					best, bi = v, k
					continue
				}
				better := v > best
				if !isMax {
					better = v < best
				}
				if better || (last && v == best) {
					best, bi = v, k
				}
			}
			res[o*inner+i] = int64(bi)
		}
	}
}
