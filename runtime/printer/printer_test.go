package printer_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	_ "github.com/gort-dev/gort/ops"
	gort "github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/graph"
	tm "github.com/gort-dev/gort/runtime/internal/testmodel"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/printer"
	"github.com/gort-dev/gort/runtime/tensor"
)

func model() *tm.Model {
	m := tm.New(17)
	m.Input("x", tensor.Float, "N", 3)
	m.Input("cond", tensor.Bool)
	m.Init("w", tensor.Of([]int{3}, []float32{1, 2, 3}))
	m.Node("Add", []string{"x", "w"}, []string{"s"})
	m.Node("Softmax", []string{"s"}, []string{"p"}, tm.Int("axis", -1))
	then := tm.NewGraph("then")
	then.Node("Neg", []string{"p"}, []string{"t"})
	then.Output("t", tensor.Float, "N", 3)
	els := tm.NewGraph("else")
	els.Node("Identity", []string{"p"}, []string{"e"})
	els.Output("e", tensor.Float, "N", 3)
	m.Node("If", []string{"cond"}, []string{"y"}, tm.GraphAttr("then_branch", then), tm.GraphAttr("else_branch", els))
	m.Output("y", tensor.Float, "N", 3)
	return m
}

// The expected text is written by hand.
const want = `ir_version 8, opsets ai.onnx 17
graph main (
  %x: float32[N,3]
  %cond: bool[]
) initializers (
  %w: float32[3]
) {
  %s: float32[N,3] = Add(%x, %w)
  %p: float32[N,3] = Softmax[axis = -1](%s)
  %y: float32[N,3] = If[else_branch = @else_branch, then_branch = @then_branch](%cond)
    @else_branch:
      graph else (
      ) {
        %e: float32[N,3] = Identity(%p)
        return %e: float32[N,3]
      }
    @then_branch:
      graph then (
      ) {
        %t: float32[N,3] = Neg(%p)
        return %t: float32[N,3]
      }
  return %y: float32[N,3]
}
`

func TestText(t *testing.T) {
	var b bytes.Buffer
	if err := printer.Text(&b, printer.Build(model().Proto, nil)); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestJSON(t *testing.T) {
	m := model()
	m.Node("Constant", nil, []string{"k"}, &pb.AttributeProto{Name: "value", Type: pb.AttributeProto_TENSOR, T: tensorProto()})
	js, err := json.Marshal(printer.Build(m.Proto, nil))
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	g := back["graph"].(map[string]any)
	nodes := g["nodes"].([]any)
	ifNode := nodes[2].(map[string]any)
	if ifNode["op"] != "If" || ifNode["subgraphs"].(map[string]any)["then_branch"] == nil {
		t.Errorf("If node: %v", ifNode)
	}
	out := nodes[0].(map[string]any)["outputs"].([]any)[0].(map[string]any)
	if sh := out["shape"].([]any); len(sh) != 2 || sh[0] != "N" || sh[1] != 3.0 || out["elem"] != "float32" {
		t.Errorf("s: %v", out)
	}
	k := nodes[3].(map[string]any)
	if v := k["attrs"].(map[string]any)["value"]; v != "int64[2] {4, 5}" {
		t.Errorf("Constant value: %v", v)
	}
	if !strings.Contains(string(js), `"opsets":{"ai.onnx":17}`) {
		t.Errorf("opsets: %s", js[:80])
	}
}

func tensorProto() *pb.TensorProto {
	return &pb.TensorProto{DataType: int32(tensor.Int64), Dims: []int64{2}, Int64Data: []int64{4, 5}}
}

// fakeGPU takes Conv (with what the plan fuses into it) and declines the rest.
type fakeGPU struct{}

func (fakeGPU) Device() plan.Device { return "fakegpu" }

func (fakeGPU) Kernel(n *op.Node, _ any, _ []graph.Type) (any, string) {
	if n.OpType != "Conv" {
		return nil, "fakegpu runs Conv only"
	}
	return noKernel{}, ""
}

type noKernel struct{}

func (noKernel) RunValues(*op.Context, []tensor.Value) ([]tensor.Value, error) { return nil, nil }

// TestPlacements: with a plan, each node line says where it runs, why a
// node stays on the CPU, and which step a fused node runs in.
func TestPlacements(t *testing.T) {
	m := tm.New(17)
	m.Input("x", tensor.Float, 1, 2, 5, 4)
	m.Init("w", tensor.New(tensor.Float, 3, 2, 3, 3))
	m.Node("Conv", []string{"x", "w"}, []string{"c"})
	m.Node("Relu", []string{"c"}, []string{"r"})
	m.Node("Softmax", []string{"r"}, []string{"y"})
	m.Output("y", tensor.Float, 1, 3, 3, 2)
	s, err := gort.Load(m.Bytes(), &gort.Options{Accelerator: fakeGPU{}})
	if err != nil {
		t.Fatal(err)
	}
	pm := printer.Build(m.Proto, nil)
	pm.Place(s.Plan(), "cpu")
	var b bytes.Buffer
	if err := printer.Text(&b, pm); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"%c: float32[1,3,3,2] = Conv(%x, %w)  # on fakegpu\n",
		"%r: float32[1,3,3,2] = Relu(%c)  # on fakegpu, fused into Conv#0\n",
		"%y: float32[1,3,3,2] = Softmax(%r)  # on cpu: fakegpu runs Conv only\n",
		"transfers (plan steps, in run order):\n",
		"  upload %x to fakegpu (160 B), before Conv#0: a feed, which a caller may give on either side; one already there passes through\n",
		"  download %r from fakegpu (72 B), before Softmax#2\n",
	} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("missing %q in\n%s", line, b.String())
		}
	}
	js, err := json.Marshal(pm)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `"placement":{"device":"cpu","reason":"fakegpu runs Conv only"}`) {
		t.Errorf("JSON without the Softmax placement: %s", js)
	}
	if !strings.Contains(string(js), `"transfers":[{"kind":"upload","value":"x","device":"fakegpu","bytes":160,"before":"Conv#0"`) {
		t.Errorf("JSON without the transfers: %s", js)
	}
	// Without a plan the text has no placement comments.
	b.Reset()
	if err := printer.Text(&b, printer.Build(m.Proto, nil)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "#") {
		t.Errorf("placements without a plan:\n%s", b.String())
	}
}
