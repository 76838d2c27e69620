package plan_test

import (
	"context"
	_ "github.com/gort-dev/gort/ops" // the operator set
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	gort "github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/graph"
	tm "github.com/gort-dev/gort/runtime/internal/testmodel"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/tensor"
)

func named(g *tm.Graph, name, opType string, in, out []string) {
	g.Node(opType, in, out).Name = name
}

// TestFreePlan checks that every local value is freed right after its last
// reader, that graph outputs and constant initializers are never freed, and
// that a value nobody reads is freed after its producer.
func TestFreePlan(t *testing.T) {
	m := tm.New(13)
	m.Input("x", tensor.Float, 2)
	m.Init("k", tensor.Of([]int{2}, []float32{1, 1}))
	named(m.Graph, "A", "Identity", []string{"x"}, []string{"a"})
	named(m.Graph, "D", "Identity", []string{"x"}, []string{"dead"})
	named(m.Graph, "B", "Add", []string{"a", "k"}, []string{"b"})
	named(m.Graph, "C", "Add", []string{"b", "x"}, []string{"y"})
	named(m.Graph, "E", "Identity", []string{"y"}, []string{"y2"})
	m.Output("y", tensor.Float, 2)
	m.Output("y2", tensor.Float, 2)
	g, err := graph.Load(m.Bytes(), graph.Options{Registry: tm.Registry(nil)})
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Compile(g, nil, plan.Options{Level: plan.Disabled})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"A": nil, "D": {"dead"}, "B": {"a"}, "C": {"b", "x"}, "E": nil}
	for _, st := range p.Steps {
		var frees []string
		for _, s := range st.Free {
			frees = append(frees, p.Names[s])
		}
		slices.Sort(frees)
		if !reflect.DeepEqual(frees, want[st.Node.Name]) {
			t.Errorf("node %s frees %v, want %v", st.Node.Name, frees, want[st.Node.Name])
		}
	}
	// With rewrites, the dead node D goes and Identity A is bypassed.
	p, err = plan.Compile(g, nil, plan.Options{Level: plan.All})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, st := range p.Steps {
		names = append(names, st.Node.Name)
	}
	if !reflect.DeepEqual(names, []string{"B", "C", "E"}) {
		t.Errorf("optimised steps %v, want [B C E]", names)
	}
	if !slices.Contains(p.Report.Removed, "D") || !slices.Contains(p.Report.Removed, "A") {
		t.Errorf("report %+v does not list A and D as removed", p.Report)
	}
}

func randTensor(r *rand.Rand, shape ...int) *tensor.Tensor {
	t := tensor.New(tensor.Float, shape...)
	for i := range t.F32() {
		t.F32()[i] = r.Float32()*2 - 1
	}
	return t
}

func run(t *testing.T, data []byte, level plan.Level, feeds map[string]tensor.Value) (map[string]tensor.Value, *gort.Session) {
	t.Helper()
	s, err := gort.Load(data, &gort.Options{Optimization: level})
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Run(context.Background(), feeds)
	if err != nil {
		t.Fatal(err)
	}
	return out, s
}

// maxDiff returns the largest |a-b| / (1+|b|) over two float32 tensors.
func maxDiff(t *testing.T, a, b tensor.Value) float64 {
	t.Helper()
	x, y := a.(*tensor.Tensor), b.(*tensor.Tensor)
	if !slices.Equal(x.Shape(), y.Shape()) {
		t.Fatalf("shapes %v and %v", x.Shape(), y.Shape())
	}
	d := 0.0
	for i, v := range x.F32() {
		w := float64(y.F32()[i])
		d = math.Max(d, math.Abs(float64(v)-w)/(1+math.Abs(w)))
	}
	return d
}

// TestRewrites runs small models with rewrites off and on: each rewrite
// must have happened (the report says so) and kept the results (exactly,
// except BatchNormalization folding, which rounds differently).
func TestRewrites(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	x := randTensor(r, 2, 3, 5, 7)
	cases := []struct {
		name   string
		build  func(m *tm.Model)
		check  func(t *testing.T, rep plan.Report)
		maxRel float64
	}{
		{"ConstantOfShape weights folded", func(m *tm.Model) {
			m.Init("wshape", tensor.Of([]int{4}, []int64{4, 3, 3, 3}))
			m.Node("ConstantOfShape", []string{"wshape"}, []string{"w"}, tm.Tensor("value", tensor.Of([]int{1}, []float32{0.25})))
			m.Node("Conv", []string{"x", "w"}, []string{"y"})
		}, func(t *testing.T, rep plan.Report) {
			if len(rep.Folded) != 1 || rep.FoldedBytes != 4*4*3*3*3 {
				t.Errorf("folded %v (%d bytes), want the ConstantOfShape (432 bytes)", rep.Folded, rep.FoldedBytes)
			}
		}, 0},
		{"shape subgraph of a constant folded", func(m *tm.Model) {
			m.Init("c", randTensor(r, 3, 5))
			m.Init("idx", tensor.Of([]int{}, []int64{1}))
			m.Node("Shape", []string{"c"}, []string{"s"})
			m.Node("Gather", []string{"s", "idx"}, []string{"d"})
			m.Init("minus1", tensor.Of([]int{1}, []int64{-1}))
			m.Node("Unsqueeze", []string{"d", "zero"}, []string{"d1"})
			m.Init("zero", tensor.Of([]int{1}, []int64{0}))
			m.Node("Concat", []string{"minus1", "d1"}, []string{"shape"}, tm.Int("axis", 0))
			m.Node("Reshape", []string{"x", "shape"}, []string{"y0"})
			m.Node("Relu", []string{"y0"}, []string{"y"})
		}, func(t *testing.T, rep plan.Report) {
			if len(rep.Folded) != 4 {
				t.Errorf("folded %v, want Shape, Gather, Unsqueeze, Concat", rep.Folded)
			}
		}, 0},
		{"no-ops bypassed", func(m *tm.Model) {
			m.Node("Identity", []string{"x"}, []string{"a"})
			m.Node("Dropout", []string{"a"}, []string{"b"})
			m.Node("Cast", []string{"b"}, []string{"c"}, tm.Int("to", int64(tensor.Float)))
			m.Node("Relu", []string{"c"}, []string{"y"})
			m.Node("Sigmoid", []string{"x"}, []string{"unused"})
		}, func(t *testing.T, rep plan.Report) {
			if len(rep.Removed) != 4 {
				t.Errorf("removed %v, want Identity, Dropout, Cast and the dead Sigmoid", rep.Removed)
			}
		}, 0},
		{"Dropout with an unread mask bypassed, with a read one kept", func(m *tm.Model) {
			m.Node("Dropout", []string{"x"}, []string{"a", "unread"})
			m.Node("Dropout", []string{"a"}, []string{"b", "mask"})
			m.Node("Cast", []string{"mask"}, []string{"fmask"}, tm.Int("to", int64(tensor.Float)))
			m.Node("Add", []string{"b", "fmask"}, []string{"y"})
		}, func(t *testing.T, rep plan.Report) {
			if len(rep.Removed) != 1 {
				t.Errorf("removed %v, want the first Dropout", rep.Removed)
			}
		}, 0},
		{"float16 Cast pair around exact ops removed", func(m *tm.Model) {
			m.Node("Cast", []string{"x"}, []string{"h"}, tm.Int("to", int64(tensor.Float16)))
			m.Node("Cast", []string{"h"}, []string{"f"}, tm.Int("to", int64(tensor.Float)))
			m.Node("Relu", []string{"f"}, []string{"r"})
			m.Node("MaxPool", []string{"r"}, []string{"p"}, tm.Ints("kernel_shape", 2, 3))
			m.Node("Cast", []string{"p"}, []string{"h2"}, tm.Int("to", int64(tensor.Float16)))
			m.Node("Cast", []string{"h2"}, []string{"y"}, tm.Int("to", int64(tensor.Float)))
		}, func(t *testing.T, rep plan.Report) {
			if len(rep.Removed) != 2 {
				t.Errorf("removed %v, want the middle Cast pair", rep.Removed)
			}
		}, 0},
		{"Conv + residual Add + Relu fused", func(m *tm.Model) {
			m.Init("w", randTensor(r, 3, 3, 3, 3))
			m.Init("b", randTensor(r, 3))
			m.Node("Conv", []string{"x", "w", "b"}, []string{"c"}, tm.Ints("pads", 1, 1, 1, 1))
			m.Node("Add", []string{"x", "c"}, []string{"s"})
			m.Node("Relu", []string{"s"}, []string{"y"})
		}, func(t *testing.T, rep plan.Report) {
			if len(rep.Fused) != 1 || !strings.Contains(rep.Fused[0], "Add") || !strings.Contains(rep.Fused[0], "Relu") {
				t.Errorf("fused %v, want Conv+Add+Relu", rep.Fused)
			}
		}, 1e-6},
		{"Conv + residual Sum + Relu fused", func(m *tm.Model) {
			m.Init("w", randTensor(r, 3, 3, 1, 1))
			m.Node("Conv", []string{"x", "w"}, []string{"c"})
			m.Node("Sum", []string{"c", "x"}, []string{"s"})
			m.Node("Relu", []string{"s"}, []string{"y"})
		}, func(t *testing.T, rep plan.Report) {
			if len(rep.Fused) != 1 || !strings.Contains(rep.Fused[0], "Sum") || !strings.Contains(rep.Fused[0], "Relu") {
				t.Errorf("fused %v, want Conv+Sum+Relu", rep.Fused)
			}
		}, 1e-6},
		{"Conv + residual computed after it fused", func(m *tm.Model) {
			// ResNet's projection shortcut: the Sum's other input comes
			// from a Conv listed after the one fused.
			m.Init("w", randTensor(r, 3, 3, 1, 1))
			m.Init("w2", randTensor(r, 3, 3, 1, 1))
			m.Node("Conv", []string{"x", "w"}, []string{"c"})
			m.Node("Conv", []string{"x", "w2"}, []string{"d"})
			m.Node("Sum", []string{"c", "d"}, []string{"s"})
			m.Node("Relu", []string{"s"}, []string{"y"})
		}, func(t *testing.T, rep plan.Report) {
			if len(rep.Fused) != 1 || !strings.Contains(rep.Fused[0], "Sum") {
				t.Errorf("fused %v, want Conv+Sum+Relu", rep.Fused)
			}
		}, 1e-6},
		{"Conv + three-input Sum not fused", func(m *tm.Model) {
			m.Init("w", randTensor(r, 3, 3, 1, 1))
			m.Node("Conv", []string{"x", "w"}, []string{"c"})
			m.Node("Sum", []string{"c", "x", "x"}, []string{"y"})
		}, func(t *testing.T, rep plan.Report) {
			if len(rep.Fused) != 0 {
				t.Errorf("fused %v, want nothing", rep.Fused)
			}
		}, 1e-6},
		{"Conv + residual Sum of two + Relu fused, Sum of three kept", func(m *tm.Model) {
			m.Init("w", randTensor(r, 3, 3, 3, 3))
			m.Init("b", randTensor(r, 3))
			m.Node("Conv", []string{"x", "w", "b"}, []string{"c"}, tm.Ints("pads", 1, 1, 1, 1))
			m.Node("Sum", []string{"c", "x"}, []string{"s"})
			m.Node("Relu", []string{"s"}, []string{"r"})
			m.Node("Conv", []string{"r", "w"}, []string{"c2"}, tm.Ints("pads", 1, 1, 1, 1))
			m.Node("Sum", []string{"c2", "x", "r"}, []string{"y"})
		}, func(t *testing.T, rep plan.Report) {
			if len(rep.Fused) != 1 || !strings.Contains(rep.Fused[0], "Sum") || !strings.Contains(rep.Fused[0], "Relu") {
				t.Errorf("fused %v, want Conv+Sum+Relu only", rep.Fused)
			}
		}, 1e-6},
		{"per-channel Mul and Add folded into a BatchNormalization fed by no Conv, the Relu fused", func(m *tm.Model) {
			m.Init("scale", randTensor(r, 3))
			m.Init("shift", randTensor(r, 3))
			m.Init("mean", randTensor(r, 3))
			m.Init("var", tensor.Of([]int{3}, []float32{0.5, 1, 2}))
			m.Init("k", randTensor(r, 3, 1, 1))
			m.Init("d", randTensor(r, 1, 3, 1, 1))
			m.Node("BatchNormalization", []string{"x", "scale", "shift", "mean", "var"}, []string{"bn"})
			m.Node("Mul", []string{"k", "bn"}, []string{"mul"})
			m.Node("Add", []string{"mul", "d"}, []string{"add"})
			m.Node("Relu", []string{"add"}, []string{"y"})
		}, func(t *testing.T, rep plan.Report) {
			if len(rep.Fused) != 2 || !strings.Contains(rep.Fused[0], "(Mul)+") || !strings.Contains(rep.Fused[0], "folded into the BatchNormalization") || !strings.Contains(rep.Fused[1], "Relu") {
				t.Errorf("fused %v, want the Mul and Add folded into the BatchNormalization, then its Relu fused", rep.Fused)
			}
		}, 1e-5},
		{"BatchNormalization + LeakyRelu fused, BatchNormalization + residual Add kept apart", func(m *tm.Model) {
			m.Init("scale", randTensor(r, 3))
			m.Init("shift", randTensor(r, 3))
			m.Init("mean", randTensor(r, 3))
			m.Init("var", tensor.Of([]int{3}, []float32{0.5, 1, 2}))
			m.Node("BatchNormalization", []string{"x", "scale", "shift", "mean", "var"}, []string{"bn"})
			m.Node("LeakyRelu", []string{"bn"}, []string{"l"}, tm.Float("alpha", 0.2))
			m.Node("BatchNormalization", []string{"l", "scale", "shift", "mean", "var"}, []string{"bn2"})
			m.Node("Add", []string{"bn2", "x"}, []string{"s"})
			m.Node("Relu", []string{"s"}, []string{"y"})
		}, func(t *testing.T, rep plan.Report) {
			if len(rep.Fused) != 1 || !strings.Contains(rep.Fused[0], "LeakyRelu") {
				t.Errorf("fused %v, want only BatchNormalization+LeakyRelu", rep.Fused)
			}
		}, 0},
		{"Add of two Convs: the first fused, running where the Add was", func(m *tm.Model) {
			m.Init("w", randTensor(r, 3, 3, 3, 3))
			m.Init("w1", randTensor(r, 3, 3, 1, 1))
			m.Node("Conv", []string{"x", "w"}, []string{"main"}, tm.Ints("pads", 1, 1, 1, 1))
			m.Node("Conv", []string{"x", "w1"}, []string{"short"})
			m.Node("Add", []string{"main", "short"}, []string{"s"})
			m.Node("Relu", []string{"s"}, []string{"y"})
		}, func(t *testing.T, rep plan.Report) {
			if len(rep.Fused) != 1 || !strings.Contains(rep.Fused[0], "Add") || !strings.Contains(rep.Fused[0], "Relu") {
				t.Errorf("fused %v, want one Conv+Add+Relu", rep.Fused)
			}
		}, 1e-6},
		{"Conv + LeakyRelu and MatMul + HardSigmoid fused", func(m *tm.Model) {
			m.Init("w", randTensor(r, 4, 3, 2, 2))
			m.Node("Conv", []string{"x", "w"}, []string{"c"})
			m.Node("LeakyRelu", []string{"c"}, []string{"l"}, tm.Float("alpha", 0.3))
			m.Init("k", randTensor(r, 6, 5))
			m.Node("MatMul", []string{"l", "k"}, []string{"mm"})
			m.Node("HardSigmoid", []string{"mm"}, []string{"y"})
		}, func(t *testing.T, rep plan.Report) {
			if len(rep.Fused) != 2 {
				t.Errorf("fused %v, want Conv+LeakyRelu and MatMul+HardSigmoid", rep.Fused)
			}
		}, 1e-6},
		{"MatMul + Add as Gemm", func(m *tm.Model) {
			m.Init("shape", tensor.Of([]int{2}, []int64{30, 7}))
			m.Node("Reshape", []string{"x", "shape"}, []string{"a"})
			m.Init("k", randTensor(r, 7, 4))
			m.Init("bias", randTensor(r, 4))
			m.Node("MatMul", []string{"a", "k"}, []string{"mm"})
			m.Node("Add", []string{"mm", "bias"}, []string{"y"})
		}, func(t *testing.T, rep plan.Report) {
			if len(rep.Fused) != 1 || !strings.Contains(rep.Fused[0], "Gemm") {
				t.Errorf("fused %v, want MatMul+Add as Gemm", rep.Fused)
			}
		}, 1e-6},
		{"N-D MatMul + bias Add fused", func(m *tm.Model) {
			m.Init("k", randTensor(r, 7, 4))
			m.Init("bias", randTensor(r, 4))
			m.Node("MatMul", []string{"x", "k"}, []string{"mm"})
			m.Node("Add", []string{"bias", "mm"}, []string{"y"})
		}, func(t *testing.T, rep plan.Report) {
			if len(rep.Fused) != 1 || !strings.Contains(rep.Fused[0], "bias Add fused into MatMul") {
				t.Errorf("fused %v, want MatMul+Add", rep.Fused)
			}
		}, 0},
		{"N-D MatMul + bias + residual Add + Relu fused", func(m *tm.Model) {
			m.Init("k", randTensor(r, 7, 7))
			m.Init("bias", randTensor(r, 1, 1, 7))
			m.Node("MatMul", []string{"x", "k"}, []string{"mm"})
			m.Node("Add", []string{"mm", "bias"}, []string{"p"})
			m.Node("Add", []string{"x", "p"}, []string{"s"})
			m.Node("Relu", []string{"s"}, []string{"y"})
		}, func(t *testing.T, rep plan.Report) {
			if len(rep.Fused) != 2 || !strings.Contains(rep.Fused[0], "bias Add") || !strings.Contains(rep.Fused[1], "Relu") {
				t.Errorf("fused %v, want the bias Add, then the residual Add and Relu", rep.Fused)
			}
		}, 0},
		{"N-D MatMul + Add broadcasting on other axes not fused", func(m *tm.Model) {
			m.Init("k", randTensor(r, 7, 4))
			m.Init("c1", randTensor(r, 3, 1, 4))
			m.Init("c2", randTensor(r, 1, 1, 1, 1, 4))
			m.Node("MatMul", []string{"x", "k"}, []string{"mm1"})
			m.Node("Add", []string{"mm1", "c1"}, []string{"p"})
			m.Node("MatMul", []string{"x", "k"}, []string{"mm2"})
			m.Node("Add", []string{"mm2", "c2"}, []string{"q"})
			m.Node("Sub", []string{"q", "p"}, []string{"y"})
		}, func(t *testing.T, rep plan.Report) {
			if len(rep.Fused) != 0 {
				t.Errorf("fused %v, want nothing", rep.Fused)
			}
		}, 0},
		{"Reshape to the same shape bypassed", func(m *tm.Model) {
			m.Init("same", tensor.Of([]int{4}, []int64{2, 3, 5, 7}))
			m.Node("Reshape", []string{"x", "same"}, []string{"r"})
			m.Node("Relu", []string{"r"}, []string{"y"})
		}, func(t *testing.T, rep plan.Report) {
			if len(rep.Removed) != 1 {
				t.Errorf("removed %v, want the Reshape", rep.Removed)
			}
		}, 0},
		{"BatchNormalization folded into Conv", func(m *tm.Model) {
			m.Init("w", randTensor(r, 4, 3, 3, 2))
			m.Init("b", randTensor(r, 4))
			m.Init("scale", randTensor(r, 4))
			m.Init("shift", randTensor(r, 4))
			m.Init("mean", randTensor(r, 4))
			v := randTensor(r, 4)
			for i := range v.F32() {
				v.F32()[i] = v.F32()[i]*v.F32()[i] + 0.1
			}
			m.Init("var", v)
			m.Node("Conv", []string{"x", "w", "b"}, []string{"c"}, tm.Ints("pads", 1, 0, 1, 1))
			m.Node("BatchNormalization", []string{"c", "scale", "shift", "mean", "var"}, []string{"y"})
		}, func(t *testing.T, rep plan.Report) {
			if len(rep.Fused) != 1 || !strings.Contains(rep.Fused[0], "BatchNormalization") {
				t.Errorf("fused %v, want the BatchNormalization folded", rep.Fused)
			}
		}, 1e-5},
		{"Conv, BatchNormalization, per-channel Mul and Add folded, Relu fused; a Mul by a plane kept", func(m *tm.Model) {
			m.Init("w", randTensor(r, 4, 3, 3, 2))
			m.Init("scale", randTensor(r, 4))
			m.Init("shift", randTensor(r, 4))
			m.Init("mean", randTensor(r, 4))
			m.Init("var", tensor.Of([]int{4}, []float32{0.5, 1, 2, 0.25}))
			m.Init("k", randTensor(r, 4, 1, 1))
			m.Init("d", randTensor(r, 1, 4, 1, 1))
			m.Init("one", tensor.Of([]int{1}, []float32{-1.5}))
			m.Init("w2", randTensor(r, 4, 4, 1, 1))
			m.Init("plane", randTensor(r, 5, 7))
			m.Node("Conv", []string{"x", "w"}, []string{"c"}, tm.Ints("pads", 1, 0, 1, 1))
			m.Node("BatchNormalization", []string{"c", "scale", "shift", "mean", "var"}, []string{"bn"})
			m.Node("Mul", []string{"bn", "k"}, []string{"mul"})
			m.Node("Add", []string{"d", "mul"}, []string{"add"})
			m.Node("Mul", []string{"add", "one"}, []string{"neg"})
			m.Node("Relu", []string{"neg"}, []string{"r"})
			m.Node("Conv", []string{"r", "w2"}, []string{"c2"})
			m.Node("Mul", []string{"c2", "plane"}, []string{"y"})
		}, func(t *testing.T, rep plan.Report) {
			if len(rep.Fused) != 2 || !strings.Contains(rep.Fused[0], "(Mul)+") || !strings.Contains(rep.Fused[0], "(Add)") || !strings.Contains(rep.Fused[1], "Relu") {
				t.Errorf("fused %v, want BatchNormalization, Mul, Add and Mul folded, then Relu fused", rep.Fused)
			}
		}, 1e-5},
	}

	bnParams := func(m *tm.Model, M int) {
		m.Init("scale", randTensor(r, M))
		m.Init("shift", randTensor(r, M))
		m.Init("mean", randTensor(r, M))
		v := randTensor(r, M)
		for i := range v.F32() {
			v.F32()[i] = v.F32()[i]*v.F32()[i] + 0.1
		}
		m.Init("var", v)
	}
	foldBN := func(t *testing.T, rep plan.Report) {
		if len(rep.Fused) != 1 || !strings.Contains(rep.Fused[0], "BatchNormalization") {
			t.Errorf("fused %v, want the BatchNormalization folded", rep.Fused)
		}
	}
	cases = append(cases, []struct {
		name   string
		build  func(m *tm.Model)
		check  func(t *testing.T, rep plan.Report)
		maxRel float64
	}{
		// Folded weights that only the Conv reads are rescaled in place.
		{"BatchNormalization folded into folded weights", func(m *tm.Model) {
			m.Init("w0", randTensor(r, 4, 3, 3, 2))
			m.Init("z", tensor.Of([]int{1}, []float32{0.5}))
			m.Node("Add", []string{"w0", "z"}, []string{"w"})
			bnParams(m, 4)
			m.Node("Conv", []string{"x", "w"}, []string{"c"}, tm.Ints("pads", 1, 0, 1, 1))
			m.Node("BatchNormalization", []string{"c", "scale", "shift", "mean", "var"}, []string{"y"})
		}, foldBN, 1e-5},
		// Folded weights another Conv also reads keep their values.
		{"BatchNormalization folded into shared folded weights", func(m *tm.Model) {
			m.Init("w0", randTensor(r, 4, 3, 3, 2))
			m.Init("z", tensor.Of([]int{1}, []float32{0.5}))
			m.Node("Add", []string{"w0", "z"}, []string{"w"})
			bnParams(m, 4)
			m.Node("Conv", []string{"x", "w"}, []string{"c"}, tm.Ints("pads", 1, 0, 1, 1))
			m.Node("BatchNormalization", []string{"c", "scale", "shift", "mean", "var"}, []string{"y1"})
			m.Node("Conv", []string{"x", "w"}, []string{"y2"}, tm.Ints("pads", 1, 0, 1, 1))
			// Sub, not Add: a residual Add would be fused into the first
			// Conv, which runs before y2 exists (a bug of residual fusion
			// that node order does not protect against).
			m.Node("Sub", []string{"y1", "y2"}, []string{"y"})
		}, foldBN, 1e-5},
		// A folded Reshape is a view of the initializer (the caller's
		// model bytes): folding copies it.
		{"BatchNormalization folded into a view of an initializer", func(m *tm.Model) {
			m.Init("wflat", randTensor(r, 4*3*3*2))
			m.Init("wshape", tensor.Of([]int{4}, []int64{4, 3, 3, 2}))
			m.Node("Reshape", []string{"wflat", "wshape"}, []string{"w"})
			bnParams(m, 4)
			m.Node("Conv", []string{"x", "w"}, []string{"c"}, tm.Ints("pads", 1, 0, 1, 1))
			m.Node("BatchNormalization", []string{"c", "scale", "shift", "mean", "var"}, []string{"y"})
		}, foldBN, 1e-5},
	}...)
	hardSwish := func(m *tm.Model, three, six float32) {
		m.Init("w", randTensor(r, 4, 3, 3, 3))
		m.Init("three", tensor.Of([]int{}, []float32{three}))
		m.Init("six", tensor.Of([]int{}, []float32{six}))
		m.Init("zero", tensor.Of([]int{}, []float32{0}))
		m.Node("Conv", []string{"x", "w"}, []string{"c"}, tm.Ints("pads", 1, 1, 1, 1))
		m.Node("Add", []string{"c", "three"}, []string{"a"})
		m.Node("Clip", []string{"a", "zero", "six"}, []string{"k"})
		m.Node("Mul", []string{"k", "c"}, []string{"p"})
		m.Node("Div", []string{"p", "six"}, []string{"y"})
	}
	cases = append(cases, []struct {
		name   string
		build  func(m *tm.Model)
		check  func(t *testing.T, rep plan.Report)
		maxRel float64
	}{
		// HardSwish written out (hardswish.go), then fused into the Conv.
		{"x·Clip(x+3, 0, 6)/6 as HardSwish fused into Conv", func(m *tm.Model) { hardSwish(m, 3, 6) }, func(t *testing.T, rep plan.Report) {
			if len(rep.Fused) != 2 || !strings.Contains(rep.Fused[0], "as HardSwish") || !strings.Contains(rep.Fused[1], "fused into Conv") {
				t.Errorf("fused %v, want the chain as HardSwish, fused into the Conv", rep.Fused)
			}
		}, 1e-6},
		// Another constant: not a HardSwish.
		{"x·Clip(x+2, 0, 6)/6 left alone", func(m *tm.Model) { hardSwish(m, 2, 6) }, func(t *testing.T, rep plan.Report) {
			for _, f := range rep.Fused {
				if strings.Contains(f, "HardSwish") {
					t.Errorf("fused %v: the chain adds 2, not 3", rep.Fused)
				}
			}
		}, 0},
	}...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			feeds := map[string]tensor.Value{"x": x}
			data := rewriteModel(13, c.build)
			orig := slices.Clone(data)
			want, _ := run(t, data, plan.Disabled, feeds)
			got, s := run(t, data, plan.All, feeds)
			if !slices.Equal(data, orig) {
				t.Errorf("loading changed the model's bytes")
			}
			again, _ := run(t, data, plan.Disabled, feeds)
			if d := maxDiff(t, again["y"], want["y"]); d != 0 {
				t.Errorf("a second load runs differently (%g): the first changed the weights it reads in place", d)
			}
			c.check(t, s.Plan().Report)
			if d := maxDiff(t, got["y"], want["y"]); d > c.maxRel {
				t.Errorf("optimised result differs by %g (allowed %g)", d, c.maxRel)
			}
		})
	}
}

// TestOverriddenInitializerIsNotFolded: an IR-3 style weight listed as an
// input is folded for runs that do not feed it, and a feed still wins.
// TestHardSwishOpset9: Clip-6 takes its bounds as attributes (PP-OCR's
// classifier, opset 9): the chain is still recognised and fused.
func TestHardSwishOpset9(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	m := tm.New(9)
	m.Input("x", tensor.Float, 2, 3, 5, 7)
	m.Init("w", randTensor(r, 4, 3, 3, 3))
	m.Init("three", tensor.Of([]int{1}, []float32{3}))
	m.Init("six", tensor.Of([]int{1}, []float32{6}))
	m.Node("Conv", []string{"x", "w"}, []string{"c"}, tm.Ints("pads", 1, 1, 1, 1))
	m.Node("Add", []string{"c", "three"}, []string{"a"})
	m.Node("Clip", []string{"a"}, []string{"k"}, tm.Float("min", 0), tm.Float("max", 6))
	m.Node("Mul", []string{"c", "k"}, []string{"p"})
	m.Node("Div", []string{"p", "six"}, []string{"y"})
	m.Output("y", tensor.Float)
	feeds := map[string]tensor.Value{"x": randTensor(r, 2, 3, 5, 7)}
	want, _ := run(t, m.Bytes(), plan.Disabled, feeds)
	got, s := run(t, m.Bytes(), plan.All, feeds)
	if rep := s.Plan().Report; len(rep.Fused) != 2 || !strings.Contains(rep.Fused[0], "as HardSwish") {
		t.Errorf("fused %v, want the chain as HardSwish fused into the Conv", rep.Fused)
	}
	if d := maxDiff(t, got["y"], want["y"]); d > 1e-6 {
		t.Errorf("optimised result differs by %g", d)
	}
}

func TestOverriddenInitializerIsNotFolded(t *testing.T) {
	m := tm.New(13)
	m.Init("shape", tensor.Of([]int{1}, []int64{3}))
	m.Input("shape", tensor.Int64, 1)
	m.Node("ConstantOfShape", []string{"shape"}, []string{"y"}, tm.Tensor("value", tensor.Of([]int{1}, []float32{2})))
	m.Output("y", tensor.Float)
	s, err := gort.Load(m.Bytes(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Plan().Report.Folded) != 1 {
		t.Errorf("default plan folded %v, want the ConstantOfShape", s.Plan().Report.Folded)
	}
	out, err := s.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := out["y"].(*tensor.Tensor).Shape(); !slices.Equal(got, []int{3}) {
		t.Errorf("unfed: shape %v, want [3]", got)
	}
	out, err = s.Run(context.Background(), map[string]tensor.Value{"shape": tensor.Of([]int{1}, []int64{5})})
	if err != nil {
		t.Fatal(err)
	}
	if got := out["y"].(*tensor.Tensor).Shape(); !slices.Equal(got, []int{5}) {
		t.Errorf("fed: shape %v, want [5]", got)
	}
	// The folded constant is a weight: the caller gets a copy.
	out, _ = s.Run(context.Background(), nil)
	out["y"].(*tensor.Tensor).F32()[0] = 99
	out, _ = s.Run(context.Background(), nil)
	if v := out["y"].(*tensor.Tensor).F32()[0]; v != 2 {
		t.Errorf("a caller's write reached the folded constant: %v", v)
	}
}

// TestRunsThatCannotFitFailBeforeStarting: a peak over MaxMemoryBytes, or
// one value over MaxTensorBytes, is refused with GORT_TOO_LARGE naming the
// values, before any node runs.
func TestRunsThatCannotFitFailBeforeStarting(t *testing.T) {
	m := tm.New(13)
	m.Input("x", tensor.Float, 256, 1024) // 1 MiB
	m.Node("Relu", []string{"x"}, []string{"a"})
	m.Node("Sigmoid", []string{"a"}, []string{"b"})
	m.Node("Add", []string{"a", "b"}, []string{"c"})
	m.Init("shape", tensor.Of([]int{3}, []int64{8, 256, 1024}))
	m.Node("Expand", []string{"c", "shape"}, []string{"big"}) // 8 MiB
	m.Output("big", tensor.Float)
	feeds := map[string]tensor.Value{"x": tensor.New(tensor.Float, 256, 1024)}
	cases := []struct {
		name string
		opts gort.Options
		want []string
	}{
		{"peak over the memory budget", gort.Options{MaxMemoryBytes: 4 << 20}, []string{"at its peak", "big (9.0 MiB)", "c (1.1 MiB)"}},
		{"one value over the tensor budget", gort.Options{MaxTensorBytes: 4 << 20}, []string{"big", "8.0 MiB", "MaxTensorBytes"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := gort.Load(m.Bytes(), &c.opts)
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.Run(context.Background(), feeds)
			if err == nil || !strings.Contains(err.Error(), "GORT_TOO_LARGE") {
				t.Fatalf("got %v, want GORT_TOO_LARGE", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v does not say %q", err, w)
				}
			}
		})
	}
	// With room, the same run works.
	s, err := gort.Load(m.Bytes(), &gort.Options{MaxMemoryBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(context.Background(), feeds); err != nil {
		t.Fatal(err)
	}
}

// TestPlanHoldsOnlyReadConstants: constants that no step reads are not kept
// by the plan: a Conv's weights (built by ConstantOfShape) once
// BatchNormalization folding replaced them, the BatchNormalization's
// parameters, the folded ConstantOfShape's shape, and an unread
// initializer. Kept, they would make the session hold the weights twice.
func TestPlanHoldsOnlyReadConstants(t *testing.T) {
	m := tm.New(13)
	m.Input("x", tensor.Float, 1, 3, 5, 4)
	m.Init("wshape", tensor.Of([]int{4}, []int64{8, 3, 3, 3}))
	m.Node("ConstantOfShape", []string{"wshape"}, []string{"w"}, tm.Tensor("value", tensor.Of([]int{1}, []float32{0.25})))
	for _, name := range []string{"scale", "shift", "mean", "var"} {
		m.Init(name, tensor.Of([]int{8}, []float32{1, 2, 3, 4, 5, 6, 7, 8}))
	}
	m.Init("unread", tensor.Of([]int{2}, []float32{1, 2}))
	m.Node("Conv", []string{"x", "w"}, []string{"c"}, tm.Ints("pads", 1, 1, 1, 1))
	m.Node("BatchNormalization", []string{"c", "scale", "shift", "mean", "var"}, []string{"y"})
	m.Output("y", tensor.Float, 1, 8, 5, 4)
	g, err := graph.Load(m.Bytes(), graph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Compile(g, nil, plan.Options{Level: plan.All})
	if err != nil {
		t.Fatal(err)
	}
	var held []string
	for s, v := range p.Consts {
		if v != nil {
			held = append(held, p.Names[s])
		}
	}
	slices.Sort(held)
	if len(p.Steps) != 1 || !slices.Equal(slices.Sorted(slices.Values(p.Steps[0].Node.Inputs[1:])), held) {
		t.Errorf("plan holds constants %v; want only the folded Conv's inputs %v", held, p.Steps[0].Node.Inputs)
	}
	for _, st := range p.Steps {
		for _, c := range st.Node.Consts {
			if c != nil && !p.IsConst(c) {
				t.Errorf("%s reads a constant the plan does not count as one", st.Node.Name)
			}
		}
	}
}

// TestGemmKeepsConstB: a Gemm reads its constant B where it lies (in place
// at one row, packed on the first run with more), so it never asks the plan
// to drop B (op.ConstReleaser) and the plan keeps it — whether one Gemm,
// two, or a graph output reads it. Results match the unoptimised graph in
// every case, run after run. (TestWinogradWeightsReleased covers a kernel
// that does release its constant.)
func TestGemmKeepsConstB(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	x := randTensor(r, 3, 10)
	cases := []struct {
		name     string
		build    func(m *tm.Model)
		released bool
	}{
		{"folded B read by one Gemm", func(m *tm.Model) {
			m.Node("Gemm", []string{"x", "b", "c"}, []string{"y"}, tm.Int("transB", 1))
		}, false},
		{"folded B read by two Gemms", func(m *tm.Model) {
			m.Node("Gemm", []string{"x", "b", "c"}, []string{"y1"}, tm.Int("transB", 1))
			m.Node("Gemm", []string{"x", "b"}, []string{"y2"}, tm.Int("transB", 1))
			m.Node("Sub", []string{"y1", "y2"}, []string{"y"})
		}, false},
		{"folded B that is also an output", func(m *tm.Model) {
			m.Node("Gemm", []string{"x", "b", "c"}, []string{"y"}, tm.Int("transB", 1))
			m.Output("b", tensor.Float, 6, 10)
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := tm.New(13)
			m.Input("x", tensor.Float, 3, 10)
			m.Init("b0", randTensor(r, 6, 10))
			m.Init("half", tensor.Of([]int{1}, []float32{0.5}))
			m.Node("Mul", []string{"b0", "half"}, []string{"b"}) // folded: B is the plan's own
			m.Init("c", randTensor(r, 6))
			c.build(m)
			m.Output("y", tensor.Float, 3, 6)
			feeds := map[string]tensor.Value{"x": x}
			want, _ := run(t, m.Bytes(), plan.Disabled, feeds)
			got, s := run(t, m.Bytes(), plan.All, feeds)
			again, err := s.Run(context.Background(), feeds)
			if err != nil {
				t.Fatal(err)
			}
			for name := range want {
				if d := max(maxDiff(t, got[name], want[name]), maxDiff(t, again[name], want[name])); d > 1e-6 {
					t.Errorf("%s differs by %g", name, d)
				}
			}
			p := s.Plan()
			slot := p.SlotOf["b"]
			released := p.Consts[slot] == nil
			for _, st := range p.Steps {
				if st.Node.OpType == "Gemm" && st.In[1] < 0 != released {
					t.Errorf("%s reads B from slot %d, but the plan holds %v", st.Node.Name, st.In[1], p.Consts[slot] != nil)
				}
			}
			if released != c.released {
				t.Errorf("B released: %v, want %v", released, c.released)
			}
		})
	}
}

// TestWinogradWeightsReleased: a 3×3 Conv that transformed its constant
// weights for Winograd runs from that form, and the plan drops the weights
// (folded by BatchNormalization here, so the plan's own); a Conv whose
// weights stay in GEMM form keeps them.
func TestWinogradWeightsReleased(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	m := tm.New(13)
	m.Input("x", tensor.Float, 2, 64, 9, 7)
	m.Init("w", randTensor(r, 72, 64, 3, 3))
	m.Init("b", randTensor(r, 72))
	for _, name := range []string{"scale", "shift", "mean", "var"} {
		v := randTensor(r, 72)
		for i := range v.F32() {
			v.F32()[i] = v.F32()[i]*v.F32()[i] + 0.1
		}
		m.Init(name, v)
	}
	m.Node("Conv", []string{"x", "w", "b"}, []string{"c"}, tm.Ints("pads", 1, 1, 1, 1))
	m.Node("BatchNormalization", []string{"c", "scale", "shift", "mean", "var"}, []string{"a"})
	m.Init("w2", randTensor(r, 8, 72, 1, 1))
	m.Node("Conv", []string{"a", "w2"}, []string{"y"})
	m.Output("y", tensor.Float, 2, 8, 9, 7)
	feeds := map[string]tensor.Value{"x": randTensor(r, 2, 64, 9, 7)}
	want, _ := run(t, m.Bytes(), plan.Disabled, feeds)
	got, s := run(t, m.Bytes(), plan.All, feeds)
	again, err := s.Run(context.Background(), feeds)
	if err != nil {
		t.Fatal(err)
	}
	if d := max(maxDiff(t, got["y"], want["y"]), maxDiff(t, again["y"], want["y"])); d > 1e-4 {
		t.Errorf("optimised result differs by %g", d)
	}
	p := s.Plan()
	if len(p.Steps) != 2 || p.Steps[0].In[1] >= 0 || p.Steps[1].In[1] < 0 {
		t.Fatalf("steps read weights from slots %v and %v; want the Winograd Conv's released, the 1×1 Conv's kept", p.Steps[0].In, p.Steps[1].In)
	}
	for s, v := range p.Consts {
		if v != nil && strings.HasPrefix(p.Names[s], p.Steps[0].Node.Inputs[1]) {
			t.Errorf("the plan still holds %s", p.Names[s])
		}
	}
}

// TestActivationFusionAsksTheKernel: the plan fuses whatever activation
// the next node's kernel declares (op.ActivationKernel), with the
// parameters that kernel parsed, and nothing else: Gelu in both forms
// (a transformer's feed-forward layer: MatMul, bias, Gelu) is fused with
// the results of the separate ops bit for bit, and a Clip whose bound is
// computed at run time stays a node of its own.
func TestActivationFusionAsksTheKernel(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	x := randTensor(r, 2, 3, 5, 7)
	for _, c := range []struct {
		name  string
		build func(m *tm.Model)
		fused string // "" when nothing may be fused
	}{
		{"MatMul + bias + Gelu", func(m *tm.Model) {
			m.Init("k", randTensor(r, 7, 4))
			m.Init("bias", randTensor(r, 4))
			m.Node("MatMul", []string{"x", "k"}, []string{"mm"})
			m.Node("Add", []string{"mm", "bias"}, []string{"p"})
			m.Node("Gelu", []string{"p"}, []string{"y"})
		}, "Gelu"},
		{"Conv + Gelu(tanh)", func(m *tm.Model) {
			m.Init("w", randTensor(r, 4, 3, 3, 2))
			m.Node("Conv", []string{"x", "w"}, []string{"c"}, tm.Ints("pads", 1, 0, 1, 1))
			m.Node("Gelu", []string{"c"}, []string{"y"}, tm.String("approximate", "tanh"))
		}, "Gelu"},
		{"Conv + Clip with constant bounds", func(m *tm.Model) {
			m.Init("w", randTensor(r, 4, 3, 3, 2))
			m.Init("lo", tensor.Of([]int{}, []float32{-0.25}))
			m.Node("Conv", []string{"x", "w"}, []string{"c"}, tm.Ints("pads", 1, 0, 1, 1))
			m.Node("Clip", []string{"c", "lo"}, []string{"y"})
		}, "Clip"},
		{"Conv + Clip with a bound computed at run time", func(m *tm.Model) {
			m.Init("w", randTensor(r, 4, 3, 3, 2))
			m.Node("ReduceMin", []string{"x"}, []string{"lo"}, tm.Int("keepdims", 0))
			m.Node("Conv", []string{"x", "w"}, []string{"c"}, tm.Ints("pads", 1, 0, 1, 1))
			m.Node("Clip", []string{"c", "lo"}, []string{"y"})
		}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			feeds := map[string]tensor.Value{"x": x}
			data := rewriteModel(20, c.build)
			want, _ := run(t, data, plan.Disabled, feeds)
			got, s := run(t, data, plan.All, feeds)
			fused := s.Plan().Report.Fused
			switch {
			case c.fused == "" && len(fused) != 0:
				t.Errorf("fused %v, want nothing fused", fused)
			case c.fused != "" && (len(fused) == 0 || !strings.Contains(fused[len(fused)-1], c.fused)):
				t.Errorf("fused %v, want the %s fused", fused, c.fused)
			}
			if d := maxDiff(t, got["y"], want["y"]); d != 0 {
				t.Errorf("fused result differs from the separate ops by %g", d)
			}
		})
	}
}

// rewriteModel is the model build writes between the float input x of
// shape [2, 3, 5, 7] and the float output y, at the given opset.
func rewriteModel(opset int, build func(m *tm.Model)) []byte {
	m := tm.New(opset)
	m.Input("x", tensor.Float, 2, 3, 5, 7)
	build(m)
	m.Output("y", tensor.Float)
	return m.Bytes()
}

// TestRandomOpsNotFolded: a random generator, whose inputs are all
// constant (RandomUniform has none), is not folded into a constant at
// load (its kernel says so: op.RandomKernel): each run draws anew.
func TestRandomOpsNotFolded(t *testing.T) {
	data := rewriteModel(20, func(m *tm.Model) {
		m.Node("RandomUniform", nil, []string{"r"}, tm.Ints("shape", 64))
		m.Node("Identity", []string{"r"}, []string{"y"})
	})
	feeds := map[string]tensor.Value{"x": tensor.New(tensor.Float, 2, 3, 5, 7)}
	first, s := run(t, data, plan.All, feeds)
	if folded := s.Plan().Report.Folded; len(folded) != 0 {
		t.Errorf("folded %v, want the random generator kept", folded)
	}
	second, _ := run(t, data, plan.All, feeds)
	if d := maxDiff(t, first["y"], second["y"]); d == 0 {
		t.Error("two runs drew the same values: the generator was folded")
	}
}

// TestSubgraphSeesOuterConstants: a branch that reshapes and slices the
// enclosing graph's weights (as exported models keep them: a Constant node
// outside, a Slice chain inside an If) gets them as constants. The chain is
// folded, the Gemm reads its weights at build time, and the subplan fills
// no free variable from them at each call; a value the branch reads that is
// not constant (the feed x) stays a free variable. Results equal the
// unoptimised run's in both branches.
func TestSubgraphSeesOuterConstants(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	w := randTensor(r, 6, 4)
	m := tm.New(13)
	m.Input("x", tensor.Float, 3, 4)
	m.Input("cond", tensor.Bool)
	m.Node("Constant", nil, []string{"w"}, tm.Tensor("value", w))
	branch := func(name string, start int64) *tm.Graph {
		g := tm.NewGraph(name)
		g.Init(name+"_s", tensor.Of([]int{1}, []int64{start}))
		g.Init(name+"_e", tensor.Of([]int{1}, []int64{start + 4}))
		g.Init(name+"_a", tensor.Of([]int{1}, []int64{0}))
		g.Node("Slice", []string{"w", name + "_s", name + "_e", name + "_a"}, []string{name + "_w"})
		g.Node("Gemm", []string{"x", name + "_w"}, []string{name + "_y"}, tm.Int("transB", 1))
		g.Output(name+"_y", tensor.Float, 3, 4)
		return g
	}
	m.Node("If", []string{"cond"}, []string{"y"}, tm.GraphAttr("then_branch", branch("then", 0)), tm.GraphAttr("else_branch", branch("else", 2)))
	m.Output("y", tensor.Float, 3, 4)
	data := m.Bytes()
	x := randTensor(r, 3, 4)
	for _, cond := range []bool{true, false} {
		feeds := map[string]tensor.Value{"x": x, "cond": tensor.Scalar(cond)}
		want, _ := run(t, data, plan.Disabled, feeds)
		got, s := run(t, data, plan.All, feeds)
		if d := maxDiff(t, got["y"], want["y"]); d != 0 {
			t.Errorf("cond %v: differs from the unoptimised run by %g", cond, d)
		}
		for _, sp := range s.Plan().Steps[0].Subplans {
			var free []string
			for _, slot := range sp.FreeVars {
				free = append(free, sp.Names[slot])
			}
			if !slices.Equal(free, []string{"x"}) {
				t.Errorf("%s fills free variables %v at each call, want [x]", sp.Name, free)
			}
			if len(sp.Report.Folded) != 1 || len(sp.Steps) != 1 {
				t.Errorf("%s: folded %v, steps %d; want the Slice folded and the Gemm alone", sp.Name, sp.Report.Folded, len(sp.Steps))
			} else if c := sp.Steps[0].Node.Consts[1]; c == nil {
				t.Errorf("%s: the Gemm does not get its weights at build time", sp.Name)
			}
		}
	}
}
