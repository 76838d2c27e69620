package training

import (
	"math"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Default.Register(Domain, "Adam", []int{1}, buildAdam)
}

// buildAdam: exponential averages of the gradient (V, rate alpha) and of its
// square (H, rate beta), with the bias correction folded into the learning
// rate once T > 0. norm_coefficient adds an L2 penalty to the gradient;
// norm_coefficient_post shrinks the updated weights (decoupled weight decay).
// Inputs R, T, X…, G…, V…, H…; outputs X_new…, V_new…, H_new….
func buildAdam(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	alpha := float64(a.Float("alpha", 0.9))
	beta := float64(a.Float("beta", 0.999))
	eps := float64(a.Float("epsilon", 1e-6))
	norm := float64(a.Float("norm_coefficient", 0))
	post := float64(a.Float("norm_coefficient_post", 0))
	if a.Err != nil {
		return nil, a.Err
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		r, t, k, err := stepInputs("Adam", in, 4)
		if err != nil {
			return nil, err
		}
		rate := r
		if t > 0 {
			tf := float64(t)
			rate = r * math.Sqrt(1-math.Pow(beta, tf)) / (1 - math.Pow(alpha, tf))
		}
		outs := make([]*tensor.Tensor, 3*k)
		for i := 0; i < k; i++ {
			x, g := vals(in[2+i]), vals(in[2+k+i])
			v, h := vals(in[2+2*k+i]), vals(in[2+3*k+i])
			xn, vn, hn := make([]float64, len(x)), make([]float64, len(x)), make([]float64, len(x))
			for j := range x {
				gr := norm*x[j] + g[j]
				vn[j] = alpha*v[j] + (1-alpha)*gr
				hn[j] = beta*h[j] + (1-beta)*gr*gr
				xn[j] = (1 - post) * (x[j] - rate*vn[j]/(math.Sqrt(hn[j])+eps))
			}
			outs[i] = result(ctx, in[2+i], xn)
			outs[k+i] = result(ctx, in[2+2*k+i], vn)
			outs[2*k+i] = result(ctx, in[2+3*k+i], hn)
		}
		return outs, nil
	}), nil
}
