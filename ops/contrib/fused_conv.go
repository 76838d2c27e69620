package contrib

import (
	"maps"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// FusedConv(X, W, B?, Z?): Y = activation(Conv(X, W) + B + Z), the Conv of
// onnxruntime's graph fusions. activation is an ONNX op name (Relu, Tanh,
// Sigmoid, LeakyRelu, Clip, HardSigmoid, HardSwish; "" none) with its
// parameters in activation_params: LeakyRelu [alpha], Clip [min, max],
// HardSigmoid [alpha, beta]; absent parameters take the ONNX op's
// defaults. Z, of Y's shape, is added before the activation.
//
// It is ops/nn's Conv with the epilogue that the plan's own Conv +
// activation (+ Add) fusion gives it: the node is handed to the Conv
// builder with that fusion set, so the sum and the activation run in the
// GEMM's output loop, bit for bit the separate ops.
func init() {
	op.Default.Register(Domain, "FusedConv", []int{1}, buildFusedConv)
	shapes.Register(Domain, "FusedConv", func(c *shapes.Ctx) {
		shapes.Conv(c)
		if x := c.Input(0); x != nil && x.Type.Elem != 0 {
			c.SetElem(0, x.Type.Elem)
		}
	})
}

// actDefaults are the ONNX defaults of the parameterised activations.
var actDefaults = map[string][2]float32{"LeakyRelu": {0.01, 0}, "Clip": {-3.4028234663852886e38, 3.4028234663852886e38}, "HardSigmoid": {0.2, 0.5}}

func buildFusedConv(n *op.Node) (any, error) {
	if n.Fused != nil {
		return nil, n.Errorf("FusedConv takes no further fusion")
	}
	a := &op.Attribs{N: n}
	act := a.String("activation", "")
	params := a.Floats("activation_params")
	if a.Err != nil {
		return nil, a.Err
	}
	if act == "Identity" {
		act = ""
	}
	ab := actDefaults[act]
	copy(ab[:], params)
	conv := *n
	conv.Domain, conv.OpType = "", "Conv"
	conv.Attrs = maps.Clone(n.Attrs)
	delete(conv.Attrs, "activation")
	delete(conv.Attrs, "activation_params")
	hasZ := n.HasInput(3)
	conv.Inputs = append([]string(nil), n.Inputs[:min(len(n.Inputs), 3)]...)
	if hasZ {
		for len(conv.Inputs) < 3 {
			conv.Inputs = append(conv.Inputs, "")
		}
		conv.Inputs = append(conv.Inputs, n.Inputs[3])
	}
	if act != "" || hasZ {
		conv.Fused = &op.Fusion{Activation: op.Activation(act), Alpha: ab[0], Beta: ab[1], Residual: hasZ}
	}
	res := op.Default.Resolve("", "Conv", 11)
	if res.Builder == nil {
		return nil, n.Errorf("FusedConv: no Conv kernel: %s", res.Problem)
	}
	conv.Version, conv.Opset = res.Version, 11
	k, err := res.Builder(&conv)
	if err != nil {
		return nil, err
	}
	inner, ok := k.(op.Kernel)
	if !ok {
		return nil, n.Errorf("FusedConv: Conv's kernel is a %T", k)
	}
	// A plain kernel: the plan neither fuses more into it nor releases W.
	return op.KernelFunc(func(ctx *op.Context, ins []*tensor.Tensor) ([]*tensor.Tensor, error) {
		ins = append([]*tensor.Tensor(nil), ins...)
		for len(ins) < 3 {
			ins = append(ins, nil)
		}
		if !hasZ {
			ins = ins[:3]
		}
		return inner.Run(ctx, ins)
	}), nil
}
