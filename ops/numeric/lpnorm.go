package numeric

import (
	"math"

	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("LpNormalization", []int{1, 22}, buildLpNorm)
	shapes.Register("", "LpNormalization", shapes.SameAsInput0)
}

// buildLpNorm divides each vector along axis by its L1 or L2 norm. A zero
// vector stays zero rather than becoming NaN (what onnxruntime does; the
// reference would divide by zero). Version 22 only widened the types.
func buildLpNorm(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	axis := a.Int("axis", -1)
	p := a.Int("p", 2)
	if a.Err != nil {
		return nil, a.Err
	}
	if p != 1 && p != 2 {
		return nil, n.Errorf("p must be 1 or 2, got %d", p)
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil || !isReal(in[0]) {
			return nil, op.Errorf("LpNormalization needs a float input")
		}
		x := in[0]
		if x.Rank() == 0 {
			return nil, op.Errorf("LpNormalization needs an input of rank >= 1")
		}
		ax, err := opsutil.NormAxis(axis, x.Rank())
		if err != nil {
			return nil, err
		}
		sh := x.Shape()
		outer, dim, inner := opsutil.Product(sh[:ax]), sh[ax], opsutil.Product(sh[ax+1:])
		xs, _ := x.Float64s()
		res := make([]float64, len(xs))
		for o := 0; o < outer; o++ {
			for i := 0; i < inner; i++ {
				norm := 0.0
				for j := 0; j < dim; j++ {
					v := xs[(o*dim+j)*inner+i]
					if p == 1 {
						norm += math.Abs(v)
					} else {
						norm += v * v
					}
				}
				if p == 2 {
					norm = math.Sqrt(norm)
				}
				for j := 0; j < dim; j++ {
					q := (o*dim+j)*inner + i
					if norm != 0 {
						res[q] = xs[q] / norm
					}
				}
			}
		}
		out := ctx.New(x.DType(), sh...)
		if d, ok := out.Data().([]float64); ok {
			copy(d, res)
		} else {
			d := out.F32()
			for i, v := range res {
				d[i] = float32(v)
			}
		}
		return ctx.One(out), nil
	}), nil
}
