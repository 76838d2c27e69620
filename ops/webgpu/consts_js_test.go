//go:build js && wasm

package webgpu_test

import (
	"testing"

	"github.com/gort-dev/gort/ops/webgpu"
)

// TestConstInputsUploadedOnce: constant operands of the matrix products
// and elementwise ops (a fully connected layer's weights) are uploaded
// when the kernel is built, not at every run: a run uploads the feed and
// nothing else, on both matrix-product kernels, and the results match the
// CPU. A constant is the first operand of Sub (index 0 counts too).
func TestConstInputsUploadedOnce(t *testing.T) {
	r := &rng{s: 23}
	g := newModel(17).feed("x", r.tensor(3, 5)).
		init("w", r.tensor(4, 5)).init("c", r.tensor(4)).init("k", r.tensor(1, 4)).
		init("m", r.tensor(4, 6)).init("k2", r.tensor(3, 2)).init("k3", r.tensor(1, 8)).
		node("Gemm", []string{"x", "w", "c"}, []string{"g"}, aInt("transB", 1)).
		node("Add", []string{"g", "k"}, []string{"a"}).
		node("MatMul", []string{"a", "m"}, []string{"p"}).
		node("Concat", []string{"p", "k2"}, []string{"q"}, aInt("axis", 1)).
		node("Sub", []string{"k3", "q"}, []string{"y"}).
		output("y")
	cpu, err := runModel(g, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, dev := range []*webgpu.Accelerator{accSimple, accTiled} {
		before := dev.Uploads.Load()
		got, err := runModelOn(g, dev)
		if err != nil {
			t.Fatal(err)
		}
		if off := got.offGPU(); off != "" {
			t.Fatalf("not on the device: %s", off)
		}
		if n := dev.Uploads.Load() - before; n != 1 {
			t.Errorf("%d uploads during the run, want 1 (the feed x)", n)
		}
		if d := closeEnough(got.out["y"], cpu.out["y"], 1e-5, 1e-4); d != "" {
			t.Errorf("y: %s", d)
		}
	}
}
