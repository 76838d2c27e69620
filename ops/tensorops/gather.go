package tensorops

import (
	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("Gather", []int{1, 11, 13}, buildGather)
	shapes.Register("", "Gather", inferGather)
	op.Register("GatherElements", []int{11, 13}, buildGatherElements)
	shapes.Register("", "GatherElements", inferGatherElements)
	op.Register("GatherND", []int{11, 12, 13}, buildGatherND)
	shapes.Register("", "GatherND", inferGatherND)
}

// indexAt resolves a possibly negative index into [0, dim).
func indexAt(i int64, dim int) (int, error) {
	if i < 0 {
		i += int64(dim)
	}
	if i < 0 || i >= int64(dim) {
		return 0, op.Errorf("index %d is out of range for a dim of size %d", i, dim)
	}
	return int(i), nil
}

// buildGather: versions differ only in dtypes (and negative indices, which
// gort accepts throughout). Each index selects a contiguous block of
// opsutil.Product(data.shape[axis+1:]) elements, copied whole.
func buildGather(n *op.Node) (any, error) {
	axis, err := n.Int("axis", 0)
	if err != nil {
		return nil, err
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 2 || in[0] == nil || in[1] == nil {
			return nil, op.Errorf("Gather needs data and indices")
		}
		x, ind := in[0], in[1]
		if x.Rank() == 0 {
			return nil, op.Errorf("Gather needs data of rank >= 1")
		}
		a, err := opsutil.NormAxis(axis, x.Rank())
		if err != nil {
			return nil, err
		}
		idx, err := ints64(ind, "indices")
		if err != nil {
			return nil, err
		}
		sh := x.Shape()
		dim := sh[a]
		outShape := append(append(append([]int(nil), sh[:a]...), ind.Shape()...), sh[a+1:]...)
		out, err := checked(ctx, x.DType(), outShape)
		if err != nil {
			return nil, err
		}
		outer, inner := opsutil.Product(sh[:a]), opsutil.Product(sh[a+1:])
		pos := make([]int, len(idx))
		for i, v := range idx {
			if pos[i], err = indexAt(v, dim); err != nil {
				return nil, err
			}
		}
		if inner == 0 {
			return ctx.One(out), nil
		}
		mv := moverFor(x.Data())
		o := 0
		for b := 0; b < outer; b++ {
			for _, p := range pos {
				mv.copyRange(out.Data(), o, x.Data(), (b*dim+p)*inner, inner)
				o += inner
			}
		}
		return ctx.One(out), nil
	}), nil
}

// elementOffsets maps every position of an indices tensor (same rank as
// data) to the data offset it addresses: its own coordinates except along
// axis, where the index value is used. GatherElements reads through these
// offsets and ScatterElements writes through them.
func elementOffsets(dataShape, indShape []int, axis int, idx []int64) ([]int, error) {
	r := len(dataShape)
	if len(indShape) != r {
		return nil, op.Errorf("indices shape %v must have the rank of data %v", indShape, dataShape)
	}
	for i := range indShape {
		if i != axis && indShape[i] > dataShape[i] {
			return nil, op.Errorf("indices shape %v exceeds data shape %v outside axis %d", indShape, dataShape, axis)
		}
	}
	st := strides(dataShape)
	offs := make([]int, len(idx))
	if len(idx) == 0 {
		return offs, nil
	}
	coord := make([]int, r)
	base := 0 // offset of coord with the axis coordinate taken as 0
	dim := dataShape[axis]
	for i, v := range idx {
		p, err := indexAt(v, dim)
		if err != nil {
			return nil, err
		}
		offs[i] = base + p*st[axis]
		for k := r - 1; k >= 0; k-- {
			coord[k]++
			if k != axis {
				base += st[k]
			}
			if coord[k] < indShape[k] {
				break
			}
			if k != axis {
				base -= st[k] * indShape[k]
			}
			coord[k] = 0
		}
	}
	return offs, nil
}

func buildGatherElements(n *op.Node) (any, error) {
	axis, err := n.Int("axis", 0)
	if err != nil {
		return nil, err
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 2 || in[0] == nil || in[1] == nil {
			return nil, op.Errorf("GatherElements needs data and indices")
		}
		x, ind := in[0], in[1]
		a, err := opsutil.NormAxis(axis, x.Rank())
		if err != nil {
			return nil, err
		}
		idx, err := ints64(ind, "indices")
		if err != nil {
			return nil, err
		}
		offs, err := elementOffsets(x.Shape(), ind.Shape(), a, idx)
		if err != nil {
			return nil, err
		}
		out := ctx.New(x.DType(), ind.Shape()...)
		moverFor(x.Data()).take(out.Data(), x.Data(), offs)
		return ctx.One(out), nil
	}), nil
}

// ndOffsets resolves GatherND/ScatterND index tuples: indices has shape
// [batch..., rest..., k]; each k-tuple addresses a block of data (of size
// block) within its batch. It returns the data offset of every block, in
// order, and the block size.
func ndOffsets(dataShape, indShape []int, batchDims int, idx []int64) ([]int, int, error) {
	r, q := len(dataShape), len(indShape)
	if r < 1 || q < 1 {
		return nil, 0, op.Errorf("data %v and indices %v must have rank >= 1", dataShape, indShape)
	}
	if batchDims < 0 || batchDims >= min(r, q) {
		return nil, 0, op.Errorf("batch_dims %d must be below the ranks of data %v and indices %v", batchDims, dataShape, indShape)
	}
	for i := 0; i < batchDims; i++ {
		if dataShape[i] != indShape[i] {
			return nil, 0, op.Errorf("batch dims of data %v and indices %v differ", dataShape, indShape)
		}
	}
	k := indShape[q-1]
	if k < 1 && len(idx) > 0 || k > r-batchDims {
		return nil, 0, op.Errorf("indices last dim %d must be in [1, %d]", k, r-batchDims)
	}
	st := strides(dataShape)
	block := opsutil.Product(dataShape[batchDims+k:])
	batch := opsutil.Product(dataShape[:batchDims])
	batchSize := opsutil.Product(dataShape[batchDims:])
	nTuples := 0
	if k > 0 {
		nTuples = len(idx) / k
	}
	perBatch := 1
	if batch > 0 {
		perBatch = nTuples / batch
	}
	offs := make([]int, nTuples)
	for t := 0; t < nTuples; t++ {
		off := 0
		if perBatch > 0 {
			off = (t / perBatch) * batchSize
		}
		for j := 0; j < k; j++ {
			p, err := indexAt(idx[t*k+j], dataShape[batchDims+j])
			if err != nil {
				return nil, 0, err
			}
			off += p * st[batchDims+j]
		}
		offs[t] = off
	}
	return offs, block, nil
}

// buildGatherND: version 12 added batch_dims.
func buildGatherND(n *op.Node) (any, error) {
	bd, err := n.Int("batch_dims", 0)
	if err != nil {
		return nil, err
	}
	if n.Version < 12 {
		bd = 0
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 2 || in[0] == nil || in[1] == nil {
			return nil, op.Errorf("GatherND needs data and indices")
		}
		x, ind := in[0], in[1]
		idx, err := ints64(ind, "indices")
		if err != nil {
			return nil, err
		}
		offs, block, err := ndOffsets(x.Shape(), ind.Shape(), int(bd), idx)
		if err != nil {
			return nil, err
		}
		q := ind.Rank()
		k := ind.Shape()[q-1]
		outShape := append(append([]int(nil), ind.Shape()[:q-1]...), x.Shape()[int(bd)+k:]...)
		out, err := checked(ctx, x.DType(), outShape)
		if err != nil {
			return nil, err
		}
		if block > 0 {
			mv := moverFor(x.Data())
			for i, off := range offs {
				mv.copyRange(out.Data(), i*block, x.Data(), off, block)
			}
		}
		return ctx.One(out), nil
	}), nil
}

func inferGather(c *shapes.Ctx) {
	in, idx := c.Shape(0), c.Shape(1)
	if in == nil || idx == nil {
		c.Set(0, nil, "")
		return
	}
	axis, ok := c.Axis(c.AttrInt("axis", 0), len(in))
	if !ok {
		return
	}
	out := append(append(append(make([]graph.Dim, 0, len(in)+len(idx)), in[:axis]...), idx...), in[axis+1:]...)
	c.Set(0, out, "")
	if sym, ok := c.Sym(0); ok && len(in) == 1 {
		if ix, ok := c.Ints(1); ok {
			var r []graph.Dim
			for _, i := range ix {
				if i < 0 {
					i += int64(len(sym))
				}
				if i < 0 || i >= int64(len(sym)) {
					return
				}
				r = append(r, sym[i])
			}
			c.SetSym(0, r)
		}
	}
}

func inferGatherElements(c *shapes.Ctx) { c.Set(0, c.Shape(1), "the indices' shape is unknown") }

func inferGatherND(c *shapes.Ctx) {
	data, idx := c.Shape(0), c.Shape(1)
	bd := int(c.AttrInt("batch_dims", 0))
	if data == nil || idx == nil || len(idx) == 0 || !shapes.IsKnown(idx[len(idx)-1]) {
		c.Set(0, nil, "")
		return
	}
	last := int(idx[len(idx)-1].Value)
	if bd+last > len(data) {
		c.Problem("RANK", "GatherND indices reach %d axes past %d batch dims of a rank-%d input", last, bd, len(data))
		return
	}
	out := append(append([]graph.Dim(nil), idx[:len(idx)-1]...), data[bd+last:]...)
	if out == nil {
		out = []graph.Dim{}
	}
	c.Set(0, out, "")
}
