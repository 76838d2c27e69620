package tensorops

import (
	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("Compress", []int{9, 11}, buildCompress)
	op.Register("NonZero", []int{9, 13}, buildNonZero)
	shapes.Register("", "NonZero", inferNonZero)
}

// buildCompress keeps the slices along axis (or elements of the flattened
// input when axis is absent) whose condition is true. Like numpy, a
// condition shorter than the axis leaves the rest out. Negative axes came
// with version 11.
func buildCompress(n *op.Node) (any, error) {
	axis, err := n.Int("axis", 0)
	if err != nil {
		return nil, err
	}
	hasAxis := n.Has("axis")
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 2 || in[0] == nil || in[1] == nil {
			return nil, op.Errorf("Compress needs input and condition")
		}
		x, c := in[0], in[1]
		if c.DType() != tensor.Bool || c.Rank() != 1 {
			return nil, op.Errorf("condition must be a 1-D bool tensor")
		}
		cond := c.Bools()
		if !hasAxis {
			x = x.Reshaped([]int{x.Len()})
		}
		a, err := opsutil.NormAxis(axis, x.Rank())
		if !hasAxis {
			a, err = 0, nil
		}
		if err != nil {
			return nil, err
		}
		sh := x.Shape()
		var keep []int
		for i, b := range cond {
			if !b {
				continue
			}
			if i >= sh[a] {
				return nil, op.Errorf("condition has %d entries for a dim of size %d", len(cond), sh[a])
			}
			keep = append(keep, i)
		}
		outShape := append([]int(nil), sh...)
		outShape[a] = len(keep)
		out := ctx.New(x.DType(), outShape...)
		outer, inner := opsutil.Product(sh[:a]), opsutil.Product(sh[a+1:])
		if inner == 0 {
			return ctx.One(out), nil
		}
		mv := moverFor(x.Data())
		o := 0
		for b := 0; b < outer; b++ {
			for _, p := range keep {
				mv.copyRange(out.Data(), o, x.Data(), (b*sh[a]+p)*inner, inner)
				o += inner
			}
		}
		return ctx.One(out), nil
	}), nil
}

// buildNonZero returns the coordinates of non-zero elements, one row per dim
// ([rank, nnz], int64), in row-major order. A scalar counts as a 1-D tensor
// of one element, as in the ONNX reference (numpy's nonzero).
func buildNonZero(n *op.Node) (any, error) {
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil {
			return nil, op.Errorf("NonZero needs an input")
		}
		x := in[0]
		sh := x.Shape()
		if len(sh) == 0 {
			sh = []int{1}
		}
		nz, err := nonZeroFlags(x)
		if err != nil {
			return nil, err
		}
		var pos []int
		for i, b := range nz {
			if b {
				pos = append(pos, i)
			}
		}
		r := len(sh)
		out := ctx.New(tensor.Int64, r, len(pos))
		o := out.I64()
		st := strides(sh)
		for j, p := range pos {
			for d := 0; d < r; d++ {
				o[d*len(pos)+j] = int64(p / st[d] % sh[d])
			}
		}
		return ctx.One(out), nil
	}), nil
}

// nonZeroFlags reports for each element whether it is non-zero (true,
// non-empty string). 8-bit float codes count as zero only for code 0 and
// negative zero (0x80) in the types that have it.
func nonZeroFlags(x *tensor.Tensor) ([]bool, error) {
	switch d := x.Data().(type) {
	case []float32:
		return flagsOf(d), nil
	case []float64:
		return flagsOf(d), nil
	case []int8:
		return flagsOf(d), nil
	case []int16:
		return flagsOf(d), nil
	case []int32:
		return flagsOf(d), nil
	case []int64:
		return flagsOf(d), nil
	case []uint8:
		f := flagsOf(d)
		switch x.DType() {
		case tensor.Float8E4M3FN, tensor.Float8E5M2:
			for i, v := range d {
				f[i] = v&0x7f != 0
			}
		case tensor.Float4E2M1:
			for i, v := range d {
				f[i] = v&0x7 != 0
			}
		}
		return f, nil
	case []uint16:
		return flagsOf(d), nil
	case []uint32:
		return flagsOf(d), nil
	case []uint64:
		return flagsOf(d), nil
	case []bool:
		return d, nil
	case []string:
		f := make([]bool, len(d))
		for i, v := range d {
			f[i] = v != ""
		}
		return f, nil
	case []complex64:
		f := make([]bool, len(d))
		for i, v := range d {
			f[i] = v != 0
		}
		return f, nil
	case []complex128:
		f := make([]bool, len(d))
		for i, v := range d {
			f[i] = v != 0
		}
		return f, nil
	}
	return nil, op.Errorf("NonZero does not support %s", x.DType())
}

func flagsOf[T tensor.Number](d []T) []bool {
	f := make([]bool, len(d))
	for i, v := range d {
		f[i] = v != 0
	}
	return f
}

// inferNonZero: [rank, unknown count].
func inferNonZero(c *shapes.Ctx) {
	s := c.Shape(0)
	if s == nil {
		c.Set(0, nil, "")
		return
	}
	c.Set(0, []graph.Dim{shapes.Known(int64(len(s))), shapes.Unknown()}, "")
}
