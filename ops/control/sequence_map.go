package control

import (
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() { op.Register("SequenceMap", []int{17}, buildSequenceMap) }

// SequenceMap runs its body once per element of input_sequence. Additional
// inputs that are sequences are walked in step with it (zip); additional
// tensors are passed whole to every call.
func buildSequenceMap(n *op.Node) (any, error) {
	body := n.Graph("body")
	if body == nil {
		return nil, n.Errorf("SequenceMap needs the graph attribute body")
	}
	if len(body.InputNames()) != len(n.Inputs) {
		return nil, n.Errorf("SequenceMap has %d inputs but its body takes %d", len(n.Inputs), len(body.InputNames()))
	}
	nOut := len(n.Outputs)
	if len(body.OutputNames()) != nOut {
		return nil, n.Errorf("SequenceMap has %d outputs but its body yields %d", nOut, len(body.OutputNames()))
	}
	return valueKernel(func(ctx *op.Context, in []tensor.Value) ([]tensor.Value, error) {
		if len(in) < 1 {
			return nil, op.Errorf("SequenceMap needs input_sequence")
		}
		seq, err := asSequence(in[0], "input_sequence")
		if err != nil {
			return nil, err
		}
		count := len(seq.Items)
		for i, v := range in[1:] {
			switch x := v.(type) {
			case *tensor.Sequence:
				if len(x.Items) != count {
					return nil, op.Errorf("additional input %d is a sequence of %d elements, input_sequence has %d", i, len(x.Items), count)
				}
			case *tensor.Tensor:
			default:
				return nil, op.Errorf("additional input %d must be a tensor or a sequence, got %s", i, kindName(v))
			}
		}
		outs := make([]*tensor.Sequence, nOut)
		for k := range outs {
			dt := declaredOutput(body, k).Elem
			outs[k] = &tensor.Sequence{Elem: dt, Items: make([]*tensor.Tensor, 0, count)}
		}
		args := make([]tensor.Value, len(in))
		for i := 0; i < count; i++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			args[0] = seq.Items[i]
			for j, v := range in[1:] {
				if s, ok := v.(*tensor.Sequence); ok {
					args[1+j] = s.Items[i]
				} else {
					args[1+j] = v
				}
			}
			res, err := ctx.RunSubgraph(body, args)
			if err != nil {
				return nil, err
			}
			if err := checkOutputs(res, nOut, "the SequenceMap body"); err != nil {
				return nil, err
			}
			for k := range outs {
				t, err := asTensor(res[k], "SequenceMap body output "+itoa(k))
				if err != nil {
					return nil, err
				}
				if len(outs[k].Items) > 0 && t.DType() != outs[k].Elem {
					return nil, op.Errorf("body output %d is %s in one call and %s in another", k, t.DType(), outs[k].Elem)
				}
				outs[k].Elem = t.DType()
				outs[k].Items = append(outs[k].Items, t)
			}
		}
		res := make([]tensor.Value, nOut)
		for k, s := range outs {
			res[k] = s
		}
		return res, nil
	}), nil
}
