package op

import (
	"context"
	"fmt"
	"slices"

	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Context is what a kernel sees of the run it is part of.
type Context struct {
	// Ctx carries cancellation; long kernels (Loop) check it through Err.
	Ctx context.Context
	// MaxBytes is the memory budget for any single tensor.
	MaxBytes int64
	// RunSubgraph executes g with the given inputs; outer-scope values are
	// those visible at the calling node. Set by the executor.
	RunSubgraphFunc func(g Subgraph, inputs []tensor.Value) ([]tensor.Value, error)
	// YieldFunc, when set, gives the host a turn (the WebAssembly build lets
	// the JS event loop run; it rate-limits itself). Set by the executor.
	YieldFunc func()
	// AllocFloat32, when set, returns a zeroed []float32 of length n for
	// New, typically a recycled buffer (set by the executor).
	AllocFloat32 func(n int) []float32
	// Headers, when set with AllocFloat32, keeps the tensor headers made
	// over the executor's recycled buffers, which New, NewOver and Reshaped
	// hand out again in later runs (set by the executor).
	Headers *Headers
	// ReuseInput, when set, reports whether the kernel may write its
	// output over input i's buffer: the value dies at this node, no other
	// live value shares the buffer, and it is neither a weight nor a feed
	// (set by the executor).
	ReuseInput func(i int) bool
	// Part, when not Whole, asks a SplittingKernel for that part of its
	// output only (set by the executor; see split.go).
	Part Part

	// one and checkpoint are One's slice and CheckpointFunc's method
	// value, kept so that a Context reused from step to step allocates
	// neither again.
	one        [1]*tensor.Tensor
	checkpoint func() error
}

// One returns a kernel's result of one output in a slice the Context owns:
// the next kernel run with this Context reuses it, so the caller must copy
// the result out before it runs another (the executor does).
func (c *Context) One(t *tensor.Tensor) []*tensor.Tensor {
	c.one[0] = t
	return c.one[:]
}

// CheckpointFunc is c.Checkpoint as a function value, made once per
// Context rather than once per kernel run.
func (c *Context) CheckpointFunc() func() error {
	if c.checkpoint == nil {
		c.checkpoint = c.Checkpoint
	}
	return c.checkpoint
}

// Checkpoint is called by long kernels between chunks of work: it lets the
// host run (so an abort can arrive) and returns an Aborted error once the run
// is cancelled. It is cheap enough to call every few milliseconds of work.
func (c *Context) Checkpoint() error {
	if c.YieldFunc != nil {
		c.YieldFunc()
	}
	return c.Err()
}

// RunSubgraph runs a graph attribute of the current node.
func (c *Context) RunSubgraph(g Subgraph, inputs []tensor.Value) ([]tensor.Value, error) {
	if c.RunSubgraphFunc == nil {
		return nil, errs.New(errs.Internal, "no subgraph executor")
	}
	return c.RunSubgraphFunc(g, inputs)
}

// Err returns an Aborted error once the run is cancelled.
func (c *Context) Err() error {
	if c.Ctx != nil && c.Ctx.Err() != nil {
		return errs.New(errs.Aborted, "run aborted: %v", context.Cause(c.Ctx))
	}
	return nil
}

// CheckShape returns a TooLarge error if a tensor of this shape and dtype
// would not fit the budget (or its size overflows), and the element count otherwise.
// Its errors hold copies of shape, so that a shape built on a kernel's stack
// stays there.
func (c *Context) CheckShape(dt tensor.DType, shape []int) (int, error) {
	n, ok := tensor.Size(shape)
	if !ok {
		return 0, errs.New(errs.TooLarge, "output shape %v is invalid or overflows", slices.Clone(shape))
	}
	if c.MaxBytes > 0 && int64(n) > c.MaxBytes/int64(dt.ElemBytes()) {
		return 0, errs.New(errs.TooLarge, "output of shape %v (%d elements of %s) exceeds the memory budget of %d bytes", slices.Clone(shape), n, dt, c.MaxBytes)
	}
	return n, nil
}

// New allocates a zero tensor after checking the budget. Over budget it
// panics with a TooLarge *errs.Error, which the executor turns into an error
// naming the node; kernels therefore need no error plumbing for allocation.
func (c *Context) New(dt tensor.DType, shape ...int) *tensor.Tensor {
	n, err := c.CheckShape(dt, shape)
	if err != nil {
		panic(err)
	}
	if c.AllocFloat32 != nil && n > 0 && tensor.StoredAsF32(dt) {
		if c.Headers != nil {
			return c.Headers.wrap(dt, shape, c.AllocFloat32(n))
		}
		return tensor.WrapF32(dt, shape, c.AllocFloat32(n))
	}
	return tensor.New(dt, shape...)
}

// NewOver is New for elementwise kernels, which compute each output
// element from the input elements at the same index (and broadcast ones):
// it returns a tensor over the buffer of an input of the same shape and
// float32 storage that dies at this node, when the executor allows it, so
// that chains of elementwise ops run in place; otherwise a fresh tensor.
// The kernel must read an element before it writes the same index.
func (c *Context) NewOver(in []*tensor.Tensor, dt tensor.DType, shape ...int) *tensor.Tensor {
	if c.ReuseInput != nil && tensor.StoredAsF32(dt) {
		for i, t := range in {
			if t != nil && tensor.StoredAsF32(t.DType()) && slices.Equal(t.Shape(), shape) && c.ReuseInput(i) {
				if c.Headers != nil {
					if h := c.Headers.over(t, dt); h != nil {
						return h
					}
				}
				return tensor.WrapF32(dt, shape, t.F32())
			}
		}
	}
	return c.New(dt, shape...)
}

// Reshaped is t.Reshaped(shape) (a view of t's data under another shape of
// the same size) for view kernels (Reshape, Flatten, Squeeze, Unsqueeze):
// over one of the executor's buffers it hands out the header it made for
// the same view before, so that a steady-state run makes no new ones.
func (c *Context) Reshaped(t *tensor.Tensor, shape []int) *tensor.Tensor {
	if c.Headers != nil && tensor.StoredAsF32(t.DType()) {
		if n, ok := tensor.Size(shape); ok && n == t.Len() {
			if v := c.Headers.view(t, shape); v != nil {
				return v
			}
		}
	}
	return t.Reshaped(shape)
}

// Fail aborts the kernel with a Runtime error (recovered by the executor).
// Use it deep inside helpers where returning an error is awkward.
func Fail(format string, args ...any) {
	panic(errs.New(errs.Runtime, format, args...))
}

// Errorf returns a Runtime error for kernels to return.
func Errorf(format string, args ...any) error {
	return &errs.Error{Code: errs.Runtime, Msg: fmt.Sprintf(format, args...)}
}
