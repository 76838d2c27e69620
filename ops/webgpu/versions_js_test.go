//go:build js && wasm

package webgpu_test

import (
	"testing"

	"github.com/gort-dev/gort/ops/webgpu"
	"github.com/gort-dev/gort/runtime/tensor"
)

// TestConvTransposeVersionsOnGPU: where ConvTranspose puts an odd unit of
// padding derived from output_shape changed in version 11 (docs/op-versions.md):
// version 1 puts it at the end, 11 at the start. X [1, 2], W [1, 1, 1],
// stride 2: the full output 1, 1, 3, 2, 2 is cropped to length 4. The
// device must follow the node's version as the CPU does.
func TestConvTransposeVersionsOnGPU(t *testing.T) {
	for _, c := range []struct {
		opset int64
		want  []float32
	}{
		{10, []float32{1, 1, 3, 2}}, // ConvTranspose-1
		{11, []float32{1, 3, 2, 2}},
	} {
		g := newModel(c.opset).feed("x", tensor.Of([]int{1, 1, 1, 2}, []float32{1, 2})).
			init("w", tensor.Of([]int{1, 1, 1, 3}, []float32{1, 1, 1})).
			node("ConvTranspose", []string{"x", "w"}, []string{"y"}, aInts("strides", 1, 2), aInts("output_shape", 1, 4)).output("y")
		want := tensor.Of([]int{1, 1, 1, 4}, c.want)
		for _, dev := range [][2]any{{"CPU", nil}, {"WebGPU", acc}} {
			a, _ := dev[1].(*webgpu.Accelerator)
			r, err := runModelOn(g, a)
			if err != nil {
				t.Fatalf("opset %d on %s: %v", c.opset, dev[0], err)
			}
			if a != nil && r.offGPU() != "" {
				t.Fatalf("opset %d: not on the device: %s", c.opset, r.offGPU())
			}
			if d := bitExact(r.out["y"], want); d != "" {
				t.Errorf("opset %d on %s: %s", c.opset, dev[0], d)
			}
		}
	}
}
