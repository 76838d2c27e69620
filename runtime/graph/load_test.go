package graph_test

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/graph"
	tm "github.com/gort-dev/gort/runtime/internal/testmodel"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/tensor"
	"google.golang.org/protobuf/encoding/protowire"
)

func load(t *testing.T, m *tm.Model) (*graph.Model, error) {
	t.Helper()
	return loadAndPlan(m.Bytes(), graph.Options{Registry: tm.Registry(nil)})
}

// loadAndPlan loads a model and compiles its plan, as a session does:
// attribute errors surface when the plan builds the kernels.
func loadAndPlan(data []byte, o graph.Options) (*graph.Model, error) {
	m, err := graph.Load(data, o)
	if err != nil {
		return nil, err
	}
	if _, err := plan.Compile(m, nil, plan.Options{Level: plan.Disabled}); err != nil {
		return nil, err
	}
	return m, nil
}

// wantErr checks that err is an *errs.Error with the code, naming node
// and/or tensor (when not ""), and whose text contains every of msgs.
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

func named(g *tm.Graph, name, opType string, in, out []string, attrs ...*pb.AttributeProto) *pb.NodeProto {
	n := g.Node(opType, in, out, attrs...)
	n.Name = name
	return n
}

func nodeNames(g *graph.Graph) []string {
	var out []string
	for _, n := range g.Nodes {
		out = append(out, n.Name)
	}
	return out
}

func TestTopologicalOrder(t *testing.T) {
	m := tm.New(13)
	m.Input("x", tensor.Float, 2)
	named(m.Graph, "C", "Add", []string{"b", "a"}, []string{"y"})
	named(m.Graph, "B", "Add", []string{"a", "a"}, []string{"b"})
	named(m.Graph, "D", "Identity", []string{"x"}, []string{"d"})
	named(m.Graph, "A", "Identity", []string{"x"}, []string{"a"})
	m.Output("y", tensor.Float, 2)
	g, err := load(t, m)
	if err != nil {
		t.Fatal(err)
	}
	// Ties keep model order: D (ready at once) precedes A, its equal.
	if got, want := nodeNames(g.Graph), []string{"D", "A", "B", "C"}; !reflect.DeepEqual(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

func TestGraphStructureErrors(t *testing.T) {
	cases := []struct {
		name  string
		build func(m *tm.Model)
		node  string
		tname string
		msg   string
	}{
		{"cycle", func(m *tm.Model) {
			named(m.Graph, "n1", "Add", []string{"x", "b"}, []string{"a"})
			named(m.Graph, "n2", "Identity", []string{"a"}, []string{"b"})
			m.Output("a", tensor.Float, 2)
		}, "n1", "", "cycle"},
		{"self loop", func(m *tm.Model) {
			named(m.Graph, "self", "Add", []string{"x", "a"}, []string{"a"})
			m.Output("a", tensor.Float, 2)
		}, "self", "", "cycle"},
		{"dangling input", func(m *tm.Model) {
			named(m.Graph, "n", "Add", []string{"x", "nowhere"}, []string{"y"})
			m.Output("y", tensor.Float, 2)
		}, "n", "", `"nowhere"`},
		{"duplicate producers", func(m *tm.Model) {
			named(m.Graph, "p1", "Identity", []string{"x"}, []string{"y"})
			named(m.Graph, "p2", "Identity", []string{"x"}, []string{"y"})
			m.Output("y", tensor.Float, 2)
		}, "p2", "y", "produced twice"},
		{"node output shadows input", func(m *tm.Model) {
			named(m.Graph, "p", "Identity", []string{"x"}, []string{"x"})
			m.Output("x", tensor.Float, 2)
		}, "p", "x", "produced twice"},
		{"output not produced", func(m *tm.Model) {
			named(m.Graph, "p", "Identity", []string{"x"}, []string{"y"})
			m.Output("z", tensor.Float, 2)
		}, "", "z", "not produced"},
		{"input listed twice", func(m *tm.Model) {
			m.Input("x", tensor.Float, 2)
			m.Output("x", tensor.Float, 2)
		}, "", "x", "twice"},
		{"overridable initializer listed twice", func(m *tm.Model) {
			m.Init("w", tensor.Of([]int{2}, []float32{1, 2}))
			m.Input("w", tensor.Float, 2)
			m.Input("w", tensor.Float, 2)
			m.Output("w", tensor.Float, 2)
		}, "", "w", "twice"},
		{"initializer twice", func(m *tm.Model) {
			m.Init("w", tensor.Of([]int{2}, []float32{1, 2}))
			m.Init("w", tensor.Of([]int{2}, []float32{1, 2}))
			m.Output("w", tensor.Float, 2)
		}, "", "w", "produced twice"},
		{"no op_type", func(m *tm.Model) {
			named(m.Graph, "empty", "", []string{"x"}, []string{"y"})
			m.Output("y", tensor.Float, 2)
		}, "empty", "", "op_type"},
		{"attribute twice", func(m *tm.Model) {
			named(m.Graph, "s", "Scale", []string{"x"}, []string{"y"}, tm.Float("alpha", 1), tm.Float("alpha", 2)).Domain = tm.Domain
			m.Opset(tm.Domain, 1)
			m.Output("y", tensor.Float, 2)
		}, "s", "", "twice"},
		{"attribute of the wrong type", func(m *tm.Model) {
			named(m.Graph, "s", "Scale", []string{"x"}, []string{"y"}, tm.Int("alpha", 1)).Domain = tm.Domain
			m.Opset(tm.Domain, 1)
			m.Output("y", tensor.Float, 2)
		}, "s", "", "alpha"},
		{"unnamed input", func(m *tm.Model) {
			m.Input("", tensor.Float, 2)
			m.Output("x", tensor.Float, 2)
		}, "", "", "without a name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := tm.New(13)
			m.Input("x", tensor.Float, 2)
			c.build(m)
			_, err := load(t, m)
			wantErr(t, err, errs.BadModel, c.node, c.tname, c.msg)
		})
	}
}

func TestVersionResolution(t *testing.T) {
	cases := []struct {
		opset   int
		opType  string
		version int    // 0: unsupported
		problem string // for unsupported
	}{
		{12, "Add", 7, ""},
		{13, "Add", 13, ""},
		{18, "Add", 14, ""},
		{11, "Resize", 11, ""},
		{12, "Resize", 11, ""},
		{18, "Resize", 18, "Resize-18 needed for opset 18; gort implements Resize-10, 11, 13"},
		{19, "Resize", 19, "Resize-19 needed for opset 19; gort implements Resize-10, 11, 13"},
		{9, "Resize", 0, "Resize does not exist at opset 9"},
		{13, "NoSuchOp", 0, "NoSuchOp is not an ONNX operator"},
		{13, "Conv", 0, "gort does not implement Conv"},
	}
	for _, c := range cases {
		m := tm.New(c.opset)
		m.Opset("com.example.unused", 3) // imported but unused: tolerated
		m.Input("x", tensor.Float, 2)
		// Three inputs: Resize-11 requires roi and scales.
		named(m.Graph, "the_node", c.opType, []string{"x", "x", "x"}, []string{"y"})
		m.Output("y", tensor.Float, 2)
		g, err := load(t, m)
		if err != nil {
			t.Errorf("%s at opset %d: load failed: %v", c.opType, c.opset, err)
			continue
		}
		n := g.Graph.Nodes[0]
		if c.problem == "" {
			if n.Problem != nil || n.Version != c.version {
				t.Errorf("%s at opset %d: version %d, problem %v; want version %d", c.opType, c.opset, n.Version, n.Problem, c.version)
			}
			continue
		}
		if n.Builder != nil || n.Problem == nil {
			t.Errorf("%s at opset %d: resolved to version %d, want unsupported", c.opType, c.opset, n.Version)
			continue
		}
		wantErr(t, n.Problem, errs.UnsupportedOp, "the_node", "", c.problem)
		if u := g.Unsupported(); len(u) != 1 || u[0] != n {
			t.Errorf("Unsupported() = %v", u)
		}
	}
}

func TestDomainNotImported(t *testing.T) {
	m := tm.New(13)
	m.Input("x", tensor.Float, 2)
	named(m.Graph, "s", "Scale", []string{"x"}, []string{"y"}).Domain = tm.Domain
	m.Output("y", tensor.Float, 2)
	g, err := load(t, m)
	if err != nil {
		t.Fatal(err)
	}
	wantErr(t, g.Graph.Nodes[0].Problem, errs.UnsupportedOp, "s", "", `domain "test.gort"`)
}

func TestOpsetImportErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		imp  []*pb.OperatorSetIdProto
		msg  string
	}{
		{"twice", []*pb.OperatorSetIdProto{{Domain: "", Version: 13}, {Domain: "ai.onnx", Version: 12}}, "twice"},
		{"zero", []*pb.OperatorSetIdProto{{Domain: "", Version: 0}}, "version 0"},
		{"huge", []*pb.OperatorSetIdProto{{Domain: "x", Version: 1 << 40}}, "version"},
	} {
		m := tm.New(13)
		m.Proto.OpsetImport = c.imp
		m.Input("x", tensor.Float, 2).Output("x", tensor.Float, 2)
		_, err := load(t, m)
		wantErr(t, err, errs.BadModel, "", "", c.msg)
	}
}

func TestIRVersion(t *testing.T) {
	for _, c := range []struct {
		ir int64
		ok bool
	}{{0, false}, {2, false}, {3, true}, {8, true}, {13, true}, {14, false}, {1 << 40, false}, {-1, false}} {
		m := tm.New(13)
		m.Proto.IrVersion = c.ir
		m.Input("x", tensor.Float, 2).Output("x", tensor.Float, 2)
		_, err := load(t, m)
		if c.ok && err != nil {
			t.Errorf("ir_version %d: %v", c.ir, err)
		}
		if !c.ok {
			wantErr(t, err, errs.BadModel, "", "", "ir_version")
		}
	}
}

func TestHostileBytes(t *testing.T) {
	good, err := os.ReadFile("../../testdata/bench/test_squeezenet/model.onnx")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"garbage", []byte("\xff\xff\xff\xff\xff this is not protobuf")},
		{"truncated", good[:len(good)/2]},
		{"truncated varint", []byte{0x08}},
		{"field with huge length", []byte{0x3a, 0xff, 0xff, 0xff, 0xff, 0x0f}},
		{"no graph", []byte{0x08, 0x08}},
	} {
		_, err := graph.Load(c.data, graph.Options{})
		wantErr(t, err, errs.BadModel, "", "")
	}
}

// A file of empty NodeProtos (2 bytes of input each, a struct of ~200 bytes
// each when decoded: 800 KB inflating to 80 MB) must hit the memory budget,
// not exhaust memory.
func TestHostileMessageInflation(t *testing.T) {
	var graphBytes []byte
	for i := 0; i < 400000; i++ {
		graphBytes = append(graphBytes, 0x0a, 0x00) // GraphProto.node = {}
	}
	model := append([]byte{0x08, 0x08, 0x3a}, protowire.AppendVarint(nil, uint64(len(graphBytes)))...) // ir_version 8, graph
	model = append(model, graphBytes...)
	_, err := graph.Load(model, graph.Options{MaxTensorBytes: 1 << 20}) // the floor, 64 MiB, applies
	wantErr(t, err, errs.TooLarge, "", "", "memory budget", "graph.node")
	// The same bytes within a large enough budget decode (and then fail
	// validation: the nodes have no op_type).
	_, err = graph.Load(model, graph.Options{MaxTensorBytes: 1 << 30})
	wantErr(t, err, errs.BadModel, "", "")
}

func TestHostileInitializers(t *testing.T) {
	dt := int32(tensor.Float)
	cases := []struct {
		name     string
		tp       *pb.TensorProto
		maxBytes int64
		code     errs.Code
		msg      string
	}{
		{"dims need more bytes than carried", &pb.TensorProto{Name: "w", DataType: dt, Dims: []int64{1 << 20}, RawData: make([]byte, 8)},
			0, errs.BadModel, "raw_data has 8 bytes"},
		{"dims need more typed values", &pb.TensorProto{Name: "w", DataType: dt, Dims: []int64{1 << 25}, FloatData: []float32{1}},
			0, errs.BadModel, "float_data has 1"},
		{"product overflows int64", &pb.TensorProto{Name: "w", DataType: dt, Dims: []int64{1 << 32, 1 << 32, 1 << 32}, RawData: make([]byte, 4)},
			0, errs.TooLarge, "overflow"},
		{"over the default budget", &pb.TensorProto{Name: "w", DataType: dt, Dims: []int64{1 << 30}, RawData: make([]byte, 4)},
			0, errs.TooLarge, "budget"},
		{"over MaxTensorBytes", &pb.TensorProto{Name: "w", DataType: dt, Dims: []int64{64}, RawData: make([]byte, 256)},
			255, errs.TooLarge, "255 bytes"},
		{"negative dim", &pb.TensorProto{Name: "w", DataType: dt, Dims: []int64{-4}}, 0, errs.BadModel, "negative"},
		{"unknown dtype", &pb.TensorProto{Name: "w", DataType: 1000}, 0, errs.BadModel, "data_type"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := tm.New(13)
			m.InitProto(c.tp)
			m.Output("w", tensor.Float)
			_, err := graph.Load(m.Bytes(), graph.Options{Registry: tm.Registry(nil), MaxTensorBytes: c.maxBytes})
			wantErr(t, err, c.code, "", "w", c.msg)
		})
	}
	// A nameless initializer is refused before its data is looked at.
	m := tm.New(13)
	m.InitProto(&pb.TensorProto{DataType: dt, RawData: make([]byte, 4)})
	m.Input("x", tensor.Float).Output("x", tensor.Float)
	_, err := load(t, m)
	wantErr(t, err, errs.BadModel, "", "", "no name")
}

func TestSparseInitializer(t *testing.T) {
	m := tm.New(13)
	m.SparseInitializer = append(m.SparseInitializer, &pb.SparseTensorProto{
		Dims:    []int64{2, 2},
		Values:  &pb.TensorProto{Name: "sp", DataType: int32(tensor.Int64), Dims: []int64{2}, Int64Data: []int64{7, 9}},
		Indices: &pb.TensorProto{DataType: int32(tensor.Int64), Dims: []int64{2, 2}, Int64Data: []int64{0, 1, 1, 0}},
	})
	m.Output("sp", tensor.Int64, 2, 2)
	g, err := load(t, m)
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Graph.Initializers["sp"].I64(); !reflect.DeepEqual(got, []int64{0, 7, 9, 0}) {
		t.Errorf("dense value %v", got)
	}

	bad := tm.New(13)
	bad.SparseInitializer = append(bad.SparseInitializer, &pb.SparseTensorProto{
		Dims:    []int64{2},
		Values:  &pb.TensorProto{Name: "sp", DataType: int32(tensor.Int64), Dims: []int64{1}, Int64Data: []int64{7}},
		Indices: &pb.TensorProto{DataType: int32(tensor.Int64), Dims: []int64{1}, Int64Data: []int64{2}},
	})
	bad.Output("sp", tensor.Int64, 2)
	_, err = load(t, bad)
	wantErr(t, err, errs.BadModel, "", "sp", "out of range")

	unnamed := tm.New(13)
	unnamed.SparseInitializer = append(unnamed.SparseInitializer, &pb.SparseTensorProto{
		Dims:    []int64{2},
		Values:  &pb.TensorProto{DataType: int32(tensor.Int64), Dims: []int64{1}, Int64Data: []int64{7}},
		Indices: &pb.TensorProto{DataType: int32(tensor.Int64), Dims: []int64{1}, Int64Data: []int64{0}},
	})
	unnamed.Input("x", tensor.Float).Output("x", tensor.Float)
	_, err = load(t, unnamed)
	wantErr(t, err, errs.BadModel, "", "", "no name")
}

func TestSubgraphNestingLimit(t *testing.T) {
	// Wrap is unknown to the registry: its GRAPH attribute is still loaded.
	inner := tm.NewGraph("g0")
	inner.Input("x", tensor.Float).Output("x", tensor.Float)
	for i := 0; i < 70; i++ {
		outer := tm.NewGraph("g")
		outer.Input("x", tensor.Float)
		outer.Node("Wrap", []string{"x"}, []string{"y"}, tm.GraphAttr("body", inner)).Domain = tm.Domain
		outer.Output("y", tensor.Float)
		inner = outer
	}
	m := tm.New(13)
	m.Opset(tm.Domain, 1)
	m.Input("x", tensor.Float)
	m.Node("Wrap", []string{"x"}, []string{"y"}, tm.GraphAttr("body", inner)).Domain = tm.Domain
	m.Output("y", tensor.Float)
	_, err := load(t, m)
	wantErr(t, err, errs.BadModel, "", "", "nested deeper")
}

func TestSubgraphOuterScope(t *testing.T) {
	// The body reads "a" from the enclosing graph: the node containing it
	// must run after a's producer, even though it is listed first.
	body := tm.NewGraph("body")
	body.Node("Add", []string{"a", "a"}, []string{"r"})
	body.Output("r", tensor.Float)
	m := tm.New(13)
	m.Opset(tm.Domain, 1)
	m.Input("x", tensor.Float)
	named(m.Graph, "wrap", "Wrap", []string{"x"}, []string{"y"}, tm.GraphAttr("body", body)).Domain = tm.Domain
	named(m.Graph, "prod", "Identity", []string{"x"}, []string{"a"})
	m.Output("y", tensor.Float)
	g, err := load(t, m)
	if err != nil {
		t.Fatal(err)
	}
	if got := nodeNames(g.Graph); !reflect.DeepEqual(got, []string{"prod", "wrap"}) {
		t.Errorf("order %v", got)
	}
	wrap := g.Graph.Nodes[1]
	if !reflect.DeepEqual(wrap.Reads, []string{"a", "x"}) {
		t.Errorf("wrap reads %v, want [a x]", wrap.Reads)
	}
	sub := wrap.Graphs["body"][0].(*graph.Graph)
	if !reflect.DeepEqual(sub.FreeVars, []string{"a"}) {
		t.Errorf("body free vars %v", sub.FreeVars)
	}

	// A body reading a name nobody defines is dangling.
	bad := tm.NewGraph("body")
	bad.Node("Add", []string{"ghost", "ghost"}, []string{"r"})
	bad.Output("r", tensor.Float)
	m2 := tm.New(13)
	m2.Opset(tm.Domain, 1)
	m2.Input("x", tensor.Float)
	named(m2.Graph, "wrap", "Wrap", []string{"x"}, []string{"y"}, tm.GraphAttr("body", bad)).Domain = tm.Domain
	m2.Output("y", tensor.Float)
	_, err = load(t, m2)
	wantErr(t, err, errs.BadModel, "", "", `"ghost"`)
}

// TestNodeReadsAndDefaultNames: a node's Reads are its inputs sorted and
// without repeats (B reads "a" twice, the unnamed Add reads them out of
// order); an unnamed node is named op type # index.
func TestNodeReadsAndDefaultNames(t *testing.T) {
	m := tm.New(13)
	m.Input("x", tensor.Float, 2)
	named(m.Graph, "A", "Identity", []string{"x"}, []string{"a"})
	named(m.Graph, "B", "Add", []string{"a", "a"}, []string{"b"})
	m.Graph.Node("Add", []string{"x", "b"}, []string{"y"})
	m.Output("y", tensor.Float, 2)
	g, err := load(t, m)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"A": {"x"}, "B": {"a"}, "Add#2": {"b", "x"}}
	if got := nodeNames(g.Graph); !reflect.DeepEqual(got, []string{"A", "B", "Add#2"}) {
		t.Fatalf("nodes %v, want [A B Add#2]", got)
	}
	for _, n := range g.Graph.Nodes {
		if !reflect.DeepEqual(n.Reads, want[n.Name]) {
			t.Errorf("%s reads %v, want %v", n.Name, n.Reads, want[n.Name])
		}
	}
}
