package control

import (
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Version 18 also accepts a plain tensor or sequence and returns it as is.
// Version 15 does too: gort does not wrap values flowing into optional-typed
// slots, so a plain value there is a present optional (see OptionalHasElement).
func init() { op.Register("OptionalGetElement", []int{15, 18}, buildOptionalGetElement) }

func buildOptionalGetElement(n *op.Node) (any, error) {
	return valueKernel(func(ctx *op.Context, in []tensor.Value) ([]tensor.Value, error) {
		if len(in) == 0 || in[0] == nil {
			return nil, op.Errorf("OptionalGetElement needs an input")
		}
		switch x := in[0].(type) {
		case *tensor.Optional:
			if x.Value == nil {
				return nil, op.Errorf("the optional input is empty")
			}
			return []tensor.Value{x.Value}, nil
		case *tensor.Tensor, *tensor.Sequence:
			return []tensor.Value{x}, nil
		}
		return nil, op.Errorf("OptionalGetElement takes an optional, a tensor or a sequence, got %s", kindName(in[0]))
	}), nil
}
