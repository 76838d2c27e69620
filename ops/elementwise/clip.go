package elementwise

import (
	"math"

	"github.com/gort-dev/gort/ops/kernels"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Clip-1/6 take the bounds as float attributes; Clip-11+ take them as optional
// scalar inputs of the data's dtype (integers from 12), an omitted bound
// being the dtype's numeric limit (so ±Inf clip to the largest finite
// value, as the spec's numeric_limits::lowest()/max() say). Bounds apply as
// min(max(x, lo), hi) like numpy.clip, so lo > hi yields hi everywhere, and
// NaN inputs stay NaN.

func init() {
	op.Register("Clip", []int{1, 6, 11, 12, 13}, buildClip)
	shapes.Register("", "Clip", shapes.SameAsInput0)
}

func buildClip(n *op.Node) (any, error) {
	if n.Version < 11 {
		a := &op.Attribs{N: n}
		lo, hi := a.Float("min", -3.402823e+38), a.Float("max", 3.402823e+38)
		hasLo, hasHi := n.Has("min") || n.Version >= 6, n.Has("max") || n.Version >= 6
		if a.Err != nil {
			return nil, a.Err
		}
		// Clip-1 without a bound leaves that side alone (±Inf stay).
		fLo, fHi := lo, hi
		if !hasLo {
			fLo = float32(math.Inf(-1))
		}
		if !hasHi {
			fHi = float32(math.Inf(1))
		}
		return declare(op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
			x, err := input0(in)
			if err != nil {
				return nil, err
			}
			out := ctx.New(x.DType(), x.Shape()...)
			switch {
			case x.DType().IsFloat():
				clipT(out.F32(), x.F32(), lo, hi, hasLo, hasHi)
			case x.DType() == tensor.Double:
				clipT(out.F64(), x.F64(), float64(lo), float64(hi), hasLo, hasHi)
			default:
				return nil, badType("Clip", x.DType())
			}
			return ctx.One(out), nil
		}), kernels.ActClip, fLo, fHi), nil
	}
	ints := n.Version >= 12
	k := activationKernel{act: kernels.ActClip, Kernel: op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		x, err := input0(in)
		if err != nil {
			return nil, err
		}
		dt := x.DType()
		if !isFloatish(dt) && !(ints && isInt(dt)) {
			return nil, badType("Clip", dt)
		}
		var lo, hi *tensor.Tensor
		if len(in) > 1 {
			lo = in[1]
		}
		if len(in) > 2 {
			hi = in[2]
		}
		for _, b := range []*tensor.Tensor{lo, hi} {
			if b == nil {
				continue
			}
			if b.DType() != dt {
				return nil, op.Errorf("Clip bound has dtype %s, input has %s", b.DType(), dt)
			}
			if b.Len() != 1 {
				return nil, op.Errorf("Clip bounds must be scalars, got shape %v", b.Shape())
			}
		}
		out := ctx.New(dt, x.Shape()...)
		switch d := x.Data().(type) {
		case []float32:
			if dt == tensor.Float {
				// The activation table's loop (vectorised): the same
				// comparisons, without a branch per element.
				l, h := float32(-math.MaxFloat32), float32(math.MaxFloat32)
				if lo != nil {
					l = lo.F32()[0]
				}
				if hi != nil {
					h = hi.F32()[0]
				}
				copy(out.F32(), d)
				kernels.Activate(out.F32(), kernels.ActClip, l, h)
				break
			}
			clipBounds(out, d, lo, hi)
			clipFloatLimits(out, dt, lo, hi)
		case []float64:
			clipBounds(out, d, lo, hi)
			if lo == nil || hi == nil {
				clipT(out.F64(), out.F64(), -math.MaxFloat64, math.MaxFloat64, lo == nil, hi == nil)
			}
		case []int8:
			clipBounds(out, d, lo, hi)
		case []int16:
			clipBounds(out, d, lo, hi)
		case []int32:
			clipBounds(out, d, lo, hi)
		case []int64:
			clipBounds(out, d, lo, hi)
		case []uint8:
			clipBounds(out, d, lo, hi)
		case []uint16:
			clipBounds(out, d, lo, hi)
		case []uint32:
			clipBounds(out, d, lo, hi)
		case []uint64:
			clipBounds(out, d, lo, hi)
		}
		return ctx.One(out), nil
	})}
	k.alpha, k.beta, k.fusable = clipFusedBounds(n)
	return k, nil
}

// clipFusedBounds returns Clip-11+'s bounds as a fused epilogue applies
// them to float32 data: each a constant float32 scalar, an omitted one the
// float32 limit (as clipFloatLimits makes it); ok is false when a bound is
// known only at run time or is not a float32 scalar.
func clipFusedBounds(n *op.Node) (lo, hi float32, ok bool) {
	lo, hi = -math.MaxFloat32, math.MaxFloat32
	for i, dst := range []*float32{&lo, &hi} {
		if !n.HasInput(i + 1) {
			continue
		}
		t := n.ConstInput(i + 1)
		if t == nil || t.DType() != tensor.Float || t.Len() != 1 {
			return 0, 0, false
		}
		*dst = t.F32()[0]
	}
	return lo, hi, true
}

func clipBounds[T tensor.Number](out *tensor.Tensor, src []T, lo, hi *tensor.Tensor) {
	var l, h T
	if lo != nil {
		l = tensor.Data[T](lo)[0]
	}
	if hi != nil {
		h = tensor.Data[T](hi)[0]
	}
	clipT(tensor.Data[T](out), src, l, h, lo != nil, hi != nil)
}

// clipFloatLimits clips float32-stored data whose bounds were omitted to the
// dtype's finite range: Clip-11+ default min and max to
// numeric_limits::lowest() and max(), so ±Inf become the largest finite
// values (a NaN stays NaN).
func clipFloatLimits(out *tensor.Tensor, dt tensor.DType, lo, hi *tensor.Tensor) {
	if lo != nil && hi != nil {
		return
	}
	var limit float32
	switch dt {
	case tensor.Float:
		limit = math.MaxFloat32
	case tensor.Float16:
		limit = 65504
	case tensor.BFloat16:
		limit = 0x1.fep127 // 0x7f7f
	default:
		return
	}
	d := out.F32()
	clipT(d, d, -limit, limit, lo == nil, hi == nil)
}

func clipT[T tensor.Number](dst, src []T, lo, hi T, hasLo, hasHi bool) {
	dst = dst[:len(src)]
	switch {
	case hasLo && hasHi:
		for i, v := range src {
			if v < lo {
				v = lo
			}
			if v > hi {
				v = hi
			}
			dst[i] = v
		}
	case hasLo:
		for i, v := range src {
			if v < lo {
				v = lo
			}
			dst[i] = v
		}
	case hasHi:
		for i, v := range src {
			if v > hi {
				v = hi
			}
			dst[i] = v
		}
	default:
		copy(dst, src)
	}
}
