//go:build js && wasm

package webgpu_test

import (
	"context"
	"strings"
	"syscall/js"
	"testing"
	"unsafe"

	"github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/tensor"
)

// TestDeviceResidentChain: the output of one session, left on the device
// (KeepOnDevice), feeds a second session whose device steps read it in
// place (no download) and whose CPU step downloads it; the feed stays the
// caller's (still readable after the run), and results match the CPU.
// Shapes are asymmetric (N>1, C>1, H≠W).
func TestDeviceResidentChain(t *testing.T) {
	r := &rng{s: 11}
	a := newModel(17)
	a.feed("x", r.tensor(2, 3, 9, 6))
	a.init("w", r.tensor(4, 3, 3, 3))
	a.node("Conv", []string{"x", "w"}, []string{"c"}, aInts("pads", 1, 1, 1, 1))
	a.node("Relu", []string{"c"}, []string{"y"})
	a.output("y")
	b := newModel(17)
	b.feed("y", tensor.New(tensor.Float, 2, 4, 9, 6))
	b.node("Sigmoid", []string{"y"}, []string{"z"})
	b.node("ReduceMean", []string{"y"}, []string{"m"}, aInts("axes", 2, 3))
	b.output("z", "m")
	load := func(g *graphModel, gpu bool) *runtime.Session {
		o := &runtime.Options{}
		if gpu {
			o.Accelerator = acc
		}
		s, err := runtime.Load(g.bytes(), o)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	ctx := context.Background()
	cpuY, err := load(a, false).Run(ctx, map[string]tensor.Value{"x": a.feeds["x"]})
	if err != nil {
		t.Fatal(err)
	}
	cpuZ, err := load(b, false).Run(ctx, cpuY)
	if err != nil {
		t.Fatal(err)
	}
	sa, sb := load(a, true), load(b, true)
	// A first run allocates what the device keeps (Conv's zero bias).
	if _, err := sa.Run(ctx, map[string]tensor.Value{"x": a.feeds["x"]}); err != nil {
		t.Fatal(err)
	}
	live := acc.LiveBuffers()
	keep := runtime.RunOptions{KeepOnDevice: map[string]bool{"y": true, "z": true}}
	outA, err := sa.RunWith(ctx, map[string]tensor.Value{"x": a.feeds["x"]}, nil, keep)
	if err != nil {
		t.Fatal(err)
	}
	y, ok := outA["y"].(tensor.Remote)
	if !ok {
		t.Fatalf("y is a %T, want a device value", outA["y"])
	}
	downloads := acc.Downloads.Load()
	outB, err := sb.RunWith(ctx, map[string]tensor.Value{"y": y}, nil, keep)
	if err != nil {
		t.Fatal(err)
	}
	// One download: ReduceMean (CPU) reads y; Sigmoid reads it in place
	// and z stays on the device.
	if n := acc.Downloads.Load() - downloads; n != 1 {
		t.Errorf("%d downloads during the second run, want 1 (ReduceMean's input)", n)
	}
	z := outB["z"].(tensor.Remote)
	zt, err := z.Download()
	if err != nil {
		t.Fatal(err)
	}
	yt, err := y.Download() // the run left the caller's feed alone
	if err != nil {
		t.Fatal(err)
	}
	for name, pair := range map[string][2]*tensor.Tensor{"y": {yt, cpuY["y"].(*tensor.Tensor)}, "z": {zt, cpuZ["z"].(*tensor.Tensor)}, "m": {outB["m"].(*tensor.Tensor), cpuZ["m"].(*tensor.Tensor)}} {
		if d := closeEnough(pair[0], pair[1], 1e-5, 1e-4); d != "" {
			t.Errorf("%s: %s", name, d)
		}
	}
	y.Release()
	z.Release()
	if got := acc.LiveBuffers(); got != live {
		t.Errorf("%d live device buffers after releasing the outputs, want %d", got, live)
	}
}

// TestFeedGPUBuffer: a caller's GPUBuffer wrapped with Feed runs like the
// device's own values; a buffer of another device, one without STORAGE
// usage and one too small are refused without poisoning the device.
func TestFeedGPUBuffer(t *testing.T) {
	r := &rng{s: 5}
	g := newModel(17)
	x := r.tensor(1, 2, 5, 7)
	g.feed("x", x)
	g.node("Tanh", []string{"x"}, []string{"y"})
	g.output("y")
	s, err := runtime.Load(g.bytes(), &runtime.Options{Accelerator: acc})
	if err != nil {
		t.Fatal(err)
	}
	cpu, err := runModel(g, false)
	if err != nil {
		t.Fatal(err)
	}
	const usage = 0x80 | 0x4 | 0x8 // STORAGE | COPY_SRC | COPY_DST
	newBuf := func(dev js.Value, usage int) js.Value {
		b := dev.Call("createBuffer", map[string]any{"size": x.Len() * 4, "usage": usage})
		f := x.F32()
		u8 := js.Global().Get("Uint8Array").New(len(f) * 4)
		js.CopyBytesToJS(u8, unsafe.Slice((*byte)(unsafe.Pointer(&f[0])), len(f)*4))
		if usage&0x8 != 0 {
			dev.Get("queue").Call("writeBuffer", b, 0, u8)
		}
		return b
	}
	dev := acc.GPUDevice()
	buf := newBuf(dev, usage)
	v, err := acc.Feed(buf, x.Shape())
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Run(context.Background(), map[string]tensor.Value{"x": v})
	if err != nil {
		t.Fatal(err)
	}
	if d := closeEnough(out["y"].(*tensor.Tensor), cpu.out["y"], 1e-5, 1e-4); d != "" {
		t.Error(d)
	}
	if _, err := acc.Feed(newBuf(dev, 0x4|0x8), x.Shape()); err == nil || !strings.Contains(err.Error(), "STORAGE") {
		t.Errorf("a buffer without STORAGE usage: %v", err)
	}
	if _, err := acc.Feed(buf, []int{1, 2, 5, 8}); err == nil || !strings.Contains(err.Error(), "bytes") {
		t.Errorf("too small a buffer: %v", err)
	}
	if other, ok := await(js.Global().Get("navigator").Get("gpu").Call("requestAdapter")); ok {
		if od, ok := await(other.Call("requestDevice")); ok {
			if _, err := acc.Feed(newBuf(od, usage), x.Shape()); err == nil || !strings.Contains(err.Error(), "gort's device") {
				t.Errorf("a buffer of another device: %v", err)
			}
		}
	}
	gone := newBuf(dev, usage)
	gone.Call("destroy")
	if _, err := acc.Feed(gone, x.Shape()); err == nil {
		t.Error("a destroyed buffer was taken")
	}
	// A wrong shape for the model is the session's InvalidFeed.
	v2, err := acc.Feed(buf, []int{1, 2, 7, 5})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(context.Background(), map[string]tensor.Value{"x": v2}); errs.CodeOf(err) != errs.InvalidFeed {
		t.Errorf("wrong dims: %v, want InvalidFeed", err)
	}
	// The device still runs.
	if _, err := s.Run(context.Background(), map[string]tensor.Value{"x": v}); err != nil {
		t.Errorf("after the refusals: %v", err)
	}
}

// await waits for a promise (from the test's goroutine).
func await(p js.Value) (js.Value, bool) {
	ch := make(chan js.Value, 1)
	ok := true
	then := js.FuncOf(func(_ js.Value, a []js.Value) any { ch <- a[0]; return nil })
	catch := js.FuncOf(func(_ js.Value, a []js.Value) any { ok = false; ch <- js.Undefined(); return nil })
	defer then.Release()
	defer catch.Release()
	p.Call("then", then, catch)
	v := <-ch
	return v, ok
}
