package tensorops

import (
	"math"

	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("Range", []int{11, 27}, buildRange)
	shapes.Register("", "Range", inferRange)
}

// buildRange: version 27 adds float16/bfloat16 with stash_type; gort stores
// those as float32, so stash_type 1 (the default) computes start+i*delta in
// float32, and stash_type 0 accumulates in the narrow type step by step, as
// the spec describes for that setting.
func buildRange(n *op.Node) (any, error) {
	stash, err := n.Int("stash_type", 1)
	if err != nil {
		return nil, err
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 3 || in[0] == nil || in[1] == nil || in[2] == nil {
			return nil, op.Errorf("Range needs start, limit and delta")
		}
		dt := in[0].DType()
		for _, t := range in[:3] {
			if t.Len() != 1 {
				return nil, op.Errorf("Range inputs must be scalars, got shape %v", t.Shape())
			}
			if t.DType() != dt {
				return nil, op.Errorf("Range inputs differ in type")
			}
		}
		if dt.IsFloat() || dt == tensor.Double {
			if (dt == tensor.Float16 || dt == tensor.BFloat16) && n.Version < 27 {
				return nil, op.Errorf("Range-%d does not support %s", n.Version, dt)
			}
			s, _ := in[0].Float64s()
			l, _ := in[1].Float64s()
			d, _ := in[2].Float64s()
			start, limit, delta := s[0], l[0], d[0]
			if delta == 0 || math.IsNaN(start+limit+delta) || math.IsInf(start+limit+delta, 0) {
				return nil, op.Errorf("Range(%g, %g, %g) is not a finite range", start, limit, delta)
			}
			cnt := math.Max(math.Ceil((limit-start)/delta), 0)
			if cnt > math.MaxInt32*64 {
				return nil, op.Errorf("Range(%g, %g, %g) is too long", start, limit, delta)
			}
			out, err := checked(ctx, dt, []int{int(cnt)})
			if err != nil {
				return nil, err
			}
			switch o := out.Data().(type) {
			case []float32:
				if dt != tensor.Float && stash == 0 {
					x := []float32{float32(start)}
					tensor.RoundTo(dt, x)
					for i := range o {
						o[i] = x[0]
						x[0] += float32(delta)
						tensor.RoundTo(dt, x)
					}
				} else {
					s32, d32 := float32(start), float32(delta)
					for i := range o {
						o[i] = s32 + float32(i)*d32
					}
				}
			case []float64:
				for i := range o {
					o[i] = start + float64(i)*delta
				}
			}
			return ctx.One(out), nil
		}
		s, err := in[0].Int64s()
		if err != nil {
			return nil, op.Errorf("Range does not support %s", dt)
		}
		l, _ := in[1].Int64s()
		d, _ := in[2].Int64s()
		start, limit, delta := s[0], l[0], d[0]
		if delta == 0 {
			return nil, op.Errorf("Range delta cannot be 0")
		}
		var cnt int64
		if delta > 0 && limit > start {
			cnt = (limit-start-1)/delta + 1
		} else if delta < 0 && limit < start {
			cnt = (start-limit-1)/(-delta) + 1
		}
		out, err := checked(ctx, dt, []int{int(cnt)})
		if err != nil {
			return nil, err
		}
		switch o := out.Data().(type) {
		case []int64:
			fillRange(o, start, delta)
		case []int32:
			fillRange(o, start, delta)
		case []int16:
			fillRange(o, start, delta)
		case []int8:
			fillRange(o, start, delta)
		case []uint8:
			fillRange(o, start, delta)
		case []uint16:
			fillRange(o, start, delta)
		case []uint32:
			fillRange(o, start, delta)
		case []uint64:
			fillRange(o, start, delta)
		default:
			return nil, op.Errorf("Range does not support %s", dt)
		}
		return ctx.One(out), nil
	}), nil
}

func fillRange[T tensor.Number](o []T, start, delta int64) {
	for i := range o {
		o[i] = T(start + int64(i)*delta)
	}
}

func inferRange(c *shapes.Ctx) {
	// Constant start/limit/delta are folded; Range(0, n, 1) of a symbolic n
	// (a dim read with Shape) has n elements; otherwise the length is unknown.
	start, ok1 := c.Sym(0)
	limit, ok2 := c.Sym(1)
	delta, ok3 := c.Sym(2)
	if ok1 && ok2 && ok3 && len(start) == 1 && len(limit) == 1 && len(delta) == 1 &&
		shapes.IsKnown(start[0]) && start[0].Value == 0 && shapes.IsKnown(delta[0]) && delta[0].Value == 1 && !shapes.IsUnknown(limit[0]) {
		c.Set(0, []graph.Dim{limit[0]}, "")
		return
	}
	c.Set(0, []graph.Dim{shapes.Unknown()}, "")
}
