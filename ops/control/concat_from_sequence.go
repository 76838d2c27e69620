package control

import (
	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() { op.Register("ConcatFromSequence", []int{11}, buildConcatFromSequence) }

func buildConcatFromSequence(n *op.Node) (any, error) {
	if !n.Has("axis") {
		return nil, n.Errorf("ConcatFromSequence needs the axis attribute")
	}
	a := &op.Attribs{N: n}
	axis := a.Int("axis", 0)
	newAxis := a.Int("new_axis", 0)
	if a.Err != nil {
		return nil, a.Err
	}
	if newAxis != 0 && newAxis != 1 {
		return nil, n.Errorf("new_axis must be 0 or 1, got %d", newAxis)
	}
	return valueKernel(func(ctx *op.Context, in []tensor.Value) ([]tensor.Value, error) {
		if len(in) < 1 {
			return nil, op.Errorf("ConcatFromSequence needs a sequence")
		}
		seq, err := asSequence(in[0], "input_sequence")
		if err != nil {
			return nil, err
		}
		if len(seq.Items) == 0 {
			return nil, op.Errorf("cannot concatenate an empty sequence: the result's shape is unknown")
		}
		rank := seq.Items[0].Rank()
		if newAxis == 1 {
			// Stacking: the new axis may also come after the last one.
			ax, err := opsutil.NormAxis(axis, rank+1)
			if err != nil {
				return nil, err
			}
			t, err := stack(ctx, seq.Items, ax, nil)
			if err != nil {
				return nil, err
			}
			return []tensor.Value{t}, nil
		}
		ax, err := opsutil.NormAxis(axis, rank)
		if err != nil {
			return nil, err
		}
		t, err := concat(ctx, seq.Items, ax)
		if err != nil {
			return nil, err
		}
		return []tensor.Value{t}, nil
	}), nil
}
