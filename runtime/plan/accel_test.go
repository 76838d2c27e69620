package plan_test

import (
	"context"
	"math"
	"strings"
	"sync/atomic"
	"testing"

	gort "github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/graph"
	tm "github.com/gort-dev/gort/runtime/internal/testmodel"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/tensor"
)

// fakeDevice is an accelerator that runs Relu (as x·2, so that a test
// sees which device ran it), holding its values as fakeRemote.
type fakeDevice struct {
	lose      atomic.Bool // the next kernel call reports a lost device
	released  atomic.Int64
	downloads atomic.Int64
	uploads   atomic.Int64
}

type fakeRemote struct {
	tensor.RemoteValue
	t   *tensor.Tensor
	dev *fakeDevice
}

func (r *fakeRemote) DType() tensor.DType { return r.t.DType() }
func (r *fakeRemote) Shape() []int        { return r.t.Shape() }
func (r *fakeRemote) Download() (*tensor.Tensor, error) {
	r.dev.downloads.Add(1)
	return r.t.Clone(), nil
}
func (r *fakeRemote) Release() { r.dev.released.Add(1) }

func (d *fakeDevice) Device() plan.Device { return "fake" }

// Upload makes the fake a plan.Transferer.
func (d *fakeDevice) Upload(t *tensor.Tensor) (tensor.Remote, error) {
	d.uploads.Add(1)
	return &fakeRemote{t: t.Clone(), dev: d}, nil
}

func (d *fakeDevice) Kernel(n *op.Node, _ any, in []graph.Type) (any, string) {
	if n.OpType != "Relu" {
		return nil, "fake runs Relu only"
	}
	if in[0].Elem != tensor.Float {
		return nil, "input type unknown or not float32"
	}
	return valueKernel(func(ctx *op.Context, vs []tensor.Value) ([]tensor.Value, error) {
		if d.lose.Swap(false) {
			return nil, errs.New(errs.DeviceLost, "the fake device went away")
		}
		var x *tensor.Tensor
		switch v := vs[0].(type) {
		case *fakeRemote:
			x = v.t
		case *tensor.Tensor:
			x = v
		}
		y := tensor.New(tensor.Float, x.Shape()...)
		for i, v := range x.F32() {
			y.F32()[i] = 2 * v
		}
		return []tensor.Value{&fakeRemote{t: y, dev: d}}, nil
	}), ""
}

type valueKernel func(ctx *op.Context, in []tensor.Value) ([]tensor.Value, error)

func (k valueKernel) RunValues(ctx *op.Context, in []tensor.Value) ([]tensor.Value, error) {
	return k(ctx, in)
}

// TestAccelerator: steps the accelerator takes run there, the others on
// the CPU with a reason; values cross device boundaries; a lost device
// makes the run start over on the CPU, and later runs stay there.
func TestAccelerator(t *testing.T) {
	m := tm.New(13)
	m.Input("x", tensor.Float, 2, 3)
	m.Node("Relu", []string{"x"}, []string{"a"}).Name = "gpu1"
	m.Node("Relu", []string{"a"}, []string{"b"}).Name = "gpu2"
	m.Node("Sigmoid", []string{"b"}, []string{"c"}).Name = "cpu"
	m.Node("Relu", []string{"c"}, []string{"y"}).Name = "gpu3"
	m.Output("y", tensor.Float, 2, 3)
	dev := &fakeDevice{}
	var logged []string
	s, err := gort.Load(m.Bytes(), &gort.Options{Accelerator: dev, Optimization: plan.Disabled, Log: func(msg string) { logged = append(logged, msg) }})
	if err != nil {
		t.Fatal(err)
	}
	where := map[string]string{}
	for _, st := range s.Plan().Steps {
		where[st.Node.Name] = string(st.Device) + ":" + st.Reason
	}
	want := map[string]string{"gpu1": "fake:", "gpu2": "fake:", "cpu": "cpu:fake runs Relu only", "gpu3": "fake:"}
	for k, v := range want {
		if where[k] != v {
			t.Errorf("step %s placed %q, want %q", k, where[k], v)
		}
	}
	x := tensor.Of([]int{2, 3}, []float32{-1, 0, 1, 2, 3, 4})
	runY := func() []float32 {
		t.Helper()
		out, err := s.Run(context.Background(), map[string]tensor.Value{"x": x})
		if err != nil {
			t.Fatal(err)
		}
		y, ok := out["y"].(*tensor.Tensor)
		if !ok {
			t.Fatalf("output is a %T, want a downloaded tensor", out["y"])
		}
		return y.F32()
	}
	sigmoid := func(v float32) float32 {
		return float32(1 / (1 + exp(-float64(v))))
	}
	y := runY()
	for i, v := range x.F32() {
		// fake: 2·x, 2·(2·x), sigmoid on the CPU, then 2·.
		if w := 2 * sigmoid(4*v); abs(y[i]-w) > 1e-6 {
			t.Errorf("y[%d] = %v, want %v", i, y[i], w)
		}
	}
	if dev.downloads.Load() != 2 || dev.uploads.Load() != 2 || dev.released.Load() != 5 {
		t.Errorf("%d downloads, %d uploads and %d releases, want 2 (into the CPU step, the output), 2 (x, and c into gpu3) and 5", dev.downloads.Load(), dev.uploads.Load(), dev.released.Load())
	}
	dev.lose.Store(true)
	y = runY()
	for i, v := range x.F32() {
		w := v
		if w < 0 {
			w = 0
		}
		w = sigmoid(w)
		if abs(y[i]-w) > 1e-6 {
			t.Errorf("after the loss: y[%d] = %v, want the CPU result %v", i, y[i], w)
		}
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "lost") {
		t.Errorf("log %q, want one line about the lost device", logged)
	}
	before := dev.downloads.Load() + dev.uploads.Load()
	runY()
	if dev.downloads.Load()+dev.uploads.Load() != before {
		t.Errorf("a run after the loss used the device")
	}
}

func abs(v float32) float32 {
	if v < 0 {
		return -v
	}
	return v
}

func exp(v float64) float64 { return math.Exp(v) }

// TestDeviceResident: a device value fed to a run is read in place by
// device steps, downloaded for CPU steps, and never released (it stays
// the caller's); outputs named in KeepOnDevice come back as device values
// the caller releases.
func TestDeviceResident(t *testing.T) {
	m := tm.New(13)
	m.Input("x", tensor.Float, 2, 3)
	m.Node("Relu", []string{"x"}, []string{"a"}).Name = "gpu"
	m.Node("Sigmoid", []string{"x"}, []string{"c"}).Name = "cpu"
	m.Output("a", tensor.Float, 2, 3)
	m.Output("c", tensor.Float, 2, 3)
	dev := &fakeDevice{}
	s, err := gort.Load(m.Bytes(), &gort.Options{Accelerator: dev, Optimization: plan.Disabled})
	if err != nil {
		t.Fatal(err)
	}
	x := &fakeRemote{t: tensor.Of([]int{2, 3}, []float32{-1, 0, 1, 2, 3, 4}), dev: dev}
	out, err := s.RunWith(context.Background(), map[string]tensor.Value{"x": x}, nil, gort.RunOptions{KeepOnDevice: map[string]bool{"a": true, "c": true}})
	if err != nil {
		t.Fatal(err)
	}
	a, ok := out["a"].(*fakeRemote)
	if !ok {
		t.Fatalf("a is a %T, want the device's value", out["a"])
	}
	if a.t.F32()[4] != 6 {
		t.Errorf("a = %v, want 2·x", a.t.F32())
	}
	// c was made on the CPU: KeepOnDevice leaves it a tensor.
	if c, ok := out["c"].(*tensor.Tensor); !ok || abs(c.F32()[0]-0.26894143) > 1e-6 {
		t.Errorf("c = %v", out["c"])
	}
	if d, r := dev.downloads.Load(), dev.released.Load(); d != 1 || r != 0 {
		t.Errorf("%d downloads and %d releases, want 1 (x into the CPU step) and 0 (x is the caller's, a is kept)", d, r)
	}
	// Without KeepOnDevice, a is downloaded and released; x still is not.
	if _, err := s.Run(context.Background(), map[string]tensor.Value{"x": x}); err != nil {
		t.Fatal(err)
	}
	if d, r := dev.downloads.Load(), dev.released.Load(); d != 3 || r != 1 {
		t.Errorf("%d downloads and %d releases, want 3 and 1", d, r)
	}
	// A feed of the wrong shape is refused as for tensors.
	bad := &fakeRemote{t: tensor.New(tensor.Float, 3, 2), dev: dev}
	if _, err := s.Run(context.Background(), map[string]tensor.Value{"x": bad}); errs.CodeOf(err) != errs.InvalidFeed {
		t.Errorf("wrong dims: %v, want InvalidFeed", err)
	}
}

// TestDeviceFeedWithoutAccelerator: a session with no accelerator, fed a
// device-resident value (another session's GPU output), downloads it at
// the run's edge: its plan has no transfer steps to do it.
func TestDeviceFeedWithoutAccelerator(t *testing.T) {
	m := tm.New(13)
	m.Input("x", tensor.Float, 2, 3)
	m.Node("Sigmoid", []string{"x"}, []string{"y"})
	m.Output("y", tensor.Float, 2, 3)
	s, err := gort.Load(m.Bytes(), &gort.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dev := &fakeDevice{}
	x := tensor.Of([]int{2, 3}, []float32{-1, 0, 1, 2, 3, 4})
	out, err := s.Run(context.Background(), map[string]tensor.Value{"x": &fakeRemote{t: x, dev: dev}})
	if err != nil {
		t.Fatal(err)
	}
	want, err := s.Run(context.Background(), map[string]tensor.Value{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	if d := maxDiff(t, out["y"], want["y"]); d != 0 || dev.downloads.Load() != 1 || dev.released.Load() != 0 {
		t.Errorf("difference %g, %d downloads, %d releases; want 0, 1 (at the edge), 0 (the feed stays the caller's)", d, dev.downloads.Load(), dev.released.Load())
	}
}

// TestAllCPUPlanHasNoTransfers: with an accelerator that takes no node, the
// plan has no transfer steps (a download per float feed would run at every
// run for nothing), and a device-resident feed is downloaded at the run's
// edge.
func TestAllCPUPlanHasNoTransfers(t *testing.T) {
	m := tm.New(13)
	m.Input("x", tensor.Float, 2, 3)
	m.Node("Sigmoid", []string{"x"}, []string{"y"})
	m.Output("y", tensor.Float, 2, 3)
	dev := &fakeDevice{} // runs Relu only
	s, err := gort.Load(m.Bytes(), &gort.Options{Accelerator: dev})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range s.Plan().Steps {
		if st.Transfer != plan.NoTransfer || st.Device != plan.CPU {
			t.Errorf("step %s (%s) on %s: want only the Sigmoid, on the CPU", st.Node.Name, st.Node.OpType, st.Device)
		}
	}
	x := tensor.Of([]int{2, 3}, []float32{-1, 0, 1, 2, 3, 4})
	if _, err := s.Run(context.Background(), map[string]tensor.Value{"x": &fakeRemote{t: x, dev: dev}}); err != nil || dev.downloads.Load() != 1 {
		t.Errorf("device-resident feed: %v, %d downloads; want it downloaded once, at the edge", err, dev.downloads.Load())
	}
}
