package nn

import (
	"math"
	"slices"

	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/ops/opsutil/minifloat"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// QuantizeLinear / DequantizeLinear at every version. What each adds:
//
//	10  per-tensor int8/uint8 (int32 input for Dequantize)
//	13  per-axis (1-D scale along `axis`)
//	19  float8 types, float16/bfloat16 scales, `saturate` (Quantize)
//	21  int16/uint16/int4/uint4, blocked quantization (`block_size`),
//	    `output_dtype` (Quantize)
//	23  float4e2m1, `precision` (Quantize), `output_dtype` (Dequantize),
//	    x and scale may differ in type (int32 scales for Quantize)
//	24  float8e8m0 scales; FNUZ float8 saturates ±Inf to ±max like Cast-24
//	25  int2/uint2
//
// Arithmetic follows the reference: Quantize divides in the precision of
// the promoted input/scale type (float32 for float32 operands, not float64,
// so ties such as 0.5/(5/255) = 25.5f round the way every runtime rounds
// them), rounds half to even, then adds the zero point as an integer.
// Dequantize subtracts the zero point and multiplies in float32.
func init() {
	vs := []int{10, 13, 19, 21, 23, 24, 25}
	op.Register("QuantizeLinear", vs, buildQuantize)
	shapes.Register("", "QuantizeLinear", shapes.SameAsInput0)
	op.Register("DequantizeLinear", vs, buildDequantize)
	shapes.Register("", "DequantizeLinear", shapes.SameAsInput0)
}

// quantTypeSince is the first version at which a dtype may be the quantized
// side (Quantize's output, Dequantize's input).
func quantTypeSince(dt tensor.DType) int {
	switch dt {
	case tensor.Uint8, tensor.Int8:
		return 10
	case tensor.Float8E4M3FN, tensor.Float8E4M3FNUZ, tensor.Float8E5M2, tensor.Float8E5M2FNUZ:
		return 19
	case tensor.Int16, tensor.Uint16, tensor.Int4, tensor.Uint4:
		return 21
	case tensor.Float4E2M1:
		return 23
	case tensor.Int2, tensor.Uint2:
		return 25
	}
	return math.MaxInt
}

// scaleTypeSince is the first version at which a dtype may be the scale.
func scaleTypeSince(dt tensor.DType, quantize bool) int {
	switch dt {
	case tensor.Float:
		return 10
	case tensor.Float16, tensor.BFloat16:
		return 19
	case tensor.Int32:
		if quantize {
			return 23
		}
	case tensor.Float8E8M0:
		return 24
	}
	return math.MaxInt
}

// quantLayout maps an element of x to its scale/zero-point slot. x is seen
// as [outer, d, inner] around the axis; slot = o·so + (a/b)·sa + i·si, which
// covers per-tensor (all strides 0), per-axis (sa = 1) and blocked
// quantization (b = block size, the scale shaped like x with ceil(d/b)
// along the axis).
type quantLayout struct {
	outer, d, inner int
	so, sa, si, b   int
}

func (l quantLayout) each(fn func(i, slot int)) {
	i := 0
	for o := 0; o < l.outer; o++ {
		for a := 0; a < l.d; a++ {
			base := o*l.so + (a/l.b)*l.sa
			for in := 0; in < l.inner; in++ {
				fn(i, base+in*l.si)
				i++
			}
		}
	}
}

// layoutFor validates the scale's shape against x and picks the layout.
func layoutFor(x, scale *tensor.Tensor, axis, blockSize int64, version int) (quantLayout, error) {
	xs := x.Shape()
	n := x.Len()
	perTensor := quantLayout{outer: 1, d: n, inner: 1, b: 1}
	if scale.Len() == 1 && (scale.Rank() <= 1 || version >= 21) {
		return perTensor, nil
	}
	if scale.Rank() == 0 {
		return perTensor, nil
	}
	if version < 13 {
		return quantLayout{}, op.Errorf("scale must be a scalar at version %d, got shape %v", version, scale.Shape())
	}
	if x.Rank() == 0 {
		return quantLayout{}, op.Errorf("scale of shape %v for a scalar input", scale.Shape())
	}
	ax, err := opsutil.NormAxis(axis, x.Rank())
	if err != nil {
		return quantLayout{}, err
	}
	l := quantLayout{outer: opsutil.Product(xs[:ax]), d: xs[ax], inner: opsutil.Product(xs[ax+1:]), b: 1}
	if blockSize <= 0 || version < 21 {
		if scale.Rank() != 1 || scale.Len() != xs[ax] {
			return quantLayout{}, op.Errorf("per-axis scale must be 1-D of length %d (axis %d of %v), got shape %v", xs[ax], ax, xs, scale.Shape())
		}
		l.sa = 1
		return l, nil
	}
	ss := scale.Shape()
	if len(ss) != len(xs) {
		return quantLayout{}, op.Errorf("blocked scale must have the rank of x %v, got shape %v", xs, ss)
	}
	for i := range xs {
		if i == ax {
			if want := (xs[i] + int(blockSize) - 1) / int(blockSize); ss[i] != want {
				return quantLayout{}, op.Errorf("blocked scale has %d blocks along axis %d, want ceil(%d/%d) = %d", ss[i], ax, xs[i], blockSize, want)
			}
		} else if ss[i] != xs[i] {
			return quantLayout{}, op.Errorf("blocked scale shape %v must match x %v except along axis %d", ss, xs, ax)
		}
	}
	l.b = int(blockSize)
	l.si = 1
	l.sa = l.inner
	l.so = ss[ax] * l.inner
	return l, nil
}

// numbers reads a scale or zero point as float64, decoding float8/float4/e8m0
// codes (whose storage holds codes, not values).
func numbers(t *tensor.Tensor, what string) ([]float64, error) {
	if t.DType().IsCodeType() {
		v, ok := minifloat.Decode(t.DType(), tensor.Data[uint8](t))
		if !ok {
			return nil, op.Errorf("%s: cannot decode %s", what, t.DType())
		}
		return v, nil
	}
	v, err := t.Float64s()
	if err != nil {
		return nil, op.Errorf("%s: %v", what, err)
	}
	return v, nil
}

// zeroPoints reads the optional zero point, which must match the scale's
// shape; nil means all zeros.
func zeroPoints(zp, scale *tensor.Tensor) ([]float64, error) {
	if zp == nil {
		return nil, nil
	}
	if zp.Len() != scale.Len() || (zp.Rank() > 1 || scale.Rank() > 1) && !slices.Equal(zp.Shape(), scale.Shape()) {
		return nil, op.Errorf("zero point shape %v differs from scale shape %v", zp.Shape(), scale.Shape())
	}
	return numbers(zp, "zero point")
}

// rounder rounds a float64 to a floating dtype's precision: the precision
// the reference's numpy arithmetic runs in.
func rounder(dt tensor.DType) func(float64) float64 {
	switch dt {
	case tensor.Float:
		return func(v float64) float64 { return float64(float32(v)) }
	case tensor.Float16:
		return func(v float64) float64 { return minifloat.F16.Round(v, false, false) }
	case tensor.BFloat16:
		return func(v float64) float64 { return minifloat.BF16.Round(v, false, false) }
	}
	return func(v float64) float64 { return v }
}

// divPrecision is numpy's promotion of x's and the scale's dtypes: the same
// float type stays, mixed float widths meet at float32, and an int32 operand
// pulls the division to float64. float8e8m0 scales (powers of two) defer to x.
func divPrecision(x, s tensor.DType) tensor.DType {
	switch {
	case x == tensor.Int32 || s == tensor.Int32:
		return tensor.Double
	case s == tensor.Float8E8M0 || x == s:
		return x
	}
	return tensor.Float
}

func buildQuantize(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	axis := a.Int("axis", 1)
	saturate := true
	var blockSize, outDType, precision int64
	if n.Version >= 19 {
		saturate = a.Int("saturate", 1) != 0
	}
	if n.Version >= 21 {
		blockSize = a.Int("block_size", 0)
		outDType = a.Int("output_dtype", 0)
	}
	if n.Version >= 23 {
		precision = a.Int("precision", 0)
	}
	if a.Err != nil {
		return nil, a.Err
	}
	if blockSize < 0 {
		return nil, n.Errorf("block_size must be positive, got %d", blockSize)
	}
	if outDType != 0 && quantTypeSince(tensor.DType(outDType)) > n.Version {
		return nil, n.Errorf("output_dtype %s is not a QuantizeLinear-%d output type", tensor.DType(outDType), n.Version)
	}
	switch tensor.DType(precision) {
	case 0, tensor.Float, tensor.Float16, tensor.BFloat16, tensor.Double:
	default:
		return nil, n.Errorf("precision %s is not a float type", tensor.DType(precision))
	}
	// Before 24, saturating ±Inf into an FNUZ float8 gives NaN (the Cast
	// tables the spec refers to); from 24 it gives ±max.
	infToNaN := n.Version < 24
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		x, scale, zp := optIn(in, 0), optIn(in, 1), optIn(in, 2)
		if x == nil || scale == nil {
			return nil, op.Errorf("QuantizeLinear needs x and y_scale")
		}
		xdt := x.DType()
		if !(xdt == tensor.Float || xdt == tensor.Int32 || (n.Version >= 19 && (xdt == tensor.Float16 || xdt == tensor.BFloat16))) {
			return nil, op.Errorf("QuantizeLinear-%d input cannot be %s", n.Version, xdt)
		}
		sdt := scale.DType()
		if scaleTypeSince(sdt, true) > n.Version {
			return nil, op.Errorf("QuantizeLinear-%d scale cannot be %s", n.Version, sdt)
		}
		outDT := tensor.Uint8
		switch {
		case zp != nil:
			outDT = zp.DType()
			if outDType != 0 && tensor.DType(outDType) != outDT {
				return nil, op.Errorf("output_dtype %s differs from y_zero_point's %s", tensor.DType(outDType), outDT)
			}
		case outDType != 0:
			outDT = tensor.DType(outDType)
		}
		if quantTypeSince(outDT) > n.Version {
			return nil, op.Errorf("QuantizeLinear-%d cannot produce %s", n.Version, outDT)
		}
		lay, err := layoutFor(x, scale, axis, blockSize, n.Version)
		if err != nil {
			return nil, err
		}
		sc, err := numbers(scale, "y_scale")
		if err != nil {
			return nil, err
		}
		z, err := zeroPoints(zp, scale)
		if err != nil {
			return nil, err
		}
		prec := tensor.DType(precision)
		if prec == 0 {
			prec = divPrecision(xdt, sdt)
		}
		round := rounder(prec)
		xv, err := x.Float64s()
		if err != nil {
			return nil, op.Errorf("x: %v", err)
		}
		y := ctx.New(outDT, x.Shape()...)
		quot := func(i, s int) float64 { return round(round(xv[i]) / round(sc[s])) }
		zpAt := func(s int) float64 {
			if z == nil {
				return 0
			}
			return z[s]
		}
		if lo, hi, ok := quantRange(outDT); ok {
			lay.each(func(i, s int) {
				q := math.RoundToEven(quot(i, s))
				if q != q {
					q = lo // numpy's NaN→int32 cast gives INT_MIN, clipped to lo
				}
				storeQuantized(y, i, q+zpAt(s), lo, hi)
			})
			return ctx.One(y), nil
		}
		yd := tensor.Data[uint8](y)
		f, ok := minifloat.ForDType(outDT)
		if !ok {
			return nil, op.Errorf("QuantizeLinear cannot produce %s", outDT)
		}
		addZP := outDT == tensor.Float4E2M1
		lay.each(func(i, s int) {
			v := quot(i, s)
			// The reference adds the zero point for float4 (so -0 becomes
			// +0) but skips it for float8 (where -0 stays -0); the
			// results differ only in the sign of zero.
			if zv := zpAt(s); zv != 0 || addZP {
				v = round(v + zv)
			}
			yd[i] = uint8(f.Encode(v, saturate, infToNaN))
		})
		return ctx.One(y), nil
	}), nil
}

func buildDequantize(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	axis := a.Int("axis", 1)
	var blockSize, outDType int64
	if n.Version >= 21 {
		blockSize = a.Int("block_size", 0)
	}
	if n.Version >= 23 {
		outDType = a.Int("output_dtype", 0)
	}
	if a.Err != nil {
		return nil, a.Err
	}
	if blockSize < 0 {
		return nil, n.Errorf("block_size must be positive, got %d", blockSize)
	}
	switch tensor.DType(outDType) {
	case 0, tensor.Float, tensor.Float16, tensor.BFloat16:
	default:
		return nil, n.Errorf("output_dtype %s is not float32, float16 or bfloat16", tensor.DType(outDType))
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		x, scale, zp := optIn(in, 0), optIn(in, 1), optIn(in, 2)
		if x == nil || scale == nil {
			return nil, op.Errorf("DequantizeLinear needs x and x_scale")
		}
		xdt := x.DType()
		if xdt != tensor.Int32 && quantTypeSince(xdt) > n.Version {
			return nil, op.Errorf("DequantizeLinear-%d input cannot be %s", n.Version, xdt)
		}
		if zp != nil && zp.DType() != xdt {
			return nil, op.Errorf("x_zero_point type %s differs from x %s", zp.DType(), xdt)
		}
		sdt := scale.DType()
		if scaleTypeSince(sdt, false) > n.Version {
			return nil, op.Errorf("DequantizeLinear-%d scale cannot be %s", n.Version, sdt)
		}
		outDT := tensor.DType(outDType)
		if outDT == 0 {
			if !sdt.IsFloat() {
				return nil, op.Errorf("output_dtype is required with a %s scale", sdt)
			}
			outDT = sdt
		}
		lay, err := layoutFor(x, scale, axis, blockSize, n.Version)
		if err != nil {
			return nil, err
		}
		sc, err := numbers(scale, "x_scale")
		if err != nil {
			return nil, err
		}
		z, err := zeroPoints(zp, scale)
		if err != nil {
			return nil, err
		}
		xv, err := numbers(x, "x")
		if err != nil {
			return nil, err
		}
		y := ctx.New(outDT, x.Shape()...)
		yd := y.F32()
		// float32 arithmetic, as the reference; the executor rounds a
		// float16/bfloat16 output to its precision afterwards.
		lay.each(func(i, s int) {
			d := xv[i]
			if z != nil {
				d -= z[s]
			}
			yd[i] = float32(d) * float32(sc[s])
		})
		return ctx.One(y), nil
	}), nil
}
