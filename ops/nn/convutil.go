package nn

import (
	"github.com/gort-dev/gort/ops/kernels"
	"github.com/gort-dev/gort/ops/window"
	"github.com/gort-dev/gort/runtime/tensor"
)

// convGeom is a resolved window (ops/window) in the form the CPU kernels
// take.
func convGeom(g *window.Geometry) *kernels.ConvGeom {
	return &kernels.ConvGeom{In: g.In, Out: g.Out, Kernel: g.Kernel, Strides: g.Strides, Dilations: g.Dilations, PadsBegin: g.PadsBegin}
}

// floatKind classifies the storage of a floating-point tensor.
func isFloatish(dt tensor.DType) bool { return dt.IsFloat() || dt == tensor.Double }
