package contrib

import (
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// RotaryEmbedding (com.microsoft) rotates the first rotary_embedding_dim
// values of every head by the angles of its position: pairs (x[i],
// x[i+rd/2]) (or (x[2i], x[2i+1]) when interleaved) become (x₁·cos − x₂·sin,
// x₁·sin + x₂·cos) with cos/sin the cache row of the position. The input is
// (B, S, N·H) or (B, N, S, H); position_ids is (B, S) or a single start
// offset (position s + offset); the caches are (max_position, rd/2). Values
// past rd pass through. The head size of a 3-D input comes from num_heads,
// or else is twice the caches' width. scale only matters to onnxruntime's
// cache update, which it does not implement either; is_packed_batching is
// declined.
func init() {
	op.Default.Register(Domain, "RotaryEmbedding", []int{1}, buildRotaryEmbedding)
	shapes.Register(Domain, "RotaryEmbedding", sameAsInput0)
}

func buildRotaryEmbedding(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	interleaved := a.Int("interleaved", 0) != 0
	numHeads := int(a.Int("num_heads", 0))
	rotDim := int(a.Int("rotary_embedding_dim", 0))
	packed := a.Int("is_packed_batching", 0) != 0
	a.Float("scale", 1)
	if a.Err != nil {
		return nil, a.Err
	}
	if numHeads < 0 || rotDim < 0 {
		return nil, n.Errorf("num_heads and rotary_embedding_dim must not be negative")
	}
	if rotDim > 0 && numHeads == 0 {
		return nil, n.Errorf("num_heads is needed with rotary_embedding_dim")
	}
	if packed {
		return nil, n.Errorf("is_packed_batching is not supported (onnxruntime's CPU kernel has no packed batching either)")
	}
	return op.KernelFunc(func(ctx *op.Context, ins []*tensor.Tensor) ([]*tensor.Tensor, error) {
		x, pos, cos, sin := in(ins, 0), in(ins, 1), in(ins, 2), in(ins, 3)
		if x == nil || pos == nil || cos == nil || sin == nil {
			return nil, op.Errorf("RotaryEmbedding needs input, position_ids, cos_cache and sin_cache")
		}
		if err := checkAttnFloat("RotaryEmbedding", x, cos, sin); err != nil {
			return nil, err
		}
		cs := cos.Shape()
		if len(cs) != 2 || sin.Rank() != 2 || sin.Shape()[0] != cs[0] || sin.Shape()[1] != cs[1] {
			return nil, op.Errorf("RotaryEmbedding: cos_cache %v and sin_cache %v must be 2-D of one shape", cs, sin.Shape())
		}
		xs := x.Shape()
		var batch, seq, heads, head int
		var v headView
		switch len(xs) {
		case 3:
			batch, seq = xs[0], xs[1]
			switch {
			case numHeads > 0:
				heads = numHeads
			case cs[1] > 0:
				heads = xs[2] / (2 * cs[1])
			}
			if heads == 0 || xs[2]%heads != 0 {
				return nil, op.Errorf("RotaryEmbedding: hidden size %d does not split into heads (num_heads %d, cache width %d)", xs[2], numHeads, cs[1])
			}
			head = xs[2] / heads
			v = bsnh(seq, heads, head)
		case 4:
			batch, heads, seq, head = xs[0], xs[1], xs[2], xs[3]
			v = bnsh(seq, heads, head)
		default:
			return nil, op.Errorf("RotaryEmbedding: input must be 3-D or 4-D, got %v", xs)
		}
		rd := rotDim
		if rd == 0 {
			rd = head
		}
		if rd > head || rd%2 != 0 || cs[1] < rd/2 {
			return nil, op.Errorf("RotaryEmbedding: rotary_embedding_dim %d must be even, at most the head size %d and at most twice the cache width %d", rd, head, cs[1])
		}
		posAt, err := positions("RotaryEmbedding", pos, batch, seq, cs[0])
		if err != nil {
			return nil, err
		}
		y, yd := newF32(ctx, x.DType(), xs...)
		copy(yd, x.F32())
		rotateHeads(yd, v, batch, heads, seq, rd, interleaved, cos.F32(), sin.F32(), cs[1], posAt)
		return ctx.One(y), nil
	}), nil
}

// positions reads RotaryEmbedding's position_ids: (B, S) int64 ids, or a
// single start offset. Every position must index the cache.
func positions(name string, pos *tensor.Tensor, batch, seq, maxPos int) (func(b, s int) int, error) {
	ids, err := pos.Int64s()
	if err != nil || (pos.DType() != tensor.Int64 && pos.DType() != tensor.Int32) {
		return nil, op.Errorf("%s: position_ids must be int64, got %s", name, pos.DType())
	}
	var at func(b, s int) int
	switch {
	case pos.Len() == 1 && pos.Rank() <= 1:
		at = func(b, s int) int { return int(ids[0]) + s }
	case pos.Rank() == 2 && pos.Shape()[0] == batch && pos.Shape()[1] == seq:
		at = func(b, s int) int { return int(ids[b*seq+s]) }
	default:
		return nil, op.Errorf("%s: position_ids must be (%d, %d) or a single offset, got %v", name, batch, seq, pos.Shape())
	}
	for b := 0; b < batch; b++ {
		for s := 0; s < seq; s++ {
			if p := at(b, s); p < 0 || p >= maxPos {
				return nil, op.Errorf("%s: position %d is outside the cache of %d positions", name, p, maxPos)
			}
		}
	}
	return at, nil
}

// rotateHeads rotates in place the first rd values of every head of x
// (seen through v) by the cache rows (width cw) of their positions.
func rotateHeads(x []float32, v headView, batch, heads, seq, rd int, interleaved bool, cos, sin []float32, cw int, pos func(b, s int) int) {
	half := rd / 2
	for b := 0; b < batch; b++ {
		for s := 0; s < seq; s++ {
			p := pos(b, s)
			c, sn := cos[p*cw:][:half], sin[p*cw:][:half]
			for n := 0; n < heads; n++ {
				o := v.at(b, n, s)
				for i := 0; i < half; i++ {
					i1, i2 := o+i, o+i+half
					if interleaved {
						i1, i2 = o+2*i, o+2*i+1
					}
					x1, x2 := x[i1], x[i2]
					x[i1] = x1*c[i] - x2*sn[i]
					x[i2] = x1*sn[i] + x2*c[i]
				}
			}
		}
	}
}
