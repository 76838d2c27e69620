package op

import (
	"slices"
	"sync"
	"unsafe"

	"github.com/gort-dev/gort/runtime/tensor"
)

// Headers keeps the tensor header New last made over each recycled float32
// buffer, so that a steady-state run, which gets the same buffers for the
// same values run after run, allocates no tensor headers either.
//
// A header is handed out again only for the same buffer, length, dtype and
// shape, and only by the executor's pool, which gives a buffer back out once
// every value using it has died: the header made over it earlier is then
// unreachable from the run. The executor forgets the buffers that leave its
// pool (outputs, pinned values), so that the cache keeps no caller's memory.
type Headers struct {
	mu sync.Mutex // kernels may allocate from several goroutines
	m  map[*float32]*headerSet
}

// headerSet is the headers made over one buffer. One buffer can serve many
// values of a run (DenseNet's growing concatenations take turns in two
// buffers, some 40 shapes each), so up to maxHeaders are kept; beyond that
// (shapes that change from run to run) the oldest is replaced.
type headerSet struct {
	ts   []*tensor.Tensor
	next int // the one replaced next once ts is full
}

const maxHeaders = 64

// find returns the header for this dtype, length and shape, or nil.
func (set *headerSet) find(dt tensor.DType, n int, shape []int) *tensor.Tensor {
	for _, t := range set.ts {
		if t.DType() == dt && len(t.F32()) == n && slices.Equal(t.Shape(), shape) {
			return t
		}
	}
	return nil
}

func (set *headerSet) add(t *tensor.Tensor) {
	if len(set.ts) < maxHeaders {
		set.ts = append(set.ts, t)
		return
	}
	set.ts[set.next] = t
	set.next = (set.next + 1) % maxHeaders
}

// wrap returns a tensor of dtype dt and the given shape over buf.
func (h *Headers) wrap(dt tensor.DType, shape []int, buf []float32) *tensor.Tensor {
	key := unsafe.SliceData(buf)
	h.mu.Lock()
	defer h.mu.Unlock()
	set := h.m[key]
	if set != nil {
		if t := set.find(dt, len(buf), shape); t != nil {
			return t
		}
	} else {
		if h.m == nil {
			h.m = map[*float32]*headerSet{}
		}
		set = &headerSet{}
		h.m[key] = set
	}
	t := tensor.WrapF32(dt, shape, buf)
	set.add(t)
	return t
}

// setOf returns the headers kept for t's buffer (with h.mu held), nil when
// it is not one of the pool's.
func (h *Headers) setOf(t *tensor.Tensor) *headerSet {
	buf := t.F32()
	if cap(buf) == 0 {
		return nil
	}
	return h.m[unsafe.SliceData(buf)]
}

// view returns a tensor of t's dtype and data under another shape of the
// same size, or nil when t's buffer has no headers kept (it is not one of
// the pool's: a weight, a feed). A kept header over the same data with the
// same shape may be live, as a value the run still holds; it is the same
// immutable value, so handing it out again is safe.
func (h *Headers) view(t *tensor.Tensor, shape []int) *tensor.Tensor {
	h.mu.Lock()
	defer h.mu.Unlock()
	set := h.setOf(t)
	if set == nil {
		return nil
	}
	if v := set.find(t.DType(), t.Len(), shape); v != nil {
		return v
	}
	v := t.Reshaped(shape)
	set.add(v)
	return v
}

// over returns a header of dtype dt and t's shape over t's buffer, other
// than t itself (the executor treats a kernel's returning its input as a
// pass-through), for a kernel writing in place over t; nil when the buffer
// is not the pool's. The executor allows that only when t is the last live
// value using the buffer, so every other header kept for it is unreachable.
func (h *Headers) over(t *tensor.Tensor, dt tensor.DType) *tensor.Tensor {
	h.mu.Lock()
	defer h.mu.Unlock()
	set := h.setOf(t)
	if set == nil {
		return nil
	}
	for _, o := range set.ts {
		if o != t && o.DType() == dt && o.Len() == t.Len() && slices.Equal(o.Shape(), t.Shape()) {
			return o
		}
	}
	o := tensor.WrapF32(dt, t.Shape(), t.F32())
	set.add(o)
	return o
}

// Forget drops the header kept for buf, which is leaving the pool.
func (h *Headers) Forget(buf []float32) {
	if cap(buf) == 0 {
		return
	}
	h.mu.Lock()
	delete(h.m, unsafe.SliceData(buf))
	h.mu.Unlock()
}
