package tensorops

import (
	"slices"

	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("TopK", []int{1, 10, 11, 24}, buildTopK)
	shapes.Register("", "TopK", inferTopK)
}

// buildTopK: version 1 takes k as an attribute, 10 as an input; 11 added
// largest and sorted (and negative axes); 24 only widened the types. Ties
// keep the lower index first, so the selection is a stable sort by value.
// Unsorted output (sorted=0) may be in any order; gort returns it sorted.
func buildTopK(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	axis := a.Int("axis", -1)
	kAttr := a.Int("k", 0)
	largest := a.Int("largest", 1) != 0
	if a.Err != nil {
		return nil, a.Err
	}
	if n.Version < 11 {
		largest = true
	}
	if n.Version < 10 && !n.Has("k") {
		return nil, n.Errorf("TopK-1 needs the k attribute")
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil {
			return nil, op.Errorf("TopK needs its input")
		}
		x := in[0]
		k := kAttr
		if n.Version >= 10 {
			if len(in) < 2 || in[1] == nil {
				return nil, op.Errorf("TopK needs the K input")
			}
			v, err := opsutil.ScalarInt(in[1], "K")
			if err != nil {
				return nil, err
			}
			k = v
		}
		ax, err := opsutil.NormAxis(axis, x.Rank())
		if err != nil {
			return nil, err
		}
		sh := x.Shape()
		if k < 0 || k > int64(sh[ax]) {
			return nil, op.Errorf("k %d is out of range for axis %d of size %d", k, ax, sh[ax])
		}
		outShape := append([]int(nil), sh...)
		outShape[ax] = int(k)
		vals := ctx.New(x.DType(), outShape...)
		idx := ctx.New(tensor.Int64, outShape...)
		outer, dim, inner := opsutil.Product(sh[:ax]), sh[ax], opsutil.Product(sh[ax+1:])
		var order func(b, i int, pos []int)
		switch d := x.Data().(type) {
		case []float32:
			order = orderBy(d, largest, dim, inner)
		case []float64:
			order = orderBy(d, largest, dim, inner)
		case []int8:
			order = orderBy(d, largest, dim, inner)
		case []int16:
			order = orderBy(d, largest, dim, inner)
		case []int32:
			order = orderBy(d, largest, dim, inner)
		case []int64:
			order = orderBy(d, largest, dim, inner)
		case []uint8:
			if x.DType().IsCodeType() {
				return nil, op.Errorf("TopK does not support %s", x.DType())
			}
			order = orderBy(d, largest, dim, inner)
		case []uint16:
			order = orderBy(d, largest, dim, inner)
		case []uint32:
			order = orderBy(d, largest, dim, inner)
		case []uint64:
			order = orderBy(d, largest, dim, inner)
		default:
			return nil, op.Errorf("TopK does not support %s", x.DType())
		}
		pos := make([]int, dim)
		src := make([]int, idx.Len()) // input offset of each output element
		iv := idx.I64()
		for b := 0; b < outer; b++ {
			for i := 0; i < inner; i++ {
				order(b, i, pos)
				for j := 0; j < int(k); j++ {
					o := (b*int(k)+j)*inner + i
					iv[o] = int64(pos[j])
					src[o] = (b*dim+pos[j])*inner + i
				}
			}
		}
		moverFor(x.Data()).take(vals.Data(), x.Data(), src)
		return []*tensor.Tensor{vals, idx}, nil
	}), nil
}

// orderBy returns a function that fills pos with the positions along the
// axis of the slice (b, i), best first, ties by position. NaN ranks above
// every number (first when largest, last when smallest), like onnxruntime.
func orderBy[T tensor.Number](d []T, largest bool, dim, inner int) func(b, i int, pos []int) {
	return func(b, i int, pos []int) {
		base := b*dim*inner + i
		for j := range pos {
			pos[j] = j
		}
		val := func(j int) T { return d[base+j*inner] }
		slices.SortStableFunc(pos, func(p, q int) int {
			vp, vq := val(p), val(q)
			nanP, nanQ := vp != vp, vq != vq
			var c int
			switch {
			case nanP && nanQ:
				c = 0
			case nanP:
				c = 1
			case nanQ:
				c = -1
			case vp < vq:
				c = -1
			case vp > vq:
				c = 1
			}
			if largest {
				return -c
			}
			return c
		})
	}
}

func inferTopK(c *shapes.Ctx) {
	x := c.Shape(0)
	if x == nil {
		c.Set(0, nil, "")
		c.Set(1, nil, "")
		return
	}
	axis, ok := c.Axis(c.AttrInt("axis", -1), len(x))
	if !ok {
		return
	}
	out := append([]graph.Dim(nil), x...)
	if c.Version() < 10 {
		out[axis] = shapes.Known(c.AttrInt("k", 0))
	} else if k, ok := c.Sym(1); ok && len(k) == 1 {
		out[axis] = k[0]
	} else {
		out[axis] = shapes.Unknown()
	}
	c.Set(0, out, "")
	c.Set(1, out, "")
}
