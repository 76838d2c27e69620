package contrib

import (
	"github.com/gort-dev/gort/ops/kernels"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// BiasSplitGelu(X (B, S, D), bias (D)) → Y (B, S, D/2): with v = X + bias
// (rounded to X's type, as the other biased GELUs), the left half of each
// row times Gelu (erf form) of the right half: Y = v[:D/2] · Gelu(v[D/2:]).
// onnxruntime has it for CUDA only (Stable Diffusion's UNet); D must be
// even.
func init() {
	op.Default.Register(Domain, "BiasSplitGelu", []int{1}, buildBiasSplitGelu)
	shapes.Register(Domain, "BiasSplitGelu", inferBiasSplitGelu)
}

func buildBiasSplitGelu(n *op.Node) (any, error) {
	return op.KernelFunc(func(ctx *op.Context, ins []*tensor.Tensor) ([]*tensor.Tensor, error) {
		x, bias := in(ins, 0), in(ins, 1)
		if x == nil || bias == nil {
			return nil, op.Errorf("BiasSplitGelu needs X and bias")
		}
		if err := checkFloat("BiasSplitGelu", x, bias); err != nil {
			return nil, err
		}
		xs := x.Shape()
		if len(xs) != 3 || xs[2]%2 != 0 {
			return nil, op.Errorf("BiasSplitGelu: X must be (B, S, D) with D even, got %v", xs)
		}
		if err := checkVector("BiasSplitGelu", "bias", bias, xs[2]); err != nil {
			return nil, err
		}
		y := ctx.New(x.DType(), xs[0], xs[1], xs[2]/2)
		if x.DType() == tensor.Double {
			splitGelu(y.F64(), x.F64(), bias.F64(), func(v float64) float64 { return kernels.ActGelu.F64(v, 0, 0) })
		} else {
			splitGelu(y.F32(), x.F32(), bias.F32(), func(v float32) float32 { return kernels.ActGelu.F32(v, 0, 0) })
		}
		return ctx.One(y), nil
	}), nil
}

func splitGelu[T kernels.Float](y, x, bias []T, gelu func(T) T) {
	d := len(bias)
	h := d / 2
	for r := 0; r*d < len(x); r++ {
		xr, yr := x[r*d:(r+1)*d], y[r*h:(r+1)*h]
		for j := range yr {
			yr[j] = (xr[j] + bias[j]) * gelu(xr[h+j]+bias[h+j])
		}
	}
}

func inferBiasSplitGelu(c *shapes.Ctx) {
	if x := c.Input(0); x != nil && x.Type.Elem != 0 {
		c.SetElem(0, x.Type.Elem)
	}
	xs := c.Shape(0)
	if len(xs) != 3 {
		c.Set(0, nil, "X's rank is not 3")
		return
	}
	d := shapes.Unknown()
	if xs[2].Known() {
		d = shapes.Known(xs[2].Value / 2)
	}
	c.Set(0, []graph.Dim{xs[0], xs[1], d}, "")
}
