package nn

import (
	"math"

	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// QuantizeLinear/DequantizeLinear at versions 10 (per-tensor) and 13 (adds
// per-axis via `axis`). Version 19 onwards adds the float8 (and later
// float4/int4/int2, blocked) formats; those are not registered until the
// minifloat codecs are shared, so opset ≥ 19 models are refused cleanly
// rather than run with missing semantics.
func init() {
	op.Register("QuantizeLinear", []int{10, 13}, buildQuantize)
	op.Register("DequantizeLinear", []int{10, 13}, buildDequantize)
}

// quantParams resolves the scale and zero point for x: per-tensor (scalar
// or 1-element) or per-axis (1-D of x.shape[axis]). It returns a function
// mapping a flat element index to its parameter slot.
func quantParams(x *tensor.Tensor, scale, zp *tensor.Tensor, axis int64, version int) ([]float64, []float64, func(int) int, error) {
	sc, err := scaleValues(scale, "scale")
	if err != nil {
		return nil, nil, nil, err
	}
	z := []float64{0}
	if zp != nil {
		if z, err = zp.Float64s(); err != nil {
			return nil, nil, nil, op.Errorf("zero_point: %v", err)
		}
		if len(z) != len(sc) {
			return nil, nil, nil, op.Errorf("zero_point has %d elements, scale %d", len(z), len(sc))
		}
	}
	if scale.Rank() == 0 || (len(sc) == 1 && version < 13) {
		return sc, z, func(int) int { return 0 }, nil
	}
	if version < 13 || scale.Rank() != 1 {
		return nil, nil, nil, op.Errorf("scale must be a scalar (or 1-D for per-axis at version ≥ 13), got shape %v", scale.Shape())
	}
	ax, err := opsutil.NormAxis(axis, x.Rank())
	if err != nil {
		return nil, nil, nil, err
	}
	if len(sc) != x.Shape()[ax] {
		if len(sc) == 1 {
			return sc, z, func(int) int { return 0 }, nil
		}
		return nil, nil, nil, op.Errorf("per-axis scale has %d elements, axis %d has %d", len(sc), ax, x.Shape()[ax])
	}
	inner := opsutil.Product(x.Shape()[ax+1:])
	d := x.Shape()[ax]
	return sc, z, func(i int) int { return (i / inner) % d }, nil
}

func buildQuantize(n *op.Node) (any, error) {
	axis, err := n.Int("axis", 1)
	if err != nil {
		return nil, err
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		x, zp := in[0], optIn(in, 2)
		if x == nil || !(x.DType() == tensor.Float || x.DType() == tensor.Int32) {
			return nil, op.Errorf("QuantizeLinear input must be float32 or int32")
		}
		sc, z, slot, err := quantParams(x, optIn(in, 1), zp, axis, n.Version)
		if err != nil {
			return nil, err
		}
		outDT := tensor.Uint8
		if zp != nil {
			outDT = zp.DType()
		}
		if outDT != tensor.Uint8 && outDT != tensor.Int8 {
			return nil, op.Errorf("QuantizeLinear output type %s is not int8/uint8", outDT)
		}
		lo, hi, _ := quantRange(outDT)
		xd, _ := x.Float64s()
		y := ctx.New(outDT, x.Shape()...)
		for i, v := range xd {
			s := slot(i)
			// x/scale rounds half to even, then the zero point is added,
			// as the spec orders it.
			storeQuantized(y, i, math.RoundToEven(v/sc[s])+z[s], lo, hi)
		}
		return []*tensor.Tensor{y}, nil
	}), nil
}

func buildDequantize(n *op.Node) (any, error) {
	axis, err := n.Int("axis", 1)
	if err != nil {
		return nil, err
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		x, zp := in[0], optIn(in, 2)
		if x == nil || !(x.DType() == tensor.Uint8 || x.DType() == tensor.Int8 || x.DType() == tensor.Int32) {
			return nil, op.Errorf("DequantizeLinear input must be int8, uint8 or int32")
		}
		if zp != nil && zp.DType() != x.DType() {
			return nil, op.Errorf("x_zero_point type %s differs from x %s", zp.DType(), x.DType())
		}
		sc, z, slot, err := quantParams(x, optIn(in, 1), zp, axis, n.Version)
		if err != nil {
			return nil, err
		}
		xd, _ := x.Float64s()
		y := ctx.New(tensor.Float, x.Shape()...)
		yd := y.F32()
		for i, v := range xd {
			s := slot(i)
			yd[i] = float32((v - z[s]) * sc[s])
		}
		return []*tensor.Tensor{y}, nil
	}), nil
}
