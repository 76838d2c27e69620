package elementwise

import (
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Max, Min, Sum and Mean take any number of inputs. Versions before 8 required
// equal shapes; numpy broadcasting accepts every such model, so one kernel
// serves all versions. The result is accumulated in place in one output
// allocated at the broadcast shape of all inputs.

func init() {
	op.Register("Max", []int{1, 6, 8, 12, 13}, variadic("Max", opMax, false))
	shapes.Register("", "Max", shapes.BroadcastAll)
	op.Register("Min", []int{1, 6, 8, 12, 13}, variadic("Min", opMin, false))
	shapes.Register("", "Min", shapes.BroadcastAll)
	op.Register("Sum", []int{1, 6, 8, 13}, variadic("Sum", opAdd, false))
	shapes.Register("", "Sum", shapes.BroadcastAll)
	op.Register("Mean", []int{1, 6, 8, 13}, variadic("Mean", opAdd, true))
	shapes.Register("", "Mean", shapes.BroadcastAll)
}

// variadic returns the builder of the variadic op name (k folds the inputs; mean divides by their count).
// Not inlined: each inlined call (one per registered op) would carry its
// own copy of the kernel closure, kilobytes each in gort.wasm.
//
//go:noinline
func variadic(name string, k arithOp, mean bool) op.Builder {
	return func(n *op.Node) (any, error) {
		intsOK := (name == "Max" || name == "Min") && n.Version >= 12
		return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
			if len(in) == 0 {
				return nil, op.Errorf("%s needs at least one input", name)
			}
			for _, t := range in {
				if t == nil {
					return nil, op.Errorf("%s inputs cannot be omitted", name)
				}
			}
			if err := checkSame(in...); err != nil {
				return nil, err
			}
			dt := in[0].DType()
			if !isFloatish(dt) && !(intsOK && isInt(dt)) {
				return nil, badType(name, dt)
			}
			if len(in) == 1 {
				return ctx.One(in[0]), nil
			}
			shape, err := broadcastShapes(in...)
			if err != nil {
				return nil, err
			}
			out := ctx.New(dt, shape...)
			arithInto(k, out, in[0], in[1])
			for _, t := range in[2:] {
				arithInto(k, out, out, t)
			}
			if mean {
				switch d := out.Data().(type) {
				case []float32:
					for i := range d {
						d[i] /= float32(len(in))
					}
				case []float64:
					for i := range d {
						d[i] /= float64(len(in))
					}
				}
			}
			return ctx.One(out), nil
		}), nil
	}
}
