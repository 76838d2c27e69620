package shapes_test

import (
	"strings"
	"testing"

	_ "github.com/gort-dev/gort/ops"
	tm "github.com/gort-dev/gort/runtime/internal/testmodel"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func ints(name string, v ...int64) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Ints: v, Type: pb.AttributeProto_INTS}
}

// TestSymbolicPipeline: a batch-symbolic CNN head whose flatten goes through
// Shape → Gather → Unsqueeze → Concat → Reshape; every value's shape is
// written here by hand.
func TestSymbolicPipeline(t *testing.T) {
	m := tm.New(13)
	m.Input("x", tensor.Float, "N", 3, 32, 30)
	m.Init("w", tensor.New(tensor.Float, 8, 3, 3, 3))
	m.Init("b", tensor.New(tensor.Float, 8))
	m.Init("i0", tensor.Of([]int{}, []int64{0}))
	m.Init("ax", tensor.Of([]int{1}, []int64{0}))
	m.Init("m1", tensor.Of([]int{1}, []int64{-1}))
	m.Init("two", tensor.Of([]int{1}, []int64{2}))
	m.Node("Conv", []string{"x", "w", "b"}, []string{"c"}, ints("pads", 1, 1, 1, 1), ints("strides", 2, 2))
	m.Node("MaxPool", []string{"c"}, []string{"p"}, ints("kernel_shape", 2, 2), ints("strides", 2, 2))
	m.Node("Shape", []string{"p"}, []string{"s"})
	m.Node("Gather", []string{"s", "i0"}, []string{"n"})
	m.Node("Unsqueeze", []string{"n", "ax"}, []string{"n1"})
	m.Node("Mul", []string{"n1", "two"}, []string{"n2"})
	m.Node("Concat", []string{"n2", "m1"}, []string{"target"}, tm.Int("axis", 0))
	m.Node("Reshape", []string{"p", "target"}, []string{"r"})
	m.Node("Transpose", []string{"r"}, []string{"rt"})
	m.Node("ConstantOfShape", []string{"s"}, []string{"z"})
	m.Node("Cast", []string{"z"}, []string{"zi"}, tm.Int("to", int64(tensor.Int64)))
	m.Node("ReduceSum", []string{"zi", "ax"}, []string{"zs"}, tm.Int("keepdims", 0))
	m.Init("one", tensor.Of([]int{}, []int64{1}))
	m.Node("Range", []string{"i00", "n", "one"}, []string{"ids"})
	m.Init("i00", tensor.Of([]int{}, []int64{0}))
	m.Proto.Graph.Output = append(m.Proto.Graph.Output, &pb.ValueInfoProto{Name: "zs", Type: tm.UnrankedType(tensor.Int64)})
	res := shapes.Model(m.Proto, nil)
	want := map[string]string{
		"c":      "float32[N,8,16,15]",
		"p":      "float32[N,8,8,7]",
		"s":      "int64[4]",
		"n":      "int64[]",
		"n1":     "int64[1]",
		"target": "int64[2]",
		"r":      "float32[2*N,224]",
		"rt":     "float32[224,2*N]",
		"z":      "float32[N,8,8,7]",
		"zi":     "int64[N,8,8,7]",
		"zs":     "int64[8,8,7]",
		"ids":    "int64[N]",
	}
	for v, w := range want {
		if got := res.Values[v]; got == nil || got.Type.String() != w {
			t.Errorf("%s: got %v, want %s", v, got, w)
		}
	}
	if len(res.Problems) != 0 {
		t.Errorf("problems: %+v", res.Problems)
	}
}

// TestContradictions: each model holds one contradiction that inference must name.
func TestContradictions(t *testing.T) {
	cases := []struct {
		name, code string
		build      func(m *tm.Model)
	}{
		{"broadcast", "BROADCAST", func(m *tm.Model) {
			m.Input("a", tensor.Float, 2, 3)
			m.Input("b", tensor.Float, 4)
			m.Node("Add", []string{"a", "b"}, []string{"y"})
		}},
		{"conv channels", "CONV_CHANNELS", func(m *tm.Model) {
			m.Input("x", tensor.Float, 1, 3, 8, 8)
			m.Init("w", tensor.New(tensor.Float, 4, 2, 3, 3))
			m.Node("Conv", []string{"x", "w"}, []string{"y"})
		}},
		{"reshape count", "RESHAPE_COUNT", func(m *tm.Model) {
			m.Input("x", tensor.Float, 2, 3)
			m.Init("s", tensor.Of([]int{2}, []int64{4, 2}))
			m.Node("Reshape", []string{"x", "s"}, []string{"y"})
		}},
		{"declared", "SHAPE_MISMATCH", func(m *tm.Model) {
			m.Input("x", tensor.Float, 2, 3)
			m.Node("Relu", []string{"x"}, []string{"y"})
			m.Output("y", tensor.Float, 3, 2)
		}},
		{"matmul", "MATMUL", func(m *tm.Model) {
			m.Input("a", tensor.Float, 2, 3)
			m.Input("b", tensor.Float, 4, 5)
			m.Node("MatMul", []string{"a", "b"}, []string{"y"})
		}},
	}
	for _, c := range cases {
		m := tm.New(13)
		c.build(m)
		res := shapes.Model(m.Proto, nil)
		if len(res.Problems) != 1 || res.Problems[0].Code != c.code {
			t.Errorf("%s: got %+v, want one %s", c.name, res.Problems, c.code)
		}
	}
}

// TestMatMulRanks: NumPy's rules for 1-D operands, written out by hand.
func TestMatMulRanks(t *testing.T) {
	cases := []struct {
		a, b []any
		want string
	}{
		{[]any{3}, []any{3}, "float32[]"},
		{[]any{3}, []any{2, 3, 4}, "float32[2,4]"},
		{[]any{2, 5, 3}, []any{3}, "float32[2,5]"},
		{[]any{"B", 1, 5, 3}, []any{7, 3, 4}, "float32[B,7,5,4]"},
	}
	for _, c := range cases {
		m := tm.New(13)
		m.Input("a", tensor.Float, c.a...)
		m.Input("b", tensor.Float, c.b...)
		m.Node("MatMul", []string{"a", "b"}, []string{"y"})
		res := shapes.Model(m.Proto, nil)
		if got := res.Values["y"].Type.String(); got != c.want {
			t.Errorf("%v × %v: %s, want %s", c.a, c.b, got, c.want)
		}
	}
}

// TestFunctionCall: a model-local function (as torch.onnx's dynamo exporter
// writes them) is inferred through its body, with an attribute reference
// bound to the caller's value; a contradiction inside names the call.
func TestFunctionCall(t *testing.T) {
	m := tm.New(18)
	m.Opset("local", 1)
	m.Input("x", tensor.Float, "N", 6)
	m.Init("shape", tensor.Of([]int{3}, []int64{0, 2, 3}))
	f := m.Function("local", "SplitHeads", []string{"a", "s"}, []string{"b"},
		tm.NodeProto("Reshape", []string{"a", "s"}, []string{"r"}),
		tm.NodeProto("Softmax", []string{"r"}, []string{"b"}, tm.Ref("axis", "ax", pb.AttributeProto_INT)))
	f.Attribute = []string{"ax"}
	tm.Named(m.Node("SplitHeads", []string{"x", "shape"}, []string{"y"}, tm.Int("ax", 1)), "call", "local")
	res := shapes.Model(m.Proto, nil)
	if got := res.Values["y"]; got == nil || got.Type.String() != "float32[N,2,3]" {
		t.Fatalf("y: %+v", got)
	}
	if _, leaked := res.Values["r"]; leaked {
		t.Error("the body's values leaked into the model's name space")
	}
	m.Proto.Graph.Initializer[0] = &pb.TensorProto{Name: "shape", DataType: int32(tensor.Int64), Dims: []int64{3}, Int64Data: []int64{0, 4, 3}}
	res = shapes.Model(m.Proto, nil)
	if len(res.Problems) != 1 || res.Problems[0].Code != "RESHAPE_COUNT" || res.Problems[0].Node != "call" {
		t.Errorf("problems: %+v", res.Problems)
	}
}

func TestEinsum(t *testing.T) {
	cases := []struct {
		eq   string
		a, b []any
		want string
	}{
		{"ij,jk->ik", []any{2, 3}, []any{3, 5}, "float32[2,5]"},
		{"bij,bjk", []any{"B", 2, 3}, []any{"B", 3, 4}, "float32[2,4]"}, // implicit: only i and k appear once
		{"...ij,...jk->...ik", []any{7, 1, 2, 3}, []any{6, 3, 4}, "float32[7,6,2,4]"},
		{"i,i", []any{4}, []any{4}, "float32[]"},
	}
	for _, c := range cases {
		m := tm.New(13)
		m.Input("a", tensor.Float, c.a...)
		m.Input("b", tensor.Float, c.b...)
		m.Node("Einsum", []string{"a", "b"}, []string{"y"}, tm.String("equation", c.eq))
		res := shapes.Model(m.Proto, nil)
		if got := res.Values["y"].Type.String(); got != c.want {
			t.Errorf("%s: %s, want %s", c.eq, got, c.want)
		}
	}
}

// TestEinsumHostile: malformed equations are problems or unknown shapes, never a rule failure.
func TestEinsumHostile(t *testing.T) {
	for _, eq := range []string{"......,i", "i...j...,ij", "ij,jk->...i...", "ij,jk->iz", "ij,jk->", ",", "->", "ij,jk->i-k", "ä,ä", "abcdefgh,a", "ij,jk,kl->il"} {
		m := tm.New(13)
		m.Input("a", tensor.Float, 2, 3)
		m.Input("b", tensor.Float, 3, 4)
		m.Node("Einsum", []string{"a", "b"}, []string{"y"}, tm.String("equation", eq))
		res := shapes.Model(m.Proto, nil)
		if v := res.Values["y"]; v == nil || strings.Contains(v.Why, "inference failed") {
			t.Errorf("%q: %+v", eq, v)
		}
	}
}
