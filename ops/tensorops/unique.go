package tensorops

import (
	"cmp"
	"slices"

	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("Unique", []int{11}, buildUnique)
	shapes.Register("", "Unique", inferUnique)
}

// buildUnique finds the unique elements (or, with axis, the unique slices
// along axis) of X. Sorted output orders them ascending (slices
// lexicographically); otherwise they come in order of first occurrence.
// Outputs: Y, the index of each one's first occurrence, the inverse index
// of every input element/slice into Y, and the counts.
func buildUnique(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	sorted := a.Int("sorted", 1) != 0
	axis := a.Int("axis", 0)
	if a.Err != nil {
		return nil, a.Err
	}
	hasAxis := n.Has("axis")
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil {
			return nil, op.Errorf("Unique needs its input")
		}
		x := in[0]
		ax := 0
		if hasAxis {
			var err error
			if ax, err = opsutil.NormAxis(axis, x.Rank()); err != nil {
				return nil, err
			}
		} else {
			x = x.Reshaped([]int{x.Len()})
		}
		sh := x.Shape()
		outer, dim, inner := opsutil.Product(sh[:ax]), sh[ax], opsutil.Product(sh[ax+1:])
		elemCmp, err := elementComparer(x)
		if err != nil {
			return nil, err
		}
		// compare slices i and j along the axis, lexicographically
		sliceCmp := func(i, j int) int {
			for b := 0; b < outer; b++ {
				pi, pj := (b*dim+i)*inner, (b*dim+j)*inner
				for k := 0; k < inner; k++ {
					if c := elemCmp(pi+k, pj+k); c != 0 {
						return c
					}
				}
			}
			return 0
		}
		order := make([]int, dim)
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, sliceCmp)
		// groups of equal slices, in sorted order; first is the lowest index
		var first, counts []int
		group := make([]int, dim)
		for i, p := range order {
			if i == 0 || sliceCmp(order[i-1], p) != 0 {
				first = append(first, p)
				counts = append(counts, 0)
			}
			g := len(first) - 1
			group[p] = g
			counts[g]++
		}
		rank := make([]int, len(first)) // output position of each group
		for g := range rank {
			rank[g] = g
		}
		if !sorted {
			byFirst := make([]int, len(first))
			for g := range byFirst {
				byFirst[g] = g
			}
			slices.SortFunc(byFirst, func(g, h int) int { return cmp.Compare(first[g], first[h]) })
			for r, g := range byFirst {
				rank[g] = r
			}
		}
		u := len(first)
		outFirst := make([]int, u)
		outCounts := make([]int64, u)
		for g := range first {
			outFirst[rank[g]] = first[g]
			outCounts[rank[g]] = int64(counts[g])
		}
		yShape := append([]int(nil), sh...)
		yShape[ax] = u
		y := ctx.New(x.DType(), yShape...)
		if inner > 0 {
			mv := moverFor(x.Data())
			o := 0
			for b := 0; b < outer; b++ {
				for _, p := range outFirst {
					mv.copyRange(y.Data(), o, x.Data(), (b*dim+p)*inner, inner)
					o += inner
				}
			}
		}
		idx := make([]int64, u)
		for i, p := range outFirst {
			idx[i] = int64(p)
		}
		inv := make([]int64, dim)
		for p, g := range group {
			inv[p] = int64(rank[g])
		}
		return []*tensor.Tensor{y, tensor.Of([]int{u}, idx), tensor.Of([]int{dim}, inv), tensor.Of([]int{u}, outCounts)}, nil
	}), nil
}

// elementComparer returns a three-way comparison of two elements of x by
// offset. NaNs compare equal to each other and above every number.
func elementComparer(x *tensor.Tensor) (func(i, j int) int, error) {
	switch d := x.Data().(type) {
	case []float32:
		return cmpOf(d), nil
	case []float64:
		return cmpOf(d), nil
	case []int8:
		return cmpOf(d), nil
	case []int16:
		return cmpOf(d), nil
	case []int32:
		return cmpOf(d), nil
	case []int64:
		return cmpOf(d), nil
	case []uint8:
		return cmpOf(d), nil
	case []uint16:
		return cmpOf(d), nil
	case []uint32:
		return cmpOf(d), nil
	case []uint64:
		return cmpOf(d), nil
	case []string:
		return cmpOf(d), nil
	case []bool:
		return func(i, j int) int {
			switch {
			case d[i] == d[j]:
				return 0
			case d[j]:
				return -1
			}
			return 1
		}, nil
	}
	return nil, op.Errorf("Unique does not support %s", x.DType())
}

func cmpOf[T cmp.Ordered](d []T) func(i, j int) int {
	return func(i, j int) int {
		a, b := d[i], d[j]
		an, bn := a != a, b != b
		switch {
		case an && bn:
			return 0
		case an:
			return 1
		case bn:
			return -1
		}
		return cmp.Compare(a, b)
	}
}

// inferUnique: the counts are known only at run time; without an axis the
// outputs are 1-D, the inverse indices one per input element.
func inferUnique(c *shapes.Ctx) {
	for i := range c.NumOut() {
		c.Set(i, nil, "the number of unique values is known only at run time")
	}
	if c.Shape(0) != nil {
		if c.Attr("axis") == nil {
			c.Set(0, []graph.Dim{shapes.Unknown()}, "")
			c.Set(1, []graph.Dim{shapes.Unknown()}, "")
			c.Set(2, []graph.Dim{shapes.Product(c.Shape(0))}, "")
			c.Set(3, []graph.Dim{shapes.Unknown()}, "")
		}
	}
}
