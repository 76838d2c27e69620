package tensorops

import (
	"math"

	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// rkind names a reduction.
type rkind int

const (
	rSum rkind = iota
	rMean
	rMax
	rMin
	rProd
	rL1
	rL2
	rLogSum
	rLogSumExp
	rSumSquare
)

func init() {
	reg := func(name string, k rkind, axesInput int, versions []int) {
		op.Register(name, versions, func(n *op.Node) (any, error) { return buildReduce(n, k, axesInput) })
		shapes.Register("", name, shapes.Reduce(axesInput))
	}
	// ReduceSum moved axes from an attribute to an input in version 13, the
	// other reductions in 18.
	reg("ReduceSum", rSum, 13, []int{1, 11, 13})
	reg("ReduceMean", rMean, 18, []int{1, 11, 13, 18})
	reg("ReduceMax", rMax, 18, []int{1, 11, 12, 13, 18, 20})
	reg("ReduceMin", rMin, 18, []int{1, 11, 12, 13, 18, 20})
	reg("ReduceProd", rProd, 18, []int{1, 11, 13, 18})
	reg("ReduceL1", rL1, 18, []int{1, 11, 13, 18})
	reg("ReduceL2", rL2, 18, []int{1, 11, 13, 18})
	reg("ReduceLogSum", rLogSum, 18, []int{1, 11, 13, 18})
	reg("ReduceLogSumExp", rLogSumExp, 18, []int{1, 11, 13, 18})
	reg("ReduceSumSquare", rSumSquare, 18, []int{1, 11, 13, 18})
}

// buildReduce: with axes as an attribute, absent axes mean every axis; with
// axes as an input (axesInput and later), absent or empty axes mean every
// axis unless noop_with_empty_axes, which reduces over no axis (so the
// reduction's pre/post steps, like ReduceL2's square and root, still apply).
func buildReduce(n *op.Node, kind rkind, axesInput int) (any, error) {
	a := &op.Attribs{N: n}
	keep := a.Int("keepdims", 1) != 0
	noop := a.Int("noop_with_empty_axes", 0) != 0
	attrAxes, _, err := n.Ints("axes")
	if a.Err != nil {
		return nil, a.Err
	}
	if err != nil {
		return nil, err
	}
	fromInput := n.Version >= axesInput
	if !fromInput {
		noop = false
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil {
			return nil, op.Errorf("%s needs its data input", n.OpType)
		}
		x := in[0]
		axes := attrAxes
		if fromInput {
			axes = nil
			if len(in) > 1 && in[1] != nil {
				v, err := ints64(in[1], "axes")
				if err != nil {
					return nil, err
				}
				axes = v
			}
		}
		r := x.Rank()
		red := make([]bool, r)
		if len(axes) == 0 {
			if !noop {
				for i := range red {
					red[i] = true
				}
			}
		} else {
			ax, err := opsutil.NormAxes(axes, r)
			if err != nil {
				return nil, err
			}
			for _, i := range ax {
				red[i] = true
			}
		}
		out, err := reduce(ctx, x, red, keep, kind)
		if err != nil {
			return nil, err
		}
		return ctx.One(out), nil
	}), nil
}

// reduce reduces x over the dims marked in red.
func reduce(ctx *op.Context, x *tensor.Tensor, red []bool, keep bool, kind rkind) (*tensor.Tensor, error) {
	sh := x.Shape()
	var outShape, compact []int
	count := 1
	for i, d := range sh {
		if red[i] {
			count *= d
			compact = append(compact, 1)
			if keep {
				outShape = append(outShape, 1)
			}
		} else {
			compact = append(compact, d)
			outShape = append(outShape, d)
		}
	}
	if outShape == nil {
		outShape = []int{}
	}
	cst := strides(compact)
	ost := make([]int, len(sh))
	for i := range sh {
		if !red[i] {
			ost[i] = cst[i]
		}
	}
	dt := x.DType()
	if dt == tensor.Bool {
		if kind != rMax && kind != rMin {
			return nil, op.Errorf("this reduction does not support bool")
		}
		b := x.Bools()
		u := make([]uint8, len(b))
		for i, v := range b {
			if v {
				u[i] = 1
			}
		}
		res := make([]uint8, opsutil.Product(outShape))
		reduceCore[uint8, uint64](kind, u, res, sh, ost, count)
		out := ctx.New(tensor.Bool, outShape...)
		for i, v := range res {
			out.Bools()[i] = v != 0
		}
		return out, nil
	}
	out := ctx.New(dt, outShape...)
	floaty := kind == rL2 || kind == rLogSum || kind == rLogSumExp
	switch d := out.Data().(type) {
	case []float32:
		reduceCore[float32, float64](kind, x.F32(), d, sh, ost, count)
	case []float64:
		reduceCore[float64, float64](kind, x.F64(), d, sh, ost, count)
	case []int8:
		reduceInt(kind, floaty, tensor.Data[int8](x), d, sh, ost, count)
	case []int16:
		reduceInt(kind, floaty, tensor.Data[int16](x), d, sh, ost, count)
	case []int32:
		reduceInt(kind, floaty, tensor.Data[int32](x), d, sh, ost, count)
	case []int64:
		reduceInt(kind, floaty, tensor.Data[int64](x), d, sh, ost, count)
	case []uint8:
		if dt.IsCodeType() {
			return nil, op.Errorf("reductions do not support %s", dt)
		}
		reduceUint(kind, floaty, tensor.Data[uint8](x), d, sh, ost, count)
	case []uint16:
		reduceUint(kind, floaty, tensor.Data[uint16](x), d, sh, ost, count)
	case []uint32:
		reduceUint(kind, floaty, tensor.Data[uint32](x), d, sh, ost, count)
	case []uint64:
		reduceUint(kind, floaty, tensor.Data[uint64](x), d, sh, ost, count)
	default:
		return nil, op.Errorf("reductions do not support %s", dt)
	}
	return out, nil
}

// Integer reductions accumulate in 64 bits (wrapping like the narrow type
// for sum and product); those needing logs or roots go through float64.
func reduceInt[T int8 | int16 | int32 | int64](kind rkind, floaty bool, src, dst []T, sh, ost []int, count int) {
	if floaty {
		reduceCore[T, float64](kind, src, dst, sh, ost, count)
	} else {
		reduceCore[T, int64](kind, src, dst, sh, ost, count)
	}
}

func reduceUint[T uint8 | uint16 | uint32 | uint64](kind rkind, floaty bool, src, dst []T, sh, ost []int, count int) {
	if floaty {
		reduceCore[T, float64](kind, src, dst, sh, ost, count)
	} else {
		reduceCore[T, uint64](kind, src, dst, sh, ost, count)
	}
}

// typeLimits returns the lowest and highest values of T (±Inf for floats),
// the identities of max and min: the spec makes an empty max the lowest
// value of the type and an empty min the highest.
func typeLimits[T tensor.Number]() (lo, hi T) {
	var l, h any
	switch any(lo).(type) {
	case float32:
		l, h = float32(math.Inf(-1)), float32(math.Inf(1))
	case float64:
		l, h = math.Inf(-1), math.Inf(1)
	case int8:
		l, h = int8(math.MinInt8), int8(math.MaxInt8)
	case int16:
		l, h = int16(math.MinInt16), int16(math.MaxInt16)
	case int32:
		l, h = int32(math.MinInt32), int32(math.MaxInt32)
	case int64:
		l, h = int64(math.MinInt64), int64(math.MaxInt64)
	case uint8:
		l, h = uint8(0), uint8(math.MaxUint8)
	case uint16:
		l, h = uint16(0), uint16(math.MaxUint16)
	case uint32:
		l, h = uint32(0), uint32(math.MaxUint32)
	case uint64:
		l, h = uint64(0), uint64(math.MaxUint64)
	default:
		return 0, 0
	}
	return l.(T), h.(T)
}

// reduceCore accumulates src (shape sh) into dst in type A. ost gives, for
// each input dim, the stride of the output element it maps to (0 along
// reduced dims); the input is walked once, in order, with the innermost
// dim as a tight loop.
func reduceCore[T tensor.Number, A tensor.Number](kind rkind, src, dst []T, sh, ost []int, count int) {
	nOut := len(dst)
	acc := make([]A, nOut)
	lo, hi := typeLimits[T]()
	var mx []A // per-output maximum, for the stable log-sum-exp
	switch kind {
	case rProd:
		for i := range acc {
			acc[i] = 1
		}
	case rMax:
		for i := range acc {
			acc[i] = A(lo)
		}
	case rMin:
		for i := range acc {
			acc[i] = A(hi)
		}
	case rLogSumExp:
		mx = make([]A, nOut)
		for i := range mx {
			mx[i] = A(math.Inf(-1))
		}
		walk(src, sh, ost, func(row []T, o, os int) {
			for _, v := range row {
				if a := A(v); a > mx[o] || a != a {
					mx[o] = a
				}
				o += os
			}
		})
		for i, m := range mx {
			if math.IsInf(float64(m), 0) {
				mx[i] = 0
			}
		}
	}
	walk(src, sh, ost, func(row []T, o, os int) {
		switch kind {
		case rSum, rMean, rLogSum:
			for _, v := range row {
				acc[o] += A(v)
				o += os
			}
		case rSumSquare, rL2:
			for _, v := range row {
				a := A(v)
				acc[o] += a * a
				o += os
			}
		case rL1:
			for _, v := range row {
				a := A(v)
				if a < 0 {
					a = -a
				}
				acc[o] += a
				o += os
			}
		case rProd:
			for _, v := range row {
				acc[o] *= A(v)
				o += os
			}
		case rMax:
			for _, v := range row {
				if a := A(v); a > acc[o] || a != a {
					acc[o] = a
				}
				o += os
			}
		case rMin:
			for _, v := range row {
				if a := A(v); a < acc[o] || a != a {
					acc[o] = a
				}
				o += os
			}
		case rLogSumExp:
			for _, v := range row {
				acc[o] += A(math.Exp(float64(A(v) - mx[o])))
				o += os
			}
		}
	})
	for i, a := range acc {
		switch kind {
		case rMean:
			if count == 0 {
				if _, ok := any(a).(float64); ok {
					a = A(math.NaN())
				}
			} else {
				a /= A(count)
			}
		case rL2:
			a = A(math.Sqrt(float64(a)))
		case rLogSum:
			a = A(math.Log(float64(a)))
		case rLogSumExp:
			a = A(math.Log(float64(a)) + float64(mx[i]))
		}
		dst[i] = T(a)
	}
}

// walk calls f for every innermost row of src with the output offset of its
// first element and the output step between its elements.
func walk[T any](src []T, sh, ost []int, f func(row []T, o, os int)) {
	if len(src) == 0 {
		return
	}
	r := len(sh)
	if r == 0 {
		f(src, 0, 0)
		return
	}
	inner, os := sh[r-1], ost[r-1]
	idx := make([]int, r)
	o := 0
	for i := 0; i < len(src); i += inner {
		f(src[i:i+inner], o, os)
		for k := r - 2; k >= 0; k-- {
			idx[k]++
			o += ost[k]
			if idx[k] < sh[k] {
				break
			}
			o -= ost[k] * sh[k]
			idx[k] = 0
		}
	}
}
