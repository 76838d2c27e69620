package spatial

import (
	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("MaxUnpool", []int{9, 11, 22}, buildMaxUnpool)
}

// buildMaxUnpool places each value of X at the position its index names,
// zeros elsewhere. Indices are MaxPool's: flat over [N, C, spatial] of the
// unpooled shape implied by kernel, strides and pads. When output_shape asks
// for a different (larger) shape, an index keeps its coordinates rather than
// its flat offset, which is how MaxPool's indices relate to the original
// input that output_shape recovers. Versions differ only in types.
func buildMaxUnpool(n *op.Node) (any, error) {
	ks, ok, err := n.Ints("kernel_shape")
	if err != nil {
		return nil, err
	}
	if !ok || len(ks) == 0 {
		return nil, n.Errorf("MaxUnpool needs kernel_shape")
	}
	nd := len(ks)
	str, err := intsOr(n, "strides", nd, 1)
	if err != nil {
		return nil, n.Errorf("%v", err)
	}
	pads, err := intsOr(n, "pads", 2*nd, 0)
	if err != nil {
		return nil, n.Errorf("%v", err)
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 2 || in[0] == nil || in[1] == nil {
			return nil, op.Errorf("MaxUnpool needs X and I")
		}
		x := in[0]
		sh := x.Shape()
		if len(sh) != nd+2 {
			return nil, op.Errorf("MaxUnpool X must have rank %d, got %v", nd+2, sh)
		}
		idx, err := in[1].Int64s()
		if err != nil || len(idx) != x.Len() {
			return nil, op.Errorf("MaxUnpool I must be integers shaped like X")
		}
		def := append([]int(nil), sh[:2]...)
		for i := 0; i < nd; i++ {
			def = append(def, (sh[2+i]-1)*str[i]-pads[i]-pads[nd+i]+int(ks[i]))
		}
		osh := def
		if len(in) > 2 && in[2] != nil {
			v, err := in[2].Int64s()
			if err != nil || len(v) != nd+2 {
				return nil, op.Errorf("MaxUnpool output_shape must list %d dims", nd+2)
			}
			osh = make([]int, nd+2)
			for i, d := range v {
				osh[i] = int(d)
				if osh[i] < def[i] && i >= 2 || i < 2 && osh[i] != sh[i] {
					return nil, op.Errorf("MaxUnpool output_shape %v is smaller than the unpooled shape %v", v, def)
				}
			}
		}
		for _, d := range def {
			if d < 0 {
				return nil, op.Errorf("MaxUnpool: negative unpooled shape %v", def)
			}
		}
		out := ctx.New(x.DType(), osh...)
		total := opsutil.Product(def)
		coord := make([]int, nd+2)
		for i, p := range idx {
			if p < 0 || p >= int64(total) {
				return nil, op.Errorf("MaxUnpool index %d is out of range [0, %d)", p, total)
			}
			unravel(int(p), def, coord)
			o := 0
			for d := range coord {
				o = o*osh[d] + coord[d]
			}
			tensor.SetFrom(out, o, x, i)
		}
		return ctx.One(out), nil
	}), nil
}
