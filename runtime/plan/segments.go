package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gort-dev/gort/runtime/op"
)

// Segmenter is an Accelerator with a cost rule for segments: the steps it
// took that are connected through values one of them produces and another
// consumes. Each such segment costs an upload of what it reads from the
// CPU and a download of what the CPU reads from it; a segment without a
// heavy op (one whose work grows faster than the data it moves) would
// spend more on the transfers than it saves, so the plan sends it back to
// the CPU. An accelerator switches the rule off by calling every op heavy.
type Segmenter interface {
	Heavy(n *op.Node) bool
}

// placeSegments applies the Segmenter's rule to the main graph's steps,
// once every step is built (a segment is known only then). A step with
// subplans is never moved: its cost is its subgraphs', unknown here. A
// moved step runs its CPU kernel; the accelerator's kernel is released if
// it holds device resources (a Release method). It returns the moved steps.
func placeSegments(steps []*Step, acc Accelerator) []*Step {
	sg, ok := acc.(Segmenter)
	if !ok {
		return nil
	}
	// parent is a union-find over step indices; producer maps a slot to
	// the accelerated step that writes it.
	parent := make([]int, len(steps))
	var find func(int) int
	find = func(i int) int {
		if parent[i] != i {
			parent[i] = find(parent[i])
		}
		return parent[i]
	}
	on := func(st *Step) bool { return st.Device != CPU && st.CPUKernel != nil && len(st.Subplans) == 0 }
	producer := map[int]int{}
	for i, st := range steps {
		parent[i] = i
		if !on(st) {
			continue
		}
		for _, s := range st.In {
			if p, ok := producer[s]; ok && s >= 0 {
				parent[find(p)] = find(i)
			}
		}
		for _, s := range st.Out {
			if s >= 0 {
				producer[s] = i
			}
		}
	}
	heavy := map[int]bool{}
	members := map[int][]int{}
	for i, st := range steps {
		if on(st) {
			r := find(i)
			members[r] = append(members[r], i)
			heavy[r] = heavy[r] || sg.Heavy(&st.Node.Node)
		}
	}
	var moved []*Step
	for r, idx := range members {
		if heavy[r] {
			continue
		}
		var ops []string
		for _, i := range idx {
			if t := steps[i].Node.OpType; !slices.Contains(ops, t) {
				ops = append(ops, t)
			}
		}
		what := "a lone light op"
		if len(idx) > 1 {
			what = fmt.Sprintf("a segment of %d light ops", len(idx))
		}
		reason := fmt.Sprintf("%s (%s) between CPU steps: the transfers would cost more than the work", what, strings.Join(ops, ", "))
		for _, i := range idx {
			st := steps[i]
			if k, ok := st.Kernel.(interface{ Release() }); ok {
				k.Release()
			}
			st.Kernel, st.CPUKernel, st.Device, st.Reason = st.CPUKernel, nil, CPU, reason
			moved = append(moved, st)
		}
	}
	return moved
}
