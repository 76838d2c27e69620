// Package webgpu offloads nodes to a WebGPU device: WGSL compute kernels
// for Conv and ConvTranspose (1-D to 3-D, groups, depthwise, strides,
// dilations, pads, auto_pad, bias, a fused activation and residual),
// Resize and Upsample (every mode, through the per-axis plans of
// ops/resample), the pools, broadcasting Add/Sub/Mul/Div, the activations
// and Concat: enough that a conv → relu → pool → resize → concat segment
// stays on the device.
//
// New returns a plan.Accelerator; the plan offers it every node, and a
// node it declines stays on the CPU with the reason (dtype, rank,
// attribute, size over maxStorageBufferBindingSize, the cost rules of
// Options). Placement itself (place.go) needs no device, so it is tested
// natively; the kernels run only under GOOS=js GOARCH=wasm, where
// tools/webgpu/ci-webgpu.sh (make test-webgpu) runs them on Node + Dawn
// and on headless Chromium, both on SwiftShader.
package webgpu

import "github.com/gort-dev/gort/runtime/plan"

// Device is the name of the WebGPU device in plans and reports.
const Device plan.Device = "webgpu"

// Options tune placement.
type Options struct {
	// MinElements is the cost rule: a node whose data inputs all have
	// known sizes below it stays on the CPU, where transfers and a
	// dispatch would cost more than the work. It also switches the
	// segment rule (Heavy, plan.Segmenter): a segment of WebGPU steps
	// with no Conv, ConvTranspose, MatMul or Gemm goes back to the CPU.
	// 0 disables both rules (tests force single ops onto the device).
	MinElements int64
	// Tiled selects the tiled matrix product (MatMul, Gemm, 1×1 Conv):
	// TiledAuto uses it on hardware adapters only, because on a software
	// adapter its workgroup barriers cost more than they save (a 1×1 Conv
	// ran 10× slower tiled on SwiftShader).
	Tiled TiledMode
}

// TiledMode chooses between the tiled and the per-element matrix product.
type TiledMode int

const (
	TiledAuto TiledMode = iota
	TiledOn
	TiledOff
)

// DefaultMinElements is the cost threshold the JS package uses unless
// told otherwise.
const DefaultMinElements = 4096
