package training

import (
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Default.Register(Domain, "Momentum", []int{1}, buildMomentum)
}

// buildMomentum: V accumulates the (L2-regularised) gradient with decay
// alpha; beta scales the gradient except on the first step (T = 0), where it
// is 1 so the velocity starts at the gradient. "nesterov" looks ahead by
// stepping along G + alpha·V_new instead of V_new.
// Inputs R, T, X…, G…, V…; outputs X_new…, V_new….
func buildMomentum(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	alpha := float64(a.Float("alpha", 0))
	beta := float64(a.Float("beta", 0))
	norm := float64(a.Float("norm_coefficient", 0))
	mode := a.String("mode", "")
	if a.Err != nil {
		return nil, a.Err
	}
	if mode != "standard" && mode != "nesterov" {
		return nil, n.Errorf("mode must be standard or nesterov, got %q", mode)
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		r, t, k, err := stepInputs("Momentum", in, 3)
		if err != nil {
			return nil, err
		}
		b := beta
		if t == 0 {
			b = 1
		}
		outs := make([]*tensor.Tensor, 2*k)
		for i := 0; i < k; i++ {
			x, g, v := vals(in[2+i]), vals(in[2+k+i]), vals(in[2+2*k+i])
			xn, vn := make([]float64, len(x)), make([]float64, len(x))
			for j := range x {
				gr := norm*x[j] + g[j]
				vn[j] = alpha*v[j] + b*gr
				if mode == "nesterov" {
					xn[j] = x[j] - r*(gr+alpha*vn[j])
				} else {
					xn[j] = x[j] - r*vn[j]
				}
			}
			outs[i] = result(ctx, in[2+i], xn)
			outs[k+i] = result(ctx, in[2+2*k+i], vn)
		}
		return outs, nil
	}), nil
}
