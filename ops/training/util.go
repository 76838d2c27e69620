package training

import (
	"math"
	"slices"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Domain is the ONNX domain of the training operators.
const Domain = "ai.onnx.preview.training"

// stepInputs reads R (learning rate) and T (update count) and splits the
// remaining inputs into groups of per-tensor slots, checking that each
// group's tensors are float and of equal shape.
func stepInputs(name string, in []*tensor.Tensor, groups int) (r float64, t int64, n int, err error) {
	if len(in) < 2 || in[0] == nil || in[1] == nil {
		return 0, 0, 0, op.Errorf("%s needs R and T", name)
	}
	rv, err1 := in[0].Float64s()
	tv, err2 := in[1].Int64s()
	if err1 != nil || err2 != nil || len(rv) != 1 || len(tv) != 1 {
		return 0, 0, 0, op.Errorf("%s: R must be a float scalar and T an int64 scalar", name)
	}
	rest := len(in) - 2
	if rest == 0 || rest%groups != 0 {
		return 0, 0, 0, op.Errorf("%s: %d tensor inputs are not %d equal groups", name, rest, groups)
	}
	n = rest / groups
	for i := 0; i < n; i++ {
		x := in[2+i]
		for g := 0; g < groups; g++ {
			y := in[2+g*n+i]
			if y == nil || !(y.DType().IsFloat() || y.DType() == tensor.Double) || !slices.Equal(x.Shape(), y.Shape()) {
				return 0, 0, 0, op.Errorf("%s: input %d must be a float tensor shaped like input %d", name, 2+g*n+i, 2+i)
			}
		}
	}
	return rv[0], tv[0], n, nil
}

// vals returns a tensor's elements as float64.
func vals(t *tensor.Tensor) []float64 {
	v, _ := t.Float64s()
	return v
}

// result allocates a tensor like proto and stores v in it.
func result(ctx *op.Context, proto *tensor.Tensor, v []float64) *tensor.Tensor {
	out := ctx.New(proto.DType(), proto.Shape()...)
	if d, ok := out.Data().([]float64); ok {
		copy(d, v)
		return out
	}
	d := out.F32()
	for i, x := range v {
		d[i] = float32(x)
	}
	return out
}

var sqrt = math.Sqrt
