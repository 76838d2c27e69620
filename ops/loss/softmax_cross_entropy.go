package loss

import (
	"math"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// SoftmaxCrossEntropyLoss is log-softmax over the class axis (axis 1)
// followed by NegativeLogLikelihoodLoss; 13 only adds bfloat16.
func init() {
	op.Register("SoftmaxCrossEntropyLoss", []int{12, 13}, buildSCE)
	shapes.Register("", "SoftmaxCrossEntropyLoss", shapes.Loss)
}

func buildSCE(n *op.Node) (any, error) {
	la, err := parseLossAttrs(n)
	if err != nil {
		return nil, err
	}
	wantLogProb := n.HasOutput(1)
	nOut := len(n.Outputs)
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 2 || in[0] == nil || in[1] == nil {
			return nil, op.Errorf("SoftmaxCrossEntropyLoss needs scores and labels")
		}
		var w *tensor.Tensor
		if len(in) > 2 {
			w = in[2]
		}
		x := in[0]
		if !isFloat(x.DType()) {
			return nil, op.Errorf("scores must be a float tensor, got %s", x.DType())
		}
		if x.Rank() < 2 {
			return nil, op.Errorf("scores must have shape (N, C, d1, ..., dk), got %v", x.Shape())
		}
		logp, err := x.Float64s()
		if err != nil {
			return nil, op.Errorf("scores: %v", err)
		}
		logSoftmax(logp, x.Shape())
		loss, err := la.reduce(ctx, x.DType(), x.Shape(), logp, in[1], w)
		if err != nil {
			return nil, err
		}
		out := make([]*tensor.Tensor, nOut)
		out[0] = loss
		if nOut > 1 && wantLogProb {
			lp := ctx.New(x.DType(), x.Shape()...)
			setFloats(lp, logp)
			out[1] = lp
		}
		return out, nil
	}), nil
}

// logSoftmax replaces v, shaped (N, C, d1..dk), by its log-softmax over C,
// computed as x - max - log(sum(exp(x - max))) to stay finite for large x.
func logSoftmax(v []float64, shape []int) {
	n, c := shape[0], shape[1]
	inner := 1
	for _, d := range shape[2:] {
		inner *= d
	}
	for b := 0; b < n; b++ {
		for r := 0; r < inner; r++ {
			base := b*c*inner + r
			m := math.Inf(-1)
			for j := 0; j < c; j++ {
				m = math.Max(m, v[base+j*inner])
			}
			var s float64
			for j := 0; j < c; j++ {
				s += math.Exp(v[base+j*inner] - m)
			}
			ls := m + math.Log(s)
			for j := 0; j < c; j++ {
				v[base+j*inner] -= ls
			}
		}
	}
}
