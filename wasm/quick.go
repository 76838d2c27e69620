//go:build js && wasm

package main

import (
	"encoding/binary"
	"math"
	"sync"
	"syscall/js"
	"unsafe"

	"github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/tensor"
)

// runQuick(session, io: Uint8Array, extra: Array, ...bytes: Uint8Array) → number | Uint8Array | Error
//
// The synchronous run for short runs on the CPU, which the JS side takes
// when the session's previous run was short (js/src/backends/wasm.js). It
// exists because a run's fixed cost through run() — a Promise and its
// executor, a goroutine hand-off, and a js.Value (each with a finalizer)
// for every field of every feed and output object — was 0.25 ms, several
// times onnxruntime-web's whole run of a one-node model, and models such as
// a voice-activity detector run every 32 ms. Here everything but the
// tensors' bytes crosses as numbers in one buffer:
//
//	io (float64s, in):  nFeeds, then per feed: index, dtype, rank, dims...;
//	                    nFetches (-1: every output), then output indices.
//	bytes:              one Uint8Array per feed, in io's order.
//	io (float64s, out): nOutputs, then per output: index, dtype, rank,
//	                    dims..., address, byte length — the bytes lie in
//	                    wasm memory there until the next bridge call, and
//	                    the JS side copies them out at once. An output that
//	                    is not a plain numeric tensor (a sequence, a string
//	                    tensor…) has dtype -1 and its wire value in extra at
//	                    address's position.
//
// An input index counts the session's inputs, then its overridable
// initializers; an output index its outputs (the orders load reported).
// dtype is the ONNX element type number. The result is 0 (the outputs'
// header is in io), a Uint8Array holding the outputs' header when io is too
// short for it, or -1 when the run cannot be quick (a plan with GPU steps):
// nothing ran, and the caller takes run(). No yields and
// no abort: the JS side only takes this path for runs it measured short.
func runQuick(args []js.Value) (any, error) {
	if len(args) < 3 {
		return nil, argErr("runQuick needs a session, an io buffer and an extra array")
	}
	s, sid, err := session(args[0])
	if err != nil {
		return nil, err
	}
	quickHeld.Delete(sid) // the previous quick run's outputs were copied out
	if s.Plan().TakesDeviceFeeds {
		return -1, nil
	}
	io := args[1]
	n := io.Length()
	buf := quickBuf(n)
	if js.CopyBytesToGo(buf, io) != n || n%8 != 0 {
		return nil, argErr("runQuick: io must be a Uint8Array over float64s")
	}
	hdr := header{b: buf}
	host := feedBuffersOf(sid).forRun()
	defer host.done()
	nFeeds := hdr.int()
	if nFeeds < 0 || 3+nFeeds > len(args) {
		return nil, argErr("runQuick: %d feeds in the header, %d byte arrays given", nFeeds, len(args)-3)
	}
	feeds := make(map[string]tensor.Value, nFeeds)
	inputs, over := s.Inputs(), s.OverridableInitializers()
	for i := 0; i < nFeeds; i++ {
		idx, dt, rank := hdr.int(), tensor.DType(hdr.int()), hdr.int()
		if hdr.bad || rank < 0 || rank > 64 {
			return nil, argErr("runQuick: malformed io header")
		}
		shape := make([]int, rank)
		for j := range shape {
			if shape[j] = hdr.int(); shape[j] < 0 {
				return nil, argErr("runQuick: malformed io header")
			}
		}
		var in runtime.IOInfo
		switch {
		case idx >= 0 && idx < len(inputs):
			in = inputs[idx]
		case idx >= len(inputs) && idx < len(inputs)+len(over):
			in = over[idx-len(inputs)]
		default:
			return nil, argErr("runQuick: input index %d out of range", idx)
		}
		name := in.Name
		if in.Type.Kind != graph.KindTensor {
			return nil, argErr("runQuick: input %q is not declared a tensor", name)
		}
		if 3+i >= len(args) {
			return nil, argErr("runQuick: no bytes for feed %q", name)
		}
		size, ok := tensor.Size(shape)
		if !ok || wireElemBytes(dt) == 0 || dt == tensor.String {
			return nil, errs.New(errs.InvalidFeed, "dims %v of %s cannot be fed this way", shape, dt).WithTensor(name)
		}
		t := host.alloc(name, dt, shape)
		if err := fillFromBytes(t, size, args[3+i]); err != nil {
			return nil, errs.New(errs.InvalidFeed, "%v", err).WithTensor(name)
		}
		feeds[name] = t
	}
	var fetches []string
	var fetchIdx []int // the output index of each fetch
	outputs := s.Outputs()
	if nf := hdr.int(); nf >= 0 {
		for range nf {
			idx := hdr.int()
			if hdr.bad || idx < 0 || idx >= len(outputs) {
				return nil, argErr("runQuick: output index %d out of range", idx)
			}
			fetches, fetchIdx = append(fetches, outputs[idx].Name), append(fetchIdx, idx)
		}
	} else {
		for i, o := range outputs {
			fetches, fetchIdx = append(fetches, o.Name), append(fetchIdx, i)
		}
	}
	if hdr.bad {
		return nil, argErr("runQuick: malformed io header")
	}
	out, err := s.RunWith(nil, feeds, fetches, runtime.RunOptions{})
	if err != nil {
		return nil, err
	}
	// The header of the outputs, written over io.
	res := header{b: buf[:0]}
	res.put(float64(len(fetches)))
	var held []any
	extra := args[2]
	for j, name := range fetches {
		res.put(float64(fetchIdx[j]))
		v := out[name]
		t, ok := v.(*tensor.Tensor)
		var b []byte
		if ok && t.DType() != tensor.String {
			if b, err = storageBytes(t); err != nil {
				ok = false
			}
		} else {
			ok = false
		}
		if !ok {
			w, err := valueToJS(v)
			if err != nil {
				return nil, errs.New(errs.Internal, "output %q: %v", name, err)
			}
			extra.SetIndex(extra.Length(), w)
			res.put(-1, 0, float64(extra.Length()-1), 0)
			continue
		}
		res.put(float64(t.DType()), float64(t.Rank()))
		for _, d := range t.Shape() {
			res.put(float64(d))
		}
		var addr uintptr
		if len(b) > 0 {
			addr = uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		}
		res.put(float64(addr), float64(len(b)))
		held = append(held, b, t)
	}
	quickHeld.Store(sid, held)
	if len(res.b) > n {
		// Ranks the caller could not foresee: the header comes back in a
		// buffer of its own.
		u := uint8Array.New(len(res.b))
		js.CopyBytesToJS(u, res.b)
		return u, nil
	}
	js.CopyBytesToJS(io, res.b)
	return 0, nil
}

// quickHeld keeps, per session, the outputs of its last quick run alive
// (and their narrowed float16 copies) until the JS side has copied them:
// the next bridge call on the session drops them.
var quickHeld sync.Map

var quickScratch []byte

// quickBuf is a reused scratch of n bytes for the io header (one Go thread:
// no two quick runs overlap).
func quickBuf(n int) []byte {
	if cap(quickScratch) < n {
		quickScratch = make([]byte, n)
	}
	return quickScratch[:n]
}

// header reads and writes the float64 numbers of runQuick's io buffer.
type header struct {
	b   []byte
	off int
	bad bool
}

func (h *header) int() int {
	if h.off+8 > len(h.b) {
		h.bad = true
		return 0
	}
	f := math.Float64frombits(binary.LittleEndian.Uint64(h.b[h.off:]))
	h.off += 8
	if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		h.bad = true
		return 0
	}
	return int(f)
}

func (h *header) put(fs ...float64) {
	for _, f := range fs {
		h.b = binary.LittleEndian.AppendUint64(h.b, math.Float64bits(f))
	}
}
