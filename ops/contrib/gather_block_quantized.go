package contrib

import (
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
	"slices"
)

// GatherBlockQuantized(data, indices, scales, zero_points?): Gather of a
// block-quantized tensor, dequantized. data is int4 or uint4 (one code per
// element) or uint8 holding 8/bits codes per byte from the low bits up
// along its last axis (bits 2, 4 or 8); the logical tensor D has data's
// shape with the last axis multiplied by 8/bits. D is quantized along
// quantize_axis in blocks of block_size: scales has D's shape with that
// axis ⌈dim/block_size⌉, zero points scales' shape (int4/uint4, default 0)
// or, for uint8, packed like data along the last axis (default
// 2^(bits−1)). Y = Gather(D, indices, gather_axis) with each element
// (code − zp)·scale, of scales' type. An index outside [−dim, dim) gives a
// slice of zeros, as onnxruntime's kernel does.
func init() {
	op.Default.Register(Domain, "GatherBlockQuantized", []int{1}, buildGatherBlockQuantized)
	shapes.Register(Domain, "GatherBlockQuantized", inferGatherBlockQuantized)
}

type gbqAttrs struct{ gatherAxis, quantAxis, blockSize, bits int }

func buildGatherBlockQuantized(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	at := gbqAttrs{int(a.Int("gather_axis", 0)), int(a.Int("quantize_axis", 1)), int(a.Int("block_size", 128)), int(a.Int("bits", 4))}
	if a.Err != nil {
		return nil, a.Err
	}
	if at.blockSize < 16 || at.blockSize&(at.blockSize-1) != 0 {
		return nil, n.Errorf("GatherBlockQuantized: block_size must be a power of 2 ≥ 16, got %d", at.blockSize)
	}
	if at.bits != 2 && at.bits != 4 && at.bits != 8 {
		return nil, n.Errorf("GatherBlockQuantized: bits must be 2, 4 or 8, got %d", at.bits)
	}
	return op.KernelFunc(func(ctx *op.Context, ins []*tensor.Tensor) ([]*tensor.Tensor, error) {
		return at.run(ctx, ins)
	}), nil
}

// comps is the number of codes per element of data.
func (at gbqAttrs) comps(dt tensor.DType) int {
	if dt == tensor.Uint8 {
		return 8 / at.bits
	}
	return 1
}

// axes checks data's type and the attributes against data's rank and
// returns the normalised gather and quantize axes.
func (at gbqAttrs) axes(dt tensor.DType, rank int) (int, int, error) {
	switch dt {
	case tensor.Uint8:
	case tensor.Int4, tensor.Uint4:
		if at.bits != 4 {
			return 0, 0, op.Errorf("GatherBlockQuantized: %s data needs bits 4, got %d", dt, at.bits)
		}
	default:
		return 0, 0, op.Errorf("GatherBlockQuantized: data must be uint8, int4 or uint4, got %s", dt)
	}
	if rank == 0 {
		return 0, 0, op.Errorf("GatherBlockQuantized: data must have rank ≥ 1")
	}
	ga, qa := at.gatherAxis, at.quantAxis
	if ga < 0 {
		ga += rank
	}
	if qa < 0 {
		qa += rank
	}
	if ga < 0 || ga >= rank || qa < 0 || qa >= rank {
		return 0, 0, op.Errorf("GatherBlockQuantized: gather_axis %d or quantize_axis %d outside rank %d", at.gatherAxis, at.quantAxis, rank)
	}
	if dt == tensor.Uint8 && (ga != 0 || qa != rank-1) {
		return 0, 0, op.Errorf("GatherBlockQuantized: uint8 data needs gather_axis 0 and quantize_axis the last, got %d and %d", ga, qa)
	}
	return ga, qa, nil
}

func (at gbqAttrs) run(ctx *op.Context, ins []*tensor.Tensor) ([]*tensor.Tensor, error) {
	data, idx, scales, zp := in(ins, 0), in(ins, 1), in(ins, 2), in(ins, 3)
	if data == nil || idx == nil || scales == nil {
		return nil, op.Errorf("GatherBlockQuantized needs data, indices and scales")
	}
	dt := data.DType()
	ga, qa, err := at.axes(dt, data.Rank())
	if err != nil {
		return nil, err
	}
	if !scales.DType().IsFloat() && scales.DType() != tensor.Double {
		return nil, op.Errorf("GatherBlockQuantized: scales must be float, got %s", scales.DType())
	}
	if scales.DType() == tensor.Double {
		return nil, op.Errorf("GatherBlockQuantized: scales must be float32, float16 or bfloat16, got double")
	}
	ind, err := idx.Int64s()
	if err != nil || (idx.DType() != tensor.Int32 && idx.DType() != tensor.Int64) {
		return nil, op.Errorf("GatherBlockQuantized: indices must be int32 or int64, got %s", idx.DType())
	}
	comps := at.comps(dt)
	ls := append([]int(nil), data.Shape()...)
	ls[qa] *= comps
	nb := (ls[qa] + at.blockSize - 1) / at.blockSize
	ss := append([]int(nil), ls...)
	ss[qa] = nb
	if !slices.Equal(scales.Shape(), ss) {
		return nil, op.Errorf("GatherBlockQuantized: scales of shape %v, want %v", scales.Shape(), ss)
	}
	zs := append([]int(nil), ss...)
	if zp != nil {
		if zp.DType() != dt {
			return nil, op.Errorf("GatherBlockQuantized: zero_points of %s, data of %s", zp.DType(), dt)
		}
		zs[qa] = (nb + comps - 1) / comps
		if !slices.Equal(zp.Shape(), zs) {
			return nil, op.Errorf("GatherBlockQuantized: zero_points of shape %v, want %v", zp.Shape(), zs)
		}
	}
	ys := append(append(append([]int(nil), ls[:ga]...), idx.Shape()...), ls[ga+1:]...)
	y := ctx.New(scales.DType(), ys...)
	out := y.F32()
	sc := scales.F32()

	// code and zero of logical element di and of scale si.
	var code func(di int) int32
	zero := func(si int) int32 { return 0 }
	switch dt {
	case tensor.Int4:
		d := tensor.Data[int8](data)
		code = func(di int) int32 { return int32(d[di]) }
		if zp != nil {
			z := tensor.Data[int8](zp)
			zero = func(si int) int32 { return int32(z[si]) }
		}
	case tensor.Uint4:
		d := tensor.Data[uint8](data)
		code = func(di int) int32 { return int32(d[di]) }
		if zp != nil {
			z := tensor.Data[uint8](zp)
			zero = func(si int) int32 { return int32(z[si]) }
		}
	default:
		d, bits, mask := tensor.Data[uint8](data), at.bits, uint8(1<<at.bits-1)
		code = func(di int) int32 { return int32(d[di/comps] >> (bits * (di % comps)) & mask) }
		if zp != nil {
			z, row := tensor.Data[uint8](zp), zs[qa] // qa is the last axis: si = r·nb + block
			zero = func(si int) int32 {
				r, q := si/nb, si%nb
				return int32(z[r*row+q/comps] >> (bits * (q % comps)) & mask)
			}
		} else {
			zero = func(int) int32 { return int32(1) << (bits - 1) }
		}
	}

	gM, gA := prodInts(ls[:ga]), ls[ga]
	gB := prodInts(ls[ga+1:])
	qD, qN := ls[qa], prodInts(ls[qa+1:])
	o := 0
	for m := 0; m < gM; m++ {
		for _, v := range ind {
			if v < -int64(gA) || v >= int64(gA) {
				clear(out[o : o+gB])
				o += gB
				continue
			}
			if v < 0 {
				v += int64(gA)
			}
			base := (m*gA + int(v)) * gB
			for e := 0; e < gB; e++ {
				di := base + e
				x, rem := di/(qD*qN), di%(qD*qN)
				si := (x*nb+rem/qN/at.blockSize)*qN + rem%qN
				out[o] = float32(code(di)-zero(si)) * sc[si]
				o++
			}
		}
	}
	return ctx.One(y), nil
}

func prodInts(s []int) int {
	p := 1
	for _, v := range s {
		p *= v
	}
	return p
}

func inferGatherBlockQuantized(c *shapes.Ctx) {
	if s := c.Input(2); s != nil && s.Type.Elem != 0 {
		c.SetElem(0, s.Type.Elem)
	}
	ds, is := c.Shape(0), c.Shape(1)
	d := c.Input(0)
	if ds == nil || is == nil || d == nil || d.Type.Elem == 0 {
		c.Set(0, nil, "data's or indices' shape is unknown")
		return
	}
	r := len(ds)
	ga := int(c.AttrInt("gather_axis", 0))
	if ga < 0 {
		ga += r
	}
	if ga < 0 || ga >= r {
		c.Set(0, nil, "gather_axis outside data's rank")
		return
	}
	ls := append([]graph.Dim(nil), ds...)
	if d.Type.Elem == tensor.Uint8 {
		if bits := c.AttrInt("bits", 4); bits == 2 || bits == 4 || bits == 8 {
			if ls[r-1].Known() {
				ls[r-1] = shapes.Known(ls[r-1].Value * (8 / bits))
			} else {
				ls[r-1] = shapes.Unknown()
			}
		}
	}
	ys := append(append(append([]graph.Dim(nil), ls[:ga]...), is...), ls[ga+1:]...)
	c.Set(0, ys, "")
}
