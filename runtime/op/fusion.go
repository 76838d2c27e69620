package op

import "github.com/gort-dev/gort/runtime/tensor"

// Activation names an elementwise function that the plan stage may fuse
// into the output loop of a Conv, ConvTranspose, Gemm, MatMul or
// BatchNormalization node: the ONNX op type ("Relu"), with "/variant"
// where an attribute selects another formula ("Gelu/tanh"). The kernel of
// the activation's own op declares it (ActivationKernel); what the names
// mean, in every form a kernel needs, is written once, in ops/kernels'
// table of activations.
type Activation string

// ActNone is no activation.
const ActNone Activation = ""

// ActivationKernel is implemented by the kernel of an elementwise node
// that computes one of the fusable activations. Activation returns it with
// its parameters (Fusion.Alpha/Beta), parsed from the node's attributes and
// constant inputs when the kernel was built; ok is false when this node's
// form cannot be fused (Clip with bounds known only at run time). The plan
// asks it instead of reading the node a second time, and so does an
// accelerator placing the node on its own.
type ActivationKernel interface {
	Activation() (act Activation, alpha, beta float32, ok bool)
}

// Fusion is work the plan stage folded into a node's output loop. The kernel
// computes y = act(op(x) + residual): the residual (when Residual is true) is
// the node's last input, appended by the rewrite, with the output's shape.
type Fusion struct {
	Activation  Activation
	Alpha, Beta float32
	Residual    bool
	// Fused lists the names of the nodes merged into this one, for reports.
	Fused []string
}

// ConstInput returns input i's value when the plan knows it is constant for
// the life of the session (an initializer that no feed can override, or a
// folded constant), so that builders can pre-pack weights once; nil otherwise.
// The tensor is shared and must not be modified.
func (n *Node) ConstInput(i int) *tensor.Tensor {
	if i < 0 || i >= len(n.Consts) {
		return nil
	}
	return n.Consts[i]
}

// FusingKernel is implemented by kernels that apply Node.Fused. The plan
// stage fuses only into kernels that implement it, so a builder that does
// not know about fusion can never silently drop an activation. The
// kernel says where an epilogue attaches: weight is the input whose dtype
// decides whether the float32 epilogue applies, full the number of input
// slots of the op, after which the plan appends a fused residual.
type FusingKernel interface {
	FusionInputs() (weight, full int)
}
