package plan_test

import (
	"context"
	"strings"
	"testing"

	gort "github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/errs"
	tm "github.com/gort-dev/gort/runtime/internal/testmodel"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/tensor"
)

// stepList is the plan's steps as "name@device" in order.
func stepList(p *plan.Plan) []string {
	var out []string
	for _, st := range p.Steps {
		out = append(out, st.Node.Name+"@"+string(st.Device))
	}
	return out
}

// TestTransferSteps: every device boundary is a step of the plan. A feed
// is uploaded for the device steps; consecutive device steps pass values
// without transfers; a device value read by two CPU steps is downloaded
// once; a CPU value read by a device step is uploaded; graph outputs a
// device step made are downloaded at the end (or, kept on the device,
// not at all); an int64 feed read on the CPU needs no download. The run's
// results are those of the steps, whatever moves them.
func TestTransferSteps(t *testing.T) {
	m := tm.New(13)
	m.Input("x", tensor.Float, 2, 3)
	m.Input("shape", tensor.Int64, 2)
	m.Node("Relu", []string{"x"}, []string{"a"}).Name = "gpu1"
	m.Node("Relu", []string{"a"}, []string{"b"}).Name = "gpu2"
	m.Node("Sigmoid", []string{"b"}, []string{"c"}).Name = "cpu1"
	m.Node("Neg", []string{"b"}, []string{"d"}).Name = "cpu2"
	m.Node("Add", []string{"c", "d"}, []string{"e"}).Name = "add"
	m.Node("Reshape", []string{"e", "shape"}, []string{"f"}).Name = "reshape"
	m.Node("Relu", []string{"f"}, []string{"y"}).Name = "gpu3"
	m.Output("y", tensor.Float, 2, 3)
	m.Output("b", tensor.Float, 2, 3)
	dev := &fakeDevice{}
	s, err := gort.Load(m.Bytes(), &gort.Options{Accelerator: dev, Optimization: plan.Disabled})
	if err != nil {
		t.Fatal(err)
	}
	p := s.Plan()
	want := []string{"upload x@fake", "gpu1@fake", "gpu2@fake", "download b@fake", "cpu1@cpu", "cpu2@cpu", "add@cpu", "reshape@cpu", "upload f@fake", "gpu3@fake", "download y@fake"}
	if got := stepList(p); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("steps\n %v\nwant\n %v", got, want)
	}
	for _, st := range p.Steps {
		switch st.Node.Name {
		case "upload x":
			if st.Transfer != plan.Upload || st.Bytes != 24 || st.Node.OpType != "Upload" {
				t.Errorf("upload x: %v, %d bytes, op %s", st.Transfer, st.Bytes, st.Node.OpType)
			}
		case "download b":
			if st.Transfer != plan.Download || p.Names[st.In[0]] != "b" || p.Names[st.Out[0]] != "b@cpu" {
				t.Errorf("download b: %v from %s to %s", st.Transfer, p.Names[st.In[0]], p.Names[st.Out[0]])
			}
		case "cpu1", "cpu2":
			if p.Names[st.In[0]] != "b@cpu" {
				t.Errorf("%s reads %s, want the CPU copy b@cpu", st.Node.Name, p.Names[st.In[0]])
			}
		case "gpu2":
			if p.Names[st.In[0]] != "a" || !st.OnDevice[0] {
				t.Errorf("gpu2 reads %s (on device: %v), want a on the device", p.Names[st.In[0]], st.OnDevice)
			}
		}
	}
	var outs []string
	for _, o := range p.Outputs {
		outs = append(outs, p.Names[o])
	}
	if strings.Join(outs, " ") != "y@cpu b@cpu" {
		t.Errorf("output slots %v, want the CPU copies", outs)
	}
	x := tensor.Of([]int{2, 3}, []float32{-1, 0, 1, 2, 3, -4})
	feeds := map[string]tensor.Value{"x": x, "shape": tensor.Of([]int{2}, []int64{3, 2})}
	check := func(out map[string]tensor.Value) {
		t.Helper()
		y, ok := out["y"].(*tensor.Tensor)
		if !ok {
			t.Fatalf("y is a %T", out["y"])
		}
		if sh := y.Shape(); len(sh) != 2 || sh[0] != 3 {
			t.Errorf("y shape %v, want [3 2]", sh)
		}
		for i, v := range x.F32() {
			b := 4 * v // the fake's Relu is 2·x
			w := 2 * (float32(1/(1+exp(-float64(b)))) - b)
			if got := y.F32()[i]; abs(got-w) > 1e-5 {
				t.Errorf("y[%d] = %v, want %v", i, got, w)
			}
			if got := out["b"].(*tensor.Tensor).F32()[i]; got != b {
				t.Errorf("b[%d] = %v, want %v", i, got, b)
			}
		}
	}
	out, err := s.Run(context.Background(), feeds)
	if err != nil {
		t.Fatal(err)
	}
	check(out)
	if d, u := dev.downloads.Load(), dev.uploads.Load(); d != 2 || u != 2 {
		t.Errorf("%d downloads and %d uploads, want 2 (b once, y) and 2 (x, f)", d, u)
	}
	// Kept on the device, y comes back as the device's value and its
	// download step does not run.
	out, err = s.RunWith(context.Background(), feeds, nil, gort.RunOptions{KeepOnDevice: map[string]bool{"y": true}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := out["y"].(*fakeRemote); !ok {
		t.Errorf("kept y is a %T", out["y"])
	}
	if d := dev.downloads.Load(); d != 3 {
		t.Errorf("%d downloads after the second run, want 3 (b only)", d)
	}
	// After a lost device the transfers pass values through and the
	// steps run their CPU kernels.
	dev.lose.Store(true)
	out, err = s.Run(context.Background(), feeds)
	if err != nil {
		t.Fatal(err)
	}
	if y := out["y"].(*tensor.Tensor).F32(); abs(y[0]-float32(1/(1+exp(0)))) > 1e-6 {
		t.Errorf("after the loss y[0] = %v, want the CPU's sigmoid(0) = 0.5", y[0])
	}
}

// TestWrongDevice: a step given a value on the wrong side (a plan without
// the transfer) fails with a coded error instead of copying it.
func TestWrongDevice(t *testing.T) {
	m := tm.New(13)
	m.Input("x", tensor.Float, 2, 3)
	m.Node("Relu", []string{"x"}, []string{"a"}).Name = "gpu"
	m.Node("Sigmoid", []string{"a"}, []string{"y"}).Name = "cpu"
	m.Output("y", tensor.Float, 2, 3)
	s, err := gort.Load(m.Bytes(), &gort.Options{Accelerator: &fakeDevice{}, Optimization: plan.Disabled})
	if err != nil {
		t.Fatal(err)
	}
	p := s.Plan()
	for _, st := range p.Steps {
		switch st.Node.Name {
		case "cpu":
			st.In[0] = p.SlotOf["a"] // skip the download
		case "download a":
			st.Free = nil // a stays live for cpu
		}
	}
	_, err = s.Run(context.Background(), map[string]tensor.Value{"x": tensor.New(tensor.Float, 2, 3)})
	if errs.CodeOf(err) != errs.Internal || !strings.Contains(err.Error(), "no transfer") {
		t.Errorf("got %v, want an Internal error about the missing transfer", err)
	}
}
