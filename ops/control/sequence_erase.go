package control

import (
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// SequenceErase returns a new Sequence; the input sequence is left as is.
func init() { op.Register("SequenceErase", []int{11}, buildSequenceErase) }

func buildSequenceErase(n *op.Node) (any, error) {
	return valueKernel(func(ctx *op.Context, in []tensor.Value) ([]tensor.Value, error) {
		if len(in) < 1 {
			return nil, op.Errorf("SequenceErase needs a sequence")
		}
		seq, err := asSequence(in[0], "input_sequence")
		if err != nil {
			return nil, err
		}
		if len(seq.Items) == 0 {
			return nil, op.Errorf("cannot erase from an empty sequence")
		}
		p := len(seq.Items) - 1
		if len(in) > 1 && in[1] != nil {
			if p, err = position(in[1], len(seq.Items), len(seq.Items)); err != nil {
				return nil, err
			}
		}
		items := make([]*tensor.Tensor, 0, len(seq.Items)-1)
		items = append(items, seq.Items[:p]...)
		items = append(items, seq.Items[p+1:]...)
		return []tensor.Value{&tensor.Sequence{Elem: seq.Elem, Items: items}}, nil
	}), nil
}
