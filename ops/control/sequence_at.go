package control

import (
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() { op.Register("SequenceAt", []int{11}, buildSequenceAt) }

// position reads a SequenceAt/Insert/Erase position and maps a negative one
// to its place counted from the back; valid positions are [-n, limit).
func position(v tensor.Value, n, limit int) (int, error) {
	p, err := intScalar(v, "position")
	if err != nil {
		return 0, err
	}
	if p < int64(-n) || p >= int64(limit) {
		return 0, op.Errorf("position %d is out of range for a sequence of length %d", p, n)
	}
	if p < 0 {
		p += int64(n)
	}
	return int(p), nil
}

func buildSequenceAt(n *op.Node) (any, error) {
	return valueKernel(func(ctx *op.Context, in []tensor.Value) ([]tensor.Value, error) {
		if len(in) < 2 {
			return nil, op.Errorf("SequenceAt needs a sequence and a position")
		}
		seq, err := asSequence(in[0], "input_sequence")
		if err != nil {
			return nil, err
		}
		p, err := position(in[1], len(seq.Items), len(seq.Items))
		if err != nil {
			return nil, err
		}
		return []tensor.Value{seq.Items[p]}, nil
	}), nil
}
