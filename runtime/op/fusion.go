package op

import "github.com/gort-dev/gort/runtime/tensor"

// Activation names an elementwise function that the plan stage may fuse into
// the output loop of a Conv, ConvTranspose, Gemm or MatMul node.
type Activation string

// The activations a kernel epilogue must support. Their parameters live in
// Fusion.Alpha/Beta with the meaning of the ONNX op's attributes (Clip's
// min/max, which are inputs in the op, become Alpha/Beta here).
const (
	ActNone        Activation = ""
	ActRelu        Activation = "Relu"
	ActClip        Activation = "Clip"        // min(max(x, Alpha), Beta)
	ActLeakyRelu   Activation = "LeakyRelu"   // x < 0 ? Alpha·x : x
	ActSigmoid     Activation = "Sigmoid"     //
	ActHardSigmoid Activation = "HardSigmoid" // max(0, min(1, Alpha·x + Beta))
	ActHardSwish   Activation = "HardSwish"   // x · max(0, min(1, x/6 + 1/2))
	ActTanh        Activation = "Tanh"
)

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
// stage fuses only into kernels that report true, so a builder that does not
// know about fusion can never silently drop an activation.
type FusingKernel interface {
	AppliesFusion() bool
}
