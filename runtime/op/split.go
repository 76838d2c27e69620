package op

import "github.com/gort-dev/gort/runtime/tensor"

// Splitting a step across threads (docs/threads.md). Go's WebAssembly port
// has no threads, so the executor hands parts of a heavy step to other
// instances of gort (workers holding the same plan) and computes one part
// itself. A part is a range of units of the step's first output (N × C ×
// spatial…): either of its channels (axis 1), or of its pixels (the
// flattened spatial axes, the same range in every channel plane). Each
// instance computes its range, and the executor puts the ranges together.

// Split is what a kernel tells the executor about splitting one run.
type Split struct {
	// Pixels: parts are ranges of pixels of each channel plane, not of
	// channels.
	Pixels bool
	// Units is the length of the split axis (channels, or pixels per
	// plane); 0 means this run cannot be split.
	Units int
	// Align is the multiple every part's bounds must be on (the last part
	// may end at Units) for the parts to be bit-identical to a whole run.
	Align int
	// MACs is the run's work in multiply-adds, for the executor's
	// decision whether splitting pays.
	MACs int64
	// OutBytes is the size of the first output.
	OutBytes int64
}

// SplittingKernel is a kernel that can compute its first output in parts.
// A run with Context.Part set computes only units [Part.Lo, Part.Hi) of that
// output, bit-identical to the same units of a whole run, and may leave the
// other units unwritten.
type SplittingKernel interface {
	Kernel
	// SplitOf says whether and how a run on these inputs can be split
	// into at most parts parts.
	SplitOf(in []*tensor.Tensor, parts int) Split
}

// Part is a range of units along the split axis (Pixels says which); the
// zero Part is the whole output.
type Part struct {
	Lo, Hi int
	Pixels bool
}

// Whole reports whether p asks for the whole output.
func (p Part) Whole() bool { return p.Hi == 0 }
