package control

import (
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Optional wraps a tensor or a sequence, or (without an input) nothing.
func init() { op.Register("Optional", []int{15}, buildOptional) }

func buildOptional(n *op.Node) (any, error) {
	if !n.HasInput(0) && !n.Has("type") {
		return nil, n.Errorf("Optional without an input needs the type attribute")
	}
	return valueKernel(func(ctx *op.Context, in []tensor.Value) ([]tensor.Value, error) {
		if len(in) == 0 || in[0] == nil {
			return []tensor.Value{&tensor.Optional{}}, nil
		}
		switch in[0].(type) {
		case *tensor.Tensor, *tensor.Sequence:
		default:
			return nil, op.Errorf("Optional wraps a tensor or a sequence, got %s", kindName(in[0]))
		}
		return []tensor.Value{&tensor.Optional{Value: in[0]}}, nil
	}), nil
}
