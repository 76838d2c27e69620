package ml

import (
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Default.Register(Domain, "Binarizer", []int{1}, buildBinarizer)
}

// buildBinarizer maps x > threshold to 1 and everything else (NaN
// included) to 0, keeping the input's type.
func buildBinarizer(n *op.Node) (any, error) {
	th, err := n.Float("threshold", 0)
	if err != nil {
		return nil, err
	}
	t := float64(th)
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil {
			return nil, op.Errorf("Binarizer needs an input")
		}
		x := in[0]
		out := ctx.New(x.DType(), x.Shape()...)
		switch d := out.Data().(type) {
		case []float32:
			for i, v := range x.F32() {
				if float64(v) > t {
					d[i] = 1
				}
			}
		case []float64:
			for i, v := range x.F64() {
				if v > t {
					d[i] = 1
				}
			}
		case []int32:
			for i, v := range x.I32() {
				if float64(v) > t {
					d[i] = 1
				}
			}
		case []int64:
			for i, v := range x.I64() {
				if float64(v) > t {
					d[i] = 1
				}
			}
		default:
			return nil, op.Errorf("Binarizer does not support %s", x.DType())
		}
		return ctx.One(out), nil
	}), nil
}
