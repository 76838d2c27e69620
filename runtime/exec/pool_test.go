package exec_test

import (
	"context"
	"math"
	"testing"

	_ "github.com/gort-dev/gort/ops" // the operator set
	"github.com/gort-dev/gort/runtime/exec"
	"github.com/gort-dev/gort/runtime/graph"
	tm "github.com/gort-dev/gort/runtime/internal/testmodel"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/tensor"
)

// TestBuffersRecycledAndInPlace: a chain of elementwise ops needs one fresh
// buffer (the first op cannot overwrite the caller's feed; every later op
// overwrites its dying input), a second run none, and the results are right.
// A value read twice is not overwritten by its first reader.
func TestBuffersRecycledAndInPlace(t *testing.T) {
	m := tm.New(13)
	m.Input("x", tensor.Float, 64, 1024)
	m.Init("half", tensor.Of([]int{1}, []float32{0.5}))
	m.Node("Relu", []string{"x"}, []string{"a"})
	m.Node("Mul", []string{"a", "half"}, []string{"b"})
	m.Node("Sigmoid", []string{"b"}, []string{"c"}) // c is read twice
	m.Node("Neg", []string{"c"}, []string{"d"})
	m.Node("Add", []string{"c", "d"}, []string{"zero"})
	m.Node("Add", []string{"zero", "c2"}, []string{"y"})
	m.Node("Tanh", []string{"x"}, []string{"c2"})
	m.Output("y", tensor.Float, 64, 1024)
	g, err := graph.Load(m.Bytes(), graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Compile(g, nil, plan.Options{Level: plan.Disabled})
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.New(tensor.Float, 64, 1024)
	for i := range x.F32() {
		x.F32()[i] = float32(i%200)/50 - 2
	}
	keep := x.Clone()
	pool := exec.NewPool()
	check := func(run int) {
		out, err := exec.Run(context.Background(), p, map[string]tensor.Value{"x": x}, []string{"y"}, exec.Options{Pool: pool})
		if err != nil {
			t.Fatal(err)
		}
		y := out["y"].(*tensor.Tensor).F32()
		for i, v := range x.F32() {
			if want := float32(math.Tanh(float64(v))); math.Abs(float64(y[i]-want)) > 1e-6 {
				t.Fatalf("run %d: y[%d] = %v, want %v", run, i, y[i], want)
			}
			if v != keep.F32()[i] {
				t.Fatalf("run %d: the feed was overwritten at %d", run, i)
			}
		}
	}
	check(1)
	// Relu allocates a; Mul and Sigmoid overwrite their input; Neg cannot
	// overwrite c (the Add reads it again), so d is fresh; the Add
	// overwrites c and frees d's buffer, which Tanh (run next) takes; the
	// last Add overwrites zero.
	if f := pool.Fresh(); f != 2 {
		t.Errorf("first run allocated %d buffers, want 2", f)
	}
	check(2)
	if f := pool.Fresh(); f > 3 {
		t.Errorf("second run allocated %d more buffers (the output's stays with the caller), want at most 1", f-2)
	}
}
