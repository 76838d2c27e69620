//go:build js && wasm

package webgpu_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gort-dev/gort/ops/webgpu"
	"github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// destroyer wraps an accelerator so that the kernel of one node destroys
// the device just before it runs, while the run is in flight (earlier
// steps already left their values on the device).
type destroyer struct {
	*webgpu.Accelerator
	at    string
	armed atomic.Bool
}

type destroyingKernel struct {
	d *destroyer
	k op.ValueKernel
}

func (k destroyingKernel) RunValues(ctx *op.Context, in []tensor.Value) ([]tensor.Value, error) {
	if k.d.armed.Swap(false) {
		k.d.Destroy()
	}
	return k.k.RunValues(ctx, in)
}

func (d *destroyer) Kernel(n *op.Node, cpu any, in []graph.Type) (any, string) {
	k, reason := d.Accelerator.Kernel(n, cpu, in)
	if k != nil && n.Name == d.at {
		return destroyingKernel{d: d, k: k.(op.ValueKernel)}, ""
	}
	return k, reason
}

// TestDeviceLostMidRun destroys the device in the middle of a run: that
// run and the later ones return the CPU's result, and one log line says
// what happened.
func TestDeviceLostMidRun(t *testing.T) {
	own, err := webgpu.New() // not the shared device, which other tests keep using
	if err != nil {
		t.Fatal(err)
	}
	r := &rng{s: 99}
	g := newModel(19)
	g.feed("x", r.tensor(2, 3, 9, 6))
	g.init("w", r.tensor(4, 3, 3, 3))
	g.init("scales", tensor.Of([]int{4}, []float32{1, 1, 1.5, 2}))
	g.node("Conv", []string{"x", "w"}, []string{"c"}, aInts("pads", 1, 1, 1, 1))
	g.node("Relu", []string{"c"}, []string{"r"})
	g.node("Resize", []string{"r", "", "scales"}, []string{"u"}, aStr("mode", "linear"))
	g.node("MaxPool", []string{"u"}, []string{"y"}, aInts("kernel_shape", 2, 2))
	g.output("y")
	want, err := runModel(g, false)
	if err != nil {
		t.Fatal(err)
	}
	d := &destroyer{Accelerator: own, at: "Resize_2"}
	var logged []string
	s, err := runtime.Load(g.bytes(), &runtime.Options{Accelerator: d, Log: func(m string) { logged = append(logged, m) }})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range s.Plan().Steps {
		if st.Device != webgpu.Device {
			t.Fatalf("%s placed on %s: %s", st.Node.Name, st.Device, st.Reason)
		}
	}
	feeds := map[string]tensor.Value{"x": g.feeds["x"]}
	check := func(what string) {
		t.Helper()
		out, err := s.Run(context.Background(), feeds)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if diff := closeEnough(out["y"].(*tensor.Tensor), want.out["y"], 1e-5, 1e-4); diff != "" {
			t.Errorf("%s: %s", what, diff)
		}
	}
	check("before the loss")
	if len(logged) != 0 {
		t.Errorf("log before the loss: %q", logged)
	}
	d.armed.Store(true)
	check("the run that lost the device")
	if d.armed.Load() {
		t.Fatal("the device was not destroyed")
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "lost") {
		t.Errorf("log %q, want one line about the lost device", logged)
	}
	before := own.Dispatches.Load()
	check("a run after the loss")
	if own.Dispatches.Load() != before {
		t.Error("a run after the loss dispatched to the destroyed device")
	}
}
