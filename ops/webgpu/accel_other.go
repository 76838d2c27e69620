//go:build !(js && wasm)

package webgpu

import (
	"github.com/gort-dev/gort/runtime/gpu"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/plan"
)

// Accelerator is unavailable outside the WebAssembly build.
type Accelerator struct{}

// New reports why there is no WebGPU device in this build.
func New() (*Accelerator, error) {
	_, err := gpu.Open()
	return nil, err
}

// With returns a.
func (a *Accelerator) With(Options) *Accelerator { return a }

// Device names the device.
func (a *Accelerator) Device() plan.Device { return Device }

// Kernel declines every node.
func (a *Accelerator) Kernel(n *op.Node, cpu any, in []graph.Type) (any, string) {
	return nil, "WebGPU is not available in this build"
}
