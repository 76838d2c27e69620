package numeric

import (
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("Shrink", []int{9}, buildShrink)
	shapes.Register("", "Shrink", shapes.SameAsInput0)
}

// buildShrink: y = x+bias below -lambd, x-bias above lambd, 0 between (soft
// shrinkage with bias=lambd, hard with bias=0). Integer inputs are computed
// in float64 and truncated back, as the reference's casts do.
func buildShrink(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	bias := float64(a.Float("bias", 0))
	lambd := float64(a.Float("lambd", 0.5))
	if a.Err != nil {
		return nil, a.Err
	}
	f := func(x float64) float64 {
		switch {
		case x < -lambd:
			return x + bias
		case x > lambd:
			return x - bias
		}
		return 0
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil {
			return nil, op.Errorf("Shrink needs an input")
		}
		x := in[0]
		out := ctx.New(x.DType(), x.Shape()...)
		switch d := out.Data().(type) {
		case []float32:
			for i, v := range x.F32() {
				d[i] = float32(f(float64(v)))
			}
		case []float64:
			for i, v := range x.F64() {
				d[i] = f(v)
			}
		case []int8:
			shrinkInt(d, tensor.Data[int8](x), f)
		case []int16:
			shrinkInt(d, tensor.Data[int16](x), f)
		case []int32:
			shrinkInt(d, tensor.Data[int32](x), f)
		case []int64:
			shrinkInt(d, tensor.Data[int64](x), f)
		case []uint8:
			if x.DType().IsCodeType() {
				return nil, op.Errorf("Shrink does not support %s", x.DType())
			}
			shrinkInt(d, tensor.Data[uint8](x), f)
		case []uint16:
			shrinkInt(d, tensor.Data[uint16](x), f)
		case []uint32:
			shrinkInt(d, tensor.Data[uint32](x), f)
		case []uint64:
			shrinkInt(d, tensor.Data[uint64](x), f)
		default:
			return nil, op.Errorf("Shrink does not support %s", x.DType())
		}
		return ctx.One(out), nil
	}), nil
}

func shrinkInt[T tensor.Number](d, s []T, f func(float64) float64) {
	for i, v := range s {
		d[i] = T(f(float64(v)))
	}
}
