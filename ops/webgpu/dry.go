package webgpu

import (
	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Dry places nodes as the WebGPU accelerator would, without a device:
// the same rules (dtype, rank, attributes, the cost rule of its Options)
// with a 1 GiB binding limit, and the segment rule (Heavy), so that a host without WebGPU (gort print
// --webgpu, natively) can still report where each node would run and
// why. Its kernels refuse to run. The real accelerator may still decline
// a node Dry takes, when its device's limits are smaller.
type Dry struct{ Options }

// Device names the device.
func (Dry) Device() plan.Device { return Device }

// Kernel returns a placeholder kernel for a node WebGPU would take, or
// the reason it stays on the CPU.
func (d Dry) Kernel(n *op.Node, cpu any, in []graph.Type) (any, string) {
	if s, reason := decide(n, cpu, in, 1<<30, d.MinElements); s == nil {
		return nil, reason
	}
	return dryKernel{}, ""
}

// Heavy applies the segment rule as the real accelerator does, so that
// print and run agree.
func (d Dry) Heavy(n *op.Node) bool { return heavy(d.Options, n) }

type dryKernel struct{}

func (dryKernel) RunValues(*op.Context, []tensor.Value) ([]tensor.Value, error) {
	return nil, errs.New(errs.Runtime, "a placement-only (webgpu.Dry) plan cannot run")
}
