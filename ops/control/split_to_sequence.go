package control

import (
	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// SplitToSequence-24 only adds bfloat16, which shares float32 storage here.
func init() { op.Register("SplitToSequence", []int{11, 24}, buildSplitToSequence) }

func buildSplitToSequence(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	axis := a.Int("axis", 0)
	keepdims := a.Int("keepdims", 1) != 0
	if a.Err != nil {
		return nil, a.Err
	}
	return valueKernel(func(ctx *op.Context, in []tensor.Value) ([]tensor.Value, error) {
		if len(in) < 1 {
			return nil, op.Errorf("SplitToSequence needs an input")
		}
		x, err := asTensor(in[0], "input")
		if err != nil {
			return nil, err
		}
		ax, err := opsutil.NormAxis(axis, x.Rank())
		if err != nil {
			return nil, err
		}
		dim := x.Shape()[ax]
		var sizes []int
		squeeze := false
		if len(in) < 2 || in[1] == nil {
			// Default split of 1; only then does keepdims apply.
			sizes = make([]int, dim)
			for i := range sizes {
				sizes[i] = 1
			}
			squeeze = !keepdims
		} else {
			st, err := asTensor(in[1], "split")
			if err != nil {
				return nil, err
			}
			v, err := st.Int64s()
			if err != nil {
				return nil, op.Errorf("split: %v", err)
			}
			switch st.Rank() {
			case 0:
				s := v[0]
				if s <= 0 {
					return nil, op.Errorf("scalar split must be positive, got %d", s)
				}
				for left := dim; left > 0; left -= int(min(s, int64(left))) {
					sizes = append(sizes, int(min(s, int64(left))))
				}
			case 1:
				total := int64(0)
				for _, s := range v {
					if s < 0 {
						return nil, op.Errorf("split sizes must be ≥ 0, got %v", v)
					}
					total += s
					if total > int64(dim) {
						break
					}
					sizes = append(sizes, int(s))
				}
				if total != int64(dim) {
					return nil, op.Errorf("split sizes %v do not add up to the dimension %d of axis %d", v, dim, ax)
				}
			default:
				return nil, op.Errorf("split must be a scalar or 1-D, got shape %v", st.Shape())
			}
		}
		seq := &tensor.Sequence{Elem: x.DType(), Items: make([]*tensor.Tensor, len(sizes))}
		start := 0
		for i, s := range sizes {
			if squeeze {
				seq.Items[i] = sliceAt(ctx, x, ax, start)
			} else {
				seq.Items[i] = sliceRange(ctx, x, ax, start, s)
			}
			start += s
		}
		return []tensor.Value{seq}, nil
	}), nil
}
