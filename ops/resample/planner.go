package resample

import (
	"github.com/gort-dev/gort/runtime/tensor"
)

// Planner is a parsed Resize or Upsample node, which the CPU kernel
// exposes (op.AttrsKernel) so that another backend (the WebGPU kernel of
// ops/webgpu) samples with the very per-axis plans of the CPU kernel
// instead of a second copy of the coordinate rules.
type Planner struct{ r *resizer }

// Options are the node's sampling options.
func (p *Planner) Options() Options { return p.r.opt }

// Extrapolation is extrapolation_value (tf_crop_and_resize).
func (p *Planner) Extrapolation() float64 { return p.r.extrap }

// Plans returns the output shape and the per-axis plans (nil for an axis
// copied unchanged) for an input of shape x; in are the node's inputs,
// of which only roi, scales and sizes are read (in[0] may be nil).
func (p *Planner) Plans(x []int, in []*tensor.Tensor) ([]int, []*AxisPlan, error) {
	specs, err := p.r.specs(x, in)
	if err != nil {
		return nil, nil, err
	}
	out := make([]int, len(specs))
	for d, s := range specs {
		out[d] = s.Out
	}
	plans, err := planAll(specs, p.r.opt)
	return out, plans, err
}
