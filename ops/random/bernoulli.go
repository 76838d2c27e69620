package random

import (
	"math/rand/v2"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("Bernoulli", []int{15, 22}, buildBernoulli)
	shapes.NoFold("", "Bernoulli", nil)
	shapes.Register("", "Bernoulli", shapes.SameAsInput0)
}

// buildBernoulli draws 1 with probability p for each input element p. The
// dtype attribute picks the output type (default: the input's). Version 22
// only widened the types.
func buildBernoulli(n *op.Node) (any, error) {
	src, err := newSource(n)
	if err != nil {
		return nil, err
	}
	dtv, err := n.Int("dtype", 0)
	if err != nil {
		return nil, err
	}
	dt := tensor.DType(dtv)
	if n.Has("dtype") && (!dt.Valid() || dt == tensor.String || dt.IsCodeType()) {
		return nil, n.Errorf("dtype %d is not a numeric or bool type", dtv)
	}
	return op.Random(op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil || !(in[0].DType().IsFloat() || in[0].DType() == tensor.Double) {
			return nil, op.Errorf("Bernoulli needs float probabilities")
		}
		x := in[0]
		odt := dt
		if !n.Has("dtype") {
			odt = x.DType()
		}
		p, _ := x.Float64s()
		for _, q := range p {
			if !(q >= 0 && q <= 1) {
				return nil, op.Errorf("Bernoulli probability %v is outside [0, 1]", q)
			}
		}
		u := make([]float64, len(p))
		src.draw(u, (*rand.Rand).Float64)
		for i := range u {
			if u[i] < p[i] {
				u[i] = 1
			} else {
				u[i] = 0
			}
		}
		out := ctx.New(odt, x.Shape()...)
		if err := fill(out, u); err != nil {
			return nil, err
		}
		return ctx.One(out), nil
	})), nil
}
