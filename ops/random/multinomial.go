package random

import (
	"math"
	"math/rand/v2"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("Multinomial", []int{7, 22}, buildMultinomial)
	shapes.NoFold("", "Multinomial", nil)
}

// buildMultinomial draws sample_size class indices per batch row from the
// categorical distribution whose unnormalised log-probabilities the row
// holds. The output is int32 (default) or int64. Version 22 only widened the
// input types.
func buildMultinomial(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	dt := tensor.DType(a.Int("dtype", int64(tensor.Int32)))
	samples := a.Int("sample_size", 1)
	if a.Err != nil {
		return nil, a.Err
	}
	if dt != tensor.Int32 && dt != tensor.Int64 {
		return nil, n.Errorf("dtype must be int32 or int64, got %s", dt)
	}
	if samples < 1 {
		return nil, n.Errorf("sample_size must be positive, got %d", samples)
	}
	src, err := newSource(n)
	if err != nil {
		return nil, err
	}
	return op.Random(op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil || in[0].Rank() != 2 || !(in[0].DType().IsFloat() || in[0].DType() == tensor.Double) {
			return nil, op.Errorf("Multinomial needs float log-probabilities [batch, classes]")
		}
		x := in[0]
		batch, classes := x.Shape()[0], x.Shape()[1]
		if classes == 0 {
			return nil, op.Errorf("Multinomial needs at least one class")
		}
		out := ctx.New(dt, batch, int(samples))
		lp, _ := x.Float64s()
		cdf := make([]float64, classes)
		u := make([]float64, samples)
		res := make([]float64, batch*int(samples))
		for b := 0; b < batch; b++ {
			row := lp[b*classes : (b+1)*classes]
			m := math.Inf(-1)
			for _, v := range row {
				m = math.Max(m, v)
			}
			acc := 0.0
			for i, v := range row {
				acc += math.Exp(v - m)
				cdf[i] = acc
			}
			src.draw(u, (*rand.Rand).Float64)
			for s, r := range u {
				target := r * acc
				k := 0
				for k < classes-1 && cdf[k] <= target {
					k++
				}
				res[b*int(samples)+s] = float64(k)
			}
		}
		if err := fill(out, res); err != nil {
			return nil, err
		}
		return ctx.One(out), nil
	})), nil
}
