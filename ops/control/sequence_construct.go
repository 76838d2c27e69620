package control

import (
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// SequenceConstruct exists in one version (11). Like every sequence op it
// shares the item tensors instead of copying them: values are immutable.
func init() { op.Register("SequenceConstruct", []int{11}, buildSequenceConstruct) }

func buildSequenceConstruct(n *op.Node) (any, error) {
	return valueKernel(func(ctx *op.Context, in []tensor.Value) ([]tensor.Value, error) {
		if len(in) == 0 {
			return nil, op.Errorf("SequenceConstruct needs at least one input")
		}
		seq := &tensor.Sequence{Items: make([]*tensor.Tensor, len(in))}
		for i, v := range in {
			t, err := asTensor(v, "input "+itoa(i))
			if err != nil {
				return nil, err
			}
			if i > 0 && t.DType() != seq.Elem {
				return nil, op.Errorf("input %d is %s, input 0 is %s; a sequence holds one element type", i, t.DType(), seq.Elem)
			}
			seq.Elem = t.DType()
			seq.Items[i] = t
		}
		return []tensor.Value{seq}, nil
	}), nil
}
