package contrib

import (
	"slices"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// BiasAdd: Y = (X + bias) + skip, with X and skip of shape (N, S, C) and
// bias of shape (C). onnxruntime implements it for its CUDA, ROCm, JS and
// WebGPU providers only (no CPU kernel); the sums are taken in X's type,
// in that order.
func init() {
	op.Default.Register(Domain, "BiasAdd", []int{1}, buildBiasAdd)
	shapes.Register(Domain, "BiasAdd", sameAsInput0)
}

func buildBiasAdd(n *op.Node) (any, error) {
	return op.KernelFunc(func(ctx *op.Context, ins []*tensor.Tensor) ([]*tensor.Tensor, error) {
		x, bias, skip := in(ins, 0), in(ins, 1), in(ins, 2)
		if x == nil || bias == nil || skip == nil {
			return nil, op.Errorf("BiasAdd needs X, bias and skip")
		}
		if err := checkFloat("BiasAdd", x, bias, skip); err != nil {
			return nil, err
		}
		if x.Rank() != 3 {
			return nil, op.Errorf("BiasAdd: X must have rank 3 (N, S, C), got %v", x.Shape())
		}
		if !slices.Equal(skip.Shape(), x.Shape()) {
			return nil, op.Errorf("BiasAdd: skip has shape %v, X %v", skip.Shape(), x.Shape())
		}
		if err := checkVector("BiasAdd", "bias", bias, x.Shape()[2]); err != nil {
			return nil, err
		}
		y := ctx.New(x.DType(), x.Shape()...)
		if x.DType() == tensor.Double {
			addBiasSkip(y.F64(), x.F64(), bias.F64(), skip.F64())
		} else {
			addBiasSkip(y.F32(), x.F32(), bias.F32(), skip.F32())
		}
		return ctx.One(y), nil
	}), nil
}

func addBiasSkip[T float32 | float64](y, x, bias, skip []T) {
	c := len(bias)
	if c == 0 {
		return
	}
	for r := 0; r < len(x); r += c {
		xr, sr, yr := x[r:r+c], skip[r:r+c], y[r:r+c]
		for j, v := range xr {
			yr[j] = (v + bias[j]) + sr[j]
		}
	}
}
