package contrib

import (
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// FusedMatMul(A, B): Y = alpha · op(A) · op(B) with MatMul's batch
// broadcasting, where op is, in this order:
//   - transBatch: for rank r ≥ 3, the first dim moves behind the other
//     batch dims ([d0, d1 … d(r−2), d(r−1)] read as [d1 … d(r−2), d0,
//     d(r−1)]), the fusion of a Transpose(1, 2, …, 0, r−1) into MatMul;
//   - trans: the last two dims are swapped (rank ≥ 2).
//
// The operands are permuted into MatMul's layout when asked to (a copy),
// then ops/nn's MatMul computes the product and alpha scales it.
func init() {
	op.Default.Register(Domain, "FusedMatMul", []int{1}, buildFusedMatMul)
	shapes.Register(Domain, "FusedMatMul", inferFusedMatMul)
}

type fusedMMAttrs struct {
	alpha                          float32
	transA, transB, batchA, batchB bool
}

func parseFusedMM(n *op.Node) (fusedMMAttrs, error) {
	a := &op.Attribs{N: n}
	f := fusedMMAttrs{alpha: a.Float("alpha", 1), transA: a.Int("transA", 0) != 0, transB: a.Int("transB", 0) != 0,
		batchA: a.Int("transBatchA", 0) != 0, batchB: a.Int("transBatchB", 0) != 0}
	return f, a.Err
}

func buildFusedMatMul(n *op.Node) (any, error) {
	f, err := parseFusedMM(n)
	if err != nil {
		return nil, err
	}
	res := op.Default.Resolve("", "MatMul", 13)
	if res.Builder == nil {
		return nil, n.Errorf("FusedMatMul: %s", res.Problem)
	}
	mm := *n
	mm.Domain, mm.OpType, mm.Version, mm.Opset = "", "MatMul", res.Version, 13
	mm.Attrs = nil
	// Constant operands are only the MatMul's own when not permuted.
	mm.Consts = append([]*tensor.Tensor(nil), n.Consts...)
	for i, moved := range []bool{f.transA || f.batchA, f.transB || f.batchB} {
		if moved && i < len(mm.Consts) {
			mm.Consts[i] = nil
		}
	}
	k, err := res.Builder(&mm)
	if err != nil {
		return nil, err
	}
	inner, ok := k.(op.Kernel)
	if !ok {
		return nil, n.Errorf("FusedMatMul: MatMul's kernel is a %T", k)
	}
	return op.KernelFunc(func(ctx *op.Context, ins []*tensor.Tensor) ([]*tensor.Tensor, error) {
		a, b := in(ins, 0), in(ins, 1)
		if a == nil || b == nil {
			return nil, op.Errorf("FusedMatMul needs A and B")
		}
		if err := checkFloat("FusedMatMul", a, b); err != nil {
			return nil, err
		}
		a, b = permuted(a, f.batchA, f.transA), permuted(b, f.batchB, f.transB)
		out, err := inner.Run(ctx, []*tensor.Tensor{a, b})
		if err != nil || f.alpha == 1 {
			return out, err
		}
		y := out[0]
		if y.DType() == tensor.Double {
			for i := range y.F64() {
				y.F64()[i] *= float64(f.alpha)
			}
		} else {
			for i := range y.F32() {
				y.F32()[i] *= f.alpha
			}
		}
		return out, nil
	}), nil
}

// fusedPerm is the permutation op applies to an operand of rank r.
func fusedPerm(r int, batch, trans bool) []int {
	p := make([]int, r)
	for i := range p {
		p[i] = i
	}
	if batch && r >= 3 {
		copy(p, append(append([]int(nil), p[1:r-1]...), 0))
	}
	if trans && r >= 2 {
		p[r-2], p[r-1] = p[r-1], p[r-2]
	}
	return p
}

// permuted returns x with its dims permuted by fusedPerm (x itself when
// nothing moves).
func permuted(x *tensor.Tensor, batch, trans bool) *tensor.Tensor {
	p := fusedPerm(x.Rank(), batch, trans)
	same := true
	for i, v := range p {
		same = same && i == v
	}
	if same {
		return x
	}
	xs := x.Shape()
	ys := make([]int, len(p))
	for i, v := range p {
		ys[i] = xs[v]
	}
	y := tensor.New(x.DType(), ys...)
	if x.DType() == tensor.Double {
		permute(y.F64(), x.F64(), xs, p)
	} else {
		permute(y.F32(), x.F32(), xs, p)
	}
	return y
}

// permute writes y[i] = x[j] where y's index i is x's index j permuted
// by p.
func permute[T float32 | float64](y, x []T, xs, p []int) {
	r := len(xs)
	strides := make([]int, r) // x's stride of each of y's dims
	s := 1
	for d := r - 1; d >= 0; d-- {
		for i, v := range p {
			if v == d {
				strides[i] = s
			}
		}
		s *= xs[d]
	}
	idx := make([]int, r)
	off := 0
	for i := range y {
		y[i] = x[off]
		for d := r - 1; d >= 0; d-- {
			idx[d]++
			off += strides[d]
			if idx[d] < xs[p[d]] {
				break
			}
			off -= idx[d] * strides[d]
			idx[d] = 0
		}
	}
}

func inferFusedMatMul(c *shapes.Ctx) {
	if x := c.Input(0); x != nil && x.Type.Elem != 0 {
		c.SetElem(0, x.Type.Elem)
	}
	as, bs := c.Shape(0), c.Shape(1)
	if as == nil || bs == nil || len(as) == 0 || len(bs) == 0 {
		c.Set(0, nil, "an operand's rank is unknown")
		return
	}
	perm := func(s []graph.Dim, batch, trans bool) []graph.Dim {
		p := fusedPerm(len(s), batch, trans)
		o := make([]graph.Dim, len(s))
		for i, v := range p {
			o[i] = s[v]
		}
		return o
	}
	as = perm(as, c.AttrInt("transBatchA", 0) != 0, c.AttrInt("transA", 0) != 0)
	bs = perm(bs, c.AttrInt("transBatchB", 0) != 0, c.AttrInt("transB", 0) != 0)
	var ys []graph.Dim
	if len(as) >= 2 && len(bs) >= 2 {
		batch, ok := c.Broadcast(as[:len(as)-2], bs[:len(bs)-2])
		if !ok {
			return
		}
		ys = append(append(batch, as[len(as)-2]), bs[len(bs)-1])
	} else if len(as) == 1 && len(bs) >= 2 {
		ys = append(append([]graph.Dim(nil), bs[:len(bs)-2]...), bs[len(bs)-1])
	} else if len(bs) == 1 {
		ys = append([]graph.Dim(nil), as[:len(as)-1]...)
	}
	c.Set(0, ys, "")
}
