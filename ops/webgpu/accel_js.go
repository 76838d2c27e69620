//go:build js && wasm

package webgpu

import (
	"errors"
	"sync"
	"sync/atomic"
	"syscall/js"

	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/gpu"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Accelerator is the WebGPU device as the plan sees it (plan.Accelerator).
// Copies made by With share the device, its pools and pipelines.
type Accelerator struct {
	d *gpu.Device
	// Dispatches counts compute dispatches (tests check that work really
	// ran on the device).
	Dispatches *atomic.Int64
	// Downloads counts values read back to the CPU (tests check that a
	// device-resident feed is read in place).
	Downloads *atomic.Int64
	// Uploads counts host tensors uploaded during runs (tests check that
	// constant inputs are uploaded once, when the kernel is built).
	Uploads *atomic.Int64
	st      *shared
	opts    Options
}

// shared is the per-device state of the accelerators using one device.
type shared struct {
	mu    sync.Mutex
	zeros *gpu.Buffer // at least zeroN float32 zeros: the bias of a Conv without one
	zeroN int
}

// New opens the WebGPU device with no cost threshold (every qualifying
// node goes to the device). The error says why there is none
// (navigator.gpu missing, no adapter, requestDevice failing). Call it from
// a goroutine, never from inside a JS callback.
func New() (*Accelerator, error) {
	d, err := gpu.Open()
	if err != nil {
		return nil, err
	}
	return &Accelerator{d: d, Dispatches: new(atomic.Int64), Downloads: new(atomic.Int64), Uploads: new(atomic.Int64), st: &shared{}}, nil
}

// With returns an accelerator on the same device with other options (a
// session's own cost threshold, say).
func (a *Accelerator) With(o Options) *Accelerator {
	c := *a
	c.opts = o
	return &c
}

// Device names the device in plans and placement reports.
func (a *Accelerator) Device() plan.Device { return Device }

// tiled reports whether the tiled matrix product is in use.
func (a *Accelerator) tiled() bool {
	switch a.opts.Tiled {
	case TiledOn:
		return true
	case TiledOff:
		return false
	}
	return !a.d.Software
}

// Info describes the adapter (vendor, architecture, description).
func (a *Accelerator) Info() string { return a.d.Name }

// Lost reports whether the device is gone (lost or destroyed).
func (a *Accelerator) Lost() bool {
	lost, _ := a.d.Lost()
	return lost
}

// Destroy destroys the device; sessions using it fall back to the CPU.
func (a *Accelerator) Destroy() { a.d.Destroy() }

// LiveBuffers is the number of device buffers in use (not in the pool).
func (a *Accelerator) LiveBuffers() int64 { return a.d.Live.Load() }

// Sync waits for the work submitted so far (for timings).
func (a *Accelerator) Sync() error { return a.d.Sync() }

// Kernel builds the WebGPU kernel of a node, or says why the node stays
// on the CPU. The pipeline is compiled here (createComputePipelineAsync,
// cached per op, code path and rank), and constant weights and biases
// are uploaded once.
func (a *Accelerator) Kernel(n *op.Node, cpu any, in []graph.Type) (any, string) {
	if lost, why := a.d.Lost(); lost {
		return nil, "WebGPU " + why
	}
	s, reason := decide(n, cpu, in, a.d.Limits.MaxStorageBufferBindingSize, a.opts.MinElements)
	if s == nil {
		return nil, reason
	}
	var p *gpu.Pipeline
	var err error
	if s.src != "" { // the relabelling ops only copy buffers
		if p, err = a.d.Pipeline(s.key, s.src); err != nil {
			return nil, "WebGPU pipeline: " + err.Error()
		}
	}
	k := &kernel{a: a, s: s, p: p, n: n, consts: map[int]*gpu.Buffer{}, tables: map[string]*resizeTables{}}
	if s.kind == kAffine && s.a != nil {
		if k.consts[1], err = gpu.Upload(a.d, s.a); err == nil {
			k.consts[2], err = gpu.Upload(a.d, s.b)
		}
		if err != nil {
			return nil, "uploading BatchNormalization constants: " + err.Error()
		}
	}
	if s.tiledSrc != "" {
		if k.pTiled, err = a.d.Pipeline(s.tiledKey, s.tiledSrc); err != nil {
			return nil, "WebGPU pipeline: " + err.Error()
		}
	}
	if s.convTiledSrc != "" {
		if k.pConvTiled, err = a.d.Pipeline(s.key+"/tiled", s.convTiledSrc); err != nil {
			return nil, "WebGPU pipeline: " + err.Error()
		}
	}
	if s.block {
		if k.pBlock, err = a.d.Pipeline(s.key+"/oc4", s.blockSrc); err != nil {
			return nil, "WebGPU pipeline: " + err.Error()
		}
	}
	// Constant float inputs are uploaded here, once, instead of at every
	// run: Conv's weight and bias, and every operand of the matrix
	// products and elementwise ops. A fully connected layer's constant B
	// is most of a CNN's weights (about 500 MB in VGG-19): re-uploaded at
	// every run it made AlexNet and VGG slower on an H100 than on the CPU.
	var constIdx []int
	switch s.kind {
	case kConv, kConvTranspose:
		constIdx = []int{1, 2}
	case kMatMul, kBinary, kSum, kConcat:
		for i := range n.Inputs {
			constIdx = append(constIdx, i)
		}
	}
	for _, i := range constIdx {
		if t := n.ConstInput(i); t != nil && t.DType() == tensor.Float && k.consts[i] == nil {
			b, err := gpu.Upload(a.d, t.F32())
			if err != nil {
				k.Release()
				return nil, "uploading a constant input: " + err.Error()
			}
			k.consts[i] = b
		}
	}
	return k, ""
}

// zeroBuf returns a buffer of at least n zeros.
func (a *Accelerator) zeroBuf(n int) (*gpu.Buffer, error) {
	st := a.st
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.zeros == nil || st.zeroN < n {
		n = max(n, 256)
		b, err := gpu.Upload(a.d, make([]float32, n))
		if err != nil {
			return nil, err
		}
		st.zeros, st.zeroN = b, n
	}
	return st.zeros, nil
}

// value is a float32 tensor held in a device buffer (tensor.Remote).
type value struct {
	tensor.RemoteValue
	a     *Accelerator
	buf   *gpu.Buffer
	shape []int
}

func (v *value) DType() tensor.DType { return tensor.Float }
func (v *value) Shape() []int        { return v.shape }

// Download reads the buffer back (it waits for the GPU).
func (v *value) Download() (*tensor.Tensor, error) {
	v.a.Downloads.Add(1)
	t := tensor.New(tensor.Float, v.shape...)
	if err := v.a.d.Read(v.buf, t.F32()); err != nil {
		return nil, wrapErr(err)
	}
	return t, nil
}

// Release returns the buffer to the pool (a borrowed feed's is left alone).
func (v *value) Release() { v.buf.Release() }

// Upload copies a float32 tensor to the device (plan.Transferer: the
// plan's upload steps).
func (a *Accelerator) Upload(t *tensor.Tensor) (tensor.Remote, error) {
	if t.DType() != tensor.Float {
		return nil, errs.New(errs.Runtime, "cannot upload a %s tensor; WebGPU values are float32", t.DType())
	}
	b, err := gpu.Upload(a.d, t.F32())
	if err != nil {
		return nil, wrapErr(err)
	}
	a.Uploads.Add(1)
	return &value{a: a, buf: b, shape: t.Shape()}, nil
}

// ReadsOnDevice says which inputs the kernel reads from device buffers
// (plan.DeviceIO): not the constants uploaded when it was built, nor the
// operands it reads on the CPU (Resize's roi, scales and sizes,
// BatchNormalization's statistics, Reshape's shape), nor those it ignores
// (Dropout's ratio); a fused residual is read on the device.
func (k *kernel) ReadsOnDevice(i int) bool {
	if k.consts[i] != nil {
		return false
	}
	if i == 0 || (k.s.residual && i == len(k.n.Inputs)-1) {
		return true
	}
	switch k.s.kind {
	case kResize, kAffine, kCopy, kUnary, kPool, kSoftmax:
		return false
	}
	return true
}

// WritesOnDevice: the first output is a device value; Dropout's mask is a
// CPU tensor.
func (k *kernel) WritesOnDevice(j int) bool { return j == 0 }

// Feed wraps a caller's float32 GPUBuffer of the given shape as a value
// steps on this device read in place (a CPU step downloads it). The
// buffer stays the caller's. It waits on the GPU (see gpu.Device.Wrap).
func (a *Accelerator) Feed(buf js.Value, shape []int) (tensor.Remote, error) {
	n := 1
	for _, d := range shape {
		n *= d
	}
	b, err := a.d.Wrap(buf, n*4)
	if err != nil {
		return nil, err
	}
	return &value{a: a, buf: b, shape: shape}, nil
}

// Detach hands over the GPUBuffer of an output a device step produced (ok
// false for other values, a borrowed feed included): the caller owns it
// and destroys it.
func Detach(v tensor.Value) (buf js.Value, ok bool) {
	if x, is := v.(*value); is {
		return x.buf.Detach()
	}
	return js.Undefined(), false
}

// GPUDevice is the JS GPUDevice the accelerator runs on.
func (a *Accelerator) GPUDevice() js.Value { return a.d.JS() }

func wrapErr(err error) error {
	var e *errs.Error
	switch {
	case errors.As(err, &e):
		return err
	case errors.Is(err, gpu.ErrLost):
		return errs.New(errs.DeviceLost, "%v", err)
	}
	return errs.New(errs.Runtime, "WebGPU: %v", err)
}

type resizeTables struct {
	out    []int
	passes []resizePass
}

type resizePass struct {
	axis             int
	idx, wt, outside *gpu.Buffer
	hasOut           bool
	inN, outN, taps  int
}

// Heavy is the segment rule (plan.Segmenter; see heavyOps).
func (a *Accelerator) Heavy(n *op.Node) bool { return heavy(a.opts, n) }

// Release frees the constants uploaded at build, when the plan sends the
// node back to the CPU (the segment rule).
func (k *kernel) Release() {
	for i, b := range k.consts {
		b.Release()
		delete(k.consts, i)
	}
}

// kernel is one node's WebGPU kernel (an op.ValueKernel).
type kernel struct {
	a      *Accelerator
	s      *spec
	p      *gpu.Pipeline
	pBlock *gpu.Pipeline // Conv with four output channels per invocation, or nil
	pTiled *gpu.Pipeline // the tiled matrix product, or nil
	// pConvTiled is Conv as a tiled implicit GEMM, or nil.
	pConvTiled *gpu.Pipeline
	n          *op.Node
	consts     map[int]*gpu.Buffer // constant inputs by index, uploaded at build
	mu         sync.Mutex
	tables     map[string]*resizeTables
}
