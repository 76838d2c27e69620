package control

import (
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Version 18 also accepts a plain tensor or sequence (present) and an
// omitted input (empty). Version 15 declares an optional input, but gort does
// not wrap values when they flow into an optional-typed slot (a Loop body
// returning a sequence for an optional(sequence) state, for instance), so a
// plain value there is an optional that has its element: both versions
// accept it. Only the omitted input is new in 18.
func init() { op.Register("OptionalHasElement", []int{15, 18}, buildOptionalHasElement) }

func buildOptionalHasElement(n *op.Node) (any, error) {
	v18 := n.Version >= 18
	if !v18 && !n.HasInput(0) {
		return nil, n.Errorf("OptionalHasElement-15 needs an input")
	}
	return valueKernel(func(ctx *op.Context, in []tensor.Value) ([]tensor.Value, error) {
		var v tensor.Value
		if len(in) > 0 {
			v = in[0]
		}
		has := false
		switch x := v.(type) {
		case nil:
		case *tensor.Optional:
			has = x.Value != nil
		default:
			has = true
		}
		return []tensor.Value{tensor.Scalar(has)}, nil
	}), nil
}
