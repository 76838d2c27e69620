package attention

import (
	"slices"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// SwiGLU-28: Y = A * sigmoid(alpha*A) * B. The spec forbids broadcasting, so
// mismatched shapes are an error rather than something to broadcast.
func init() { op.Register("SwiGLU", []int{28}, buildSwiGLU) }

func buildSwiGLU(n *op.Node) (any, error) {
	alpha, err := n.Float("alpha", 1)
	if err != nil {
		return nil, err
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 2 || in[0] == nil || in[1] == nil {
			return nil, op.Errorf("SwiGLU needs inputs A and B")
		}
		a, b := in[0], in[1]
		if err := checkFloat("SwiGLU", a, b); err != nil {
			return nil, err
		}
		if a.DType() != b.DType() || !slices.Equal(a.Shape(), b.Shape()) {
			return nil, op.Errorf("SwiGLU inputs must have the same dtype and shape, got %s%v and %s%v", a.DType(), a.Shape(), b.DType(), b.Shape())
		}
		out := ctx.New(a.DType(), a.Shape()...)
		if a.DType() == tensor.Double {
			swiglu(out.F64(), a.F64(), b.F64(), float64(alpha))
		} else {
			swiglu(out.F32(), a.F32(), b.F32(), float64(alpha))
		}
		return ctx.One(out), nil
	}), nil
}

func swiglu[E real](y, a, b []E, alpha float64) {
	for i, x := range a {
		g := float64(x)
		y[i] = E(g * sigmoid(alpha*g) * float64(b[i]))
	}
}
