package plan_test

import (
	"context"
	"math"
	"strings"
	"testing"

	gort "github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/graph"
	tm "github.com/gort-dev/gort/runtime/internal/testmodel"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/tensor"
)

// segDevice is a placement-only accelerator with the segment rule: it
// takes the ops in takes, of which those in heavy are heavy; off switches
// the rule off (every op heavy). Its kernels never run.
type segDevice struct {
	takes, heavy map[string]bool
	off          bool
}

func (d *segDevice) Device() plan.Device { return "fake" }

func (d *segDevice) Kernel(n *op.Node, _ any, in []graph.Type) (any, string) {
	if !d.takes[n.OpType] {
		return nil, "fake does not run " + n.OpType
	}
	return valueKernel(func(*op.Context, []tensor.Value) ([]tensor.Value, error) {
		panic("the fake's kernels do not run")
	}), ""
}

func (d *segDevice) Heavy(n *op.Node) bool { return d.off || d.heavy[n.OpType] }

func newSegDevice() *segDevice {
	return &segDevice{
		takes: map[string]bool{"Relu": true, "Add": true, "MatMul": true, "If": true},
		heavy: map[string]bool{"MatMul": true},
	}
}

// placements loads m with the accelerator (no rewrites, so that steps are
// the model's nodes) and returns each main-graph step's device and reason.
func placements(t *testing.T, m *tm.Model, acc plan.Accelerator) (map[string]string, *gort.Session) {
	t.Helper()
	s, err := gort.Load(m.Bytes(), &gort.Options{Accelerator: acc, Optimization: plan.Disabled})
	if err != nil {
		t.Fatal(err)
	}
	where := map[string]string{}
	for _, st := range s.Plan().Steps {
		where[st.Node.Name] = string(st.Device) + ":" + st.Reason
	}
	return where, s
}

func checkPlaced(t *testing.T, where, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got := where[k]; got != v && !(strings.HasSuffix(v, "*") && strings.HasPrefix(got, v[:len(v)-1])) {
			t.Errorf("step %s placed %q, want %q", k, got, v)
		}
	}
}

const transfers = " between CPU steps: the transfers would cost more than the work"

// TestSegmentLightOnly: a lone light step between CPU steps, and a
// segment of two, go back to the CPU with the rule as their reason, and
// run there (their CPU kernels).
func TestSegmentLightOnly(t *testing.T) {
	m := tm.New(13)
	m.Input("x", tensor.Float, 2, 3)
	m.Node("Sigmoid", []string{"x"}, []string{"a"}).Name = "cpu1"
	m.Node("Relu", []string{"a"}, []string{"b"}).Name = "lone"
	m.Node("Sigmoid", []string{"b"}, []string{"c"}).Name = "cpu2"
	m.Node("Add", []string{"c", "x"}, []string{"d"}).Name = "add"
	m.Node("Relu", []string{"d"}, []string{"e"}).Name = "relu"
	m.Node("Sigmoid", []string{"e"}, []string{"y"}).Name = "cpu3"
	m.Output("y", tensor.Float, 2, 3)
	where, s := placements(t, m, newSegDevice())
	checkPlaced(t, where, map[string]string{
		"lone": "cpu:a lone light op (Relu)" + transfers,
		"add":  "cpu:a segment of 2 light ops (Add, Relu)" + transfers,
		"relu": "cpu:a segment of 2 light ops (Add, Relu)" + transfers,
		"cpu1": "cpu:fake does not run Sigmoid",
	})
	for _, st := range s.Plan().Steps {
		if st.CPUKernel != nil && st.Transfer == plan.NoTransfer {
			t.Errorf("step %s keeps a CPU fallback kernel on the CPU", st.Node.Name)
		}
	}
	x := tensor.Of([]int{2, 3}, []float32{-1, 0, 1, 2, 3, -4})
	out, err := s.Run(context.Background(), map[string]tensor.Value{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	sig := func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }
	for i, v := range x.F32() {
		w := sig(max(sig(sig(float64(v)))+float64(v), 0))
		if got := out["y"].(*tensor.Tensor).F32()[i]; math.Abs(float64(got)-w) > 1e-6 {
			t.Errorf("y[%d] = %v, want %v", i, got, w)
		}
	}
}

// TestSegmentHeavy: light steps connected to a heavy one stay, and of two
// segments only the light one moves; with the rule off nothing moves.
func TestSegmentHeavy(t *testing.T) {
	m := tm.New(13)
	m.Input("x", tensor.Float, 2, 3)
	m.Init("w", tensor.New(tensor.Float, 3, 3))
	m.Node("Relu", []string{"x"}, []string{"a"}).Name = "before"
	m.Node("MatMul", []string{"a", "w"}, []string{"b"}).Name = "mm"
	m.Node("Add", []string{"b", "x"}, []string{"c"}).Name = "after"
	m.Node("Sigmoid", []string{"c"}, []string{"d"}).Name = "cpu"
	m.Node("Relu", []string{"d"}, []string{"y"}).Name = "lone"
	m.Output("y", tensor.Float, 2, 3)
	dev := newSegDevice()
	where, _ := placements(t, m, dev)
	checkPlaced(t, where, map[string]string{
		"before": "fake:", "mm": "fake:", "after": "fake:",
		"lone": "cpu:a lone light op (Relu)*",
	})
	dev.off = true
	where, _ = placements(t, m, dev)
	checkPlaced(t, where, map[string]string{"before": "fake:", "mm": "fake:", "after": "fake:", "lone": "fake:"})
}

// TestSegmentSubplans: a step with subplans is left where the accelerator
// put it (its cost is its subgraphs'), and does not join a segment; its
// subgraphs' steps are never offered.
func TestSegmentSubplans(t *testing.T) {
	m := tm.New(13)
	m.Input("x", tensor.Float, 2, 3)
	m.Input("cond", tensor.Bool)
	then := tm.NewGraph("then")
	then.Node("Relu", []string{"x"}, []string{"t"})
	then.Output("t", tensor.Float, 2, 3)
	els := tm.NewGraph("else")
	els.Node("Relu", []string{"x"}, []string{"e"})
	els.Output("e", tensor.Float, 2, 3)
	m.Node("If", []string{"cond"}, []string{"a"}, tm.GraphAttr("then_branch", then), tm.GraphAttr("else_branch", els)).Name = "if"
	m.Node("Relu", []string{"a"}, []string{"y"}).Name = "lone"
	m.Output("y", tensor.Float, 2, 3)
	where, s := placements(t, m, newSegDevice())
	checkPlaced(t, where, map[string]string{"if": "fake:", "lone": "cpu:a lone light op (Relu)*"})
	for _, st := range s.Plan().Steps {
		for _, sp := range st.Subplans {
			sp.Walk(func(st *plan.Step) {
				if st.Device != plan.CPU || st.Reason != "" {
					t.Errorf("subgraph step %s: %s %q", st.Node.Name, st.Device, st.Reason)
				}
			})
		}
	}
}
