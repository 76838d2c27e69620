package training

import (
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Default.Register(Domain, "Adagrad", []int{1}, buildAdagrad)
}

// buildAdagrad: the learning rate decays as R/(1+T·decay_factor); the L2
// penalty norm_coefficient·X joins the gradient; the accumulated squared
// gradient H scales each step. Inputs R, T, X…, G…, H…; outputs X_new…, H_new….
func buildAdagrad(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	decay := float64(a.Float("decay_factor", 0))
	eps := float64(a.Float("epsilon", 0))
	norm := float64(a.Float("norm_coefficient", 0))
	if a.Err != nil {
		return nil, a.Err
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		r, t, k, err := stepInputs("Adagrad", in, 3)
		if err != nil {
			return nil, err
		}
		rate := r / (1 + float64(t)*decay)
		outs := make([]*tensor.Tensor, 2*k)
		for i := 0; i < k; i++ {
			x, g, h := vals(in[2+i]), vals(in[2+k+i]), vals(in[2+2*k+i])
			xn, hn := make([]float64, len(x)), make([]float64, len(x))
			for j := range x {
				gr := norm*x[j] + g[j]
				hn[j] = h[j] + gr*gr
				xn[j] = x[j] - rate*gr/(sqrt(hn[j])+eps)
			}
			outs[i] = result(ctx, in[2+i], xn)
			outs[k+i] = result(ctx, in[2+2*k+i], hn)
		}
		return outs, nil
	}), nil
}
