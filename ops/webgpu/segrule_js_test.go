package webgpu_test

import (
	"strings"
	"testing"

	"github.com/gort-dev/gort/ops/webgpu"
	"github.com/gort-dev/gort/runtime/tensor"
)

// TestSegmentRule: with the cost rule on, a segment of light ops between
// CPU steps (BatchNormalization, Relu) goes back to the CPU, where it
// computes what a CPU-only session does, and the constants its WebGPU
// kernel had uploaded are released; with the rule off it stays.
func TestSegmentRule(t *testing.T) {
	r := &rng{s: 11}
	g := newModel(19).feed("x", r.tensor(1, 32, 16, 12)).
		init("scale", r.tensor(32)).init("bias", r.tensor(32)).init("mean", r.tensor(32)).
		init("var", tensor.Of([]int{32}, make([]float32, 32))).
		node("Erf", []string{"x"}, []string{"a"}).
		node("BatchNormalization", []string{"a", "scale", "bias", "mean", "var"}, []string{"b"}).
		node("Relu", []string{"b"}, []string{"c"}).
		node("Erf", []string{"c"}, []string{"y"}).output("y")
	want, err := runModel(g, false)
	if err != nil {
		t.Fatal(err)
	}
	live := acc.LiveBuffers()
	got, err := runModelOn(g, acc.With(webgpu.Options{MinElements: webgpu.DefaultMinElements}))
	if err != nil {
		t.Fatal(err)
	}
	const reason = "cpu: a segment of 2 light ops (BatchNormalization, Relu) between CPU steps"
	for _, n := range []string{"BatchNormalization_1", "Relu_2"} {
		if !strings.HasPrefix(got.placements[n], reason) {
			t.Errorf("%s placed %q, want %q…", n, got.placements[n], reason)
		}
	}
	if d := bitExact(got.out["y"], want.out["y"]); d != "" {
		t.Errorf("moved segment: %s", d)
	}
	if n := acc.LiveBuffers(); n != live {
		t.Errorf("%d live buffers after the load, want %d (the dropped kernel's constants released)", n, live)
	}
	off, err := runModel(g, true) // acc: MinElements 0, the rules off
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"BatchNormalization_1", "Relu_2"} {
		if off.placements[n] != string(webgpu.Device) {
			t.Errorf("rule off: %s placed %q", n, off.placements[n])
		}
	}
}
