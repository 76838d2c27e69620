package nn

import (
	"slices"
	"sync/atomic"
)

// planCache remembers what a kernel worked out from its input shapes
// (geometry, validated dims) for the last shapes it saw, so that steady-state
// runs with unchanged shapes skip that work and its allocations. It is safe
// for concurrent runs: entries are immutable and swapped atomically.
type planCache[T any] struct{ last atomic.Pointer[planEntry[T]] }

type planEntry[T any] struct {
	a, b, c []int
	v       T
}

// get returns the plan stored for exactly these shapes.
func (p *planCache[T]) get(a, b, c []int) (T, bool) {
	if e := p.last.Load(); e != nil && slices.Equal(e.a, a) && slices.Equal(e.b, b) && slices.Equal(e.c, c) &&
		(e.c == nil) == (c == nil) {
		return e.v, true
	}
	var zero T
	return zero, false
}

// put stores v as the plan for these shapes (v must not change afterwards).
func (p *planCache[T]) put(a, b, c []int, v T) {
	p.last.Store(&planEntry[T]{a: slices.Clone(a), b: slices.Clone(b), c: slices.Clone(c), v: v})
}
