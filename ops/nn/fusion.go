package nn

import (
	"slices"

	"github.com/gort-dev/gort/ops/kernels"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// fusion is a node's op.Fusion (the epilogue the plan stage folded into a
// Conv, ConvTranspose, Gemm or MatMul) resolved for the kernels:
// y = act(op(x) + residual). float32 kernels run it in their output loop;
// float16/bfloat16 and float64 outputs get it as separate passes with the
// same rounding the separate ops would do, so results match either way.
type fusion struct {
	act         kernels.Act
	alpha, beta float32
	residual    bool
}

// fusingKernel is a kernel whose builder applied the node's fusion (or had
// none to apply): the plan stage fuses only into kernels that say so
// (op.FusingKernel).
type fusingKernel struct {
	op.KernelFunc
	// weight and full are op.FusingKernel's FusionInputs.
	weight, full int
}

// FusionInputs implements op.FusingKernel.
func (k fusingKernel) FusionInputs() (weight, full int) { return k.weight, k.full }

// attrsFusingKernel is a fusingKernel that exposes the attributes its
// builder parsed (op.AttrsKernel).
type attrsFusingKernel struct {
	fusingKernel
	attrs any
}

// Attrs implements op.AttrsKernel.
func (k attrsFusingKernel) Attrs() any { return k.attrs }

// parseFusion reads n.Fused (nil when the node has none).
func parseFusion(n *op.Node) (*fusion, error) {
	if n.Fused == nil {
		return nil, nil
	}
	act, ok := kernels.ActNamed(string(n.Fused.Activation))
	if !ok {
		return nil, n.Errorf("%s cannot fuse activation %q", n.OpType, n.Fused.Activation)
	}
	return &fusion{act: act, alpha: n.Fused.Alpha, beta: n.Fused.Beta, residual: n.Fused.Residual}, nil
}

// split separates the residual (the node's last input, appended by the
// rewrite) from the op's own inputs.
func (f *fusion) split(in []*tensor.Tensor) ([]*tensor.Tensor, *tensor.Tensor, error) {
	if f == nil || !f.residual {
		return in, nil, nil
	}
	if len(in) == 0 || in[len(in)-1] == nil {
		return nil, nil, op.Errorf("fused residual input is missing")
	}
	return in[:len(in)-1], in[len(in)-1], nil
}

// checkResidual verifies that r can be added to an output of dtype dt and
// the given shape.
func checkResidual(r *tensor.Tensor, dt tensor.DType, shape []int) error {
	if r == nil {
		return nil
	}
	if r.DType() != dt || !slices.Equal(r.Shape(), shape) {
		return op.Errorf("fused residual is %s%v, output is %s%v", r.DType(), r.Shape(), dt, shape)
	}
	return nil
}

// epilogue returns the in-loop epilogue for a float32 output (nil fusion:
// none), with the residual's data when there is one.
func (f *fusion) epilogue(r *tensor.Tensor) (res []float32, act kernels.Act, alpha, beta float32) {
	if f == nil {
		return nil, kernels.ActNone, 0, 0
	}
	if r != nil {
		res = r.F32()
	}
	return res, f.act, f.alpha, f.beta
}

// inLoop reports whether a kernel computing dtype dt runs the fusion in its
// output loop (float32) rather than as separate passes.
func (f *fusion) inLoop(dt tensor.DType) bool { return f != nil && dt == tensor.Float }

// applySeparately runs the fusion on an already computed output y as the
// separate Add and activation ops would: float16/bfloat16 values are rounded
// after the Add (the executor rounds after the activation, as after any op).
func (f *fusion) applySeparately(y, r *tensor.Tensor) {
	if f == nil {
		return
	}
	switch yd := y.Data().(type) {
	case []float32:
		dt := y.DType()
		if r != nil {
			tensor.RoundTo(dt, yd) // the fused op's own output
			for i, v := range r.F32() {
				yd[i] += v
			}
		}
		if f.act != kernels.ActNone {
			tensor.RoundTo(dt, yd)
			kernels.Activate(yd, f.act, f.alpha, f.beta)
		}
	case []float64:
		if r != nil {
			for i, v := range r.F64() {
				yd[i] += v
			}
		}
		kernels.Activate64(yd, f.act, f.alpha, f.beta)
	}
}
