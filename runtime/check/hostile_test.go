package check_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gort-dev/gort/runtime/check"
	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/graph"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
)

// TestHostileModels mutates node-suite models in ways a broken exporter
// might (dropped inputs, wrong attribute types, swapped ops, negative or huge
// dims, missing initializer data) and checks that neither the checker nor
// shape inference fails: no CHECKER_FAILED finding, no inference rule panic.
func TestHostileModels(t *testing.T) {
	dirs, _ := filepath.Glob("../../testdata/onnx-node/node/test_*")
	if len(dirs) < 1000 {
		// The vendored node suite has 1802 cases; fewer means it is missing,
		// and the test would check nothing.
		t.Fatalf("found %d node-suite models under testdata/onnx-node, want the vendored suite", len(dirs))
	}
	if testing.Short() {
		dirs = dirs[:300]
	}
	r := rand.New(rand.NewPCG(7, 11))
	ops := []string{"Conv", "Reshape", "Gather", "Concat", "Slice", "MatMul", "Gemm", "Resize", "Pad", "Split", "Squeeze",
		"Unsqueeze", "Transpose", "Expand", "Tile", "TopK", "Loop", "If", "Scan", "ReduceSum", "Attention", "LSTM", "GatherND", "OneHot"}
	mutations := []func(m *pb.ModelProto){
		func(m *pb.ModelProto) { // drop an input of a node
			if n := pick(r, m.GetGraph().GetNode()); n != nil && len(n.Input) > 0 {
				n.Input = n.Input[:r.IntN(len(n.Input))]
			}
		},
		func(m *pb.ModelProto) { // retype every attribute
			for _, n := range m.GetGraph().GetNode() {
				for _, a := range n.Attribute {
					a.Type = pb.AttributeProto_AttributeType(r.IntN(15))
					a.Ints = []int64{-1, 1 << 40, 0}
				}
			}
		},
		func(m *pb.ModelProto) { // another op in place of one
			if n := pick(r, m.GetGraph().GetNode()); n != nil {
				n.OpType = ops[r.IntN(len(ops))]
			}
		},
		func(m *pb.ModelProto) { // hostile declared dims
			for _, in := range m.GetGraph().GetInput() {
				if tt := in.GetType().GetTensorType(); tt != nil && tt.GetShape() != nil {
					for _, d := range tt.GetShape().GetDim() {
						d.Value = &pb.TensorShapeProto_Dimension_DimValue{DimValue: []int64{-5, 0, 1 << 50}[r.IntN(3)]}
					}
				}
			}
		},
		func(m *pb.ModelProto) { // initializers lose their data, or gain dims
			for _, i := range m.GetGraph().GetInitializer() {
				i.Dims = append(i.Dims, 3)
				i.RawData = i.RawData[:len(i.RawData)/2]
			}
		},
		func(m *pb.ModelProto) { // shuffle node order and outputs
			g := m.GetGraph()
			r.Shuffle(len(g.Node), func(i, j int) { g.Node[i], g.Node[j] = g.Node[j], g.Node[i] })
			if n := pick(r, g.GetNode()); n != nil && len(n.Output) > 0 {
				n.Output = append(n.Output, n.Output[0])
			}
		},
	}
	checked := 0
	for _, d := range dirs {
		data, err := os.ReadFile(filepath.Join(d, "model.onnx"))
		if err != nil {
			t.Fatal(err)
		}
		for k, mutate := range mutations {
			m := &pb.ModelProto{}
			if err := pb.Unmarshal(data, m); err != nil {
				t.Fatal(err)
			}
			mutate(m)
			rep := check.Model(m, nil)
			checked++
			// The checker is at least as strict as the loader: a model the
			// loader refuses as malformed has an error finding.
			// (Attention's builders also refuse combinations of optional
			// inputs that the spec describes only in prose.)
			if _, err := graph.FromProto(pb.Clone(m), graph.Options{}); err != nil && errs.CodeOf(err) == errs.BadModel && rep.OK() &&
				!strings.Contains(err.Error(), "Attention#") {
				t.Errorf("%s mutation %d: the loader refuses it (%v) but the checker finds no error", filepath.Base(d), k, err)
			}
			for _, f := range rep.Findings {
				if f.Code == "CHECKER_FAILED" || f.Code == "INFERENCE_FAILED" {
					t.Errorf("%s mutation %d: %s", filepath.Base(d), k, f)
				}
			}
			if rep.Shapes != nil {
				for name, v := range rep.Shapes.Values {
					if strings.Contains(v.Why, "inference failed") {
						t.Errorf("%s mutation %d: %q: %s", filepath.Base(d), k, name, v.Why)
					}
				}
			}
		}
	}
	t.Logf("%d mutated models checked", checked)
}

func pick(r *rand.Rand, nodes []*pb.NodeProto) *pb.NodeProto {
	if len(nodes) == 0 {
		return nil
	}
	return nodes[r.IntN(len(nodes))]
}
