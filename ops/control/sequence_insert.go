package control

import (
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// SequenceInsert returns a new Sequence; the input sequence is left as is.
func init() { op.Register("SequenceInsert", []int{11}, buildSequenceInsert) }

func buildSequenceInsert(n *op.Node) (any, error) {
	return valueKernel(func(ctx *op.Context, in []tensor.Value) ([]tensor.Value, error) {
		if len(in) < 2 {
			return nil, op.Errorf("SequenceInsert needs a sequence and a tensor")
		}
		seq, err := asSequence(in[0], "input_sequence")
		if err != nil {
			return nil, err
		}
		t, err := asTensor(in[1], "tensor")
		if err != nil {
			return nil, err
		}
		if (len(seq.Items) > 0 || seq.Elem.Valid()) && t.DType() != seq.Elem {
			return nil, op.Errorf("cannot insert a %s tensor into a sequence of %s", t.DType(), seq.Elem)
		}
		p := len(seq.Items)
		if len(in) > 2 && in[2] != nil {
			if p, err = position(in[2], len(seq.Items), len(seq.Items)+1); err != nil {
				return nil, err
			}
		}
		items := make([]*tensor.Tensor, 0, len(seq.Items)+1)
		items = append(items, seq.Items[:p]...)
		items = append(items, t)
		items = append(items, seq.Items[p:]...)
		return []tensor.Value{&tensor.Sequence{Elem: t.DType(), Items: items}}, nil
	}), nil
}
