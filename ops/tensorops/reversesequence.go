package tensorops

import (
	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("ReverseSequence", []int{10}, buildReverseSequence)
	shapes.Register("", "ReverseSequence", shapes.SameAsInput0)
}

// buildReverseSequence reverses, for each batch entry b, the first
// sequence_lens[b] steps along the time axis; later steps are copied as is.
// batch_axis and time_axis are 0 and 1 in either order.
func buildReverseSequence(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	batchAxis := a.Int("batch_axis", 1)
	timeAxis := a.Int("time_axis", 0)
	if a.Err != nil {
		return nil, a.Err
	}
	if !(batchAxis == 0 && timeAxis == 1 || batchAxis == 1 && timeAxis == 0) {
		return nil, n.Errorf("batch_axis %d and time_axis %d must be 0 and 1", batchAxis, timeAxis)
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 2 || in[0] == nil || in[1] == nil {
			return nil, op.Errorf("ReverseSequence needs input and sequence_lens")
		}
		x := in[0]
		if x.Rank() < 2 {
			return nil, op.Errorf("input must have rank >= 2, got %v", x.Shape())
		}
		lens, err := ints64(in[1], "sequence_lens")
		if err != nil {
			return nil, err
		}
		sh := x.Shape()
		batch, steps := sh[batchAxis], sh[timeAxis]
		if len(lens) != batch {
			return nil, op.Errorf("sequence_lens has %d entries for batch size %d", len(lens), batch)
		}
		inner := opsutil.Product(sh[2:])
		out := ctx.New(x.DType(), sh...)
		if inner == 0 {
			return ctx.One(out), nil
		}
		// offset of (batch b, time t)
		at := func(b, t int) int {
			if batchAxis == 0 {
				return (b*steps + t) * inner
			}
			return (t*batch + b) * inner
		}
		mv := moverFor(x.Data())
		for b, l := range lens {
			if l < 0 || l > int64(steps) {
				return nil, op.Errorf("sequence length %d is out of range [0, %d]", l, steps)
			}
			for t := 0; t < steps; t++ {
				src := t
				if t < int(l) {
					src = int(l) - 1 - t
				}
				mv.copyRange(out.Data(), at(b, t), x.Data(), at(b, src), inner)
			}
		}
		return ctx.One(out), nil
	}), nil
}
