package spatial

import (
	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("Col2Im", []int{18}, buildCol2Im)
}

// buildCol2Im scatters column blocks [N, C·∏block, L] back into an image
// [N, C, image_shape...], summing where blocks overlap (in float64, so
// integer sums are exact up to 2^53; the spec's string, bool and complex
// types are not supported). The blocks walk the
// padded image in row-major order of block positions, as im2col produced them.
func buildCol2Im(n *op.Node) (any, error) {
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 3 || in[0] == nil || in[1] == nil || in[2] == nil {
			return nil, op.Errorf("Col2Im needs input, image_shape and block_shape")
		}
		x := in[0]
		if !opsutil.IsNumeric(x.DType()) || x.Rank() != 3 {
			return nil, op.Errorf("Col2Im input must be a numeric [N, C·∏block_shape, L], got %s%v", x.DType(), x.Shape())
		}
		img64, err1 := in[1].Int64s()
		blk64, err2 := in[2].Int64s()
		if err1 != nil || err2 != nil || len(img64) != len(blk64) || len(img64) == 0 {
			return nil, op.Errorf("Col2Im image_shape and block_shape must be integer lists of equal length")
		}
		nd := len(img64)
		img, blk := make([]int, nd), make([]int, nd)
		for i := range img {
			img[i], blk[i] = int(img64[i]), int(blk64[i])
			if img[i] < 1 || blk[i] < 1 {
				return nil, op.Errorf("Col2Im image_shape %v and block_shape %v must be positive", img64, blk64)
			}
		}
		dil, err := intsOr(n, "dilations", nd, 1)
		if err != nil {
			return nil, err
		}
		str, err := intsOr(n, "strides", nd, 1)
		if err != nil {
			return nil, err
		}
		pads, err := intsOr(n, "pads", 2*nd, 0)
		if err != nil {
			return nil, err
		}
		// Number of block positions along each dim.
		cnt := make([]int, nd)
		for i := range cnt {
			span := dil[i]*(blk[i]-1) + 1
			if str[i] < 1 || dil[i] < 1 {
				return nil, op.Errorf("Col2Im strides and dilations must be positive")
			}
			cnt[i] = (img[i]+pads[i]+pads[nd+i]-span)/str[i] + 1
			if cnt[i] < 1 {
				return nil, op.Errorf("Col2Im block %v does not fit image %v with pads %v", blk, img, pads)
			}
		}
		sh := x.Shape()
		bsize, L := opsutil.Product(blk), opsutil.Product(cnt)
		if sh[1]%bsize != 0 || sh[2] != L {
			return nil, op.Errorf("Col2Im input %v does not match %d blocks of size %d", sh, L, bsize)
		}
		N, C := sh[0], sh[1]/bsize
		out := ctx.New(x.DType(), append([]int{N, C}, img...)...)
		xs, _ := x.Float64s()
		res := make([]float64, out.Len())
		isz := opsutil.Product(img)
		bi := make([]int, nd) // position inside a block
		li := make([]int, nd) // block position
		for b := 0; b < N; b++ {
			for c := 0; c < C; c++ {
				for k := 0; k < bsize; k++ {
					unravel(k, blk, bi)
					row := ((b*C+c)*bsize + k) * L
					for l := 0; l < L; l++ {
						unravel(l, cnt, li)
						off, inside := 0, true
						for d := 0; d < nd; d++ {
							p := li[d]*str[d] - pads[d] + bi[d]*dil[d]
							if p < 0 || p >= img[d] {
								inside = false
								break
							}
							off = off*img[d] + p
						}
						if inside {
							res[(b*C+c)*isz+off] += xs[row+l]
						}
					}
				}
			}
		}
		store(out, res)
		return ctx.One(out), nil
	}), nil
}

// unravel writes the row-major multi-index of flat index i over dims into idx.
func unravel(i int, dims, idx []int) {
	for d := len(dims) - 1; d >= 0; d-- {
		idx[d] = i % dims[d]
		i /= dims[d]
	}
}
