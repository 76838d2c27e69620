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

// TestExclusiveStorage: a folded constant may be rescaled in place only when
// no other constant name and no initializer shares any of its bytes (a
// view of it, a view it is of, an alias, an initializer it was folded from).
func TestExclusiveStorage(t *testing.T) {
	base := tensor.New(tensor.Float, 4, 6)
	d := base.F32()
	view := func(lo, hi int) *tensor.Tensor { return tensor.Of([]int{hi - lo}, d[lo:hi]) }
	other := tensor.New(tensor.Float, 5)
	for _, tc := range []struct {
		name   string
		consts map[string]*tensor.Tensor
		inits  map[string]*tensor.Tensor
		want   bool
	}{
		{"alone", map[string]*tensor.Tensor{"w": view(6, 12), "o": other}, nil, true},
		{"neighbours do not touch", map[string]*tensor.Tensor{"w": view(6, 12), "a": view(0, 6), "b": view(12, 24)}, nil, true},
		{"an alias", map[string]*tensor.Tensor{"w": base, "alias": base}, nil, false},
		{"a view inside it", map[string]*tensor.Tensor{"w": view(0, 24), "v": view(10, 11)}, nil, false},
		{"it is a view of a constant", map[string]*tensor.Tensor{"w": view(6, 12), "whole": view(0, 24)}, nil, false},
		{"straddles a constant's start", map[string]*tensor.Tensor{"w": view(4, 8), "v": view(7, 20)}, nil, false},
		{"same range, other name", map[string]*tensor.Tensor{"w": view(6, 12), "v": view(6, 12)}, nil, false},
		{"a view of an initializer", map[string]*tensor.Tensor{"w": view(6, 12)}, map[string]*tensor.Tensor{"init": base}, false},
		{"an initializer of the same name", map[string]*tensor.Tensor{"w": base}, map[string]*tensor.Tensor{"w": base}, false},
		{"an initializer elsewhere", map[string]*tensor.Tensor{"w": view(6, 12)}, map[string]*tensor.Tensor{"init": other}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &graph.Graph{Initializers: tc.inits}
			w := newWorkGraph(g, nil, nil)
			for name, c := range tc.consts {
				w.setConst(name, c)
				w.foldedSet[c] = true
			}
			conv := &graph.Node{}
			conv.OpType, conv.Inputs, conv.Reads = "Conv", []string{"x", "w"}, []string{"x", "w"}
			w.nodes = append(w.nodes, conv)
			if got := w.exclusive(w.index(), "w", conv); got != tc.want {
				t.Errorf("exclusive = %v, want %v", got, tc.want)
			}
		})
	}
}
