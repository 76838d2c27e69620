package contrib

import (
	"github.com/gort-dev/gort/ops/kernels"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// The GELU family of com.microsoft. Each is an activation of ops/kernels'
// table applied to X, or to X + bias with bias a vector over X's last dim:
//
//   - Gelu: 0.5·x·(1 + erf(x/√2)) (kernels.ActGelu);
//   - BiasGelu: Gelu(X + bias), bias required;
//   - FastGelu: the tanh approximation 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
//     (kernels.ActGeluTanh) of X + bias, bias optional;
//   - QuickGelu: x·sigmoid(alpha·x), alpha 1.702 by default.
//
// X + bias is rounded to X's type before the activation, as onnxruntime's
// CPU kernels add in float32.
func init() {
	op.Default.Register(Domain, "Gelu", []int{1}, func(n *op.Node) (any, error) {
		return biasedKernel("Gelu", tableFn(kernels.ActGelu), -1, false), nil
	})
	shapes.Register(Domain, "Gelu", sameAsInput0)
	op.Default.Register(Domain, "BiasGelu", []int{1}, func(n *op.Node) (any, error) {
		return biasedKernel("BiasGelu", tableFn(kernels.ActGelu), 1, true), nil
	})
	shapes.Register(Domain, "BiasGelu", sameAsInput0)
	op.Default.Register(Domain, "FastGelu", []int{1}, func(n *op.Node) (any, error) {
		return biasedKernel("FastGelu", tableFn(kernels.ActGeluTanh), 1, false), nil
	})
	shapes.Register(Domain, "FastGelu", sameAsInput0)
	op.Default.Register(Domain, "QuickGelu", []int{1}, buildQuickGelu)
	shapes.Register(Domain, "QuickGelu", sameAsInput0)
}

// unaryFn is one elementwise function in float32 and float64.
type unaryFn struct {
	f32 func(float32) float32
	f64 func(float64) float64
}

// tableFn is a parameterless activation of the table.
func tableFn(a kernels.Act) unaryFn {
	return unaryFn{
		func(x float32) float32 { return a.F32(x, 0, 0) },
		func(x float64) float64 { return a.F64(x, 0, 0) },
	}
}

func buildQuickGelu(n *op.Node) (any, error) {
	alpha, err := n.Float("alpha", 1.702)
	if err != nil {
		return nil, err
	}
	a64 := float64(alpha)
	return biasedKernel("QuickGelu", unaryFn{
		func(x float32) float32 { return x * kernels.Sigmoid32(alpha*x) },
		func(x float64) float64 { return x * kernels.ActSigmoid.F64(a64*x, 0, 0) },
	}, -1, false), nil
}

// biasedKernel computes f(X + bias) elementwise; bias is input biasAt (-1:
// none), required or optional, a vector as long as X's last dim.
func biasedKernel(name string, f unaryFn, biasAt int, required bool) op.Kernel {
	return op.KernelFunc(func(ctx *op.Context, ins []*tensor.Tensor) ([]*tensor.Tensor, error) {
		x := in(ins, 0)
		if x == nil {
			return nil, op.Errorf("%s needs an input", name)
		}
		var bias *tensor.Tensor
		if biasAt >= 0 {
			bias = in(ins, biasAt)
			if bias == nil && required {
				return nil, op.Errorf("%s needs a bias", name)
			}
		}
		if err := checkFloat(name, x, bias); err != nil {
			return nil, err
		}
		if bias != nil {
			if x.Rank() == 0 {
				return nil, op.Errorf("%s: a bias needs an input of rank ≥ 1", name)
			}
			if err := checkVector(name, "bias", bias, x.Shape()[x.Rank()-1]); err != nil {
				return nil, err
			}
		}
		y := ctx.New(x.DType(), x.Shape()...)
		if x.DType() == tensor.Double {
			apply(y.F64(), x.F64(), f64s(bias), f.f64)
		} else {
			apply(y.F32(), x.F32(), f32s(bias), f.f32)
		}
		return ctx.One(y), nil
	})
}

// apply writes f(x + bias) with bias repeated along the last dim (nil: f(x)).
func apply[T kernels.Float](y, x, bias []T, f func(T) T) {
	y = y[:len(x)]
	if len(bias) == 0 {
		for i, v := range x {
			y[i] = f(v)
		}
		return
	}
	for r := 0; r < len(x); r += len(bias) {
		xr, yr := x[r:r+len(bias)], y[r:r+len(bias)]
		for j, v := range xr {
			yr[j] = f(v + bias[j])
		}
	}
}

func f32s(t *tensor.Tensor) []float32 {
	if t == nil {
		return nil
	}
	return t.F32()
}

func f64s(t *tensor.Tensor) []float64 {
	if t == nil {
		return nil
	}
	return t.F64()
}
