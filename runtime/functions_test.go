package runtime

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/gort-dev/gort/runtime/errs"
	tm "github.com/gort-dev/gort/runtime/internal/testmodel"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

const fnDomain = "local.fn"

// scaleFunctions adds Scaled(x; factor=2) = Scale(x; alpha=@factor) and
// Outer(x; k) = Scaled(Scaled(x; factor=@k); factor=@k), with an internal
// value named "t" in both bodies to check that inlined names do not clash.
func scaleFunctions(m *tm.Model) {
	m.Opset(tm.Domain, 1).Opset(fnDomain, 1)
	scaled := m.Function(fnDomain, "Scaled", []string{"x"}, []string{"y"},
		tm.Named(tm.NodeProto("Scale", []string{"x"}, []string{"t"}, tm.Ref("alpha", "factor", pb.AttributeProto_FLOAT)), "body_scale", tm.Domain),
		tm.NodeProto("Identity", []string{"t"}, []string{"y"}))
	scaled.Attribute = []string{}
	scaled.AttributeProto = []*pb.AttributeProto{tm.Float("factor", 2)}
	outer := m.Function(fnDomain, "Outer", []string{"x"}, []string{"y"},
		tm.Named(tm.NodeProto("Scaled", []string{"x"}, []string{"t"}, tm.Ref("factor", "k", pb.AttributeProto_FLOAT)), "", fnDomain),
		tm.Named(tm.NodeProto("Scaled", []string{"t"}, []string{"y"}, tm.Ref("factor", "k", pb.AttributeProto_FLOAT)), "", fnDomain))
	outer.Attribute = []string{"k"}
}

func TestFunctionInlining(t *testing.T) {
	m := tm.New(13)
	scaleFunctions(m)
	m.Input("x", tensor.Float, 2)
	tm.Named(m.Node("Scaled", []string{"x"}, []string{"given"}, tm.Float("factor", 3)), "call", fnDomain)
	tm.Named(m.Node("Scaled", []string{"x"}, []string{"default"}), "call", fnDomain) // same node name
	tm.Named(m.Node("Outer", []string{"x"}, []string{"nested"}, tm.Float("k", 5)), "", fnDomain)
	tm.Named(m.Node("Outer", []string{"x"}, []string{"nested_default"}), "", fnDomain)
	m.Output("given", tensor.Float, 2)
	m.Output("default", tensor.Float, 2)
	m.Output("nested", tensor.Float, 2)
	m.Output("nested_default", tensor.Float, 2)
	s := loadTest(t, m, nil)
	if u := s.Unsupported(); len(u) != 0 {
		t.Fatalf("unsupported: %v", u)
	}
	out, err := s.Run(context.Background(), map[string]tensor.Value{"x": f32([]int{2}, 1, -2)})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]float32{
		"given":          {3, -6},   // factor from the call
		"default":        {2, -4},   // factor's default
		"nested":         {25, -50}, // 5 * 5
		"nested_default": {4, -8},   // k absent: inner calls use factor's default 2 * 2
	}
	for name, w := range want {
		if got := out[name].(*tensor.Tensor).F32(); !reflect.DeepEqual(got, w) {
			t.Errorf("%s = %v, want %v", name, got, w)
		}
	}
	// Inlined nodes carry the call's name as a prefix.
	found := false
	for _, n := range s.Model().Graph.Nodes {
		if n.Name == "call/body_scale" {
			found = true
		}
	}
	if !found {
		t.Errorf("no node named call/body_scale among the inlined nodes")
	}
}

func TestFunctionErrors(t *testing.T) {
	self := func(m *tm.Model) {
		m.Function(fnDomain, "R", []string{"x"}, []string{"y"}, tm.Named(tm.NodeProto("R", []string{"x"}, []string{"y"}), "", fnDomain))
	}
	mutual := func(m *tm.Model) {
		m.Function(fnDomain, "R", []string{"x"}, []string{"y"}, tm.Named(tm.NodeProto("R2", []string{"x"}, []string{"y"}), "", fnDomain))
		m.Function(fnDomain, "R2", []string{"x"}, []string{"y"}, tm.Named(tm.NodeProto("R", []string{"x"}, []string{"y"}), "", fnDomain))
	}
	throughSubgraph := func(m *tm.Model) {
		body := tm.NewGraph("body")
		tm.Named(body.Node("R", []string{"x"}, []string{"r"}), "", fnDomain)
		body.Output("r", tensor.Float)
		m.Function(fnDomain, "R", []string{"x"}, []string{"y"},
			tm.Named(tm.NodeProto("Wrap", []string{"x"}, []string{"y"}, tm.GraphAttr("g", body)), "", tm.Domain))
	}
	// F0 calls F1 twice, F1 calls F2 twice, ...: 2^30 nodes if inlined.
	exponential := func(m *tm.Model) {
		for i := 0; i < 30; i++ {
			next := fmt.Sprintf("F%d", i+1)
			if i == 29 {
				m.Function(fnDomain, fmt.Sprintf("F%d", i), []string{"x"}, []string{"y"}, tm.NodeProto("Identity", []string{"x"}, []string{"y"}))
				break
			}
			m.Function(fnDomain, fmt.Sprintf("F%d", i), []string{"x"}, []string{"y"},
				tm.Named(tm.NodeProto(next, []string{"x"}, []string{"a"}), "", fnDomain),
				tm.Named(tm.NodeProto(next, []string{"a"}, []string{"y"}), "", fnDomain))
		}
	}
	duplicate := func(m *tm.Model) {
		m.Function(fnDomain, "R", []string{"x"}, []string{"y"}, tm.NodeProto("Identity", []string{"x"}, []string{"y"}))
		m.Function(fnDomain, "R", []string{"x"}, []string{"y"}, tm.NodeProto("Identity", []string{"x"}, []string{"y"}))
	}
	cases := []struct {
		name  string
		build func(m *tm.Model)
		call  string
		msg   string
	}{
		{"recursive", self, "R", "calls itself"},
		{"mutually recursive", mutual, "R", "calls itself"},
		{"recursive through a subgraph", throughSubgraph, "R", "calls itself"},
		{"exponential", exponential, "F0", "more than"},
		{"defined twice", duplicate, "R", "defined twice"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := tm.New(13)
			m.Opset(tm.Domain, 1).Opset(fnDomain, 1)
			c.build(m)
			m.Input("x", tensor.Float, 2)
			tm.Named(m.Node(c.call, []string{"x"}, []string{"y"}), "", fnDomain)
			m.Output("y", tensor.Float, 2)
			start := time.Now()
			_, err := Load(m.Bytes(), &Options{Registry: tm.Registry(nil)})
			wantErr(t, err, errs.BadModel, "", "", c.msg)
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("refusing took %v", d)
			}
		})
	}
}

// TestFunctionCallsAddUp: each function is within the inlining limit, but
// the model calls it often enough to exceed it.
func TestFunctionCallsAddUp(t *testing.T) {
	m := tm.New(13)
	m.Opset(fnDomain, 1)
	const levels = 19 // F0 inlines to 2^19 nodes
	for i := 0; i < levels; i++ {
		next := fmt.Sprintf("F%d", i+1)
		m.Function(fnDomain, fmt.Sprintf("F%d", i), []string{"x"}, []string{"y"},
			tm.Named(tm.NodeProto(next, []string{"x"}, []string{"a"}), "", fnDomain),
			tm.Named(tm.NodeProto(next, []string{"a"}, []string{"y"}), "", fnDomain))
	}
	m.Function(fnDomain, fmt.Sprintf("F%d", levels), []string{"x"}, []string{"y"}, tm.NodeProto("Identity", []string{"x"}, []string{"y"}))
	m.Input("x", tensor.Float, 2)
	prev := "x"
	for i := 0; i < 3; i++ {
		out := fmt.Sprintf("y%d", i)
		tm.Named(m.Node("F0", []string{prev}, []string{out}), "", fnDomain)
		prev = out
	}
	m.Output(prev, tensor.Float, 2)
	start := time.Now()
	_, err := Load(m.Bytes(), &Options{Registry: tm.Registry(nil)})
	wantErr(t, err, errs.BadModel, "", "", "more than")
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("refusing took %v", d)
	}
}

// TestFunctionWithSubgraph: a function body node whose subgraph reads the
// function's input and a ref'd attribute, and whose nested subgraph reads a
// value local to the first subgraph (which must not be renamed).
func TestFunctionWithSubgraph(t *testing.T) {
	m := tm.New(13)
	m.Opset(tm.Domain, 1).Opset(fnDomain, 1)
	nested := tm.NewGraph("nested")
	nested.Node("Add", []string{"s", "x"}, []string{"n"}) // s: local to sub; x: the function's input
	nested.Output("n", tensor.Float)
	sub := tm.NewGraph("sub")
	tm.Named(sub.Node("Scale", []string{"x"}, []string{"s"}, tm.Ref("alpha", "factor", pb.AttributeProto_FLOAT)), "", tm.Domain)
	tm.Named(sub.Node("Call", nil, []string{"r"}, tm.GraphAttr("body", nested)), "", tm.Domain)
	sub.Output("r", tensor.Float)
	f := m.Function(fnDomain, "F", []string{"x"}, []string{"y"},
		tm.Named(tm.NodeProto("Call", nil, []string{"y"}, tm.GraphAttr("body", sub)), "", tm.Domain))
	f.Attribute = []string{"factor"}
	m.Input("x", tensor.Float, 2)
	m.Input("s", tensor.Float, 2) // same name as the body's local: must not be confused
	tm.Named(m.Node("F", []string{"x"}, []string{"y"}, tm.Float("factor", 10)), "", fnDomain)
	tm.Named(m.Node("Add", []string{"y", "s"}, []string{"z"}), "", "")
	m.Output("z", tensor.Float, 2)
	s := loadTest(t, m, nil)
	out, err := s.Run(context.Background(), map[string]tensor.Value{"x": f32([]int{2}, 1, 2), "s": f32([]int{2}, 100, 100)})
	if err != nil {
		t.Fatal(err)
	}
	// y = 10x + x = 11x; z = y + 100.
	if got := out["z"].(*tensor.Tensor).F32(); !reflect.DeepEqual(got, []float32{111, 122}) {
		t.Errorf("z = %v, want [111 122]", got)
	}
}
