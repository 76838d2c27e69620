package runtime

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/graph"
	tm "github.com/gort-dev/gort/runtime/internal/testmodel"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/tensor"
)

// The tests use the test-only ops of testmodel.Registry (through
// Options.Registry) so that they do not depend on package ops.

func loadTest(t *testing.T, m *tm.Model, opts *Options) *Session {
	t.Helper()
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.Registry == nil {
		o.Registry = tm.Registry(nil)
	}
	s, err := Load(m.Bytes(), &o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func wantErr(t *testing.T, err error, code errs.Code, node, tensorName string, msgs ...string) {
	t.Helper()
	var e *errs.Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v (%T), want an *errs.Error %s", err, err, code)
	}
	if e.Code != code {
		t.Errorf("code %s, want %s: %v", e.Code, code, err)
	}
	if node != "" && e.Node != node {
		t.Errorf("error names node %q, want %q: %v", e.Node, node, err)
	}
	if tensorName != "" && e.Tensor != tensorName {
		t.Errorf("error names tensor %q, want %q: %v", e.Tensor, tensorName, err)
	}
	for _, m := range msgs {
		if !strings.Contains(err.Error(), m) {
			t.Errorf("error %q does not say %q", err, m)
		}
	}
}

func f32(shape []int, v ...float32) *tensor.Tensor { return tensor.Of(shape, v) }

func names(infos []IOInfo) []string {
	var out []string
	for _, i := range infos {
		out = append(out, i.Name)
	}
	return out
}

func TestOverridableInitializer(t *testing.T) {
	m := tm.New(7)
	m.Proto.IrVersion = 3
	m.Input("x", tensor.Float, 2)
	m.Input("w", tensor.Float, 2)
	m.Init("w", f32([]int{2}, 10, 20))
	m.Node("Add", []string{"x", "w"}, []string{"y"})
	m.Output("y", tensor.Float, 2)
	s := loadTest(t, m, nil)

	if got := names(s.Inputs()); !reflect.DeepEqual(got, []string{"x"}) {
		t.Errorf("Inputs() = %v, want [x]", got)
	}
	if got := names(s.OverridableInitializers()); !reflect.DeepEqual(got, []string{"w"}) {
		t.Errorf("OverridableInitializers() = %v, want [w]", got)
	}
	out, err := s.Run(context.Background(), map[string]tensor.Value{"x": f32([]int{2}, 1, 2)})
	if err != nil {
		t.Fatal(err)
	}
	if got := out["y"].(*tensor.Tensor).F32(); !reflect.DeepEqual(got, []float32{11, 22}) {
		t.Errorf("without a feed: %v, want [11 22]", got)
	}
	out, err = s.Run(context.Background(), map[string]tensor.Value{"x": f32([]int{2}, 1, 2), "w": f32([]int{2}, 100, 200)})
	if err != nil {
		t.Fatal(err)
	}
	if got := out["y"].(*tensor.Tensor).F32(); !reflect.DeepEqual(got, []float32{101, 202}) {
		t.Errorf("with a feed: %v, want [101 202]", got)
	}
	// The override is per run: the weight is intact afterwards.
	out, _ = s.Run(context.Background(), map[string]tensor.Value{"x": f32([]int{2}, 0, 0)})
	if got := out["y"].(*tensor.Tensor).F32(); !reflect.DeepEqual(got, []float32{10, 20}) {
		t.Errorf("after an override: %v, want [10 20]", got)
	}
	_, err = s.Run(context.Background(), map[string]tensor.Value{"x": f32([]int{2}, 1, 2), "w": f32([]int{3}, 1, 2, 3)})
	wantErr(t, err, errs.InvalidFeed, "", "w", "must be 2")
}

func symbolicModel() *tm.Model {
	m := tm.New(13)
	m.Input("a", tensor.Float, "N", 2)
	m.Input("b", tensor.Float, "N", 2)
	m.Node("Add", []string{"a", "b"}, []string{"y"})
	m.Output("y", tensor.Float, "N", 2)
	return m
}

func TestSymbolicDims(t *testing.T) {
	s := loadTest(t, symbolicModel(), nil)
	in := s.Inputs()[0]
	if d := in.Type.Shape[0]; d.Param != "N" || d.Known() {
		t.Errorf("dim 0 of a is %+v, want param N", d)
	}
	if got := in.Type.String(); got != "float32[N,2]" {
		t.Errorf("type %q", got)
	}
	if d := s.Outputs()[0].Type.Shape[0]; d.Param != "N" {
		t.Errorf("output dim 0 is %+v", d)
	}
	ctx := context.Background()
	out, err := s.Run(ctx, map[string]tensor.Value{"a": f32([]int{3, 2}, 1, 2, 3, 4, 5, 6), "b": f32([]int{3, 2}, 1, 1, 1, 1, 1, 1)})
	if err != nil {
		t.Fatal(err)
	}
	if got := out["y"].(*tensor.Tensor).Shape(); !reflect.DeepEqual(got, []int{3, 2}) {
		t.Errorf("shape %v", got)
	}
	// N bound to another size on another run is fine.
	if _, err := s.Run(ctx, map[string]tensor.Value{"a": f32([]int{1, 2}, 1, 2), "b": f32([]int{1, 2}, 1, 2)}); err != nil {
		t.Errorf("rebinding N on a new run: %v", err)
	}
	// N = 3 by a, N = 1 by b in one run.
	_, err = s.Run(ctx, map[string]tensor.Value{"a": f32([]int{3, 2}, 1, 2, 3, 4, 5, 6), "b": f32([]int{1, 2}, 1, 2)})
	wantErr(t, err, errs.InvalidFeed, "", "b", `"N"`, `input "a"`)
	// A fixed dim contradicted.
	_, err = s.Run(ctx, map[string]tensor.Value{"a": f32([]int{1, 3}, 1, 2, 3), "b": f32([]int{1, 2}, 1, 2)})
	wantErr(t, err, errs.InvalidFeed, "", "a", "dim 1 must be 2")
}

func TestFreeDimensionOverrides(t *testing.T) {
	s := loadTest(t, symbolicModel(), &Options{FreeDimensionOverrides: map[string]int64{"N": 2, "unused": 7}})
	for _, in := range s.Inputs() {
		if d := in.Type.Shape[0]; d.Param != "" || d.Value != 2 {
			t.Errorf("%s dim 0 = %+v, want fixed 2", in.Name, d)
		}
	}
	if d := s.Outputs()[0].Type.Shape[0]; d.Value != 2 {
		t.Errorf("output dim 0 = %+v", d)
	}
	// The model's own metadata is unchanged.
	if d := s.Model().Graph.Inputs[0].Type.Shape[0]; d.Param != "N" {
		t.Errorf("model metadata changed: %+v", d)
	}
	ctx := context.Background()
	if _, err := s.Run(ctx, map[string]tensor.Value{"a": f32([]int{2, 2}, 1, 2, 3, 4), "b": f32([]int{2, 2}, 1, 2, 3, 4)}); err != nil {
		t.Error(err)
	}
	_, err := s.Run(ctx, map[string]tensor.Value{"a": f32([]int{1, 2}, 1, 2), "b": f32([]int{1, 2}, 1, 2)})
	wantErr(t, err, errs.InvalidFeed, "", "a", "dim 0 must be 2")

	_, err = Load(symbolicModel().Bytes(), &Options{Registry: tm.Registry(nil), FreeDimensionOverrides: map[string]int64{"N": -1}})
	wantErr(t, err, errs.InvalidArgument, "", "", "FreeDimensionOverrides")
}

func TestFeedValidation(t *testing.T) {
	m := tm.New(13)
	m.Input("x", tensor.Float, 2)
	m.Input("i", tensor.Int64, nil)
	m.Input("any", tensor.Float) // rank 0
	m.Node("Identity", []string{"x"}, []string{"y"})
	m.Node("Identity", []string{"i"}, []string{"j"})
	m.Node("Identity", []string{"any"}, []string{"z"})
	m.Output("y", tensor.Float, 2)
	m.Output("j", tensor.Int64, nil)
	m.Output("z", tensor.Float)
	s := loadTest(t, m, nil)
	good := func() map[string]tensor.Value {
		return map[string]tensor.Value{"x": f32([]int{2}, 1, 2), "i": tensor.Of([]int{5}, []int64{1, 2, 3, 4, 5}), "any": tensor.Scalar(float32(1))}
	}
	ctx := context.Background()
	if _, err := s.Run(ctx, good()); err != nil {
		t.Fatal(err)
	}
	var nilTensor *tensor.Tensor
	cases := []struct {
		name   string
		edit   func(f map[string]tensor.Value)
		tensor string
		msg    string
	}{
		{"unknown name", func(f map[string]tensor.Value) { f["nope"] = f32([]int{1}, 1) }, "nope", "no input of this name"},
		{"missing input", func(f map[string]tensor.Value) { delete(f, "i") }, "i", "missing input (expected int64[?])"},
		{"wrong dtype", func(f map[string]tensor.Value) { f["x"] = tensor.Of([]int{2}, []float64{1, 2}) }, "x", "expected element type float32, got float64"},
		{"wrong rank", func(f map[string]tensor.Value) { f["x"] = f32([]int{1, 2}, 1, 2) }, "x", "expected rank 1"},
		{"wrong rank scalar", func(f map[string]tensor.Value) { f["any"] = f32([]int{2}, 1, 2) }, "any", "expected rank 0"},
		{"wrong fixed dim", func(f map[string]tensor.Value) { f["x"] = f32([]int{3}, 1, 2, 3) }, "x", "dim 0 must be 2"},
		{"nil", func(f map[string]tensor.Value) { f["x"] = nil }, "x", "nil"},
		{"typed nil", func(f map[string]tensor.Value) { f["x"] = nilTensor }, "x", "nil"},
		{"empty tensor value", func(f map[string]tensor.Value) { f["x"] = &tensor.Tensor{} }, "x", "nil"},
		{"sequence for a tensor", func(f map[string]tensor.Value) { f["x"] = &tensor.Sequence{Elem: tensor.Float} }, "x", "expected a tensor"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := good()
			c.edit(f)
			_, err := s.Run(ctx, f)
			wantErr(t, err, errs.InvalidFeed, "", c.tensor, c.msg)
		})
	}
	// A one-element tensor of any rank fed for a scalar input is taken as
	// the scalar (onnxruntime checks the shape of rank-0 inputs not at
	// all); the caller's map and tensor are left as they were.
	for _, shape := range [][]int{{1}, {1, 1, 1}} {
		f := good()
		one := f32(shape, 7)
		f["any"] = one
		res, err := s.Run(ctx, f)
		if err != nil {
			t.Fatalf("one-element feed of shape %v for a scalar: %v", shape, err)
		}
		if z := res["z"].(*tensor.Tensor); len(z.Shape()) != 0 || z.F32()[0] != 7 {
			t.Errorf("feed of shape %v: z = %v%v, want the scalar 7", shape, z.Shape(), z.F32())
		}
		if f["any"] != one || !reflect.DeepEqual(one.Shape(), shape) {
			t.Errorf("feed of shape %v: the caller's feeds were changed", shape)
		}
	}
	_, err := s.Run(ctx, good(), "y", "nope")
	wantErr(t, err, errs.InvalidArgument, "", "nope", "unknown output", "[y j z]")
	_, err = s.Run(ctx, good(), "y", "y")
	wantErr(t, err, errs.InvalidArgument, "", "y", "twice")
}

// TestOutputSelection checks that only the nodes an output needs run: the
// failing node feeding only "bad" does not run when "good" is asked for.
func TestOutputSelection(t *testing.T) {
	var ran atomic.Int64
	m := tm.New(13)
	m.Opset(tm.Domain, 1)
	m.Input("x", tensor.Float, 2)
	tm.Named(m.Node("Count", []string{"x"}, []string{"c"}), "count", tm.Domain)
	tm.Named(m.Node("Add", []string{"c", "c"}, []string{"good"}), "add", "")
	tm.Named(m.Node("Fail", []string{"x"}, []string{"f"}), "fail", tm.Domain)
	tm.Named(m.Node("Count", []string{"f"}, []string{"bad"}), "count2", tm.Domain)
	m.Output("bad", tensor.Float, 2)
	m.Output("good", tensor.Float, 2)
	s := loadTest(t, m, &Options{Registry: tm.Registry(&ran)})
	feeds := map[string]tensor.Value{"x": f32([]int{2}, 1, 2)}

	var traced []string
	out, err := s.RunWith(context.Background(), feeds, []string{"good"}, RunOptions{Trace: func(n *graph.Node, _ []tensor.Value) {
		traced = append(traced, n.Name)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || !reflect.DeepEqual(out["good"].(*tensor.Tensor).F32(), []float32{2, 4}) {
		t.Errorf("outputs %v", out)
	}
	if !reflect.DeepEqual(traced, []string{"count", "add"}) {
		t.Errorf("ran %v, want [count add]", traced)
	}
	if ran.Load() != 1 {
		t.Errorf("Count ran %d times, want 1", ran.Load())
	}
	_, err = s.Run(context.Background(), feeds, "bad")
	wantErr(t, err, errs.Runtime, "fail", "", "Fail always fails")
	_, err = s.Run(context.Background(), feeds)
	wantErr(t, err, errs.Runtime, "fail", "")
}

func TestUnsupportedOp(t *testing.T) {
	m := tm.New(19)
	m.Opset("com.example.unused", 1)
	m.Input("x", tensor.Float, 2)
	tm.Named(m.Node("Resize", []string{"x"}, []string{"r"}), "resize_node", "")
	tm.Named(m.Node("FancyOp", []string{"x"}, []string{"f"}), "fancy", "")
	tm.Named(m.Node("Identity", []string{"x"}, []string{"ok"}), "id", "")
	m.Output("r", tensor.Float, 2)
	m.Output("f", tensor.Float, 2)
	m.Output("ok", tensor.Float, 2)
	s := loadTest(t, m, nil)
	u := s.Unsupported()
	if len(u) != 2 {
		t.Fatalf("Unsupported() = %v, want 2 problems", u)
	}
	wantErr(t, u[0], errs.UnsupportedOp, "resize_node", "", "Resize-19 needed for opset 19; gort implements Resize-10, 11, 13")
	wantErr(t, u[1], errs.UnsupportedOp, "fancy", "", "FancyOp")
	feeds := map[string]tensor.Value{"x": f32([]int{2}, 1, 2)}
	_, err := s.Run(context.Background(), feeds, "f")
	wantErr(t, err, errs.UnsupportedOp, "fancy", "", "FancyOp")
	_, err = s.Run(context.Background(), feeds, "r")
	wantErr(t, err, errs.UnsupportedOp, "resize_node", "", "Resize-19")
	if _, err := s.Run(context.Background(), feeds, "ok"); err != nil {
		t.Errorf("the supported part of the graph should run: %v", err)
	}
}

func TestDuplicateGraphOutput(t *testing.T) {
	m := tm.New(13)
	m.Input("x", tensor.Float, 1)
	m.Node("Identity", []string{"x"}, []string{"y"})
	m.Output("y", tensor.Float, 1)
	m.Output("y", tensor.Float, 1)
	s := loadTest(t, m, nil)
	if got := names(s.Outputs()); !reflect.DeepEqual(got, []string{"y"}) {
		t.Errorf("Outputs() = %v", got)
	}
	out, err := s.Run(context.Background(), map[string]tensor.Value{"x": f32([]int{1}, 3)})
	if err != nil || len(out) != 1 {
		t.Errorf("Run: %v %v", out, err)
	}
}

func TestPassThroughOutputs(t *testing.T) {
	// Outputs that are a graph input and an initializer, with no node at all.
	m := tm.New(13)
	m.Input("x", tensor.Float, 1)
	m.Init("k", f32([]int{1}, 5))
	m.Output("x", tensor.Float, 1)
	m.Output("k", tensor.Float, 1)
	s := loadTest(t, m, nil)
	out, err := s.Run(context.Background(), map[string]tensor.Value{"x": f32([]int{1}, 3)})
	if err != nil {
		t.Fatal(err)
	}
	if out["x"].(*tensor.Tensor).F32()[0] != 3 || out["k"].(*tensor.Tensor).F32()[0] != 5 {
		t.Errorf("outputs %v", out)
	}
	// The caller may modify what Run returns without changing the weight.
	out["k"].(*tensor.Tensor).F32()[0] = -1
	out, _ = s.Run(context.Background(), map[string]tensor.Value{"x": f32([]int{1}, 3)})
	if got := out["k"].(*tensor.Tensor).F32()[0]; got != 5 {
		t.Errorf("initializer changed to %g by modifying an output", got)
	}
}

func TestRunCancelled(t *testing.T) {
	m := tm.New(13)
	m.Input("x", tensor.Float, 1)
	m.Node("Identity", []string{"x"}, []string{"y"})
	m.Output("y", tensor.Float, 1)
	s := loadTest(t, m, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := s.Run(ctx, map[string]tensor.Value{"x": f32([]int{1}, 3)})
	wantErr(t, err, errs.Aborted, "", "")
}

func TestRunConcurrently(t *testing.T) {
	m := tm.New(13)
	m.Input("x", tensor.Float, 1)
	m.Init("k", f32([]int{1}, 1))
	m.Node("Add", []string{"x", "k"}, []string{"a"})
	m.Node("Add", []string{"a", "k"}, []string{"y"})
	m.Output("y", tensor.Float, 1)
	s := loadTest(t, m, nil)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(v float32) {
			defer wg.Done()
			out, err := s.Run(context.Background(), map[string]tensor.Value{"x": f32([]int{1}, v)})
			if err != nil || out["y"].(*tensor.Tensor).F32()[0] != v+2 {
				t.Errorf("run %g: %v %v", v, out, err)
			}
		}(float32(i))
	}
	wg.Wait()
}

func TestLoadErrorsAreGortErrors(t *testing.T) {
	for _, data := range [][]byte{nil, {0xff}, []byte("garbage garbage")} {
		_, err := Load(data, nil)
		wantErr(t, err, errs.BadModel, "", "")
	}
	m := tm.New(13)
	m.Init("", f32([]int{1}, 1))
	m.Input("x", tensor.Float).Output("x", tensor.Float)
	_, err := Load(m.Bytes(), &Options{Registry: tm.Registry(nil)})
	wantErr(t, err, errs.BadModel, "", "", "no name")
}

// TestOptimizationLevel: the zero Optimization is every rewrite (plan.All),
// and a level outside plan's is refused.
func TestOptimizationLevel(t *testing.T) {
	s := loadTest(t, symbolicModel(), nil)
	if l := s.Plan().Report.Level; l != plan.All {
		t.Errorf("default level %v, want all", l)
	}
	s = loadTest(t, symbolicModel(), &Options{Optimization: plan.Disabled})
	if l := s.Plan().Report.Level; l != plan.Disabled {
		t.Errorf("level %v, want disabled", l)
	}
	_, err := Load(symbolicModel().Bytes(), &Options{Registry: tm.Registry(nil), Optimization: plan.Level(9)})
	wantErr(t, err, errs.InvalidArgument, "", "", "optimization level 9")
}
