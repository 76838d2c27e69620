//go:build js && wasm

// Command wasm is gort compiled to WebAssembly: the Go half of the npm package
// in js/. It and wasm/jsval are the bridge the JS package calls; the only
// other code that touches syscall/js is the WebGPU layer (runtime/gpu,
// ops/webgpu), in its GOOS=js files (see docs/architecture.md, Layout).
//
// The JS loader starts it with argv ["gort", key]; main hands the bridge
// object (the functions below) to globalThis[key] and then parks forever, so
// that the Go runtime keeps serving calls from JavaScript. A random key (not a
// fixed global name) lets several copies of the package (an ES module and a
// classic script on one page, say) each find their own instance.
//
// Every function of the bridge recovers panics (a Go panic that escapes a
// js.FuncOf callback kills the whole Go program, after which every later call
// traps with an opaque "Go program has already exited"). Functions that do
// real work return a Promise and run in a goroutine, so that they can block
// (the run loop yields to the JS event loop) without blocking the caller.
package main

import (
	"context"
	"fmt"
	_ "github.com/gort-dev/gort/ops" // the operator set
	"os"
	goruntime "runtime"
	"runtime/debug"
	"sync"
	"syscall/js"
	"time"

	"github.com/gort-dev/gort/options"
	"github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/wasm/jsval"
)

// version is the bridge protocol version; js/src checks it so that a gort.wasm
// from another build fails loudly instead of misbehaving.
const version = 1

var (
	promiseCtor = js.Global().Get("Promise")
	errorCtor   = js.Global().Get("Error")
	uint8Array  = js.Global().Get("Uint8Array")
	arrayBuffer = js.Global().Get("ArrayBuffer")
)

// registry holds the live sessions and runs. All access happens on the single
// wasm thread, but goroutines interleave at every blocking point (a yield), so
// it is still guarded.
type registry struct {
	mu       sync.Mutex
	sessions map[int]*runtime.Session
	nextID   int
	runs     map[int]context.CancelCauseFunc
}

var reg = &registry{sessions: map[int]*runtime.Session{}, runs: map[int]context.CancelCauseFunc{}, nextID: 1}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "gort.wasm is started by the gort JavaScript package, not directly")
		return
	}
	// wasm32 cannot grow past 4 GiB, and growing fails for good: a soft
	// limit below it makes the collector work harder as memory fills
	// instead of letting garbage push the heap into the ceiling. Runs that
	// cannot fit are refused before they start (runtime.Options.MaxMemoryBytes).
	debug.SetMemoryLimit(3<<30 + 512<<20)
	key := os.Args[1]
	api := js.Global().Get("Object").New()
	api.Set("version", version)
	api.Set("load", asyncFunc(load))
	api.Set("run", asyncFunc(run))
	api.Set("runQuick", syncFunc(runQuick)) // quick.go
	api.Set("runPart", syncFunc(runPart))   // threads.go
	api.Set("decode", asyncFunc(decode))
	api.Set("abort", syncFunc(abort))
	api.Set("release", syncFunc(release))
	api.Set("memory", syncFunc(memory))
	api.Set("ops", syncFunc(ops))
	registerChecks(api) // checks.go
	api.Set("providers", syncFunc(providers))
	api.Set("gpuDevice", asyncFunc(gpuDevice))
	js.Global().Get(key).Invoke(api)
	select {}
}

// asyncFunc exposes f as a JS function returning a Promise. Arguments are
// read synchronously by f's first stage (prepare), so that the caller may reuse
// its buffers as soon as the call returns; the work itself runs in a goroutine.
func asyncFunc(prepare func(args []js.Value) (func() (any, error), error)) js.Func {
	return js.FuncOf(func(this js.Value, args []js.Value) any {
		var work func() (any, error)
		err := protect(func() error {
			var err error
			work, err = prepare(args)
			return err
		})
		var executor js.Func
		executor = js.FuncOf(func(this js.Value, pargs []js.Value) any {
			resolve, reject := pargs[0], pargs[1]
			if err != nil {
				reject.Invoke(jsError(err))
				return nil
			}
			runAsync(func() {
				var v any
				err := protect(func() error {
					var err error
					v, err = work()
					return err
				})
				if err != nil {
					reject.Invoke(jsError(err))
					return
				}
				var jv js.Value
				if err := protect(func() error { jv = jsval.ToJS(v); return nil }); err != nil {
					reject.Invoke(jsError(err))
					return
				}
				resolve.Invoke(jv)
			})
			return nil
		})
		p := promiseCtor.New(executor)
		executor.Release()
		return p
	})
}

// idleWorkers hands work to a goroutine parked after finishing its last job.
var idleWorkers = make(chan func())

// runAsync runs f on a parked worker goroutine if one is free, else on a new
// one that parks when f returns. Why: a fresh goroutine per call starts on a
// small stack and grew it, copying every frame, several times in each run
// (5% of a small model's run); a parked one keeps the stack it grew. There
// are as many workers as calls were ever in flight at once.
func runAsync(f func()) {
	select {
	case idleWorkers <- f:
	default:
		go func() {
			for ; ; f = <-idleWorkers {
				f()
			}
		}()
	}
}

// syncFunc exposes a quick, non-blocking f; errors and panics come back as an
// Error value (not thrown: throwing from Go is not possible), which the JS side
// checks for and throws.
func syncFunc(f func(args []js.Value) (any, error)) js.Func {
	return js.FuncOf(func(this js.Value, args []js.Value) any {
		var v any
		err := protect(func() error {
			var err error
			v, err = f(args)
			return err
		})
		if err != nil {
			return jsError(err)
		}
		var jv js.Value
		if err := protect(func() error { jv = jsval.ToJS(v); return nil }); err != nil {
			return jsError(err)
		}
		return jv
	})
}

// protect runs f and turns a panic into a GORT_INTERNAL error.
func protect(f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			if e, ok := p.(*errs.Error); ok {
				err = e
				return
			}
			err = errs.New(errs.Internal, "gort panicked: %v\n%s", p, debug.Stack())
		}
	}()
	return f()
}

// jsError converts err to a JS Error with the stable code and, when known, the
// node and tensor the error is about.
func jsError(err error) js.Value {
	e := errorCtor.New(err.Error())
	e.Set("code", string(errs.CodeOf(err)))
	if ge, ok := err.(*errs.Error); ok {
		if ge.Node != "" {
			e.Set("node", ge.Node)
		}
		if ge.Tensor != "" {
			e.Set("tensor", ge.Tensor)
		}
	}
	return e
}

func argErr(format string, a ...any) error {
	return errs.New(errs.InvalidArgument, format, a...)
}

// load(model: Uint8Array, options) → Promise<{id, inputs, overridable, outputs, unsupported,
// graphInputs, providers, logSeverityLevel, gpuOutputs}>. options: the session options as
// InferenceSession.create takes them (package options reads them), external data as bytes.
func load(args []js.Value) (func() (any, error), error) {
	model, opts, err := modelArgs("load", args)
	if err != nil {
		return nil, err
	}
	return func() (any, error) {
		lo := opts.Load
		dev := openDevice(opts, &lo) // webgpu.go: executionProviders
		defer loadGC()()
		s, err := runtime.Load(model, &lo)
		if err != nil {
			return nil, err
		}
		outputs := ioInfos(s.Outputs())
		var names []string
		for _, o := range outputs {
			names = append(names, o.Name)
		}
		gpuOutputs, err := opts.GPUOutputs(names)
		if err != nil {
			return nil, err
		}
		reg.mu.Lock()
		id := reg.nextID
		reg.nextID++
		reg.sessions[id] = s
		reg.mu.Unlock()
		sessionDevices.Store(id, dev)
		var unsupported []string
		for _, p := range s.Unsupported() {
			unsupported = append(unsupported, p.Error())
		}
		var graphInputs []string
		for _, in := range s.Model().Graph.Inputs {
			graphInputs = append(graphInputs, in.Name)
		}
		return sessionInfo{
			ID:               id,
			GraphInputs:      graphInputs,
			Inputs:           ioInfos(s.Inputs()),
			Overridable:      ioInfos(s.OverridableInitializers()),
			Outputs:          outputs,
			Unsupported:      unsupported,
			Providers:        dev.info(s),
			LogSeverityLevel: opts.LogSeverityLevel,
			GPUOutputs:       gpuOutputs,
			Threads:          opts.Threads,
			SplitSteps:       splitSteps(s, opts),
			Fingerprint:      s.Plan().Fingerprint(),
		}, nil
	}, nil
}

// loadGCState counts the loads in progress and keeps the collector's
// setting from before the first.
var loadGCState struct {
	sync.Mutex
	n, old int
}

// loadGC turns the paced collector off until the returned function is
// called, loads overlapping. A load's heap grows as it folds and packs
// weights, and most of it stays live: the paced collector would run a cycle
// at every step of that growth (8 for ResNet-50), each in code V8 has not
// optimised yet (a load is the first time it runs), which made up a large
// part of creation (DenseNet-121 748 → 596 ms, ResNet-50 515 → 452 without
// them, standalone in Node). The garbage that matters, the constants that
// packed weights replace, is collected by plan.releaseConsts every 16 MiB
// released, and the memory limit set in main still bounds the heap. The
// cost: while any load is in progress nothing else is collected either (a
// concurrent run's garbage, a load's own temporaries), so wasm memory, which
// never shrinks, can grow by that much (ResNet-50 loaded alone peaks at 168
// MiB instead of 158 with the paced collector).
func loadGC() (restore func()) {
	loadGCState.Lock()
	if loadGCState.n == 0 {
		loadGCState.old = debug.SetGCPercent(-1)
	}
	loadGCState.n++
	loadGCState.Unlock()
	return func() {
		loadGCState.Lock()
		if loadGCState.n--; loadGCState.n == 0 {
			debug.SetGCPercent(loadGCState.old)
		}
		loadGCState.Unlock()
	}
}

func session(v js.Value) (*runtime.Session, int, error) {
	id, err := jsval.Int(v)
	if err != nil {
		return nil, 0, argErr("bad session handle: %v", err)
	}
	reg.mu.Lock()
	s := reg.sessions[int(id)]
	reg.mu.Unlock()
	if s == nil {
		return nil, 0, argErr("the session was released")
	}
	return s, int(id), nil
}

// run(session, runID, feeds, fetches|null, {yieldIntervalMs, macrotask}) → Promise<{name: wire value}>.
//
// Between nodes the run hands the JS event loop a turn at most every
// yieldIntervalMs: it calls macrotask(cb) (a setImmediate / MessageChannel
// round trip supplied by the JS side, which unlike setTimeout(0) is not
// clamped to 4 ms) and blocks until cb runs. Blocking lets the Go scheduler go
// idle, which returns control to the JS event loop; an AbortSignal listener
// then gets to call abort(runID), which cancels the context that the executor
// checks before every node (and Loop-like ops check per iteration).
func run(args []js.Value) (func() (any, error), error) {
	if len(args) < 3 {
		return nil, argErr("run needs a session, a run id and feeds")
	}
	s, sid, err := session(args[0])
	if err != nil {
		return nil, err
	}
	runID, err := jsval.Int(args[1])
	if err != nil {
		return nil, argErr("bad run id: %v", err)
	}
	host := feedBuffersOf(sid).forRun()
	feeds, err := feedsFromJS(s, args[2], host)
	if err != nil {
		return nil, err
	}
	var fetches []string
	if len(args) > 3 && !jsval.IsNullish(args[3]) {
		if fetches, err = jsval.Strings(args[3]); err != nil {
			return nil, argErr("fetches: %v", err)
		}
	}
	var ro js.Value
	if len(args) > 4 {
		ro = args[4]
	}
	interval := 10 * time.Millisecond
	if v := jsval.Get(ro, "yieldIntervalMs"); v.Type() == js.TypeNumber {
		interval = time.Duration(v.Float() * float64(time.Millisecond))
	}
	macrotask := jsval.Get(ro, "macrotask")
	var keep map[string]bool
	if g := jsval.Get(ro, "gpuOutputs"); !jsval.IsNullish(g) {
		names, err := jsval.Strings(g)
		if err != nil {
			return nil, argErr("gpuOutputs: %v", err)
		}
		keep = map[string]bool{}
		for _, n := range names {
			keep[n] = true
		}
	}

	ctx, cancel := context.WithCancelCause(context.Background())
	reg.mu.Lock()
	reg.runs[int(runID)] = cancel
	reg.mu.Unlock()

	return func() (any, error) {
		defer func() {
			reg.mu.Lock()
			delete(reg.runs, int(runID))
			reg.mu.Unlock()
			cancel(nil)
		}()
		if err := wrapFeeds(feeds); err != nil { // webgpu.go
			return nil, err
		}
		opts := runtime.RunOptions{KeepOnDevice: keep, Threads: threadsOf(ro)}
		if macrotask.Type() == js.TypeFunction && interval >= 0 {
			y := newYielder(macrotask, interval)
			defer y.release()
			opts.Yield = y.yield
		}
		out, err := s.RunWith(ctx, feeds, fetches, opts)
		defer host.done() // after the outputs' copies below
		if err != nil {
			if ctx.Err() != nil && errs.CodeOf(err) != errs.Aborted {
				// A kernel noticed the cancellation in its own way.
				return nil, errs.New(errs.Aborted, "run aborted: %v", err)
			}
			return nil, err
		}
		res := js.Global().Get("Object").New()
		for name, v := range out {
			w, err := valueToJS(v)
			if err != nil {
				return nil, errs.New(errs.Internal, "output %q: %v", name, err)
			}
			res.Set(name, w)
		}
		return res, nil
	}, nil
}

// yielder gives the JS event loop a turn at most once per interval.
type yielder struct {
	macrotask js.Value
	interval  time.Duration
	last      time.Time
	done      chan struct{}
	cb        js.Func
}

func newYielder(macrotask js.Value, interval time.Duration) *yielder {
	y := &yielder{macrotask: macrotask, interval: interval, last: time.Now(), done: make(chan struct{}, 1)}
	y.cb = js.FuncOf(func(js.Value, []js.Value) any {
		select {
		case y.done <- struct{}{}:
		default:
		}
		return nil
	})
	return y
}

func (y *yielder) yield() {
	if time.Since(y.last) < y.interval {
		return
	}
	y.macrotask.Invoke(y.cb)
	<-y.done
	y.last = time.Now()
}

func (y *yielder) release() { y.cb.Release() }

// abort(runID) cancels a run in flight; it returns whether one was found.
func abort(args []js.Value) (any, error) {
	if len(args) < 1 {
		return false, nil
	}
	id, err := jsval.Int(args[0])
	if err != nil {
		return nil, argErr("bad run id: %v", err)
	}
	reg.mu.Lock()
	cancel := reg.runs[int(id)]
	reg.mu.Unlock()
	if cancel == nil {
		return false, nil
	}
	cancel(errs.New(errs.Aborted, "aborted by the caller's AbortSignal"))
	return true, nil
}

// release(session) drops the session so the Go GC can reclaim its weights.
// Runs still in flight keep their own reference and finish normally. No
// explicit runtime.GC here: the collector's own pacing keeps the heap flat
// (the 1000-cycle test checks it), and a forced collection per release made
// the JS conformance run four times slower.
func release(args []js.Value) (any, error) {
	if len(args) < 1 {
		return false, nil
	}
	id, err := jsval.Int(args[0])
	if err != nil {
		return nil, argErr("bad session handle: %v", err)
	}
	reg.mu.Lock()
	_, ok := reg.sessions[int(id)]
	delete(reg.sessions, int(id))
	reg.mu.Unlock()
	sessionDevices.Delete(int(id))
	feedBufs.Delete(int(id))
	quickHeld.Delete(int(id))
	return ok, nil
}

// memory() reports the Go heap after a collection, for leak tests and
// diagnostics (without the collection, HeapInuse would count garbage).
func memory([]js.Value) (any, error) {
	goruntime.GC()
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	reg.mu.Lock()
	n, r := len(reg.sessions), len(reg.runs)
	reg.mu.Unlock()
	return map[string]any{
		"heapAlloc": ms.HeapAlloc, "heapSys": ms.HeapSys, "heapInuse": ms.HeapInuse,
		"sys": ms.Sys, "numGC": ms.NumGC, "sessions": n, "runs": r,
	}, nil
}

// decode(bytes, kind) → Promise<wire value>: a serialized TensorProto
// ("tensor"), SequenceProto ("sequence") or OptionalProto ("optional"), as in
// the ONNX test data files. Internal: the package's tests use it to read
// conformance data through the same conversions as real outputs.
func decode(args []js.Value) (func() (any, error), error) {
	b, err := bytesArg(args, "decode needs bytes", "bytes")
	if err != nil {
		return nil, err
	}
	kind := protoconv.TensorValue
	if len(args) > 1 {
		switch args[1].String() {
		case "sequence":
			kind = protoconv.SequenceValue
		case "optional":
			kind = protoconv.OptionalValue
		}
	}
	return func() (any, error) {
		v, err := protoconv.DecodeValue(b, kind, 0)
		if err != nil {
			return nil, err
		}
		return valueToJS(v)
	}, nil
}

// ops() lists the registered operators (for diagnostics and for tests that
// need to know which ops this build has).
func ops([]js.Value) (any, error) {
	return opsList(), nil
}

func copyBytes(v js.Value, what string) ([]byte, error) {
	if v.Type() != js.TypeObject || !v.InstanceOf(uint8Array) {
		return nil, argErr("%s must be a Uint8Array, got %s", what, jsval.Describe(v))
	}
	b := make([]byte, v.Get("byteLength").Int())
	js.CopyBytesToGo(b, v)
	return b, nil
}

// bytesArg copies args[0], the bytes a bridge function works on; missing
// says what the function needs when there is no argument.
func bytesArg(args []js.Value, missing, what string) ([]byte, error) {
	if len(args) < 1 {
		return nil, argErr("%s", missing)
	}
	return copyBytes(args[0], what)
}

// modelArgs reads the (model bytes, session options) arguments of load,
// printGraph and capabilities.
func modelArgs(fn string, args []js.Value) ([]byte, *options.Session, error) {
	if len(args) < 1 {
		return nil, nil, argErr("%s needs the model bytes", fn)
	}
	model, err := copyBytes(args[0], "model")
	if err != nil {
		return nil, nil, err
	}
	var o js.Value
	if len(args) > 1 {
		o = args[1]
	}
	opts, err := sessionOptions(o) // options.go
	return model, opts, err
}
