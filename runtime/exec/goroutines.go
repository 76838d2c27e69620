package exec

import (
	"context"

	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Goroutines is Threads whose workers are goroutines, each computing parts
// with RunPart on a plan of its own compiled from the same model (a plan's
// kernels hold per-kernel state, such as their shape caches, so each worker
// has its own): the threads of native gort (runtime.Options.Threads), and
// the tests' stand-in for the JS worker pool, which it mirrors.
type Goroutines struct {
	Plans []*plan.Plan // one per worker
	// Options are RunPart's (MaxTensorBytes).
	Options Options
}

// Workers implements Threads.
func (g *Goroutines) Workers() int { return len(g.Plans) }

// Start implements Threads: worker w computes the part at once, on a
// goroutine of its own.
func (g *Goroutines) Start(w, step int, ins []*tensor.Tensor, part op.Part) func(dst [][]float32) error {
	type result struct {
		out [][]float32
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := RunPart(context.Background(), g.Plans[w], step, ins, part, g.Options)
		done <- result{out, err}
	}()
	return func(dst [][]float32) error {
		r := <-done
		if r.err != nil {
			return r.err
		}
		if len(r.out) != len(dst) {
			return errs.New(errs.WorkerLost, "a worker computed %d pieces of a part of %d", len(r.out), len(dst))
		}
		for i, d := range dst {
			if len(r.out[i]) != len(d) {
				return errs.New(errs.WorkerLost, "a worker computed a piece of %d values for one of %d", len(r.out[i]), len(d))
			}
			copy(d, r.out[i])
		}
		return nil
	}
}
