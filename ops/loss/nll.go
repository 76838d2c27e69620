package loss

import (
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// NegativeLogLikelihoodLoss versions differ only in the float types allowed
// (13 adds bfloat16, 22 restates it), so one kernel serves all three.
func init() {
	op.Register("NegativeLogLikelihoodLoss", []int{12, 13, 22}, buildNLL)
	shapes.Register("", "NegativeLogLikelihoodLoss", shapes.Loss)
}

// lossAttrs are the attributes both loss operators share.
type lossAttrs struct {
	reduction string
	ignore    int64
	hasIgnore bool
}

func parseLossAttrs(n *op.Node) (*lossAttrs, error) {
	a := &op.Attribs{N: n}
	la := &lossAttrs{reduction: a.String("reduction", "mean"), ignore: a.Int("ignore_index", 0), hasIgnore: n.Has("ignore_index")}
	if a.Err != nil {
		return nil, a.Err
	}
	switch la.reduction {
	case "none", "sum", "mean":
	default:
		return nil, n.Errorf("reduction must be none, sum or mean, got %q", la.reduction)
	}
	return la, nil
}

func buildNLL(n *op.Node) (any, error) {
	la, err := parseLossAttrs(n)
	if err != nil {
		return nil, err
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 2 || in[0] == nil || in[1] == nil {
			return nil, op.Errorf("NegativeLogLikelihoodLoss needs input and target")
		}
		var w *tensor.Tensor
		if len(in) > 2 {
			w = in[2]
		}
		x := in[0]
		if !isFloat(x.DType()) {
			return nil, op.Errorf("input must be a float tensor, got %s", x.DType())
		}
		logp, err := x.Float64s()
		if err != nil {
			return nil, op.Errorf("input: %v", err)
		}
		out, err := la.reduce(ctx, x.DType(), x.Shape(), logp, in[1], w)
		if err != nil {
			return nil, err
		}
		return ctx.One(out), nil
	}), nil
}

func isFloat(dt tensor.DType) bool { return dt.IsFloat() || dt == tensor.Double }

// reduce computes the (weighted) negative log likelihood of logp, shaped
// (N, C, d1..dk), at the classes in target, shaped (N, d1..dk), and applies
// the reduction. The result has dtype dt.
func (la *lossAttrs) reduce(ctx *op.Context, dt tensor.DType, shape []int, logp []float64, target, weight *tensor.Tensor) (*tensor.Tensor, error) {
	if len(shape) < 2 {
		return nil, op.Errorf("input must have shape (N, C, d1, ..., dk), got %v", shape)
	}
	n, c := shape[0], shape[1]
	inner := 1
	for _, d := range shape[2:] {
		inner *= d
	}
	ts := target.Shape()
	if len(ts) != len(shape)-1 || ts[0] != n || !equal(ts[1:], shape[2:]) {
		return nil, op.Errorf("target shape %v does not match input shape %v", ts, shape)
	}
	if target.DType() != tensor.Int32 && target.DType() != tensor.Int64 {
		return nil, op.Errorf("target must be int32 or int64, got %s", target.DType())
	}
	labels, err := target.Int64s()
	if err != nil {
		return nil, op.Errorf("target: %v", err)
	}
	var w []float64
	if weight != nil {
		if weight.Rank() != 1 || weight.Shape()[0] != c || !isFloat(weight.DType()) {
			return nil, op.Errorf("weight must be a float tensor of shape [%d], got %s%v", c, weight.DType(), weight.Shape())
		}
		w, _ = weight.Float64s()
	}
	loss := make([]float64, len(labels))
	var sum, wsum float64
	for i, lab := range labels {
		if la.hasIgnore && lab == la.ignore {
			continue // loss 0, weight 0
		}
		if lab < 0 || lab >= int64(c) {
			return nil, op.Errorf("target value %d is outside [0, %d)", lab, c)
		}
		b, r := i/inner, i%inner
		wt := 1.0
		if w != nil {
			wt = w[lab]
		}
		loss[i] = -logp[(b*c+int(lab))*inner+r] * wt
		sum += loss[i]
		wsum += wt
	}
	var out *tensor.Tensor
	switch la.reduction {
	case "none":
		out = ctx.New(dt, ts...)
		setFloats(out, loss)
	case "sum":
		out = ctx.New(dt)
		setFloats(out, []float64{sum})
	default:
		// mean divides by the total weight of the samples that count, which
		// without weights is their number (ignored samples excluded); when
		// nothing counts this is 0/0, NaN, as in PyTorch.
		out = ctx.New(dt)
		setFloats(out, []float64{sum / wsum})
	}
	return out, nil
}

func setFloats(t *tensor.Tensor, v []float64) {
	switch d := t.Data().(type) {
	case []float32:
		for i, x := range v {
			d[i] = float32(x)
		}
	case []float64:
		copy(d, v)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
