package exec

import (
	"context"
	"fmt"

	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Threads computes parts of split steps elsewhere: in the WebAssembly build,
// other instances of gort (the JS worker pool) that loaded the same model
// with the same options, so that their plans have the same steps. See
// docs/threads.md.
type Threads interface {
	// Workers is the number of workers that can take a part now (0: none).
	Workers() int
	// Start hands worker w part of top-level step `step`, computed from
	// ins (the step's inputs; nil where the plan holds a constant, which
	// the worker has too). It must not block. The returned function waits
	// for the part and copies it into dst: the part's pieces of the
	// step's first output (see pieces), in order; with dst nil it only
	// waits.
	Start(w, step int, ins []*tensor.Tensor, part op.Part) (wait func(dst [][]float32) error)
}

// ThreadCost is the rule that decides whether splitting a step pays: the
// work saved must exceed Margin times what the split costs (a round trip
// per worker and the copies of the inputs and of the output parts).
type ThreadCost struct {
	MACsPerMicro  float64 // the kernels' speed, multiply-adds per µs
	SyncMicros    float64 // one round trip to a worker
	BytesPerMicro float64 // copy speed; each byte crosses two copies
	Margin        float64
}

// DefaultThreadCost is measured in Node on the development machine, 2
// threads (docs/threads.md): the convolutions run at about 11 G
// multiply-adds/s (ResNet-50, SqueezeNet); the copies of a split step take
// about 0.25 ms per MiB each (into a buffer and out of it, on both sides);
// and a split step costs about 0.5 ms more than that (the messages both
// ways, waking the waiting instance, the worker's part finishing later
// than the caller's), found from SqueezeNet, whose convolutions of 1–2 ms
// each ran slower split (34 → 40 ms a run) under a rule that counted
// 50 µs. With these, ResNet-50's large convolutions split and SqueezeNet's
// small ones do not.
var DefaultThreadCost = ThreadCost{MACsPerMicro: 11000, SyncMicros: 500, BytesPerMicro: 8000, Margin: 2}

// parts cuts sp's units into at most n aligned parts, or returns nil when
// splitting does not pay (inBytes: what each worker receives).
func (c ThreadCost) parts(sp op.Split, n int, inBytes int64) []op.Part {
	if sp.Units <= 0 || sp.Align <= 0 || n < 2 {
		return nil
	}
	blocks := (sp.Units + sp.Align - 1) / sp.Align
	n = min(n, blocks)
	for ; n >= 2; n-- {
		if saved, cost := c.estimate(sp, n, inBytes); saved > c.Margin*cost {
			break
		}
	}
	if n < 2 {
		return nil
	}
	// Equal shares of whole alignment units; the remainder goes to the
	// first parts, and the last part ends at Units.
	out := make([]op.Part, n)
	lo := 0
	for i := range out {
		b := blocks / n
		if i < blocks%n {
			b++
		}
		hi := min(sp.Units, lo+b*sp.Align)
		out[i] = op.Part{Lo: lo, Hi: hi, Pixels: sp.Pixels}
		lo = hi
	}
	return out
}

// estimate returns, in µs, the work that splitting sp into n parts saves
// and what the split costs: a round trip, each worker's copy of the inputs
// and the output parts, every byte copied twice.
func (c ThreadCost) estimate(sp op.Split, n int, inBytes int64) (saved, cost float64) {
	saved = float64(sp.MACs) / c.MACsPerMicro * float64(n-1) / float64(n)
	cost = c.SyncMicros + 2*float64(inBytes*int64(n-1)+sp.OutBytes)/c.BytesPerMicro
	return saved, cost
}

// note says how a step ran: in how many parts along which axis, or why
// it ran whole.
func (c ThreadCost) note(sp op.Split, parts []op.Part, threads int, inBytes int64) string {
	axis := "output channels"
	if sp.Pixels {
		axis = "output pixels"
	}
	switch {
	case len(parts) > 0:
		return fmt.Sprintf("%d parts by %s", len(parts), axis)
	case sp.Units <= 0 || sp.Align <= 0:
		return "whole: this run cannot be split"
	case sp.Units <= sp.Align:
		return fmt.Sprintf("whole: %d %s in blocks of %d make one part", sp.Units, axis, sp.Align)
	}
	n := min(threads, (sp.Units+sp.Align-1)/sp.Align)
	saved, cost := c.estimate(sp, n, inBytes)
	return fmt.Sprintf("whole: %d parts would save about %.2f ms of work and cost %.2f ms in copies and messages", n, saved/1000, cost/1000)
}

// splitting returns k as a SplittingKernel when this step may be split:
// a run with threads, a top-level CPU step, a kernel that splits, and a
// worker to take a part.
func (r *runner) splitting(k op.Kernel, st *plan.Step, f *frame, onCPU bool) (op.SplittingKernel, bool) {
	if r.opts.Threads == nil || r.depth != 1 || f.parent != nil || !onCPU {
		return nil, false
	}
	sk, ok := k.(op.SplittingKernel)
	return sk, ok && r.opts.Threads.Workers() > 0
}

// runSplit runs a splitting kernel's step in parts: workers take parts
// 1…n−1, this instance computes part 0 into the output it allocates, and
// the workers' parts are copied in. A worker that fails has its part
// computed here instead, so the run's result is the same either way.
func (r *runner) runSplit(k op.SplittingKernel, ctx *op.Context, st *plan.Step, f *frame, ins []*tensor.Tensor) ([]*tensor.Tensor, error) {
	workers := r.opts.Threads.Workers()
	sp := k.SplitOf(ins, workers+1)
	send := make([]*tensor.Tensor, len(ins))
	var inBytes int64
	for i, t := range ins {
		if t == nil || f.p.Consts[st.In[i]] == tensor.Value(t) {
			continue // absent, or a constant the worker holds
		}
		send[i] = t
		inBytes += int64(t.Len() * t.DType().ElemBytes())
	}
	cost := r.opts.ThreadCost
	if cost == (ThreadCost{}) {
		cost = DefaultThreadCost
	}
	parts := cost.parts(sp, workers+1, inBytes)
	if r.opts.SplitNote != nil {
		r.opts.SplitNote(r.index, cost.note(sp, parts, workers+1, inBytes))
	}
	if parts == nil {
		return k.Run(ctx, ins)
	}
	waits := make([]func([][]float32) error, len(parts)-1)
	for w, p := range parts[1:] {
		waits[w] = r.opts.Threads.Start(w, r.index, send, p)
	}
	ctx.Part = parts[0]
	outs, err := k.Run(ctx, ins)
	ctx.Part = op.Part{}
	var y *tensor.Tensor
	if err == nil && len(outs) > 0 {
		y = outs[0]
	}
	for w, wait := range waits {
		if err != nil {
			wait(nil) // collect the part, to drop it
			continue
		}
		dst, perr := pieces(y, parts[w+1])
		if perr != nil {
			wait(nil)
			err = perr
			continue
		}
		if wait(dst) != nil {
			// The worker failed: the part is computed here.
			err = r.partHere(k, ctx, ins, parts[w+1], dst)
		}
	}
	return outs, err
}

// partHere computes part p on this instance, into a scratch output, and
// copies it into dst (a worker failed to). The Context, whose result slice
// holds the step's output, is restored afterwards.
func (r *runner) partHere(k op.SplittingKernel, ctx *op.Context, ins []*tensor.Tensor, p op.Part, dst [][]float32) error {
	if r.ctx != nil && r.ctx.Err() != nil {
		return errs.New(errs.Aborted, "run aborted: %v", context.Cause(r.ctx))
	}
	saved := *ctx
	ctx.Part = p
	ctx.AllocFloat32, ctx.Headers = nil, nil // a scratch output, not one of the pool's
	outs, err := k.Run(ctx, ins)
	var part *tensor.Tensor
	if err == nil && len(outs) > 0 {
		part = outs[0] // before the restore: outs is the Context's slice
	}
	*ctx = saved
	if err != nil {
		return err
	}
	src, err := pieces(part, p)
	if err != nil {
		return err
	}
	for i := range dst {
		copy(dst[i], src[i])
	}
	return nil
}

// pieces returns the part p of y (N × C × spatial…) as slices over y's
// float32 storage, in order: one per image for a range of channels, one
// per image and channel for a range of pixels.
func pieces(y *tensor.Tensor, p op.Part) ([][]float32, error) {
	if y == nil || y.Rank() < 2 || !tensor.StoredAsF32(y.DType()) {
		return nil, errs.New(errs.Internal, "a split step's output must be a float tensor of rank ≥ 2")
	}
	shape := y.Shape()
	n, c, plane := shape[0], shape[1], 1
	for _, d := range shape[2:] {
		plane *= d
	}
	units := c
	if p.Pixels {
		units = plane
	}
	if p.Lo < 0 || p.Hi > units || p.Lo >= p.Hi {
		return nil, errs.New(errs.Internal, "part [%d, %d) is outside the %d units of the output", p.Lo, p.Hi, units)
	}
	data := y.F32()
	if !p.Pixels {
		out := make([][]float32, n)
		for i := range out {
			base := i * c * plane
			out[i] = data[base+p.Lo*plane : base+p.Hi*plane]
		}
		return out, nil
	}
	out := make([][]float32, n*c)
	for i := range out {
		out[i] = data[i*plane+p.Lo : i*plane+p.Hi]
	}
	return out, nil
}

// RunPart computes part p of top-level step `step` of plan pl, a worker's
// share of a split step (see Threads): ins are the step's inputs as the
// main instance sent them, nil where the plan holds a constant. It returns
// the part's pieces of the step's first output (see pieces).
func RunPart(ctx context.Context, pl *plan.Plan, step int, ins []*tensor.Tensor, p op.Part, opts Options) (out [][]float32, err error) {
	if step < 0 || step >= len(pl.Steps) {
		return nil, errs.New(errs.Internal, "step %d is not in the plan (%d steps)", step, len(pl.Steps))
	}
	st := pl.Steps[step]
	if _, ok := st.Kernel.(op.SplittingKernel); !ok || st.Device != plan.CPU {
		return nil, errs.New(errs.Internal, "step %d (%s) cannot be split", step, st.Node.OpType).WithNode(st.Node.Name)
	}
	if len(ins) != len(st.In) {
		return nil, errs.New(errs.Internal, "step %d takes %d inputs; %d were sent", step, len(st.In), len(ins))
	}
	vals := make([]tensor.Value, pl.Slots)
	for i, sl := range st.In {
		if sl < 0 {
			continue
		}
		if ins[i] != nil {
			vals[sl] = ins[i]
		} else {
			vals[sl] = pl.Consts[sl]
		}
	}
	r := &runner{ctx: ctx, opts: opts, part: p}
	if opts.PartOutput != nil {
		// The step's first float32 allocation, its output, goes into the
		// caller's buffer; any other is fresh.
		s := r.newScratch()
		first := true
		s.ctx.AllocFloat32 = func(n int) []float32 {
			if !first {
				return make([]float32, n)
			}
			first = false
			b := opts.PartOutput(n)
			clear(b)
			return b
		}
		r.scratch = []*scratch{s}
	}
	outs, err := r.step(st, &frame{p: pl, vals: vals})
	if err != nil {
		return nil, err
	}
	if len(outs) == 0 {
		return nil, errs.New(errs.Internal, "step %d produced no output", step)
	}
	t, ok := outs[0].(*tensor.Tensor)
	if !ok {
		return nil, errs.New(errs.Internal, "step %d's output is not a tensor", step)
	}
	return pieces(t, p)
}
