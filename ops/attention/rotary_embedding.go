package attention

import (
	"slices"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// RotaryEmbedding-23 rotates the first rotary_embedding_dim features of each
// head by position-dependent angles, given as cos/sin caches that are either
// indexed by position_ids or already laid out per (batch, position).
func init() {
	op.Register("RotaryEmbedding", []int{23}, buildRotary)
	shapes.Register("", "RotaryEmbedding", shapes.SameAsInput0)
}

func buildRotary(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	interleaved := a.Int("interleaved", 0) != 0
	numHeads := int(a.Int("num_heads", 0))
	rotDim := int(a.Int("rotary_embedding_dim", 0))
	if a.Err != nil {
		return nil, a.Err
	}
	if numHeads < 0 || rotDim < 0 {
		return nil, n.Errorf("num_heads and rotary_embedding_dim must not be negative")
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 3 || in[0] == nil || in[1] == nil || in[2] == nil {
			return nil, op.Errorf("RotaryEmbedding needs X, cos_cache and sin_cache")
		}
		x, cosT, sinT := in[0], in[1], in[2]
		var pos *tensor.Tensor
		if len(in) > 3 {
			pos = in[3]
		}
		if err := checkFloat("RotaryEmbedding", x, cosT, sinT); err != nil {
			return nil, err
		}
		var xl layout
		var err error
		switch x.Rank() {
		case 4:
			xl, err = makeLayout(x.Shape(), 0, "X")
		case 3:
			if numHeads == 0 {
				return nil, op.Errorf("3-D X needs the num_heads attribute")
			}
			xl, err = makeLayout(x.Shape(), numHeads, "X")
		default:
			return nil, op.Errorf("X must be 3-D or 4-D, got %v", x.Shape())
		}
		if err != nil {
			return nil, err
		}
		batch, seq, head := x.Shape()[0], xl.seq, xl.dim
		rd := rotDim
		if rd == 0 {
			rd = head
		}
		if rd > head || rd%2 != 0 {
			return nil, op.Errorf("rotary_embedding_dim %d must be even and at most the head size %d", rd, head)
		}
		half := rd / 2
		var ids []int64
		if pos != nil {
			if pos.Rank() != 2 || pos.Shape()[0] != batch || pos.Shape()[1] != seq {
				return nil, op.Errorf("position_ids must have shape [%d, %d], got %v", batch, seq, pos.Shape())
			}
			if ids, err = pos.Int64s(); err != nil {
				return nil, op.Errorf("position_ids: %v", err)
			}
			if cosT.Rank() != 2 || !slices.Equal(cosT.Shape(), sinT.Shape()) || cosT.Shape()[1] != half {
				return nil, op.Errorf("with position_ids, cos_cache and sin_cache must have shape [max_position, %d], got %v and %v", half, cosT.Shape(), sinT.Shape())
			}
			for _, id := range ids {
				if id < 0 || id >= int64(cosT.Shape()[0]) {
					return nil, op.Errorf("position id %d is outside the cache of %d positions", id, cosT.Shape()[0])
				}
			}
		} else if cosT.Rank() != 3 || !slices.Equal(cosT.Shape(), sinT.Shape()) || cosT.Shape()[0] != batch || cosT.Shape()[1] != seq || cosT.Shape()[2] != half {
			return nil, op.Errorf("without position_ids, cos_cache and sin_cache must have shape [%d, %d, %d], got %v and %v", batch, seq, half, cosT.Shape(), sinT.Shape())
		}
		out := ctx.New(x.DType(), x.Shape()...)
		r := rotary{l: xl, batch: batch, half: half, interleaved: interleaved, ids: ids}
		if x.DType() == tensor.Double {
			rotate(r, out.F64(), values[float64](x), values[float64](cosT), values[float64](sinT))
		} else {
			rotate(r, out.F32(), values[float32](x), values[float32](cosT), values[float32](sinT))
		}
		return ctx.One(out), nil
	}), nil
}

type rotary struct {
	l           layout
	batch, half int
	interleaved bool
	ids         []int64
}

func rotate[E real](r rotary, y, x, cos, sin []E) {
	copy(y, x) // features past rotary_embedding_dim pass through
	for b := 0; b < r.batch; b++ {
		for s := 0; s < r.l.seq; s++ {
			row := b*r.l.seq + s // cache row without position_ids
			if r.ids != nil {
				row = int(r.ids[row])
			}
			c, sn := cos[row*r.half:(row+1)*r.half], sin[row*r.half:(row+1)*r.half]
			for h := 0; h < r.l.heads; h++ {
				o := r.l.at(b, h, s)
				for i := 0; i < r.half; i++ {
					i1, i2 := o+i, o+i+r.half
					if r.interleaved {
						i1, i2 = o+2*i, o+2*i+1
					}
					x1, x2 := float64(x[i1]), float64(x[i2])
					cv, sv := float64(c[i]), float64(sn[i])
					y[i1] = E(cv*x1 - sv*x2)
					y[i2] = E(sv*x1 + cv*x2)
				}
			}
		}
	}
}
