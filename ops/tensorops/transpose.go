package tensorops

import (
	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("Transpose", []int{1, 13, 21, 23, 24, 25}, buildTranspose)
}

// buildTranspose permutes dims (reversing them when perm is absent). The copy
// walks the output contiguously and reads the input through permuted strides
// (see stridedCopy), after merging input dims that stay adjacent and in
// order, so NCHW↔NHWC and similar 4-D layouts copy whole rows at a time.
func buildTranspose(n *op.Node) (any, error) {
	perm, hasPerm, err := n.Ints("perm")
	if err != nil {
		return nil, err
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil {
			return nil, op.Errorf("Transpose needs an input")
		}
		x := in[0]
		r := x.Rank()
		p := make([]int, r)
		if hasPerm {
			if len(perm) != r {
				return nil, op.Errorf("perm %v does not match rank %d", perm, r)
			}
			ax, err := opsutil.NormAxes(perm, r)
			if err != nil {
				return nil, op.Errorf("perm %v is not a permutation of rank %d", perm, r)
			}
			p = ax
		} else {
			for i := range p {
				p[i] = r - 1 - i
			}
		}
		return one(transpose(ctx, x, p)), nil
	}), nil
}

// transpose returns x with dims permuted by p.
func transpose(ctx *op.Context, x *tensor.Tensor, p []int) *tensor.Tensor {
	sh := x.Shape()
	outShape := make([]int, len(p))
	for i, a := range p {
		outShape[i] = sh[a]
	}
	identity := true
	for i, a := range p {
		if i != a {
			identity = false
		}
	}
	if identity {
		return x
	}
	// Merge runs of output dims that are consecutive input dims; drop size-1 dims.
	st := strides(sh)
	var mShape, mStride []int
	for i, a := range p {
		d := sh[a]
		if d == 1 {
			continue
		}
		if k := len(mShape) - 1; k >= 0 && i > 0 && mStride[k] == st[a]*d {
			mShape[k] *= d
			mStride[k] = st[a]
			continue
		}
		mShape = append(mShape, d)
		mStride = append(mStride, st[a])
	}
	out := ctx.New(x.DType(), outShape...)
	mv := moverFor(x.Data())
	if last := len(mShape) - 1; last > 0 && mStride[last] != 1 && mShape[last] >= 4 {
		for j, st := range mStride {
			if st == 1 && mShape[j] >= 4 && out.Len() > 0 {
				mv.tiled(out.Data(), x.Data(), mShape, mStride, j)
				return out
			}
		}
	}
	mv.strided(out.Data(), x.Data(), mShape, 0, mStride)
	return out
}
