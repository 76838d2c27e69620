package webgpu

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gort-dev/gort/ops/kernels"
	"github.com/gort-dev/gort/runtime/op"
)

// contract is what a WebGPU kernel implements of its op: the inputs it
// reads (by position, before a fused residual) and the attributes it
// honours. decide declines a node that has anything beyond it, with the
// reason, so that an input the plan appends (runtime/plan/matmulbias.go
// gives MatMul a third one), an attribute of another opset version or an
// epilogue field the kernel does not know can never be silently ignored:
// the node stays on the CPU, whose kernel implements all of it.
//
// This is the rule every GPU kernel follows: it implements every input,
// attribute and fused epilogue of the node it is handed, or declines it.
// docs/webgpu-audit.md lists, per op, what each kernel covers.
type contract struct {
	// inputs is the number of input positions the kernel reads.
	inputs int
	// attrs are the attributes it honours; decide reads each of them.
	attrs []string
	// shared says the node is parsed by the CPU kernel's own parser
	// (ops/resample for Resize and Upsample), which answers for every
	// attribute and input itself.
	shared bool
	// fuses says the kernel applies a fused activation (op.Fusion);
	// residual says it also adds a fused residual input.
	fuses, residual bool
}

// poolAttrs are the window attributes the pooling kernel honours;
// storage_order only shapes MaxPool's Indices output, which decide never
// accepts (outputs beyond the first stay on the CPU).
var poolAttrs = []string{"auto_pad", "ceil_mode", "count_include_pad", "dilations", "kernel_shape", "pads", "strides", "storage_order"}

// contracts maps each op the accelerator accepts to its kernel's contract.
// An op missing here is declined whatever decide would otherwise say.
var contracts = map[string]contract{
	"Conv":               {inputs: 3, attrs: []string{"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"}, fuses: true, residual: true},
	"ConvTranspose":      {inputs: 3, attrs: []string{"auto_pad", "dilations", "group", "kernel_shape", "output_padding", "output_shape", "pads", "strides"}, fuses: true},
	"MaxPool":            {inputs: 1, attrs: poolAttrs},
	"AveragePool":        {inputs: 1, attrs: poolAttrs},
	"GlobalAveragePool":  {inputs: 1},
	"GlobalMaxPool":      {inputs: 1},
	"Concat":             {inputs: -1, attrs: []string{"axis"}},
	"Resize":             {inputs: -1, shared: true},
	"Upsample":           {inputs: -1, shared: true},
	"Identity":           {inputs: 1},
	"Dropout":            {inputs: 3, attrs: []string{"is_test", "ratio", "seed"}}, // inference: ratio and seed do nothing
	"Flatten":            {inputs: 1, attrs: []string{"axis"}},
	"Reshape":            {inputs: 2, attrs: []string{"allowzero"}},
	"BatchNormalization": {inputs: 5, attrs: []string{"epsilon", "momentum", "training_mode"}, fuses: true}, // momentum only updates running statistics, which inference does not output
	"Softmax":            {inputs: 1, attrs: []string{"axis"}},
	"MatMul":             {inputs: 3, fuses: true, residual: true}, // the third is the bias the plan fuses (runtime/plan/matmulbias.go)
	"Gemm":               {inputs: 3, attrs: []string{"alpha", "beta", "transA", "transB"}, fuses: true, residual: true},
	"Sum":                {inputs: -1},
	"Add":                {inputs: 2},
	"Sub":                {inputs: 2},
	"Mul":                {inputs: 2},
	"Div":                {inputs: 2},
}

// activationContract is the contract of a node whose CPU kernel declares
// a fusable activation (op.ActivationKernel): its op parsed every
// attribute and input into that declaration, which the unary kernel
// applies as it is.
var activationContract = contract{inputs: -1, shared: true}

// checkContract returns why the node asks for more than its kernel
// implements, or "". cpu is the node's CPU kernel.
func checkContract(n *op.Node, cpu any) string {
	c, ok := contracts[n.OpType]
	if _, isAct := cpu.(op.ActivationKernel); isAct {
		c, ok = activationContract, true
	}
	if !ok {
		return "no WebGPU kernel for " + n.OpType
	}
	if n.Fused != nil && !c.fuses {
		return "fused epilogue on " + n.OpType
	}
	if c.shared {
		return ""
	}
	inputs := len(n.Inputs)
	if f := n.Fused; f != nil && f.Residual {
		if !c.residual {
			return "fused residual on " + n.OpType
		}
		inputs-- // the residual is the last input
	}
	if c.inputs >= 0 {
		for i := c.inputs; i < inputs; i++ {
			if n.Inputs[i] != "" {
				return fmt.Sprintf("input %d (%s) of %s is not implemented on WebGPU", i, n.Inputs[i], n.OpType)
			}
		}
	}
	var extra []string
	for name := range n.Attrs {
		if !slices.Contains(c.attrs, name) {
			extra = append(extra, name)
		}
	}
	if len(extra) > 0 {
		slices.Sort(extra)
		return fmt.Sprintf("attribute %s of %s is not implemented on WebGPU", strings.Join(extra, ", "), n.OpType)
	}
	if f := n.Fused; f != nil {
		// The kernels read every field of op.Fusion (TestFusionFieldsKnown
		// fails when one is added); an activation without a WGSL form
		// stays on the CPU.
		if _, err := actFn(f.Activation); err != nil {
			return err.Error()
		}
	}
	return ""
}

// Ops lists, sorted, the ops the accelerator has kernels for: those of
// the contract table and the activations of ops/kernels' table that have
// a WGSL form.
func Ops() []string {
	names := make([]string, 0, len(contracts))
	for name := range contracts {
		names = append(names, name)
	}
	for _, a := range kernels.Activations() {
		if _, ok := a.WGSL(); ok {
			name, _, _ := strings.Cut(a.String(), "/")
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}
