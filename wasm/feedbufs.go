//go:build js && wasm

package main

import (
	"slices"
	"sync"

	"github.com/gort-dev/gort/runtime/tensor"
)

// feedBuffers keeps a session's host input tensors from one run to the next,
// so that a stream of runs copies each feed into the memory of the previous
// one instead of allocating it anew.
//
// Why: the feed was the largest allocation of a steady run, and the Go
// collector's cycles that it paid for (each marks the whole live heap of the
// runtime and its sessions) took 41% of a run of a one-Conv model with a
// 192 KB input, and 6% of the LSTM voice-activity model's.
//
// A run takes its session's kept tensors (so two runs in flight never share
// one) and hands them back after its outputs have been copied to JS, when
// nothing of the run refers to them any more. The executor may have written
// into a feed whose value died (in-place elementwise ops): the next run
// overwrites every element before using it.
type feedBuffers struct {
	mu     sync.Mutex
	byName map[string]*tensor.Tensor
}

// feedBufs maps a session id to its *feedBuffers.
var feedBufs sync.Map

func feedBuffersOf(id int) *feedBuffers {
	if b, ok := feedBufs.Load(id); ok {
		return b.(*feedBuffers)
	}
	b, _ := feedBufs.LoadOrStore(id, &feedBuffers{byName: map[string]*tensor.Tensor{}})
	return b.(*feedBuffers)
}

// hostFeeds records the host tensors one run's feeds were copied into.
type hostFeeds struct {
	bufs *feedBuffers
	made map[string]*tensor.Tensor
}

func (b *feedBuffers) forRun() *hostFeeds {
	return &hostFeeds{bufs: b, made: map[string]*tensor.Tensor{}}
}

// alloc returns the session's kept tensor of name when it has dtype dt and
// shape (and forgets it there), else a new zeroed one.
func (h *hostFeeds) alloc(name string, dt tensor.DType, shape []int) *tensor.Tensor {
	b := h.bufs
	b.mu.Lock()
	t := b.byName[name]
	if t != nil && t.DType() == dt && slices.Equal(t.Shape(), shape) {
		delete(b.byName, name)
	} else {
		t = tensor.New(dt, shape...)
	}
	b.mu.Unlock()
	if dt != tensor.String {
		h.made[name] = t
	}
	return t
}

// done hands the run's host feed tensors back to the session for the next
// run. It runs after the run's outputs were copied to JS, so nothing refers
// to them, even to a feed the graph returns as an output.
func (h *hostFeeds) done() {
	b := h.bufs
	b.mu.Lock()
	defer b.mu.Unlock()
	for name, t := range h.made {
		b.byName[name] = t
	}
}
