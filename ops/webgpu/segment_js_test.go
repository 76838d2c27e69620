//go:build js && wasm

package webgpu_test

import (
	"context"
	"testing"

	"github.com/gort-dev/gort/ops/webgpu"
	"github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/tensor"
)

// TestSegmentStaysOnGPU: conv → relu → maxpool → resize → concat (with
// the conv output) → add → sigmoid → averagepool → globalaveragepool, on
// asymmetric shapes (H≠W, N>1, C>1, groups>1), all on the device and
// matching the CPU.
func TestSegmentStaysOnGPU(t *testing.T) {
	r := &rng{s: 7}
	g := newModel(19)
	g.feed("x", r.tensor(2, 4, 10, 8))
	g.init("w", r.tensor(6, 2, 3, 3))
	g.init("b", r.tensor(6))
	g.init("scales", tensor.Of([]int{4}, []float32{1, 1, 2, 2}))
	g.init("bias2", r.tensor(1, 12, 1, 1))
	g.node("Conv", []string{"x", "w", "b"}, []string{"c"}, aInt("group", 2), aInts("pads", 1, 1, 1, 1))
	g.node("Relu", []string{"c"}, []string{"r"})
	g.node("MaxPool", []string{"r"}, []string{"p"}, aInts("kernel_shape", 2, 2), aInts("strides", 2, 2))
	g.node("Resize", []string{"p", "", "scales"}, []string{"u"}, aStr("mode", "linear"))
	g.node("Concat", []string{"u", "c"}, []string{"cat"}, aInt("axis", 1))
	g.node("Add", []string{"cat", "bias2"}, []string{"a"})
	g.node("Sigmoid", []string{"a"}, []string{"s"})
	g.node("AveragePool", []string{"s"}, []string{"ap"}, aInts("kernel_shape", 3, 2), aInts("pads", 1, 0, 1, 1), aInt("count_include_pad", 1))
	g.node("GlobalAveragePool", []string{"ap"}, []string{"y"})
	g.output("y", "cat")
	before := acc.Dispatches.Load()
	gpu, err := runModel(g, true)
	if err != nil {
		t.Fatal(err)
	}
	if off := gpu.offGPU(); off != "" {
		t.Errorf("nodes off the GPU: %s", off)
	}
	if acc.Dispatches.Load()-before < 9 {
		t.Errorf("%d dispatches, want at least 9", acc.Dispatches.Load()-before)
	}
	cpu, err := runModel(g, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []string{"y", "cat"} {
		if d := closeEnough(gpu.out[o], cpu.out[o], 1e-5, 1e-4); d != "" {
			t.Errorf("%s: %s", o, d)
		}
	}
	// Runs give back every buffer they take: a second and third run of
	// one session leave the live count where the first left it.
	// The tiled kernels too, with a 1×1 Conv (the matrix-product path).
	g.init("w1", r.tensor(12, 12, 1, 1))
	g.node("Conv", []string{"cat", "w1"}, []string{"pw"})
	g.output("pw")
	for _, dev := range []*webgpu.Accelerator{accSimple, accTiled} {
		s, err := runtime.Load(g.bytes(), &runtime.Options{Accelerator: dev})
		if err != nil {
			t.Fatal(err)
		}
		var live []int64
		for i := 0; i < 3; i++ {
			if _, err := s.Run(context.Background(), map[string]tensor.Value{"x": g.feeds["x"]}); err != nil {
				t.Fatal(err)
			}
			live = append(live, dev.LiveBuffers())
		}
		if live[1] != live[0] || live[2] != live[0] {
			t.Errorf("live device buffers after each run: %v, want a constant count", live)
		}
	}
}

// TestLargeDispatch: more invocations than one grid dimension holds
// (65535 workgroups of 64) spill into a second dimension.
func TestLargeDispatch(t *testing.T) {
	r := &rng{s: 3}
	n := 65535*64 + 4099
	g := newModel(19).feed("x", r.tensor(1, n)).init("b", r.tensor(1, 1)).
		node("Add", []string{"x", "b"}, []string{"a"}).node("Relu", []string{"a"}, []string{"y"}).output("y")
	gpu, err := runModel(g, true)
	if err != nil {
		t.Fatal(err)
	}
	if off := gpu.offGPU(); off != "" {
		t.Fatalf("off the device: %s", off)
	}
	cpu, err := runModel(g, false)
	if err != nil {
		t.Fatal(err)
	}
	if d := bitExact(gpu.out["y"], cpu.out["y"]); d != "" {
		t.Error(d)
	}
}
