package tensorops

import (
	"slices"
	"sync/atomic"

	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("Transpose", []int{1, 13, 21, 23, 24, 25}, buildTranspose)
	shapes.Register("", "Transpose", inferTranspose)
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
	// The plan for the last input shape, reused while it stays the same.
	var last atomic.Pointer[transposePlan]
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil {
			return nil, op.Errorf("Transpose needs an input")
		}
		x := in[0]
		if pl := last.Load(); pl != nil && slices.Equal(pl.in, x.Shape()) {
			return ctx.One(pl.run(ctx, x)), nil
		}
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
		pl := planTranspose(x.Shape(), p)
		last.Store(pl)
		return ctx.One(pl.run(ctx, x)), nil
	}), nil
}

// transposePlan is how a Transpose of one input shape copies: the output
// shape, and the input's dims merged where they stay adjacent and in order
// (size-1 dims dropped), with their strides.
type transposePlan struct {
	in, out         []int
	identity        bool
	mShape, mStride []int
	tiledAxis       int // the merged dim read contiguously when the copy goes by tiles, or -1
}

func planTranspose(sh, p []int) *transposePlan {
	pl := &transposePlan{in: slices.Clone(sh), out: make([]int, len(p)), identity: true, tiledAxis: -1}
	for i, a := range p {
		pl.out[i] = sh[a]
		if i != a {
			pl.identity = false
		}
	}
	st := strides(sh)
	for i, a := range p {
		d := sh[a]
		if d == 1 {
			continue
		}
		if k := len(pl.mShape) - 1; k >= 0 && i > 0 && pl.mStride[k] == st[a]*d {
			pl.mShape[k] *= d
			pl.mStride[k] = st[a]
			continue
		}
		pl.mShape = append(pl.mShape, d)
		pl.mStride = append(pl.mStride, st[a])
	}
	if last := len(pl.mShape) - 1; last > 0 && pl.mStride[last] != 1 && pl.mShape[last] >= 4 {
		for j, st := range pl.mStride {
			if st == 1 && pl.mShape[j] >= 4 {
				pl.tiledAxis = j
				break
			}
		}
	}
	return pl
}

// run returns x (of shape pl.in) with its dims permuted.
func (pl *transposePlan) run(ctx *op.Context, x *tensor.Tensor) *tensor.Tensor {
	if pl.identity {
		return x
	}
	out := ctx.New(x.DType(), pl.out...)
	mv := moverFor(x.Data())
	if pl.tiledAxis >= 0 && out.Len() > 0 {
		mv.tiled(out.Data(), x.Data(), pl.mShape, pl.mStride, pl.tiledAxis)
		return out
	}
	mv.strided(out.Data(), x.Data(), pl.mShape, 0, pl.mStride)
	return out
}

func inferTranspose(c *shapes.Ctx) {
	in := c.Shape(0)
	if in == nil {
		c.Set(0, nil, "")
		return
	}
	perm, ok := c.AttrInts("perm")
	if !ok {
		for i := len(in) - 1; i >= 0; i-- {
			perm = append(perm, int64(i))
		}
	}
	if len(perm) != len(in) {
		c.Problem("RANK", "perm %v has %d entries for an input of rank %d", perm, len(perm), len(in))
		return
	}
	out := make([]graph.Dim, len(in))
	for i, p := range perm {
		a, ok := c.Axis(p, len(in))
		if !ok {
			return
		}
		out[i] = in[a]
	}
	c.Set(0, out, "")
}
