package elementwise

import (
	"math"

	"github.com/chewxy/math32"
	"github.com/gort-dev/gort/ops/kernels"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Activations. Versions of each op differ only in the dtypes they admit (and
// the long-gone consumed_inputs attribute of version 1, which gort ignores),
// so one builder serves all of them. Relu and LeakyRelu, the ones that sit
// after every conv, get loops without a call per element.

func init() {
	op.Register("Relu", []int{1, 6, 13, 14}, buildRelu)
	shapes.Register("", "Relu", shapes.SameAsInput0)
	op.Register("LeakyRelu", []int{1, 6, 16}, buildLeakyRelu)
	shapes.Register("", "LeakyRelu", shapes.SameAsInput0)
	op.Register("Sigmoid", []int{1, 6, 13}, tableBuilder("Sigmoid", kernels.ActSigmoid))
	shapes.Register("", "Sigmoid", shapes.SameAsInput0)
	op.Register("Tanh", []int{1, 6, 13}, tableBuilder("Tanh", kernels.ActTanh))
	shapes.Register("", "Tanh", shapes.SameAsInput0)
	op.Register("Elu", []int{1, 6, 22}, withAlpha("Elu", 1, func(al float64) floatFn {
		return lift(func(x float64) float64 {
			if x < 0 {
				return al * math.Expm1(x)
			}
			return x
		})
	}))
	shapes.Register("", "Elu", shapes.SameAsInput0)
	op.Register("Selu", []int{1, 6, 22}, func(n *op.Node) (any, error) {
		a := &op.Attribs{N: n}
		// Selu-1's defaults are the rounded 1.6732 and 1.0507; Selu-6 gave
		// them every digit of float32.
		dAlpha, dGamma := float32(1.67326319217681884765625), float32(1.05070102214813232421875)
		if n.Version < 6 {
			dAlpha, dGamma = 1.6732, 1.0507
		}
		al := float64(a.Float("alpha", dAlpha))
		g := float64(a.Float("gamma", dGamma))
		return floatKernel("Selu", lift(func(x float64) float64 {
			if x <= 0 {
				return g * (al*math.Exp(x) - al)
			}
			return g * x
		}), nil), a.Err
	})
	shapes.Register("", "Selu", shapes.SameAsInput0)
	op.Register("Celu", []int{12, 28}, withAlpha("Celu", 1, func(al float64) floatFn {
		return lift(func(x float64) float64 {
			return math.Max(0, x) + math.Min(0, al*math.Expm1(x/al))
		})
	}))
	shapes.Register("", "Celu", shapes.SameAsInput0)
	op.Register("HardSigmoid", []int{1, 6, 22}, func(n *op.Node) (any, error) {
		a := &op.Attribs{N: n}
		al, be := a.Float("alpha", 0.2), a.Float("beta", 0.5)
		return tableKernel("HardSigmoid", kernels.ActHardSigmoid, al, be), a.Err
	})
	shapes.Register("", "HardSigmoid", shapes.SameAsInput0)
	op.Register("HardSwish", []int{14, 22}, tableBuilder("HardSwish", kernels.ActHardSwish))
	shapes.Register("", "HardSwish", shapes.SameAsInput0)
	op.Register("Softplus", []int{1, 22}, func(n *op.Node) (any, error) {
		return floatKernel("Softplus", lift(softplus), nil), nil
	})
	shapes.Register("", "Softplus", shapes.SameAsInput0)
	op.Register("Softsign", []int{1, 22}, func(n *op.Node) (any, error) {
		return floatKernel("Softsign", floatFn{
			func(x float32) float32 { return x / (1 + math32.Abs(x)) },
			func(x float64) float64 { return x / (1 + math.Abs(x)) },
		}, nil), nil
	})
	shapes.Register("", "Softsign", shapes.SameAsInput0)
	op.Register("Mish", []int{18, 22}, func(n *op.Node) (any, error) {
		return floatKernel("Mish", lift(func(x float64) float64 { return x * math.Tanh(softplus(x)) }), nil), nil
	})
	shapes.Register("", "Mish", shapes.SameAsInput0)
	op.Register("Gelu", []int{20}, buildGelu)
	shapes.Register("", "Gelu", shapes.SameAsInput0)
	op.Register("ThresholdedRelu", []int{10, 22}, withAlpha("ThresholdedRelu", 1, func(al float64) floatFn {
		return lift(func(x float64) float64 {
			if x > al {
				return x
			}
			return 0
		})
	}))
	shapes.Register("", "ThresholdedRelu", shapes.SameAsInput0)
	op.Register("Swish", []int{24}, withAlpha("Swish", 1, func(al float64) floatFn {
		return lift(func(x float64) float64 { return x * kernels.ActSigmoid.F64(al*x, 0, 0) })
	}))
	shapes.Register("", "Swish", shapes.SameAsInput0)
}

// lift makes a float64 formula serve float32 too. The transcendental
// activations are computed in float64 so float32 results round once, which
// keeps them within the conformance tolerance for large and tiny inputs.
func lift(f func(float64) float64) floatFn {
	return floatFn{func(x float32) float32 { return float32(f(float64(x))) }, f}
}

func withAlpha(name string, def float32, mk func(alpha float64) floatFn) op.Builder {
	return func(n *op.Node) (any, error) {
		al, err := n.Float("alpha", def)
		if err != nil {
			return nil, err
		}
		return floatKernel(name, mk(float64(al)), nil), nil
	}
}

// softplus is log(1+e^x) without overflow for large x.
func softplus(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

func buildRelu(n *op.Node) (any, error) {
	ints := n.Version >= 14
	return declare(op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		x, err := input0(in)
		if err != nil {
			return nil, err
		}
		dt := x.DType()
		out := ctx.New(dt, x.Shape()...)
		switch d := x.Data().(type) {
		case []float32:
			if !dt.IsFloat() {
				break
			}
			reluF32(out.F32(), d)
			return ctx.One(out), nil
		case []float64:
			relu(out.F64(), d)
			return ctx.One(out), nil
		}
		if ints && isSigned(dt) {
			eachInt(out, x, true, relu[int8], relu[int16], relu[int32], relu[int64], nil)
			return ctx.One(out), nil
		}
		return nil, badType("Relu", dt)
	}), kernels.ActRelu, 0, 0), nil
}

func relu[T tensor.Number](dst, src []T) {
	for i, v := range src {
		dst[i] = max(v, 0)
	}
}

func buildLeakyRelu(n *op.Node) (any, error) {
	alpha, err := n.Float("alpha", 0.01)
	if err != nil {
		return nil, err
	}
	return declare(op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		x, err := input0(in)
		if err != nil {
			return nil, err
		}
		dt := x.DType()
		out := ctx.New(dt, x.Shape()...)
		switch {
		case dt.IsFloat():
			src := x.F32()
			od := out.F32()[:len(src)]
			for i, v := range src {
				if v < 0 {
					v *= alpha
				}
				od[i] = v
			}
		case dt == tensor.Double:
			a := float64(alpha)
			od := out.F64()
			for i, v := range x.F64() {
				if v < 0 {
					v *= a
				}
				od[i] = v
			}
		default:
			return nil, badType("LeakyRelu", dt)
		}
		return ctx.One(out), nil
	}), kernels.ActLeakyRelu, alpha, 0), nil
}

func buildGelu(n *op.Node) (any, error) {
	approx, err := n.String("approximate", "none")
	if err != nil {
		return nil, err
	}
	switch approx {
	case "none":
		return tableKernel("Gelu", kernels.ActGelu, 0, 0), nil
	case "tanh":
		return tableKernel("Gelu", kernels.ActGeluTanh, 0, 0), nil
	}
	return nil, n.Errorf("Gelu approximate must be none or tanh, got %q", approx)
}

// activationKernel is the kernel of a node that computes one of the
// fusable activations of ops/kernels' table; it declares the activation,
// with the parameters its builder parsed, to the plan and the accelerator
// (op.ActivationKernel), which fuse or place the node from that.
type activationKernel struct {
	op.Kernel
	act         kernels.Act
	alpha, beta float32
	// fusable is false when the node's form has no fused equivalent (Clip
	// with a bound known only at run time).
	fusable bool
}

// Activation implements op.ActivationKernel.
func (k activationKernel) Activation() (op.Activation, float32, float32, bool) {
	return op.Activation(k.act.String()), k.alpha, k.beta, k.fusable
}

// declare wraps an op's own kernel (one with loops of its own, such as
// Relu's integer forms) as computing act; those loops give the table's
// results bit for bit (the fusion tests compare them).
func declare(k op.Kernel, act kernels.Act, alpha, beta float32) activationKernel {
	return activationKernel{Kernel: k, act: act, alpha: alpha, beta: beta, fusable: true}
}

// tableKernel computes act with the table's own functions, for every
// float dtype: the op and its fused forms are one definition. float32 rows
// go through kernels.Activate, the fused epilogues' own loop (vectorised
// for the piecewise-linear activations, bit for bit the table's values).
func tableKernel(name string, act kernels.Act, alpha, beta float32) activationKernel {
	f := floatFn{
		func(x float32) float32 { return act.F32(x, alpha, beta) },
		func(x float64) float64 { return act.F64(x, alpha, beta) },
	}
	vec := func(dst, src []float32) {
		dst = dst[:len(src)]
		copy(dst, src)
		kernels.Activate(dst, act, alpha, beta)
	}
	return declare(floatKernelVec(name, f, vec, nil), act, alpha, beta)
}

// tableBuilder builds tableKernel for an activation without attributes.
func tableBuilder(name string, act kernels.Act) op.Builder {
	return func(*op.Node) (any, error) { return tableKernel(name, act, 0, 0), nil }
}
