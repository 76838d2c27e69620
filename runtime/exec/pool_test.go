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
	p := compileUnoptimised(t, m)
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
	// The ops that write over their input get recycled headers too: a run
	// allocates its bookkeeping and the output, not a header per op.
	run := func() {
		if _, err := exec.Run(context.Background(), p, map[string]tensor.Value{"x": x}, []string{"y"}, exec.Options{Pool: pool}); err != nil {
			t.Fatal(err)
		}
	}
	if a := testing.AllocsPerRun(5, run); a > 24 {
		t.Errorf("a steady-state run of the chain makes %.0f allocations, want at most 24 (29 when they made a header per op)", a)
	}
}

// TestRecycledHeadersNeverReachCallers: tensor headers (and views) made
// over the pool's buffers are handed out again in later runs, but never
// one the caller holds: each run's outputs, views of intermediate values
// among them, are fresh and keep their values through later runs.
func TestRecycledHeadersNeverReachCallers(t *testing.T) {
	m := tm.New(13)
	m.Input("x", tensor.Float, 4, 6)
	m.Init("shape", tensor.Of([]int{2}, []int64{2, 12}))
	m.Node("Relu", []string{"x"}, []string{"a"})
	m.Node("Reshape", []string{"a", "shape"}, []string{"y"}) // an output that is a view of a
	m.Node("Neg", []string{"x"}, []string{"b"})
	m.Node("Reshape", []string{"b", "shape"}, []string{"c"}) // an intermediate view
	m.Node("Sigmoid", []string{"c"}, []string{"d"})
	m.Node("Flatten", []string{"d"}, []string{"z"}, tm.Int("axis", 0))
	m.Output("y", tensor.Float, 2, 12)
	m.Output("z", tensor.Float, 1, 24)
	p := compileUnoptimised(t, m)
	pool := exec.NewPool()
	want := func(x []float32) (y, z []float32) {
		for _, v := range x {
			y = append(y, max(v, 0))
			z = append(z, float32(1/(1+math.Exp(float64(v)))))
		}
		return y, z
	}
	type result struct{ y, z *tensor.Tensor }
	var kept []result
	var feeds [][]float32
	for run := range 4 {
		x := tensor.New(tensor.Float, 4, 6)
		for i := range x.F32() {
			x.F32()[i] = float32((i*7+run*5)%11) - 5
		}
		out, err := exec.Run(context.Background(), p, map[string]tensor.Value{"x": x}, []string{"y", "z"}, exec.Options{Pool: pool})
		if err != nil {
			t.Fatal(err)
		}
		r := result{out["y"].(*tensor.Tensor), out["z"].(*tensor.Tensor)}
		for _, k := range kept {
			if k.y == r.y || k.z == r.z {
				t.Fatalf("run %d returned a header an earlier run returned", run)
			}
		}
		kept, feeds = append(kept, r), append(feeds, x.F32())
		for i, k := range kept {
			wy, wz := want(feeds[i])
			for j := range wy {
				if k.y.F32()[j] != wy[j] || math.Abs(float64(k.z.F32()[j]-wz[j])) > 1e-6 {
					t.Fatalf("after run %d, run %d's outputs changed at %d: y %v (want %v), z %v (want %v)", run, i, j, k.y.F32()[j], wy[j], k.z.F32()[j], wz[j])
				}
			}
		}
	}
}

// compileUnoptimised plans m with no rewrites, so each node is a step.
func compileUnoptimised(t *testing.T, m *tm.Model) *plan.Plan {
	t.Helper()
	return compileWith(t, m, plan.Disabled)
}

// compileWith compiles m at an optimisation level.
func compileWith(t *testing.T, m *tm.Model, level plan.Level) *plan.Plan {
	t.Helper()
	g, err := graph.Load(m.Bytes(), graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Compile(g, nil, plan.Options{Level: level})
	if err != nil {
		t.Fatal(err)
	}
	return p
}
