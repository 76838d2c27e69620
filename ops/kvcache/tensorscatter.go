package kvcache

import (
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("TensorScatter", []int{24}, buildTensorScatter)
}

// buildTensorScatter copies past_cache and overwrites, for each batch entry,
// the update's sequence_length slots along axis starting at that entry's
// write index (0 when write_indices is absent). "linear" mode requires the
// slots to fit; "circular" wraps them modulo max_sequence_length.
func buildTensorScatter(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	axis := a.Int("axis", -2)
	mode := a.String("mode", "linear")
	if a.Err != nil {
		return nil, a.Err
	}
	if mode != "linear" && mode != "circular" {
		return nil, n.Errorf("mode must be linear or circular, got %q", mode)
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 2 || in[0] == nil || in[1] == nil {
			return nil, op.Errorf("TensorScatter needs past_cache and update")
		}
		past, upd := in[0], in[1]
		r := past.Rank()
		ax := int(axis)
		if ax < 0 {
			ax += r
		}
		if ax < 1 || ax >= r {
			return nil, op.Errorf("TensorScatter axis %d is invalid for rank %d (0 is the batch)", axis, r)
		}
		ps, us := past.Shape(), upd.Shape()
		if upd.DType() != past.DType() || upd.Rank() != r {
			return nil, op.Errorf("update %s%v does not match past_cache %s%v", upd.DType(), us, past.DType(), ps)
		}
		for d := range ps {
			if d != ax && ps[d] != us[d] {
				return nil, op.Errorf("update %v differs from past_cache %v outside the sequence axis", us, ps)
			}
		}
		maxLen, seqLen := ps[ax], us[ax]
		if seqLen > maxLen {
			return nil, op.Errorf("update sequence length %d exceeds the cache's %d", seqLen, maxLen)
		}
		batch := ps[0]
		writes := make([]int64, batch)
		if len(in) > 2 && in[2] != nil {
			v, err := in[2].Int64s()
			if err != nil || len(v) != batch {
				return nil, op.Errorf("write_indices must hold %d integers", batch)
			}
			copy(writes, v)
		}
		for _, w := range writes {
			if w < 0 || mode == "linear" && w > int64(maxLen-seqLen) {
				return nil, op.Errorf("write index %d with %d updates does not fit a cache of %d", w, seqLen, maxLen)
			}
		}
		out := past.Clone()
		outer := 1 // per batch entry: product of dims between batch and axis
		for _, d := range ps[1:ax] {
			outer *= d
		}
		inner := 1
		for _, d := range ps[ax+1:] {
			inner *= d
		}
		for b := 0; b < batch; b++ {
			for o := 0; o < outer; o++ {
				for s := 0; s < seqLen; s++ {
					var dst int
					if mode == "circular" {
						dst = int((writes[b]%int64(maxLen) + int64(s)) % int64(maxLen))
					} else {
						dst = int(writes[b]) + s
					}
					src := ((b*outer+o)*seqLen + s) * inner
					dOff := ((b*outer+o)*maxLen + dst) * inner
					for i := 0; i < inner; i++ {
						tensor.SetFrom(out, dOff+i, upd, src+i)
					}
				}
			}
		}
		return ctx.One(out), nil
	}), nil
}
