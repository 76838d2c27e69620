package random

import (
	"math/rand/v2"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("RandomUniform", []int{1, 22}, generator(false, uniform))
	shapes.NoFold("", "RandomUniform", nil)
	op.Register("RandomNormal", []int{1, 22}, generator(false, normal))
	shapes.NoFold("", "RandomNormal", nil)
	op.Register("RandomUniformLike", []int{1, 22}, generator(true, uniform))
	shapes.NoFold("", "RandomUniformLike", nil)
	shapes.Register("", "RandomUniformLike", shapes.SameAsInput0)
	op.Register("RandomNormalLike", []int{1, 22}, generator(true, normal))
	shapes.NoFold("", "RandomNormalLike", nil)
	shapes.Register("", "RandomNormalLike", shapes.SameAsInput0)
}

// A distribution reads its parameters from the node and returns a sampler.
type distribution func(a *op.Attribs) func(r *rand.Rand) float64

// uniform samples [low, high).
func uniform(a *op.Attribs) func(r *rand.Rand) float64 {
	lo, hi := float64(a.Float("low", 0)), float64(a.Float("high", 1))
	return func(r *rand.Rand) float64 { return lo + (hi-lo)*r.Float64() }
}

// normal samples N(mean, scale²).
func normal(a *op.Attribs) func(r *rand.Rand) float64 {
	mean, scale := float64(a.Float("mean", 0)), float64(a.Float("scale", 1))
	return func(r *rand.Rand) float64 { return mean + scale*r.NormFloat64() }
}

// generator builds RandomX (shape from the shape attribute, dtype default
// float) or RandomXLike (shape from the input, dtype default the input's).
// Versions 1 and 22 differ only in the types allowed.
func generator(like bool, dist distribution) op.Builder {
	return func(n *op.Node) (any, error) {
		a := &op.Attribs{N: n}
		sample := dist(a)
		shape := a.Ints("shape")
		if a.Err != nil {
			return nil, a.Err
		}
		src, err := newSource(n)
		if err != nil {
			return nil, err
		}
		var dt tensor.DType
		if !like || n.Has("dtype") {
			if dt, err = floatDType(n, tensor.Float); err != nil {
				return nil, err
			}
		}
		if !like && !n.Has("shape") {
			return nil, n.Errorf("%s needs a shape", n.OpType)
		}
		dims := make([]int, len(shape))
		for i, d := range shape {
			if d < 0 {
				return nil, n.Errorf("negative dim in shape %v", shape)
			}
			dims[i] = int(d)
		}
		return op.Random(op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
			odt, osh := dt, dims
			if like {
				if len(in) < 1 || in[0] == nil {
					return nil, op.Errorf("%s needs an input", n.OpType)
				}
				osh = in[0].Shape()
				if odt == tensor.Undefined {
					odt = in[0].DType()
					if !odt.IsFloat() && odt != tensor.Double {
						return nil, op.Errorf("%s: input type %s is not float; set dtype", n.OpType, odt)
					}
				}
			}
			out := ctx.New(odt, osh...)
			v := make([]float64, out.Len())
			src.draw(v, sample)
			if err := fill(out, v); err != nil {
				return nil, err
			}
			return ctx.One(out), nil
		})), nil
	}
}
