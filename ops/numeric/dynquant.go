package numeric

import (
	"math"

	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("DynamicQuantizeLinear", []int{11}, buildDynQuant)
	shapes.Register("", "DynamicQuantizeLinear", inferDynQuant)
}

// buildDynQuant quantises float32 to uint8 with a scale and zero point
// chosen from the data range widened to include 0 (so 0 is exact). Steps run
// in float32 with round-half-to-even, as the spec's function body does, so
// results match it bit for bit.
func buildDynQuant(n *op.Node) (any, error) {
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil || in[0].DType() != tensor.Float {
			return nil, op.Errorf("DynamicQuantizeLinear needs a float32 input")
		}
		x := in[0]
		xs := x.F32()
		lo, hi := float32(0), float32(0)
		for _, v := range xs {
			if v != v {
				return nil, op.Errorf("DynamicQuantizeLinear input contains NaN")
			}
			lo, hi = min(lo, v), max(hi, v)
		}
		scale := (hi - lo) / 255
		zp := float32(0)
		if scale != 0 {
			zp = clamp255(round32(clampF(0-lo/scale, 0, 255)))
		}
		y := ctx.New(tensor.Uint8, x.Shape()...)
		ys := tensor.Data[uint8](y)
		if scale != 0 {
			for i, v := range xs {
				ys[i] = uint8(clamp255(round32(v/scale) + zp))
			}
		}
		return []*tensor.Tensor{y, tensor.Scalar(scale), tensor.Scalar(uint8(zp))}, nil
	}), nil
}

func round32(v float32) float32 { return float32(math.RoundToEven(float64(v))) }

func clampF(v, lo, hi float32) float32 { return min(max(v, lo), hi) }

func clamp255(v float32) float32 { return clampF(v, 0, 255) }

// inferDynQuant: y has x's shape; the scale and zero point are scalars.
func inferDynQuant(c *shapes.Ctx) {
	c.Set(0, c.Shape(0), "")
	c.Set(1, []graph.Dim{}, "")
	c.Set(2, []graph.Dim{}, "")
}
