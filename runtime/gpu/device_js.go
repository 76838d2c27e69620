//go:build js && wasm

package gpu

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"syscall/js"
	"unsafe"
)

// GPUBufferUsage and GPUMapMode flags (fixed by the WebGPU spec).
const (
	usageMapRead  = 0x1
	usageCopySrc  = 0x4
	usageCopyDst  = 0x8
	usageUniform  = 0x40
	usageStorage  = 0x80
	mapModeRead   = 0x1
	workgroupSize = 64 // every kernel of ops/webgpu uses @workgroup_size(64)
)

// ErrLost is wrapped by every error caused by a lost (or destroyed) device.
var ErrLost = errors.New("WebGPU device lost")

// Device is an open WebGPU device.
type Device struct {
	dev, queue js.Value
	// Name describes the adapter (vendor, architecture, description).
	Name   string
	Limits Limits
	// Software says the adapter emulates a GPU on the CPU (SwiftShader,
	// llvmpipe, lavapipe, or a fallback adapter), where kernels tuned for
	// GPUs (workgroup-memory tiling) run slower than simple ones.
	Software bool

	lost     atomic.Bool
	lostWhy  atomic.Value // string
	firstErr atomic.Value // string: the first uncaptured (validation) error
	lostFn   js.Func
	errFn    js.Func

	mu        sync.Mutex
	free      map[poolKey][]js.Value
	pipelines map[string]*pipelineEntry
	// Live counts buffers handed out and not yet released (a leak check
	// for tests).
	Live atomic.Int64
}

type poolKey struct {
	size  int
	usage int
}

type pipelineEntry struct {
	done chan struct{}
	p    *Pipeline
	err  error
}

// Pipeline is a compiled compute pipeline.
type Pipeline struct {
	v      js.Value
	layout js.Value
	Key    string
}

// Buffer is a pooled storage buffer.
type Buffer struct {
	d    *Device
	v    js.Value
	size int // bytes (the pool's size class)
	// Bytes is the size asked for.
	Bytes    int
	released bool
	// borrowed: the caller's buffer (Wrap), never pooled or released here.
	borrowed bool
}

// await waits for a promise from a goroutine (never from a JS callback).
func await(p js.Value) (js.Value, error) {
	type result struct {
		v   js.Value
		err error
	}
	ch := make(chan result, 1)
	then := js.FuncOf(func(_ js.Value, a []js.Value) any {
		v := js.Undefined()
		if len(a) > 0 {
			v = a[0]
		}
		ch <- result{v: v}
		return nil
	})
	catch := js.FuncOf(func(_ js.Value, a []js.Value) any {
		msg := "promise rejected"
		if len(a) > 0 {
			msg = jsString(a[0])
		}
		ch <- result{err: errors.New(msg)}
		return nil
	})
	p.Call("then", then, catch)
	r := <-ch
	then.Release()
	catch.Release()
	return r.v, r.err
}

func jsString(v js.Value) string {
	if v.Type() == js.TypeObject {
		if m := v.Get("message"); m.Type() == js.TypeString {
			return m.String()
		}
	}
	return v.Call("toString").String()
}

// Open requests an adapter and a device with the adapter's own limits
// (the defaults are far below what software and real adapters offer: a
// 128 MiB binding, 8 storage buffers). Call it from a goroutine.
func Open() (*Device, error) {
	nav := js.Global().Get("navigator")
	if nav.IsUndefined() || nav.IsNull() {
		return nil, errors.New("this host has no navigator object, so no WebGPU")
	}
	g := nav.Get("gpu")
	if g.IsUndefined() || g.IsNull() {
		return nil, errors.New("navigator.gpu is missing: this host does not expose WebGPU (Chromium needs a secure context; headless Chromium also needs --enable-unsafe-webgpu)")
	}
	adapter, err := await(g.Call("requestAdapter", map[string]any{"powerPreference": "high-performance"}))
	if err != nil {
		return nil, fmt.Errorf("navigator.gpu.requestAdapter failed: %v", err)
	}
	if adapter.IsNull() || adapter.IsUndefined() {
		return nil, errors.New("navigator.gpu.requestAdapter returned no adapter (WebGPU is present but no GPU or software adapter is available)")
	}
	al := adapter.Get("limits")
	lim := func(name string) float64 { return al.Get(name).Float() }
	d := &Device{Limits: Limits{
		MaxStorageBufferBindingSize: int64(math.Min(lim("maxStorageBufferBindingSize"), 1<<30)),
		MaxBufferSize:               int64(math.Min(lim("maxBufferSize"), 1<<30)),
		MaxStorageBuffersPerStage:   int(lim("maxStorageBuffersPerShaderStage")),
		MaxWorkgroupsPerDimension:   int(lim("maxComputeWorkgroupsPerDimension")),
		MaxInvocationsPerWorkgroup:  int(lim("maxComputeInvocationsPerWorkgroup")),
	}}
	req := map[string]any{
		"maxStorageBufferBindingSize":     float64(d.Limits.MaxStorageBufferBindingSize),
		"maxBufferSize":                   float64(d.Limits.MaxBufferSize),
		"maxStorageBuffersPerShaderStage": d.Limits.MaxStorageBuffersPerStage,
	}
	dev, err := await(adapter.Call("requestDevice", map[string]any{"requiredLimits": req}))
	if err != nil {
		return nil, fmt.Errorf("adapter.requestDevice failed: %v", err)
	}
	d.dev, d.queue = dev, dev.Get("queue")
	d.free = map[poolKey][]js.Value{}
	d.pipelines = map[string]*pipelineEntry{}
	if info := adapter.Get("info"); info.Type() == js.TypeObject {
		d.Name = fmt.Sprintf("%s %s %s", jsField(info, "vendor"), jsField(info, "architecture"), jsField(info, "description"))
		d.Software = info.Get("isFallbackAdapter").Truthy()
	}
	name := strings.ToLower(d.Name)
	for _, sw := range []string{"swiftshader", "llvmpipe", "lavapipe"} {
		d.Software = d.Software || strings.Contains(name, sw)
	}
	d.lostFn = js.FuncOf(func(_ js.Value, a []js.Value) any {
		why := "device lost"
		if len(a) > 0 && a[0].Type() == js.TypeObject {
			why = fmt.Sprintf("device lost (%s): %s", jsField(a[0], "reason"), jsField(a[0], "message"))
		}
		d.lostWhy.CompareAndSwap(nil, why)
		d.lost.Store(true)
		return nil
	})
	dev.Get("lost").Call("then", d.lostFn)
	d.errFn = js.FuncOf(func(_ js.Value, a []js.Value) any {
		if len(a) > 0 {
			d.firstErr.CompareAndSwap(nil, jsString(a[0].Get("error")))
		}
		return nil
	})
	dev.Call("addEventListener", "uncapturederror", d.errFn)
	return d, nil
}

func jsField(v js.Value, name string) string {
	f := v.Get(name)
	if f.Type() == js.TypeString {
		return f.String()
	}
	return ""
}

// Lost reports whether the device is gone, and why.
func (d *Device) Lost() (bool, string) {
	if !d.lost.Load() {
		return false, ""
	}
	why, _ := d.lostWhy.Load().(string)
	return true, why
}

// Destroy destroys the device (tests use it to simulate a loss).
func (d *Device) Destroy() {
	d.lostWhy.CompareAndSwap(nil, "device destroyed")
	d.lost.Store(true)
	d.dev.Call("destroy")
}

// lostErr returns an ErrLost error if the device is gone, else nil.
func (d *Device) lostErr() error {
	if lost, why := d.Lost(); lost {
		return fmt.Errorf("%w: %s", ErrLost, why)
	}
	return nil
}

// check returns an error if the device is lost or a validation error was
// raised since it opened (an error there means a kernel bug: the results
// cannot be trusted).
func (d *Device) check() error {
	if err := d.lostErr(); err != nil {
		return err
	}
	if e, ok := d.firstErr.Load().(string); ok {
		return fmt.Errorf("WebGPU error: %s", e)
	}
	return nil
}

// sizeClass rounds a byte size up so that pooled buffers are reused across
// nearby sizes: 256-byte steps up to 4 KiB, then eighths of a power of two
// (at most 12.5% waste).
func sizeClass(n int) int {
	if n < 16 {
		n = 16
	}
	if n <= 4096 {
		return (n + 255) &^ 255
	}
	p := 1
	for p < n {
		p <<= 1
	}
	step := p / 8
	return (n + step - 1) / step * step
}

func (d *Device) get(bytes, usage int) js.Value {
	k := poolKey{sizeClass(bytes), usage}
	d.mu.Lock()
	if l := d.free[k]; len(l) > 0 {
		v := l[len(l)-1]
		d.free[k] = l[:len(l)-1]
		d.mu.Unlock()
		return v
	}
	d.mu.Unlock()
	return d.dev.Call("createBuffer", map[string]any{"size": k.size, "usage": usage})
}

func (d *Device) put(v js.Value, bytes, usage int) {
	k := poolKey{sizeClass(bytes), usage}
	d.mu.Lock()
	d.free[k] = append(d.free[k], v)
	d.mu.Unlock()
}

// Alloc returns a storage buffer of at least bytes bytes from the pool. Its
// contents are whatever the last user left.
func (d *Device) Alloc(bytes int) (*Buffer, error) {
	if int64(bytes) > d.Limits.MaxStorageBufferBindingSize {
		return nil, fmt.Errorf("a %d-byte buffer exceeds maxStorageBufferBindingSize (%d)", bytes, d.Limits.MaxStorageBufferBindingSize)
	}
	if err := d.lostErr(); err != nil {
		return nil, err
	}
	d.Live.Add(1)
	return &Buffer{d: d, v: d.get(bytes, usageStorage|usageCopySrc|usageCopyDst), size: sizeClass(bytes), Bytes: bytes}, nil
}

// Release returns the buffer to the pool. Queue order makes this safe
// while work that reads it is still in flight: a later writer's commands
// are submitted after the reader's.
func (b *Buffer) Release() {
	if b == nil || b.released || b.borrowed {
		return
	}
	b.released = true
	b.d.Live.Add(-1)
	b.d.put(b.v, b.size, usageStorage|usageCopySrc|usageCopyDst)
}

// Wrap borrows a caller's GPUBuffer holding at least bytes bytes (a feed
// made with Tensor.fromGpuBuffer): steps bind it like their own buffers,
// and Release leaves it alone. The buffer must belong to this device and
// allow STORAGE and COPY_SRC; a 4-byte copy submitted inside a
// validation error scope finds a buffer of another device or a destroyed
// one, which would otherwise poison this device with an uncaptured error.
// It waits on the GPU: call it from a goroutine.
func (d *Device) Wrap(v js.Value, bytes int) (*Buffer, error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	const need = usageStorage | usageCopySrc
	if u := v.Get("usage"); u.Type() != js.TypeNumber || u.Int()&need != need {
		return nil, errors.New("the GPUBuffer needs usage STORAGE | COPY_SRC")
	}
	if n := v.Get("size").Int(); n < bytes {
		return nil, fmt.Errorf("the GPUBuffer holds %d bytes; the dims need %d", n, bytes)
	}
	d.dev.Call("pushErrorScope", "validation")
	scratch := d.get(16, usageStorage|usageCopySrc|usageCopyDst)
	enc := d.dev.Call("createCommandEncoder")
	enc.Call("copyBufferToBuffer", v, 0, scratch, 0, min(bytes, 4))
	d.queue.Call("submit", []any{enc.Call("finish")})
	d.put(scratch, 16, usageStorage|usageCopySrc|usageCopyDst)
	e, err := await(d.dev.Call("popErrorScope"))
	if err == nil && e.Type() == js.TypeObject {
		err = fmt.Errorf("the GPUBuffer cannot be used on gort's device (make it with gort.env.webgpu.device): %s", jsString(e))
	}
	if err != nil {
		return nil, err
	}
	return &Buffer{d: d, v: v, size: bytes, Bytes: bytes, borrowed: true}, nil
}

// Detach hands an owned buffer over to the caller (an output left on the
// device): it leaves the pool's accounting for good, and the caller
// destroys it. A borrowed buffer cannot be handed over (ok false).
func (b *Buffer) Detach() (v js.Value, ok bool) {
	if b.borrowed || b.released {
		return js.Undefined(), false
	}
	b.released = true
	b.d.Live.Add(-1)
	return b.v, true
}

// JS is the GPUDevice (gort.env.webgpu.device: buffers a caller feeds
// must come from it).
func (d *Device) JS() js.Value { return d.dev }

func bytesOf[T float32 | int32 | uint32](v []T) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*4)
}

// Upload allocates a buffer holding v.
func Upload[T float32 | int32 | uint32](d *Device, v []T) (*Buffer, error) {
	b, err := d.Alloc(len(v) * 4)
	if err != nil {
		return nil, err
	}
	d.write(b.v, bytesOf(v))
	return b, nil
}

func (d *Device) write(buf js.Value, data []byte) {
	if len(data) == 0 {
		return
	}
	u8 := js.Global().Get("Uint8Array").New(len(data))
	js.CopyBytesToJS(u8, data)
	d.queue.Call("writeBuffer", buf, 0, u8)
}

// Read copies the first len(dst) float32 values of b into dst. It waits
// for the GPU (mapAsync), so it must run in a goroutine.
func (d *Device) Read(b *Buffer, dst []float32) error {
	if err := d.check(); err != nil {
		return err
	}
	n := len(dst) * 4
	if n == 0 {
		return nil
	}
	st := d.get(n, usageMapRead|usageCopyDst)
	enc := d.dev.Call("createCommandEncoder")
	enc.Call("copyBufferToBuffer", b.v, 0, st, 0, n)
	d.queue.Call("submit", []any{enc.Call("finish")})
	if _, err := await(st.Call("mapAsync", mapModeRead, 0, n)); err != nil {
		if cerr := d.check(); cerr != nil {
			return cerr
		}
		return fmt.Errorf("%w: reading a buffer back failed: %v", ErrLost, err)
	}
	ab := st.Call("getMappedRange", 0, n)
	js.CopyBytesToGo(bytesOf(dst), js.Global().Get("Uint8Array").New(ab))
	st.Call("unmap")
	d.put(st, n, usageMapRead|usageCopyDst)
	return d.check()
}

// Pipeline returns the compute pipeline of a WGSL module (entry point
// main), compiling it once per key with createComputePipelineAsync, so
// that the work happens when kernels are built (session load), not on the
// first run. Concurrent callers for one key share one compilation.
func (d *Device) Pipeline(key, wgsl string) (*Pipeline, error) {
	d.mu.Lock()
	e, ok := d.pipelines[key]
	if ok {
		d.mu.Unlock()
		<-e.done
		return e.p, e.err
	}
	e = &pipelineEntry{done: make(chan struct{})}
	d.pipelines[key] = e
	d.mu.Unlock()
	e.p, e.err = d.compile(key, wgsl)
	close(e.done)
	return e.p, e.err
}

func (d *Device) compile(key, wgsl string) (*Pipeline, error) {
	if err := d.lostErr(); err != nil {
		return nil, err
	}
	d.dev.Call("pushErrorScope", "validation")
	mod := d.dev.Call("createShaderModule", map[string]any{"code": wgsl, "label": key})
	p, err := await(d.dev.Call("createComputePipelineAsync", map[string]any{
		"label": key, "layout": "auto",
		"compute": map[string]any{"module": mod, "entryPoint": "main"},
	}))
	// A module that does not compile is a validation error in the scope
	// (kept out of the uncaptured errors that would poison the device).
	if e, serr := await(d.dev.Call("popErrorScope")); serr == nil && err == nil && e.Type() == js.TypeObject {
		err = errors.New(jsString(e))
	}
	if err != nil {
		msgs := ""
		if info, ierr := await(mod.Call("getCompilationInfo")); ierr == nil {
			ms := info.Get("messages")
			for i := 0; i < ms.Length(); i++ {
				m := ms.Index(i)
				msgs += fmt.Sprintf("\n%d:%d %s", m.Get("lineNum").Int(), m.Get("linePos").Int(), jsField(m, "message"))
			}
		}
		return nil, fmt.Errorf("pipeline %s: %v%s", key, err, msgs)
	}
	return &Pipeline{v: p, layout: p.Call("getBindGroupLayout", 0), Key: key}, nil
}

// Dispatch runs p over n invocations (workgroups of 64, spread over two
// grid dimensions when n needs more than the per-dimension limit). The
// uniform words are binding 0; buffers are bindings 1, 2, … in order.
func (d *Device) Dispatch(p *Pipeline, uniforms []uint32, n int, buffers ...*Buffer) error {
	// n <= 0 gives gx <= 0, which DispatchGrid skips after its loss check.
	groups := (n + workgroupSize - 1) / workgroupSize
	gx, gy := groups, 1
	if lim := d.Limits.MaxWorkgroupsPerDimension; groups > lim {
		gy = (groups + lim - 1) / lim
		gx = (groups + gy - 1) / gy
	}
	return d.DispatchGrid(p, uniforms, gx, gy, 1, buffers...)
}

// DispatchGrid runs p over an explicit grid of workgroups (kernels with
// their own workgroup shape, such as the tiled matrix product).
func (d *Device) DispatchGrid(p *Pipeline, uniforms []uint32, gx, gy, gz int, buffers ...*Buffer) error {
	if err := d.lostErr(); err != nil {
		return err
	}
	if gx <= 0 || gy <= 0 || gz <= 0 {
		return nil
	}
	if lim := d.Limits.MaxWorkgroupsPerDimension; gx > lim || gy > lim || gz > lim {
		return fmt.Errorf("a %d×%d×%d grid exceeds maxComputeWorkgroupsPerDimension (%d)", gx, gy, gz, lim)
	}
	words := (len(uniforms) + 3) &^ 3
	if words == 0 {
		words = 4
	}
	u := make([]uint32, words)
	copy(u, uniforms)
	ub := d.get(words*4, usageUniform|usageCopyDst)
	d.write(ub, bytesOf(u))
	entries := make([]any, 0, len(buffers)+1)
	entries = append(entries, map[string]any{"binding": 0, "resource": map[string]any{"buffer": ub}})
	for i, b := range buffers {
		entries = append(entries, map[string]any{"binding": i + 1, "resource": map[string]any{"buffer": b.v}})
	}
	bg := d.dev.Call("createBindGroup", map[string]any{"layout": p.layout, "entries": entries})
	enc := d.dev.Call("createCommandEncoder")
	pass := enc.Call("beginComputePass")
	pass.Call("setPipeline", p.v)
	pass.Call("setBindGroup", 0, bg)
	pass.Call("dispatchWorkgroups", gx, gy, gz)
	pass.Call("end")
	d.queue.Call("submit", []any{enc.Call("finish")})
	d.put(ub, words*4, usageUniform|usageCopyDst)
	return nil
}

// Copy copies bytes from src to dst on the queue.
func (d *Device) Copy(dst, src *Buffer, srcOff, dstOff, bytes int) {
	if bytes <= 0 {
		return
	}
	enc := d.dev.Call("createCommandEncoder")
	enc.Call("copyBufferToBuffer", src.v, srcOff, dst.v, dstOff, bytes)
	d.queue.Call("submit", []any{enc.Call("finish")})
}

// Sync waits until the queue has finished the work submitted so far (for
// timings).
func (d *Device) Sync() error {
	if _, err := await(d.queue.Call("onSubmittedWorkDone")); err != nil {
		return err
	}
	return d.check()
}
