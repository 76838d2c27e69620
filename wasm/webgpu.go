//go:build js && wasm

package main

import (
	"fmt"
	"sync"
	"sync/atomic"
	"syscall/js"

	"github.com/gort-dev/gort/ops/webgpu"
	"github.com/gort-dev/gort/options"
	"github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/tensor"
	"github.com/gort-dev/gort/wasm/jsval"
)

// Execution providers, as onnxruntime-web names them: the create option
// executionProviders: ['webgpu', 'wasm'] asks for WebGPU placement with the
// CPU for the rest. Package options reads the list (options.Providers is
// the one list of names); Session.WebGPU says whether WebGPU is asked for,
// Session.WebGPUMinElements is its cost rule.

// The WebGPU device is shared by the sessions of this instance (one
// adapter, one pipeline cache). It is opened by the first session that
// asks for it, and again after a loss.
var gpuDev struct {
	mu  sync.Mutex
	acc *webgpu.Accelerator
}

// sharedDevice opens the instance's device if no live one is open (it
// awaits promises: call it from a goroutine).
func sharedDevice() (*webgpu.Accelerator, error) {
	gpuDev.mu.Lock()
	defer gpuDev.mu.Unlock()
	if gpuDev.acc == nil || gpuDev.acc.Lost() {
		gpuDev.acc = nil
		acc, err := webgpu.New()
		if err != nil {
			return nil, err
		}
		gpuDev.acc = acc
	}
	return gpuDev.acc, nil
}

// gpuDevice() → Promise<GPUDevice>: the device sessions run on (opened
// now if none is), for gort.env.webgpu.device: buffers fed with
// Tensor.fromGpuBuffer must be made on it.
func gpuDevice([]js.Value) (func() (any, error), error) {
	return func() (any, error) {
		acc, err := sharedDevice()
		if err != nil {
			return nil, errs.New(errs.InvalidArgument, "no WebGPU device: %v", err)
		}
		return acc.GPUDevice(), nil
	}, nil
}

// gpuFeed is a feed given as a GPUBuffer ({kind: 'tensor', type, dims,
// gpuBuffer}); the run's goroutine wraps it (wrapFeeds), as wrapping
// waits on the GPU.
type gpuFeed struct {
	tensor.RemoteValue
	buf   js.Value
	dtype string
	shape []int
}

func gpuFeedFromJS(w, buf js.Value) (tensor.Value, error) {
	shape, _, err := dimsFromJS(w) // convert.go
	if err != nil {
		return nil, err
	}
	return &gpuFeed{buf: buf, dtype: jsval.Get(w, "type").String(), shape: shape}, nil
}

// wrapFeeds turns the run's GPUBuffer feeds into device values of the
// shared device (a CPU-only session downloads them where read).
func wrapFeeds(feeds map[string]tensor.Value) error {
	for name, v := range feeds {
		f, ok := v.(*gpuFeed)
		if !ok {
			continue
		}
		fail := func(format string, a ...any) error {
			return errs.New(errs.InvalidFeed, format, a...).WithTensor(name)
		}
		if f.dtype != "float32" {
			return fail("a GPU-buffer tensor must be float32 (gort's WebGPU kernels are), got %s", f.dtype)
		}
		gpuDev.mu.Lock()
		acc := gpuDev.acc
		gpuDev.mu.Unlock()
		if acc == nil || acc.Lost() {
			return fail("no WebGPU device is open for this GPU-buffer tensor (create a session with executionProviders: ['webgpu'] first)")
		}
		r, err := acc.Feed(f.buf, f.shape)
		if err != nil {
			return fail("%v", err)
		}
		feeds[name] = r
	}
	return nil
}

// remoteToJS returns an output a device step produced as {kind: 'tensor',
// type, dims, gpuBuffer}, handing the buffer over to JS (Tensor.dispose
// destroys it); a device value it cannot hand over is downloaded.
func remoteToJS(v tensor.Remote) (js.Value, error) {
	buf, ok := webgpu.Detach(v)
	if !ok {
		t, err := v.Download()
		if err != nil {
			return js.Value{}, err
		}
		return valueToJS(t)
	}
	o := js.Global().Get("Object").New()
	o.Set("kind", "tensor")
	o.Set("type", v.DType().String())
	o.Set("dims", jsval.ToJS(append([]int{}, v.Shape()...)))
	o.Set("gpuBuffer", buf)
	return o, nil
}

// deviceState is what one session asked for and got.
type deviceState struct {
	requested bool
	acc       *webgpu.Accelerator
	why       string // why WebGPU is not in use
	lost      atomic.Bool
	logged    sync.Once // the placement summary goes to the console once
}

// openDevice runs in the load goroutine (opening awaits promises): it
// sets lo.Accelerator when opts ask for WebGPU and it is available, and
// lo.Log so that a lost device is reported on the console and remembered.
func openDevice(opts *options.Session, lo *runtime.Options) *deviceState {
	st := &deviceState{requested: opts.WebGPU}
	if !opts.WebGPU {
		return st
	}
	acc, err := sharedDevice()
	if err != nil {
		st.why = err.Error()
	} else {
		st.acc = acc.With(webgpu.Options{MinElements: opts.WebGPUMinElements})
	}
	if st.acc == nil {
		js.Global().Get("console").Call("warn", "gort: WebGPU unavailable, running on the CPU: "+st.why)
		return st
	}
	lo.Accelerator = st.acc
	lo.Log = func(msg string) {
		st.lost.Store(true)
		js.Global().Get("console").Call("warn", msg)
	}
	return st
}

// placement is one node's device, with the reason when it is the CPU.
type placement struct {
	Node   string `js:"node"`
	Op     string `js:"op"`
	Device string `js:"device"`
	Reason string `js:"reason"`
	// Threads says how the last run with worker threads ran the step
	// (runtime.Session.SplitNote), when it considered splitting it.
	Threads string `js:"threads,omitempty"`
}

// providersInfo answers session.executionProviders and
// session.placements.
type providersInfo struct {
	// ExecutionProviders in use: ['webgpu', 'wasm'] or ['wasm'].
	ExecutionProviders []string `js:"executionProviders"`
	// WebGPUUnavailable says why WebGPU was asked for and is not in use
	// ("" otherwise).
	WebGPUUnavailable string      `js:"webgpuUnavailable"`
	Adapter           string      `js:"adapter"`
	Placements        []placement `js:"placements"`
}

func (st *deviceState) info(s *runtime.Session) providersInfo {
	in := providersInfo{ExecutionProviders: []string{options.WASM}}
	onGPU := false
	lost := st.lost.Load() || st.acc != nil && st.acc.Lost()
	for i, step := range s.Plan().Steps {
		if step.Transfer != plan.NoTransfer {
			continue // a copy between devices, not a node of the model
		}
		p := placement{Node: step.Node.Name, Op: step.Node.OpType, Device: options.WASM, Reason: step.Reason, Threads: s.SplitNote(i)}
		if step.Device != plan.CPU {
			if lost {
				p.Reason = "the WebGPU device was lost; the session runs on the CPU"
			} else {
				p.Device = options.WebGPU
				onGPU = true
			}
		}
		in.Placements = append(in.Placements, p)
	}
	if st.requested && st.acc != nil {
		st.logged.Do(func() { logPlacements(in.Placements) })
	}
	switch {
	case !st.requested:
	case st.acc == nil:
		in.WebGPUUnavailable = st.why
	case lost:
		in.WebGPUUnavailable = "the WebGPU device was lost"
	case !onGPU:
		in.WebGPUUnavailable = "no node of this model qualifies for WebGPU (see placements)"
	default:
		in.ExecutionProviders = []string{options.WebGPU, options.WASM}
		in.Adapter = st.acc.Info()
	}
	return in
}

var sessionDevices sync.Map // session id → *deviceState

// providers(sessionID) returns the session's current providersInfo (it
// changes when the device is lost).
func providers(args []js.Value) (any, error) {
	if len(args) < 1 {
		return nil, argErr("providers needs a session handle")
	}
	s, id, err := session(args[0])
	if err != nil {
		return nil, err
	}
	st, ok := sessionDevices.Load(id)
	if !ok {
		return nil, fmt.Errorf("session %d has no provider record", id)
	}
	return st.(*deviceState).info(s), nil
}

// logPlacements writes one console line per session: how many nodes run
// on each device, and why each op that stays on the CPU does.
func logPlacements(ps []placement) {
	onGPU := 0
	why := map[string]int{}
	var order []string
	for _, p := range ps {
		if p.Device == options.WebGPU {
			onGPU++
			continue
		}
		k := p.Op + " (" + p.Reason + ")"
		if why[k] == 0 {
			order = append(order, k)
		}
		why[k]++
	}
	msg := fmt.Sprintf("gort: %d of %d nodes on WebGPU", onGPU, len(ps))
	for i, k := range order {
		if i == 0 {
			msg += "; on the CPU: "
		} else {
			msg += ", "
		}
		msg += fmt.Sprintf("%d× %s", why[k], k)
	}
	js.Global().Get("console").Call("info", msg)
}
