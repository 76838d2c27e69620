//go:build js && wasm

package main

import (
	"context"
	"syscall/js"
	"unsafe"

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
// {workers() → number, buffer(n) → Uint8Array, start(w, step, inputs, lo,
// hi, pixels, done), recycle(w, bytes)}, where done is called with the
// part's bytes (a Uint8Array) or an Error, and recycle hands the bytes
// back to worker w once copied.
type jsThreads struct{ pool js.Value }

func (t jsThreads) Workers() int {
	v := t.pool.Call("workers")
	if v.Type() != js.TypeNumber {
		return 0
	}
	return v.Int()
}

// Start posts the part: the inputs are copied out of Go's memory into
// Uint8Arrays (buffer), which the pool transfers to the worker.
func (t jsThreads) Start(w, step int, ins []*tensor.Tensor, part op.Part) func(dst [][]float32) error {
	arr := js.Global().Get("Array").New(len(ins))
	for i, in := range ins {
		v := js.Null()
		if in != nil {
			var err error
			if v, err = tensorToJS(in, t.buffer); err != nil {
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
	t.pool.Call("start", w, step, arr, part.Lo, part.Hi, part.Pixels, cb)
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
		// One copy out of JS, then the pieces in Go: a part along pixels
		// has a piece per channel plane.
		if len(dst) == 1 {
			copyIn(byteView(dst[0]), v)
		} else {
			partBytes = grow(partBytes, n)
			copyIn(partBytes, v)
			src := unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(partBytes))), n/4)
			for _, d := range dst {
				src = src[copy(d, src):]
			}
		}
		t.pool.Call("recycle", w, v)
		return nil
	}
}

// buffer returns a Uint8Array of n bytes for an input sent to a worker:
// one the pool got back from a worker if it has one large enough (a fresh
// ArrayBuffer is paged in as it is first written, which cost more than the
// copy itself), else a fresh one.
func (t jsThreads) buffer(n int) js.Value { return t.pool.Call("buffer", n) }

// threadsOf reads a run's pool object (nil when the run is not threaded).
func threadsOf(ro js.Value) exec.Threads {
	p := jsval.Get(ro, "threads")
	if p.Type() != js.TypeObject {
		return nil
	}
	return jsThreads{pool: p}
}

// The buffers of parts, reused from part to part (each is used between
// two points where no other goroutine runs): the main instance's copy of
// a part's bytes, and in a worker the inputs (per input index, float
// storage only), the output and the gathered pieces.
var (
	partBytes  []byte
	partInputs [][]float32
	partOutput []float32
	partGather []float32
)

// grow returns s with length n, reallocated only when too short.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// runPart(session, step, inputs, lo, hi, pixels, spare) → Uint8Array: in a worker
// instance, part [lo, hi) of the session's split step, its pieces
// concatenated (exec.RunPart); inputs holds a wire tensor per input of the
// step, null where the plan has a constant. The result is written into
// spare (a Uint8Array the main instance sent back after an earlier part)
// when it is large enough: a fresh ArrayBuffer is paged in as it is first
// written, which made the copy cost a third of the part's computation.
func runPart(args []js.Value) (any, error) {
	if len(args) < 6 {
		return nil, argErr("runPart needs a session, a step, inputs, a range and its axis")
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
	partInputs = grow(partInputs, max(len(partInputs), len(ins)))
	for i := range ins {
		w := in.Index(i)
		if jsval.IsNullish(w) {
			continue
		}
		reuse := func(dt tensor.DType, shape []int) *tensor.Tensor {
			n, ok := tensor.Size(shape)
			if !ok || !tensor.StoredAsF32(dt) {
				return tensor.New(dt, shape...)
			}
			partInputs[i] = grow(partInputs[i], n)
			return tensor.WrapF32(dt, shape, partInputs[i])
		}
		if ins[i], err = tensorFromJSInto(w, reuse); err != nil {
			return nil, argErr("runPart: input %d: %v", i, err)
		}
	}
	output := func(n int) []float32 {
		partOutput = grow(partOutput, n)
		return partOutput
	}
	part := op.Part{Lo: int(lo), Hi: int(hi), Pixels: args[5].Truthy()}
	pieces, err := s.RunPart(context.Background(), int(step), ins, part, output)
	if err != nil {
		return nil, err
	}
	// One copy into JS: a part along pixels has a piece per channel plane,
	// gathered first.
	var flat []float32
	if len(pieces) == 1 {
		flat = pieces[0]
	} else if len(pieces) > 1 {
		all := 0
		for _, p := range pieces {
			all += len(p)
		}
		partGather = grow(partGather, all)
		off := 0
		for _, p := range pieces {
			off += copy(partGather[off:], p)
		}
		flat = partGather
	}
	b := byteView(flat)
	var u js.Value
	if len(args) > 6 && args[6].Type() == js.TypeObject && args[6].InstanceOf(uint8Array) && args[6].Length() >= len(b) {
		u = args[6].Call("subarray", 0, len(b))
	} else {
		u = uint8Array.New(len(b))
	}
	if len(b) > 0 {
		js.CopyBytesToJS(u, b)
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
