package control

import (
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() { op.Register("SequenceLength", []int{11}, buildSequenceLength) }

func buildSequenceLength(n *op.Node) (any, error) {
	return valueKernel(func(ctx *op.Context, in []tensor.Value) ([]tensor.Value, error) {
		if len(in) < 1 {
			return nil, op.Errorf("SequenceLength needs a sequence")
		}
		seq, err := asSequence(in[0], "input_sequence")
		if err != nil {
			return nil, err
		}
		return []tensor.Value{tensor.Scalar(int64(len(seq.Items)))}, nil
	}), nil
}
