package resample

import (
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("DepthToSpace", []int{1, 11, 13}, buildDepthToSpace)
	shapes.Register("", "DepthToSpace", func(c *shapes.Ctx) { inferSpaceDepth(c, false) })
	op.Register("SpaceToDepth", []int{1, 13}, buildSpaceToDepth)
	shapes.Register("", "SpaceToDepth", func(c *shapes.Ctx) { inferSpaceDepth(c, true) })
}

func blocksize(n *op.Node) (int, error) {
	if !n.Has("blocksize") {
		return 0, n.Errorf("attribute blocksize is required")
	}
	b, err := n.Int("blocksize", 0)
	if err != nil {
		return 0, err
	}
	if b <= 0 || b > 1<<20 {
		return 0, n.Errorf("blocksize %d must be positive", b)
	}
	return int(b), nil
}

// DepthToSpace is the reshape–transpose–reshape the spec writes out in numpy:
// DCR views the channels as [blocksize, blocksize, C/b²], CRD as
// [C/b², blocksize, blocksize].
func buildDepthToSpace(n *op.Node) (any, error) {
	b, err := blocksize(n)
	if err != nil {
		return nil, err
	}
	mode := "DCR"
	if n.Version >= 11 {
		if mode, err = n.String("mode", "DCR"); err != nil {
			return nil, err
		}
	}
	if mode != "DCR" && mode != "CRD" {
		return nil, n.Errorf("unknown mode %q", mode)
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		x := in[0]
		if x.Rank() != 4 {
			return nil, op.Errorf("DepthToSpace needs a 4-D input, got %v", x.Shape())
		}
		N, C, H, W := x.Shape()[0], x.Shape()[1], x.Shape()[2], x.Shape()[3]
		if C%(b*b) != 0 {
			return nil, op.Errorf("channels %d are not a multiple of blocksize² = %d", C, b*b)
		}
		c := C / (b * b)
		out := ctx.New(x.DType(), N, c, H*b, W*b)
		if mode == "DCR" {
			permute(out, x, []int{N, b, b, c, H, W}, []int{0, 3, 4, 1, 5, 2})
		} else {
			permute(out, x, []int{N, c, b, b, H, W}, []int{0, 1, 4, 2, 5, 3})
		}
		return ctx.One(out), nil
	}), nil
}

// SpaceToDepth is the inverse of DepthToSpace in DCR order.
func buildSpaceToDepth(n *op.Node) (any, error) {
	b, err := blocksize(n)
	if err != nil {
		return nil, err
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		x := in[0]
		if x.Rank() != 4 {
			return nil, op.Errorf("SpaceToDepth needs a 4-D input, got %v", x.Shape())
		}
		N, C, H, W := x.Shape()[0], x.Shape()[1], x.Shape()[2], x.Shape()[3]
		if H%b != 0 || W%b != 0 {
			return nil, op.Errorf("spatial dims %dx%d are not multiples of blocksize %d", H, W, b)
		}
		out := ctx.New(x.DType(), N, C*b*b, H/b, W/b)
		permute(out, x, []int{N, C, H / b, b, W / b, b}, []int{0, 3, 5, 1, 2, 4})
		return ctx.One(out), nil
	}), nil
}

func inferSpaceDepth(c *shapes.Ctx, toDepth bool) {
	x := c.Shape(0)
	b := c.AttrInt("blocksize", 0)
	if len(x) != 4 || b <= 0 {
		c.Set(0, nil, "")
		return
	}
	if toDepth {
		c.Set(0, []graph.Dim{x[0], shapes.DimMul(x[1], shapes.Known(b*b)), shapes.DimDiv(x[2], shapes.Known(b)), shapes.DimDiv(x[3], shapes.Known(b))}, "")
	} else {
		c.Set(0, []graph.Dim{x[0], shapes.DimDiv(x[1], shapes.Known(b*b)), shapes.DimMul(x[2], shapes.Known(b)), shapes.DimMul(x[3], shapes.Known(b))}, "")
	}
}
