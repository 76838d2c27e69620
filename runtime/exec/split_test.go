package exec_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gort-dev/gort/runtime/exec"
	tm "github.com/gort-dev/gort/runtime/internal/testmodel"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/tensor"
)

// goThreads is exec.Goroutines over one plan compiled separately from the
// model (a worker instance of the JS pool compiles its own), that also
// records the steps it is handed parts of. A worker listed in lost fails
// every part it is given.
type goThreads struct {
	p       *plan.Plan
	workers int
	lost    map[int]bool
	started atomic.Int64
	mu      sync.Mutex
	split   []int // the steps parts were handed out for
}

func (g *goThreads) steps() []int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.split)
}

func (g *goThreads) Workers() int { return g.workers }

func (g *goThreads) Start(w, step int, ins []*tensor.Tensor, part op.Part) func([][]float32) error {
	g.started.Add(1)
	g.mu.Lock()
	g.split = append(g.split, step)
	g.mu.Unlock()
	wait := (&exec.Goroutines{Plans: []*plan.Plan{g.p}}).Start(0, step, ins, part)
	return func(dst [][]float32) error {
		if g.lost[w] {
			wait(nil) // the part is dropped, not copied: the caller must compute it
			return errors.New("worker lost")
		}
		return wait(dst)
	}
}

// convNet is a small CNN whose convolutions take every path of
// kernels.Conv: im2col GEMM (3 input channels), Winograd (32 → 40),
// pointwise with packed weights, depthwise at stride 2, a pointwise one
// with a fused residual and Relu, and 130 output channels (not a multiple
// of the GEMM's row tile) at stride 2; two images, H ≠ W.
func convNet() *tm.Model { return convNetAt(20, 28) }

// convNetAt is convNet on h×w images (multiples of 4).
func convNetAt(h, w int) *tm.Model {
	m := tm.New(13)
	m.Input("x", tensor.Float, 2, 3, h, w)
	seed := uint32(7)
	weight := func(name string, shape ...int) string {
		n := 1
		for _, d := range shape {
			n *= d
		}
		v := make([]float32, n)
		for i := range v {
			seed = seed*1664525 + 1013904223
			v[i] = (float32(seed>>8)/(1<<24) - 0.5) / float32(math.Sqrt(float64(n/shape[0])))
		}
		m.Init(name, tensor.Of(shape, v))
		return name
	}
	pads := tm.Ints("pads", 1, 1, 1, 1)
	m.Node("Conv", []string{"x", weight("w1", 32, 3, 3, 3), weight("b1", 32)}, []string{"c1"}, pads)
	m.Node("Relu", []string{"c1"}, []string{"r1"})
	m.Node("Conv", []string{"r1", weight("w2", 40, 32, 3, 3), weight("b2", 40)}, []string{"c2"}, pads)
	m.Node("Conv", []string{"c2", weight("w3", 72, 40, 1, 1)}, []string{"c3"})
	m.Node("Conv", []string{"c3", weight("w4", 72, 1, 3, 3)}, []string{"c4"}, pads, tm.Int("group", 72), tm.Ints("strides", 2, 2))
	m.Node("Conv", []string{"c4", weight("w5", 72, 72, 1, 1), weight("b5", 72)}, []string{"c5"})
	m.Node("Add", []string{"c5", "c4"}, []string{"a5"})
	m.Node("Relu", []string{"a5"}, []string{"r5"})
	m.Node("Conv", []string{"r5", weight("w6", 130, 72, 3, 3)}, []string{"y"}, pads, tm.Ints("strides", 2, 2))
	m.Output("y", tensor.Float, 2, 130, h/4, w/4)
	return m
}

// TestRunThreadsBitIdentical: a run whose convolutions are split among 1,
// 2 and 3 workers gives the bits of a run on one thread, also when a
// worker fails every part (its parts are then computed by the caller).
func TestRunThreadsBitIdentical(t *testing.T) {
	m := convNet()
	compile := func() *plan.Plan { return compileWith(t, m, plan.All) }
	main := compile()
	x := tensor.New(tensor.Float, 2, 3, 20, 28)
	for i := range x.F32() {
		x.F32()[i] = float32(math.Sin(float64(i) * 0.37))
	}
	feeds := map[string]tensor.Value{"x": x}
	whole, err := exec.Run(context.Background(), main, feeds, []string{"y"}, exec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := whole["y"].(*tensor.Tensor).F32()
	// Splitting always pays under this cost rule, so every Conv splits.
	eager := exec.ThreadCost{MACsPerMicro: 1, SyncMicros: 0, BytesPerMicro: 1e12, Margin: 1}
	for _, tc := range []struct {
		workers int
		lost    map[int]bool
	}{{1, nil}, {2, nil}, {3, nil}, {2, map[int]bool{1: true}}} {
		th := &goThreads{p: compile(), workers: tc.workers, lost: tc.lost}
		pool := exec.NewPool()
		for run := range 2 {
			out, err := exec.Run(context.Background(), main, feeds, []string{"y"}, exec.Options{Threads: th, ThreadCost: eager, Pool: pool})
			if err != nil {
				t.Fatalf("%d workers: %v", tc.workers, err)
			}
			got := out["y"].(*tensor.Tensor).F32()
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%d workers (lost %v), run %d: y[%d] = %v, want %v (bit for bit)", tc.workers, tc.lost, run, i, got[i], want[i])
				}
			}
		}
		// Six convolutions per run, each cut into 2 to workers+1 parts
		// (fewer where its blocks of pixels are fewer or uneven).
		if got := th.started.Load(); got < 2*6 || got > int64(2*6*tc.workers) {
			t.Errorf("%d workers: %d parts were handed out, want %d to %d", tc.workers, got, 2*6, 2*6*tc.workers)
		}
	}
}

// TestThreadCostSplitsOnlyLargeSteps: under the default cost rule, on
// 80×112 images, the convolutions of a few million multiply-adds (the
// depthwise one, the first one's 3 input channels) are not worth the
// copies and the round trip to a worker, while the 200 M multiply-adds of
// the Winograd one are.
func TestThreadCostSplitsOnlyLargeSteps(t *testing.T) {
	main := compileWith(t, convNetAt(80, 112), plan.All)
	th := &goThreads{p: compileWith(t, convNetAt(80, 112), plan.All), workers: 1}
	x := tensor.New(tensor.Float, 2, 3, 80, 112)
	if _, err := exec.Run(context.Background(), main, map[string]tensor.Value{"x": x}, []string{"y"}, exec.Options{Threads: th}); err != nil {
		t.Fatal(err)
	}
	split := map[string]bool{}
	for _, i := range th.steps() {
		split[strings.Join(main.Steps[i].Node.Inputs[1:2], "")] = true
	}
	for _, w := range []string{"w1", "w4"} {
		if split[w] {
			t.Errorf("the convolution with weights %s was split", w)
		}
	}
	if !split["w2"] {
		t.Errorf("the Winograd convolution (w2) was not split; split: %v", split)
	}
	// Each decision is told, with its reason.
	notes := map[string]string{}
	if _, err := exec.Run(context.Background(), main, map[string]tensor.Value{"x": x}, []string{"y"}, exec.Options{Threads: th,
		SplitNote: func(i int, note string) { notes[main.Steps[i].Node.Inputs[1]] = note }}); err != nil {
		t.Fatal(err)
	}
	if n := notes["w2"]; n != "2 parts by output pixels" {
		t.Errorf("w2: note %q", n)
	}
	if n := notes["w1"]; !strings.HasPrefix(n, "whole: 2 parts would save about ") {
		t.Errorf("w1: note %q", n)
	}
}

// TestRunPartRefusesOtherSteps: a worker asked for a part of a step that
// does not split says so with an error instead of computing something else.
func TestRunPartRefusesOtherSteps(t *testing.T) {
	p := compileWith(t, convNet(), plan.All)
	for i, st := range p.Steps {
		if _, ok := st.Kernel.(op.SplittingKernel); ok {
			continue
		}
		if _, err := exec.RunPart(context.Background(), p, i, make([]*tensor.Tensor, len(st.In)), op.Part{Lo: 0, Hi: 1}, exec.Options{}); err == nil {
			t.Errorf("step %d (%s) computed a part", i, st.Node.OpType)
		}
	}
	if _, err := exec.RunPart(context.Background(), p, len(p.Steps), nil, op.Part{Lo: 0, Hi: 1}, exec.Options{}); err == nil {
		t.Error("a step beyond the plan computed a part")
	}
}

// TestPlanFingerprintStable: two compilations of one model, whose constant
// slots are numbered in map order, have the same fingerprint; another
// model has another.
func TestPlanFingerprintStable(t *testing.T) {
	a, b := compileWith(t, convNet(), plan.All), compileWith(t, convNet(), plan.All)
	if a.Fingerprint() != b.Fingerprint() {
		t.Errorf("fingerprints differ: %s, %s", a.Fingerprint(), b.Fingerprint())
	}
	if c := compileWith(t, convNet(), plan.Disabled); c.Fingerprint() == a.Fingerprint() {
		t.Error("the unoptimised plan has the optimised one's fingerprint")
	}
}
