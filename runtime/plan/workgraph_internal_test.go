package plan

import (
	"testing"

	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/tensor"
)

// TestDropConstKeepsSharedTensor: a tensor that is a constant under two
// names (a folded Identity) stays a plan constant until both names are
// dropped; replacing a name's tensor releases the old one; dropping an
// unknown name changes nothing.
func TestDropConstKeepsSharedTensor(t *testing.T) {
	init := tensor.New(tensor.Float, 2, 3)
	w := newWorkGraph(&graph.Graph{Initializers: map[string]*tensor.Tensor{"init": init}}, nil, nil)
	a, b := tensor.New(tensor.Float, 3, 2), tensor.New(tensor.Float, 4)
	w.setConst("x", a)
	w.setConst("x_alias", a)
	w.setConst("y", b)
	w.foldedSet[a], w.foldedSet[b] = true, true

	steps := []struct {
		do           func()
		wantA, wantB bool
		wantNames    int
	}{
		{do: func() { w.dropConst("x") }, wantA: true, wantB: true, wantNames: 3},
		{do: func() { w.dropConst("missing") }, wantA: true, wantB: true, wantNames: 3},
		{do: func() { w.setConst("x_alias", a) }, wantA: true, wantB: true, wantNames: 3}, // the same tensor again
		{do: func() { w.dropConst("x_alias") }, wantA: false, wantB: true, wantNames: 2},
		{do: func() { w.setConst("y", tensor.New(tensor.Float, 5)) }, wantA: false, wantB: false, wantNames: 2},
		{do: func() { w.dropConst("init") }, wantA: false, wantB: false, wantNames: 1},
	}
	for i, s := range steps {
		s.do()
		if w.foldedSet[a] != s.wantA || w.foldedSet[b] != s.wantB {
			t.Fatalf("step %d: a constant %v (want %v), b constant %v (want %v)", i, w.foldedSet[a], s.wantA, w.foldedSet[b], s.wantB)
		}
		if len(w.consts) != s.wantNames {
			t.Fatalf("step %d: %d names, want %d", i, len(w.consts), s.wantNames)
		}
		total := 0
		for _, n := range w.refs {
			total += n
		}
		if total != len(w.consts) {
			t.Fatalf("step %d: refs count %d names, consts has %d", i, total, len(w.consts))
		}
	}
	if _, ok := w.refs[init]; ok {
		t.Fatal("the dropped initializer is still counted")
	}
}
