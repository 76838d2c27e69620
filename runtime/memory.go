package runtime

import (
	"fmt"
	goruntime "runtime"
	"sort"
	"strconv"

	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// wasmAddressSpace is what a wasm32 module can ever address.
const wasmAddressSpace = 4 << 30

// memoryBudget returns the bytes a run's computed values may take at once:
// Options.MaxMemoryBytes, or under WebAssembly what is left of the 4 GiB
// address space (less a margin for kernels' scratch and the Go runtime);
// 0 means no limit.
func (s *Session) memoryBudget() int64 {
	if s.opts.MaxMemoryBytes > 0 {
		return s.opts.MaxMemoryBytes
	}
	if goruntime.GOARCH != "wasm" {
		return 0
	}
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	// Buffers parked in the pool count as in use but are the run's to take.
	return wasmAddressSpace - int64(ms.HeapInuse) + s.pool.Held() - 256<<20
}

// checkMemory refuses, before anything runs, a run whose values cannot fit:
// one value over MaxTensorBytes, or a peak of live values over the memory
// budget. Estimates are cached per plan and input-shape signature.
func (s *Session) checkMemory(p *plan.Plan, feeds map[string]tensor.Value) error {
	key := feedSignature(feeds)
	var est *estimate
	if v, ok := s.estimates.Load(estimateKey{p, key}); ok {
		est = v.(*estimate)
	} else {
		est = s.estimate(p, feeds)
		// A model fed ever new shapes must not grow the cache without end.
		if s.estimateCount.Add(1) > maxEstimates {
			s.estimates.Clear()
			s.estimateCount.Store(1)
		}
		s.estimates.Store(estimateKey{p, key}, est)
	}
	if est.tooBig != "" {
		return errs.New(errs.TooLarge, "%s", est.tooBig).WithTensor(est.tooBigName)
	}
	if s.opts.MaxMemoryBytes <= 0 && est.mem.Peak < unmeasuredPeak {
		return nil
	}
	budget := s.memoryBudget()
	if budget > 0 && est.mem.Peak > budget {
		return errs.New(errs.TooLarge, "this run needs about %s of memory at its peak (budget %s); the largest values then are %s",
			plan.FormatBytes(est.mem.Peak), plan.FormatBytes(budget), est.mem.Largest(5))
	}
	return nil
}

// unmeasuredPeak is the peak under which a run is not weighed against the
// memory left (with no MaxMemoryBytes set): reading the heap's size
// (runtime.ReadMemStats, which stops the world) took 5% of a small model's
// run in WebAssembly, and a run that small cannot be what exhausts memory.
const unmeasuredPeak = 16 << 20

// maxEstimates bounds the cached estimates (one per plan and input shapes).
const maxEstimates = 64

type estimateKey struct {
	p   *plan.Plan
	sig string
}

type estimate struct {
	mem        plan.MemoryEstimate
	tooBig     string
	tooBigName string
}

// estimate infers every value's shape for these feeds and simulates the run.
func (s *Session) estimate(p *plan.Plan, feeds map[string]tensor.Value) *estimate {
	inputs := map[string]graph.Type{}
	for name, v := range feeds {
		if t, ok := v.(shaped); ok {
			shape := make([]graph.Dim, len(t.Shape()))
			for i, d := range t.Shape() {
				shape[i] = graph.Dim{Value: int64(d)}
			}
			inputs[name] = graph.Type{Kind: graph.KindTensor, Elem: t.DType(), Shape: shape}
		}
	}
	// Feeds of exactly the declared static shapes need no new inference:
	// the types inferred at load already hold.
	types := s.types
	if types == nil || !s.matchesDeclared(inputs) {
		types = s.inferTypes(inputs)
	}
	est := &estimate{}
	bytesOf := func(name string) (int64, bool) {
		t, ok := types[name]
		if !ok || t.Kind != graph.KindTensor || t.Shape == nil || t.Elem == tensor.Undefined {
			return 0, false
		}
		n := int64(1)
		for _, d := range t.Shape {
			if !d.Known() {
				return 0, false
			}
			if d.Value > 0 && n > (1<<62)/d.Value {
				return 1 << 62, true
			}
			n *= d.Value
		}
		return n * int64(t.Elem.ElemBytes()), true
	}
	est.mem = p.Estimate(bytesOf)
	// A single value over the per-tensor budget fails now rather than
	// after the nodes before it ran.
	var over []plan.ValueSize
	for _, st := range p.Steps {
		for _, slot := range st.Out {
			if slot < 0 {
				continue
			}
			if b, ok := bytesOf(p.Names[slot]); ok && b > s.opts.MaxTensorBytes {
				over = append(over, plan.ValueSize{Name: p.Names[slot], Bytes: b})
			}
		}
	}
	if len(over) > 0 {
		sort.Slice(over, func(i, j int) bool { return over[i].Bytes > over[j].Bytes })
		est.tooBigName = over[0].Name
		est.tooBig = fmt.Sprintf("this value would take %s, over the per-tensor budget of %s (MaxTensorBytes)",
			plan.FormatBytes(over[0].Bytes), plan.FormatBytes(s.opts.MaxTensorBytes))
		if len(over) > 1 {
			est.tooBig += fmt.Sprintf("; %d more values are over it", len(over)-1)
		}
	}
	return est
}

// inferTypes infers every value's type from the inputs' types.
func (s *Session) inferTypes(inputs map[string]graph.Type) map[string]graph.Type {
	types := map[string]graph.Type{}
	for name, info := range shapes.Model(s.model.Proto, &shapes.Options{Registry: s.opts.Registry, Inputs: inputs}).Values {
		types[name] = info.Type
	}
	return types
}

// matchesDeclared reports whether the feeds' types are the declared input
// types, every dim fixed (so inference at load saw the same shapes).
func (s *Session) matchesDeclared(inputs map[string]graph.Type) bool {
	for name, t := range inputs {
		d, ok := s.declared[name]
		if !ok || d.Kind != graph.KindTensor || d.Elem != t.Elem || len(d.Shape) != len(t.Shape) || d.Shape == nil {
			return false
		}
		for i, dim := range d.Shape {
			if !dim.Known() || dim.Value != t.Shape[i].Value {
				return false
			}
		}
	}
	for _, in := range s.inputs {
		if _, fed := inputs[in.Name]; !fed {
			return false
		}
	}
	return true
}

// feedSignature identifies the feeds' dtypes and shapes.
func feedSignature(feeds map[string]tensor.Value) string {
	names := make([]string, 0, len(feeds))
	for n := range feeds {
		names = append(names, n)
	}
	sort.Strings(names)
	// Appended by hand, not through fmt: this runs on every Run, and fmt's
	// reflection printer was the largest function V8 had to optimise during
	// a first run.
	var b []byte
	for _, n := range names {
		b = append(b, n...)
		if t, ok := feeds[n].(shaped); ok {
			b = append(b, ':')
			b = strconv.AppendInt(b, int64(t.DType()), 10)
			for _, d := range t.Shape() {
				b = append(b, ',')
				b = strconv.AppendInt(b, int64(d), 10)
			}
		}
		b = append(b, 0)
	}
	return string(b)
}
