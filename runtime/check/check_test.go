package check_test

import (
	"strings"
	"testing"

	"github.com/gort-dev/gort/runtime/check"
	tm "github.com/gort-dev/gort/runtime/internal/testmodel"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

// base is a valid model: y = Relu(x + w).
func base() *tm.Model {
	m := tm.New(17)
	m.Input("x", tensor.Float, 2, 3)
	m.Init("w", tensor.Of([]int{3}, []float32{1, 2, 3}))
	m.Node("Add", []string{"x", "w"}, []string{"s"})
	m.Node("Relu", []string{"s"}, []string{"y"})
	m.Output("y", tensor.Float, 2, 3)
	return m
}

func TestBaseIsClean(t *testing.T) {
	r := check.Bytes(base().Bytes(), nil)
	if len(r.Findings) != 0 {
		t.Fatalf("findings on a valid model: %v", r.Findings)
	}
}

func attr(name string, typ pb.AttributeProto_AttributeType) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: typ}
}

func node(m *tm.Model, i int) *pb.NodeProto { return m.Proto.Graph.Node[i] }

// TestBrokenModels: each model is broken in one way and must give its code.
func TestBrokenModels(t *testing.T) {
	cases := []struct {
		name, code string
		sev        check.Severity
		graph      string // expected Graph of the finding ("" = any)
		edit       func(m *tm.Model)
		raw        []byte // checked as bytes instead of m
	}{
		{name: "garbage bytes", code: "MODEL_DECODE", raw: []byte{0xff, 0xff, 0xff, 0x01}},
		{name: "empty file", code: "MODEL_DECODE", raw: []byte{}},
		{name: "no ir_version", code: "IR_VERSION", edit: func(m *tm.Model) { m.Proto.IrVersion = 0 }},
		{name: "ir_version from the future", code: "IR_VERSION", edit: func(m *tm.Model) { m.Proto.IrVersion = 99 }},
		{name: "no graph", code: "GRAPH_MISSING", edit: func(m *tm.Model) { m.Proto.Graph = nil }},
		{name: "opset twice", code: "OPSET_DUPLICATE", edit: func(m *tm.Model) { m.Opset("ai.onnx", 13) }},
		{name: "opset 0", code: "OPSET_INVALID", edit: func(m *tm.Model) { m.Opset("ai.onnx.ml", 0); m.Node("Relu", []string{"y"}, []string{"u"}) }},
		{name: "unused opset", code: "OPSET_UNUSED", sev: check.Warning, edit: func(m *tm.Model) { m.Opset("ai.onnx.ml", 3) }},
		{name: "domain not imported", code: "OPSET_NOT_IMPORTED", edit: func(m *tm.Model) {
			tm.Named(node(m, 1), "r", "ai.onnx.ml")
		}},
		{name: "unknown op", code: "OP_UNKNOWN", edit: func(m *tm.Model) { node(m, 1).OpType = "Frobnicate" }},
		{name: "op newer than opset", code: "OP_NOT_IN_OPSET", edit: func(m *tm.Model) {
			m.Proto.OpsetImport[0].Version = 9
			m.Node("Resize", []string{"y", "", "sc"}, []string{"z"})
			m.Init("sc", tensor.Of([]int{2}, []float32{1, 2}))
		}},
		{name: "deprecated op", code: "OP_DEPRECATED", sev: check.Warning, edit: func(m *tm.Model) {
			m.Proto.OpsetImport[0].Version = 10
			m.Init("sc", tensor.Of([]int{2}, []float32{1, 2}))
			m.Node("Upsample", []string{"y", "sc"}, []string{"z"})
			m.Output("z", tensor.Float, 2, 6)
		}},
		{name: "no op_type", code: "OP_MISSING", edit: func(m *tm.Model) { node(m, 1).OpType = "" }},
		{name: "custom domain", code: "OP_UNCHECKED", sev: check.Warning, edit: func(m *tm.Model) {
			m.Opset("com.example", 1)
			tm.Named(node(m, 1), "r", "com.example")
		}},
		{name: "too few inputs", code: "INPUT_COUNT", edit: func(m *tm.Model) { node(m, 0).Input = []string{"x"} }},
		{name: "too many inputs", code: "INPUT_COUNT", edit: func(m *tm.Model) { node(m, 1).Input = []string{"s", "x"} }},
		{name: "required input left empty", code: "INPUT_MISSING", edit: func(m *tm.Model) { node(m, 0).Input = []string{"", "w"} }},
		{name: "too many outputs", code: "OUTPUT_COUNT", edit: func(m *tm.Model) { node(m, 1).Output = []string{"y", "y2"} }},
		{name: "unknown attribute", code: "ATTR_UNKNOWN", edit: func(m *tm.Model) {
			node(m, 1).Attribute = append(node(m, 1).Attribute, tm.Float("alpha", 0.1))
		}},
		{name: "attribute of the wrong type", code: "ATTR_TYPE", edit: func(m *tm.Model) {
			m.Node("Softmax", []string{"y"}, []string{"z"}, tm.Float("axis", 1))
			m.Output("z", tensor.Float, 2, 3)
		}},
		{name: "required attribute missing", code: "ATTR_REQUIRED", edit: func(m *tm.Model) {
			m.Node("Concat", []string{"y", "y"}, []string{"z"})
			m.Output("z", tensor.Float, 2, 6)
		}},
		{name: "attribute twice", code: "ATTR_DUPLICATE", edit: func(m *tm.Model) {
			m.Node("Softmax", []string{"y"}, []string{"z"}, tm.Int("axis", 1), tm.Int("axis", 0))
			m.Output("z", tensor.Float, 2, 3)
		}},
		{name: "attribute without name", code: "ATTR_NAME", edit: func(m *tm.Model) {
			node(m, 1).Attribute = append(node(m, 1).Attribute, tm.Int("", 1))
		}},
		{name: "attribute reference outside a function", code: "ATTR_REF", edit: func(m *tm.Model) {
			m.Node("Softmax", []string{"y"}, []string{"z"}, tm.Ref("axis", "ax", pb.AttributeProto_INT))
			m.Output("z", tensor.Float, 2, 3)
		}},
		{name: "dtype outside the constraint", code: "TYPE_CONSTRAINT", edit: func(m *tm.Model) {
			m.Input("i", tensor.Int64, 4)
			m.Node("Sqrt", []string{"i"}, []string{"z"})
			m.Output("z", tensor.Int64, 4)
		}},
		{name: "type variable bound twice", code: "TYPE_BINDING", edit: func(m *tm.Model) {
			m.Input("d", tensor.Double, 2, 3)
			m.Node("Mul", []string{"y", "d"}, []string{"z"})
			m.Output("z", tensor.Float, 2, 3)
		}},
		{name: "value produced twice", code: "MULTIPLE_PRODUCERS", edit: func(m *tm.Model) { m.Node("Relu", []string{"x"}, []string{"s"}) }},
		{name: "node overwrites a graph input", code: "MULTIPLE_PRODUCERS", edit: func(m *tm.Model) { node(m, 1).Output = []string{"x"} }},
		{name: "cycle", code: "CYCLE", edit: func(m *tm.Model) {
			node(m, 0).Input = []string{"x", "y"}
		}},
		{name: "self loop", code: "CYCLE", edit: func(m *tm.Model) { node(m, 1).Input = []string{"y"} }},
		{name: "unsorted nodes", code: "NODE_ORDER", sev: check.Warning, edit: func(m *tm.Model) {
			g := m.Proto.Graph
			g.Node[0], g.Node[1] = g.Node[1], g.Node[0]
		}},
		{name: "undefined input", code: "UNDEFINED_INPUT", edit: func(m *tm.Model) { node(m, 1).Input = []string{"nowhere"} }},
		{name: "untyped input", code: "UNTYPED", edit: func(m *tm.Model) { m.Proto.Graph.Input[0].Type = nil }},
		{name: "undefined element type", code: "UNTYPED", edit: func(m *tm.Model) {
			m.Proto.Graph.Output[0].Type.GetTensorType().ElemType = 0
		}},
		{name: "negative declared dim", code: "NEGATIVE_DIM", edit: func(m *tm.Model) {
			m.Proto.Graph.Input[0].Type.GetTensorType().Shape.Dim[0].Value = &pb.TensorShapeProto_Dimension_DimValue{DimValue: -2}
		}},
		{name: "output nobody produces", code: "OUTPUT_UNDEFINED", edit: func(m *tm.Model) { m.Output("ghost", tensor.Float, 1) }},
		{name: "no outputs", code: "GRAPH_NO_OUTPUT", edit: func(m *tm.Model) { m.Proto.Graph.Output = nil }},
		{name: "unnamed input", code: "NAME_EMPTY", edit: func(m *tm.Model) { m.Input("", tensor.Float, 1) }},
		{name: "input listed twice", code: "DUPLICATE_NAME", edit: func(m *tm.Model) { m.Input("x", tensor.Float, 2, 3) }},
		{name: "initializer twice", code: "DUPLICATE_NAME", edit: func(m *tm.Model) { m.Init("w", tensor.Of([]int{3}, []float32{1, 2, 3})) }},
		{name: "initializer data shorter than dims", code: "TENSOR_DATA", edit: func(m *tm.Model) {
			m.Proto.Graph.Initializer[0].Dims = []int64{4}
		}},
		{name: "large raw initializer one byte short", code: "TENSOR_DATA", edit: func(m *tm.Model) {
			m.InitProto(&pb.TensorProto{Name: "big", DataType: int32(tensor.Float), Dims: []int64{512, 1024}, RawData: make([]byte, 4*512*1024-1)})
			m.Node("Neg", []string{"big"}, []string{"nb"})
			m.Output("nb", tensor.Float, 512, 1024)
		}},
		{name: "IR 3 initializer that is not an input", code: "INITIALIZER_NOT_INPUT", edit: func(m *tm.Model) { m.Proto.IrVersion = 3 }},
		{name: "initializer without dtype", code: "TENSOR_DTYPE", edit: func(m *tm.Model) { m.Proto.Graph.Initializer[0].DataType = 0 }},
		{name: "negative initializer dims", code: "TENSOR_DIMS", edit: func(m *tm.Model) { m.Proto.Graph.Initializer[0].Dims = []int64{-3} }},
		{name: "external data without location", code: "EXTERNAL_DATA", edit: func(m *tm.Model) { external(m, "") }},
		{name: "external data escaping the directory", code: "EXTERNAL_DATA", edit: func(m *tm.Model) { external(m, "../../etc/passwd") }},
		{name: "external data not given", code: "EXTERNAL_DATA_NOT_CHECKED", sev: check.Warning, edit: func(m *tm.Model) { external(m, "w.bin") }},
		{name: "external length disagrees with dims", code: "EXTERNAL_DATA", edit: func(m *tm.Model) {
			external(m, "w.bin")
			m.Proto.Graph.Initializer[0].ExternalData = append(m.Proto.Graph.Initializer[0].ExternalData, &pb.StringStringEntryProto{Key: "length", Value: "8"})
		}},
		{name: "unused initializer", code: "INITIALIZER_UNUSED", sev: check.Warning, edit: func(m *tm.Model) {
			m.Init("spare", tensor.Of([]int{1}, []float32{1}))
		}},
		{name: "dead node", code: "NODE_UNUSED", sev: check.Warning, edit: func(m *tm.Model) { m.Node("Neg", []string{"x"}, []string{"unused"}) }},
		{name: "value_info of nothing", code: "VALUE_INFO_UNUSED", sev: check.Warning, edit: func(m *tm.Model) {
			m.Proto.Graph.ValueInfo = append(m.Proto.Graph.ValueInfo, &pb.ValueInfoProto{Name: "nothing", Type: tm.TensorType(tensor.Float, 1)})
		}},
		{name: "node name twice", code: "DUPLICATE_NAME", sev: check.Warning, edit: func(m *tm.Model) {
			node(m, 0).Name, node(m, 1).Name = "n", "n"
		}},
		{name: "subgraph reads an undefined value", code: "UNDEFINED_INPUT", graph: "main/If#2.then_branch", edit: func(m *tm.Model) {
			ifNode(m, "nowhere", "y")
		}},
		{name: "subgraph redefines an outer value", code: "MULTIPLE_PRODUCERS", graph: "main/If#2.else_branch", edit: func(m *tm.Model) {
			ifNode(m, "y", "s")
		}},
		{name: "subgraph with an unknown op", code: "OP_UNKNOWN", graph: "main/If#2.then_branch", edit: func(m *tm.Model) {
			ifNode(m, "y", "y")
			m.Proto.Graph.Node[2].Attribute[0].G.Node[0].OpType = "Nope"
		}},
		{name: "function body with an unknown op", code: "OP_UNKNOWN", graph: "function local.F", edit: func(m *tm.Model) {
			m.Opset("local", 1)
			m.Function("local", "F", []string{"a"}, []string{"b"}, tm.NodeProto("Nope", []string{"a"}, []string{"b"}))
			m.Node("F", []string{"y"}, []string{"z"}).Domain = "local"
			m.Output("z", tensor.Float, 2, 3)
		}},
		{name: "function output undefined", code: "OUTPUT_UNDEFINED", graph: "function local.F", edit: func(m *tm.Model) {
			m.Opset("local", 1)
			m.Function("local", "F", []string{"a"}, []string{"b"}, tm.NodeProto("Relu", []string{"a"}, []string{"c"}))
			m.Node("F", []string{"y"}, []string{"z"}).Domain = "local"
			m.Output("z", tensor.Float, 2, 3)
		}},
		{name: "function defined twice", code: "FUNCTION_DUPLICATE", edit: func(m *tm.Model) {
			m.Opset("local", 1)
			m.Function("local", "F", []string{"a"}, []string{"b"}, tm.NodeProto("Relu", []string{"a"}, []string{"b"}))
			m.Function("local", "F", []string{"a"}, []string{"b"}, tm.NodeProto("Relu", []string{"a"}, []string{"b"}))
			m.Node("F", []string{"y"}, []string{"z"}).Domain = "local"
			m.Output("z", tensor.Float, 2, 3)
		}},
		{name: "If branch returns too few values", code: "BODY_ARITY", edit: func(m *tm.Model) {
			ifNode(m, "y", "y2")
			node(m, 2).Output = []string{"z", "z2"}
		}},
		{name: "Einsum terms", code: "EINSUM_TERMS", edit: func(m *tm.Model) {
			m.Node("Einsum", []string{"y"}, []string{"z"}, tm.String("equation", "ij,jk->ik"))
			m.Output("z", tensor.Float, 2, 2)
		}},
		{name: "function called with too many inputs", code: "INPUT_COUNT", edit: func(m *tm.Model) {
			m.Opset("local", 1)
			m.Function("local", "F", []string{"a"}, []string{"b"}, tm.NodeProto("Relu", []string{"a"}, []string{"b"}))
			m.Node("F", []string{"y", "x"}, []string{"z"}).Domain = "local"
			m.Output("z", tensor.Float, 2, 3)
		}},
		{name: "function called with an unknown attribute", code: "ATTR_UNKNOWN", edit: func(m *tm.Model) {
			m.Opset("local", 1)
			m.Function("local", "F", []string{"a"}, []string{"b"}, tm.NodeProto("Relu", []string{"a"}, []string{"b"}))
			m.Node("F", []string{"y"}, []string{"z"}, tm.Int("alpha", 1)).Domain = "local"
			m.Output("z", tensor.Float, 2, 3)
		}},
		{name: "broadcast mismatch", code: "BROADCAST", edit: func(m *tm.Model) {
			m.Proto.Graph.Initializer[0].Dims = []int64{3, 1}
			m.Proto.Graph.Initializer[0].FloatData = []float32{1, 2, 3}
		}},
		{name: "conv channels", code: "CONV_CHANNELS", edit: func(m *tm.Model) {
			m.Input("img", tensor.Float, 1, 3, 8, 8)
			m.Init("k", tensor.New(tensor.Float, 4, 2, 3, 3))
			m.Node("Conv", []string{"img", "k"}, []string{"c"})
			m.Output("c", tensor.Float, 1, 4, 6, 6)
		}},
		{name: "reshape element count", code: "RESHAPE_COUNT", edit: func(m *tm.Model) {
			m.Init("shp", tensor.Of([]int{2}, []int64{4, 2}))
			m.Node("Reshape", []string{"y", "shp"}, []string{"z"})
			m.Output("z", tensor.Float, 4, 2)
		}},
		{name: "declared shape contradicts", code: "SHAPE_MISMATCH", edit: func(m *tm.Model) {
			m.Proto.Graph.Output[0] = &pb.ValueInfoProto{Name: "y", Type: tm.TensorType(tensor.Float, 3, 2)}
		}},
		{name: "declared dtype contradicts", code: "TYPE_MISMATCH", edit: func(m *tm.Model) {
			m.Proto.Graph.ValueInfo = append(m.Proto.Graph.ValueInfo, &pb.ValueInfoProto{Name: "s", Type: tm.TensorType(tensor.Int64, 2, 3)})
		}},
		{name: "matmul inner dims", code: "MATMUL", edit: func(m *tm.Model) {
			m.Init("mm", tensor.New(tensor.Float, 2, 5))
			m.Node("MatMul", []string{"y", "mm"}, []string{"z"})
			m.Output("z", tensor.Float, 2, 5)
		}},
		{name: "axis out of range", code: "AXIS", edit: func(m *tm.Model) {
			m.Node("Concat", []string{"y", "y"}, []string{"z"}, tm.Int("axis", 5))
			m.Output("z", tensor.Float, 2, 6)
		}},
	}
	if len(cases) < 40 {
		t.Fatalf("only %d broken models", len(cases))
	}
	for _, c := range cases {
		var r *check.Report
		if c.raw != nil {
			r = check.Bytes(c.raw, nil)
		} else {
			m := base()
			c.edit(m)
			r = check.Model(m.Proto, nil)
		}
		sev := c.sev
		if sev == "" {
			sev = check.Error
		}
		found := false
		for _, f := range r.Findings {
			if f.Code == c.code && f.Severity == sev && (c.graph == "" || f.Graph == c.graph) {
				found = true
			}
			if f.Code == "CHECKER_FAILED" {
				t.Errorf("%s: %v", c.name, f)
			}
		}
		if !found {
			t.Errorf("%s: want a %s %s, got %v", c.name, sev, c.code, r.Findings)
		}
		if sev == check.Error && r.OK() {
			t.Errorf("%s: report is OK", c.name)
		}
	}
}

func external(m *tm.Model, loc string) {
	w := m.Proto.Graph.Initializer[0]
	w.FloatData, w.RawData = nil, nil
	w.DataLocation = pb.TensorProto_EXTERNAL
	if loc != "" {
		w.ExternalData = []*pb.StringStringEntryProto{{Key: "location", Value: loc}}
	}
}

// ifNode adds an If whose then branch outputs Identity(thenIn) and whose else
// branch defines elseOut.
func ifNode(m *tm.Model, thenIn, elseOut string) {
	m.Input("cond", tensor.Bool)
	then := tm.NewGraph("then")
	then.Node("Identity", []string{thenIn}, []string{"t_out"})
	then.Output("t_out", tensor.Float, 2, 3)
	els := tm.NewGraph("else")
	els.Node("Identity", []string{"y"}, []string{elseOut})
	els.Output(elseOut, tensor.Float, 2, 3)
	m.Node("If", []string{"cond"}, []string{"z"}, tm.GraphAttr("then_branch", then), tm.GraphAttr("else_branch", els))
	m.Output("z", tensor.Float, 2, 3)
}

// TestAllFindingsAtOnce: one model with several independent problems gets
// every one of them, in one report.
func TestAllFindingsAtOnce(t *testing.T) {
	m := base()
	node(m, 1).OpType = "Frobnicate"
	m.Node("Concat", []string{"y", "nowhere"}, []string{"z"})
	m.Init("spare", tensor.Of([]int{1}, []float32{1}))
	m.Output("z", tensor.Float)
	r := check.Model(m.Proto, nil)
	var codes []string
	for _, f := range r.Findings {
		codes = append(codes, f.Code)
	}
	got := strings.Join(codes, " ")
	for _, want := range []string{"OP_UNKNOWN", "UNDEFINED_INPUT", "ATTR_REQUIRED", "INITIALIZER_UNUSED"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s in %s", want, got)
		}
	}
	if r.Errors < 3 || r.Warnings < 1 {
		t.Errorf("counts %d errors %d warnings", r.Errors, r.Warnings)
	}
	for _, f := range r.Findings {
		if f.Code == "OP_UNKNOWN" && (f.NodeIndex != 1 || f.Node != "Relu#1" && f.Node != "Frobnicate#1" || f.Op != "Frobnicate") {
			t.Errorf("OP_UNKNOWN located at %+v", f)
		}
	}
}
