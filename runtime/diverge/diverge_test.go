package diverge_test

import (
	"context"
	"testing"

	_ "github.com/gort-dev/gort/ops"
	"github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/compare"
	"github.com/gort-dev/gort/runtime/diverge"
	tm "github.com/gort-dev/gort/runtime/internal/testmodel"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// chain: x → Relu → Add(w) → Mul(w) (the node "scale") → Sigmoid → Neg → y.
func chain() []byte {
	m := tm.New(17)
	m.Input("x", tensor.Float, 2, 3)
	m.Init("w", tensor.Of([]int{3}, []float32{0.5, -1, 2}))
	m.Node("Relu", []string{"x"}, []string{"a"})
	m.Node("Add", []string{"a", "w"}, []string{"b"})
	tm.Named(m.Node("Mul", []string{"b", "w"}, []string{"c"}), "scale", "")
	m.Node("Sigmoid", []string{"c"}, []string{"d"})
	m.Node("Neg", []string{"d"}, []string{"y"})
	m.Output("y", tensor.Float, 2, 3)
	return m.Bytes()
}

// registry copies the default builders of the chain's ops; when plant is set,
// Mul's output gets 0.01 added to its element 4.
func registry(plant bool) *op.Registry {
	r := op.NewRegistry()
	for _, name := range []string{"Relu", "Add", "Mul", "Sigmoid", "Neg"} {
		res := op.Default.Resolve("", name, 17)
		b := res.Builder
		if name == "Mul" && plant {
			inner := b
			b = func(n *op.Node) (any, error) {
				k, err := inner(n)
				if err != nil {
					return nil, err
				}
				return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
					out, err := k.(op.Kernel).Run(ctx, in)
					if err == nil {
						out[0] = out[0].Clone()
						out[0].F32()[4] += 0.01
					}
					return out, err
				}), nil
			}
		}
		// Register every spec version up to 17 so the registry resolves at opset 17.
		r.Register("", name, []int{res.Version}, b)
	}
	return r
}

func TestPlantedErrorIsNamed(t *testing.T) {
	model := chain()
	good, err := runtime.Load(model, &runtime.Options{Registry: registry(false)})
	if err != nil {
		t.Fatal(err)
	}
	bad, err := runtime.Load(model, &runtime.Options{Registry: registry(true)})
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.Of([]int{2, 3}, []float32{1, -2, 3, -4, 5, -6})
	feeds := map[string]tensor.Value{"x": x}
	// compare fails on the output...
	ref, err := good.Run(context.Background(), feeds)
	if err != nil {
		t.Fatal(err)
	}
	got, err := bad.Run(context.Background(), feeds)
	if err != nil {
		t.Fatal(err)
	}
	s := compare.TensorStats(got["y"].(*tensor.Tensor), ref["y"].(*tensor.Tensor), compare.DefaultTolerance)
	if s.Pass || s.Mismatches != 1 || s.WorstIndex[0] != 1 || s.WorstIndex[1] != 1 {
		t.Errorf("compare of y: %+v", s)
	}
	// ...and diverge names the node.
	d, sum, err := diverge.Sessions(context.Background(), bad, good, feeds, compare.DefaultTolerance)
	if err != nil {
		t.Fatal(err)
	}
	if d == nil || d.Node != "scale" || d.Op != "Mul" || d.Index != 2 || !d.InputsAgreed || len(d.Outputs) != 1 || d.Outputs[0].Stats.Mismatches != 1 {
		t.Fatalf("divergence %+v (summary %+v)", d, sum)
	}
	if sum.Compared != 3 {
		t.Errorf("compared %d values before stopping, want 3 (a, b, c)", sum.Compared)
	}
	// Two good runs do not diverge.
	if d, _, _ := diverge.Sessions(context.Background(), good, good, feeds, compare.DefaultTolerance); d != nil {
		t.Errorf("good against good: %+v", d)
	}
}

// TestAgainstReferenceValues: per-node reference outputs (as a folder of
// .npy files would give) with one planted difference in "b": the Add node is
// named, and for the next node its input would no longer agree.
func TestAgainstReferenceValues(t *testing.T) {
	s, err := runtime.Load(chain(), nil)
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.Of([]int{2, 3}, []float32{1, -2, 3, -4, 5, -6})
	run, err := diverge.Record(context.Background(), s, map[string]tensor.Value{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	// By hand: a = relu(x) = [1,0,3,0,5,0]; b = a + w = [1.5,-1,5,0.5,4,2].
	ref := map[string]tensor.Value{
		"a": tensor.Of([]int{2, 3}, []float32{1, 0, 3, 0, 5, 0}),
		"b": tensor.Of([]int{2, 3}, []float32{1.5, -1, 5, 0.5, 4, 2.5}), // last element planted (true value 2)
	}
	d, _ := diverge.First(run, ref, compare.DefaultTolerance)
	if d == nil || d.Op != "Add" || !d.InputsAgreed || d.Outputs[0].Stats.WorstIndex[1] != 2 {
		t.Fatalf("divergence %+v", d)
	}
	ref["b"] = run.Values["b"]
	ref["c"] = tensor.Of([]int{2, 3}, []float32{0, 0, 0, 0, 0, 0})
	d, _ = diverge.First(run, ref, compare.DefaultTolerance)
	if d == nil || d.Node != "scale" {
		t.Fatalf("second divergence %+v", d)
	}
}
