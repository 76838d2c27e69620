//go:build js && wasm

package main

import (
	"context"
	"syscall/js"

	"github.com/gort-dev/gort/options"
	"github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/exec"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/tensor"
	"github.com/gort-dev/gort/wasm/jsval"
)

// Threads (docs/threads.md). Go's WebAssembly port has no threads, so the
// JS pool (js/src/threads.js) runs other instances of gort.wasm in Workers;
// each loads a threaded session's model with the same options, and its
// plan then has the same steps (the pool compares Plan.Fingerprint). This
// instance hands them parts of its heavy steps through jsThreads, and a
// worker instance computes them with runPart.

// jsThreads is the exec.Threads of a run: the pool's object
// {workers() → number, start(w, step, inputs, lo, hi, done), recycle(w,
// bytes)}, where done is called with the part's bytes (a Uint8Array) or
// an Error, and recycle hands the bytes back to worker w once copied.
type jsThreads struct{ pool js.Value }

func (t jsThreads) Workers() int {
	v := t.pool.Call("workers")
	if v.Type() != js.TypeNumber {
		return 0
	}
	return v.Int()
}

// Start posts the part: the inputs are copied out of Go's memory into
// fresh Uint8Arrays, which the pool transfers to the worker.
func (t jsThreads) Start(w, step int, ins []*tensor.Tensor, part op.Part) func(dst [][]float32) error {
	arr := js.Global().Get("Array").New(len(ins))
	for i, in := range ins {
		v := js.Null()
		if in != nil {
			var err error
			if v, err = valueToJS(in); err != nil {
				return func([][]float32) error { return err }
			}
		}
		arr.SetIndex(i, v)
	}
	done := make(chan js.Value, 1)
	cb := js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) > 0 {
			done <- args[0]
		} else {
			done <- js.Undefined()
		}
		return nil
	})
	t.pool.Call("start", w, step, arr, part.Lo, part.Hi, cb)
	return func(dst [][]float32) error {
		v := <-done // blocking lets the JS event loop deliver the reply
		cb.Release()
		if v.Type() != js.TypeObject || !v.InstanceOf(uint8Array) {
			msg := "no result"
			if v.Type() == js.TypeObject {
				msg = jsval.Get(v, "message").String()
			}
			return errs.New(errs.WorkerLost, "a worker thread failed to compute its part: %s", msg)
		}
		if dst == nil {
			return nil
		}
		n := 0
		for _, d := range dst {
			n += 4 * len(d)
		}
		if v.Length() != n {
			return errs.New(errs.WorkerLost, "a worker thread sent %d bytes for a part of %d", v.Length(), n)
		}
		off := 0
		for _, d := range dst {
			b := byteView(d)
			copyIn(b, v.Call("subarray", off, off+len(b)))
			off += len(b)
		}
		t.pool.Call("recycle", w, v)
		return nil
	}
}

// threadsOf reads a run's pool object (nil when the run is not threaded).
func threadsOf(ro js.Value) exec.Threads {
	p := jsval.Get(ro, "threads")
	if p.Type() != js.TypeObject {
		return nil
	}
	return jsThreads{pool: p}
}

// runPart(session, step, inputs, lo, hi, spare) → Uint8Array: in a worker
// instance, part [lo, hi) of the session's split step, its pieces
// concatenated (exec.RunPart); inputs holds a wire tensor per input of the
// step, null where the plan has a constant. The result is written into
// spare (a Uint8Array the main instance sent back after an earlier part)
// when it is large enough: a fresh ArrayBuffer is paged in as it is first
// written, which made the copy cost a third of the part's computation.
func runPart(args []js.Value) (any, error) {
	if len(args) < 5 {
		return nil, argErr("runPart needs a session, a step, inputs and a range")
	}
	s, _, err := session(args[0])
	if err != nil {
		return nil, err
	}
	step, err := jsval.Int(args[1])
	if err != nil {
		return nil, argErr("bad step: %v", err)
	}
	lo, err := jsval.Int(args[3])
	if err != nil {
		return nil, argErr("bad range: %v", err)
	}
	hi, err := jsval.Int(args[4])
	if err != nil {
		return nil, argErr("bad range: %v", err)
	}
	in := args[2]
	if in.Type() != js.TypeObject {
		return nil, argErr("runPart: inputs must be an array")
	}
	ins := make([]*tensor.Tensor, in.Length())
	for i := range ins {
		w := in.Index(i)
		if jsval.IsNullish(w) {
			continue
		}
		if ins[i], err = tensorFromJS(w); err != nil {
			return nil, argErr("runPart: input %d: %v", i, err)
		}
	}
	pieces, err := s.RunPart(context.Background(), int(step), ins, op.Part{Lo: int(lo), Hi: int(hi)})
	if err != nil {
		return nil, err
	}
	n := 0
	for _, p := range pieces {
		n += 4 * len(p)
	}
	u := js.Undefined()
	if len(args) > 5 && args[5].Type() == js.TypeObject && args[5].InstanceOf(uint8Array) && args[5].Length() >= n {
		u = args[5].Call("subarray", 0, n)
	} else {
		u = uint8Array.New(n)
	}
	off := 0
	for _, p := range pieces {
		b := byteView(p)
		if len(b) > 0 {
			js.CopyBytesToJS(u.Call("subarray", off, off+len(b)), b)
		}
		off += len(b)
	}
	return u, nil
}

// splitSteps counts the top-level steps of s's plan whose kernels split,
// or 0 for a WebGPU session (its steps stay whole).
func splitSteps(s *runtime.Session, opts *options.Session) int {
	if opts.WebGPU {
		return 0
	}
	n := 0
	for _, st := range s.Plan().Steps {
		if _, ok := st.Kernel.(op.SplittingKernel); ok && st.Device == plan.CPU {
			n++
		}
	}
	return n
}
