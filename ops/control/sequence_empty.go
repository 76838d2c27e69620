package control

import (
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() { op.Register("SequenceEmpty", []int{11}, buildSequenceEmpty) }

func buildSequenceEmpty(n *op.Node) (any, error) {
	dt, err := n.Int("dtype", int64(tensor.Float))
	if err != nil {
		return nil, err
	}
	if !tensor.DType(dt).Valid() {
		return nil, n.Errorf("dtype %d is not a tensor element type", dt)
	}
	return valueKernel(func(ctx *op.Context, in []tensor.Value) ([]tensor.Value, error) {
		return []tensor.Value{&tensor.Sequence{Elem: tensor.DType(dt)}}, nil
	}), nil
}
