package elementwise

import (
	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// plan walks a broadcast output row by row. Dims are coalesced first (size-1
// output dims dropped, neighbours merged when every input is broadcast in both
// or in neither), so the same-shape case becomes a single row, a bias over
// N×C×H×W becomes rows of H·W with a broadcast scalar, and so on. Kernels then
// get long rows in which each input either advances by one or stays put, which
// lets them run plain slice loops.
type plan struct {
	dims    []int   // coalesced output dims
	strides [][]int // per input, per coalesced dim; 0 where broadcast
	inner   []int   // per input, stride along the innermost dim (0 or 1)
	size    int
	offs    []int // scratch for each
}

func newPlan(out []int, ins ...[]int) *plan {
	r := len(out)
	k := len(ins)
	p := &plan{size: opsutil.Product(out), inner: make([]int, k), offs: make([]int, k), strides: make([][]int, k)}
	// bc[i][d] reports whether input i is broadcast along output dim d.
	padded := make([][]int, k)
	for i, s := range ins {
		ps := make([]int, r)
		off := r - len(s)
		for d := range ps {
			if d < off {
				ps[d] = 1
			} else {
				ps[d] = s[d-off]
			}
		}
		padded[i] = ps
	}
	var groups [][2]int // [start, end) of merged output dims
	for d := 0; d < r; d++ {
		if out[d] == 1 {
			continue
		}
		if n := len(groups); n > 0 {
			prev := groups[n-1][1] - 1
			same := true
			for i := range padded {
				if (padded[i][prev] == 1) != (padded[i][d] == 1) {
					same = false
					break
				}
			}
			if same { // dims between prev and d have size 1 everywhere
				groups[n-1][1] = d + 1
				continue
			}
		}
		groups = append(groups, [2]int{d, d + 1})
	}
	if len(groups) == 0 {
		p.dims = []int{1}
		for i := range p.strides {
			p.strides[i] = []int{0}
		}
		return p
	}
	p.dims = make([]int, len(groups))
	for g, gr := range groups {
		p.dims[g] = opsutil.Product(out[gr[0]:gr[1]])
	}
	for i := range padded {
		// element strides of input i in its own (padded) layout
		st := make([]int, r)
		s := 1
		for d := r - 1; d >= 0; d-- {
			st[d] = s
			s *= padded[i][d]
		}
		cs := make([]int, len(groups))
		for g, gr := range groups {
			last := gr[1] - 1
			if padded[i][last] != 1 {
				cs[g] = st[last]
			}
		}
		p.strides[i] = cs
		if cs[len(cs)-1] != 0 {
			p.inner[i] = 1
		}
	}
	return p
}

// each calls row(o, offs, n) for every innermost row: o is the output offset,
// offs[i] the offset of input i, n the row length. offs is reused between calls.
func (p *plan) each(row func(o int, offs []int, n int)) {
	if p.size == 0 {
		return
	}
	r := len(p.dims)
	n := p.dims[r-1]
	if r == 1 {
		for i := range p.offs {
			p.offs[i] = 0
		}
		row(0, p.offs, n)
		return
	}
	idx := make([]int, r-1)
	cur := make([]int, len(p.offs))
	for o := 0; o < p.size; o += n {
		copy(p.offs, cur)
		row(o, p.offs, n)
		for d := r - 2; d >= 0; d-- {
			idx[d]++
			for i := range cur {
				cur[i] += p.strides[i][d]
			}
			if idx[d] < p.dims[d] {
				break
			}
			for i := range cur {
				cur[i] -= p.strides[i][d] * p.dims[d]
			}
			idx[d] = 0
		}
	}
}

// seg returns the part of s a row reads: n elements, or one when broadcast.
func seg[T any](s []T, off, stride, n int) []T {
	if stride == 0 {
		return s[off : off+1]
	}
	return s[off : off+n]
}

// broadcastShapes is opsutil.BroadcastShape over tensors. The result may
// be one of the inputs' own shape slices: callers must not modify it.
func broadcastShapes(ts ...*tensor.Tensor) ([]int, error) {
	if len(ts) == 2 {
		// The common cases, with no allocation: one shape broadcasts into
		// the other unchanged (equal shapes, a bias over the last axes, a
		// scalar).
		a, b := ts[0].Shape(), ts[1].Shape()
		if len(b) <= len(a) && suffixOf(b, a) {
			return a, nil
		}
		if len(a) <= len(b) && suffixOf(a, b) {
			return b, nil
		}
	}
	shapes := make([][]int, len(ts))
	for i, t := range ts {
		shapes[i] = t.Shape()
	}
	return opsutil.BroadcastShape(shapes...)
}

// map2 applies f elementwise over the broadcast of a and b. It is the
// general path for ops that are not hot enough to deserve unrolled loops.
func map2[A, B, R any](out *tensor.Tensor, a, b *tensor.Tensor, f func(x A, y B) R) {
	ad, bd, od := tensor.Data[A](a), tensor.Data[B](b), tensor.Data[R](out)
	p := newPlan(out.Shape(), a.Shape(), b.Shape())
	sa, sb := p.inner[0], p.inner[1]
	p.each(func(o int, offs []int, n int) {
		x, y, d := ad[offs[0]:], bd[offs[1]:], od[o:o+n]
		for i := range d {
			d[i] = f(x[i*sa], y[i*sb])
		}
	})
}

// checkSame fails unless all present tensors share a dtype.
func checkSame(ts ...*tensor.Tensor) error {
	for _, t := range ts[1:] {
		if t != nil && t.DType() != ts[0].DType() {
			return op.Errorf("inputs have different dtypes %s and %s", ts[0].DType(), t.DType())
		}
	}
	return nil
}

func isInt(dt tensor.DType) bool {
	switch dt {
	case tensor.Int8, tensor.Int16, tensor.Int32, tensor.Int64,
		tensor.Uint8, tensor.Uint16, tensor.Uint32, tensor.Uint64:
		return true
	}
	return false
}

func isSigned(dt tensor.DType) bool {
	switch dt {
	case tensor.Int8, tensor.Int16, tensor.Int32, tensor.Int64:
		return true
	}
	return false
}

func isFloatish(dt tensor.DType) bool { return dt.IsFloat() || dt == tensor.Double }

func badType(name string, dt tensor.DType) error {
	return op.Errorf("%s does not support dtype %s", name, dt)
}

// input0 returns the first input, failing cleanly on a malformed node
// instead of panicking on the slice index.
func input0(in []*tensor.Tensor) (*tensor.Tensor, error) {
	if len(in) < 1 || in[0] == nil {
		return nil, op.Errorf("missing required input")
	}
	return in[0], nil
}
