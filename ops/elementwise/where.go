package elementwise

import (
	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Where selects per element with three-way broadcasting. Every dtype is
// allowed (strings and bools too), so the kernel is generic over the storage
// element (its width, for plain bits) rather than tensor.Number.

func init() {
	op.Register("Where", []int{9, 16}, buildWhere)
	shapes.Register("", "Where", shapes.BroadcastAll)
}

func buildWhere(n *op.Node) (any, error) {
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) != 3 || in[0] == nil || in[1] == nil || in[2] == nil {
			return nil, op.Errorf("Where needs three inputs")
		}
		c, x, y := in[0], in[1], in[2]
		if c.DType() != tensor.Bool {
			return nil, op.Errorf("Where condition must be bool, got %s", c.DType())
		}
		if err := checkSame(x, y); err != nil {
			return nil, err
		}
		shape, err := broadcastShapes(c, x, y)
		if err != nil {
			return nil, err
		}
		out := ctx.New(x.DType(), shape...)
		// By element width: selecting moves bits (see opsutil.As).
		switch x.Data().(type) {
		case []float32:
			where[float32](out, c, x, y)
		case []float64, []int64, []uint64:
			where[uint64](out, c, x, y)
		case []int32, []uint32:
			where[uint32](out, c, x, y)
		case []int16, []uint16:
			where[uint16](out, c, x, y)
		case []int8, []uint8, []bool:
			where[uint8](out, c, x, y)
		case []string:
			where[string](out, c, x, y)
		case []complex64:
			where[complex64](out, c, x, y)
		case []complex128:
			where[complex128](out, c, x, y)
		default:
			return nil, badType("Where", x.DType())
		}
		return ctx.One(out), nil
	}), nil
}

func where[T any](out, c, x, y *tensor.Tensor) {
	cd, xd, yd, od := c.Bools(), opsutil.As[T](x.Data()), opsutil.As[T](y.Data()), opsutil.As[T](out.Data())
	p := newPlan(out.Shape(), c.Shape(), x.Shape(), y.Shape())
	sc, sx, sy := p.inner[0], p.inner[1], p.inner[2]
	p.each(func(o int, offs []int, n int) {
		cc, xx, yy, d := cd[offs[0]:], xd[offs[1]:], yd[offs[2]:], od[o:o+n]
		for i := range d {
			if cc[i*sc] {
				d[i] = xx[i*sx]
			} else {
				d[i] = yy[i*sy]
			}
		}
	})
}
