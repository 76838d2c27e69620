package graph_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	tm "github.com/gort-dev/gort/runtime/internal/testmodel"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

// regressionSeeds are hand-made hostile models for the bugs fixed in the
// loader; they are written to testdata/fuzz/FuzzLoad (where plain go test
// runs them) by `GORT_WRITE_SEEDS=1 go test -run TestWriteRegressionSeeds`.
func regressionSeeds() map[string][]byte {
	seeds := map[string][]byte{}

	// Dims promising 2 GiB with 8 bytes of payload: refused before allocating.
	m := tm.New(13)
	m.InitProto(&pb.TensorProto{Name: "w", DataType: int32(tensor.Double), Dims: []int64{1 << 28}, RawData: make([]byte, 8)})
	m.Output("w", tensor.Double)
	seeds["huge_dims_tiny_payload"] = m.Bytes()

	// A chain of functions each calling the next twice: 2^30 nodes if inlined.
	m = tm.New(13)
	m.Opset("f", 1)
	for i := 0; i < 30; i++ {
		m.Function("f", fmt.Sprint("F", i), []string{"x"}, []string{"y"},
			tm.Named(tm.NodeProto(fmt.Sprint("F", i+1), []string{"x"}, []string{"a"}), "", "f"),
			tm.Named(tm.NodeProto(fmt.Sprint("F", i+1), []string{"a"}, []string{"y"}), "", "f"))
	}
	m.Function("f", "F30", []string{"x"}, []string{"y"}, tm.NodeProto("Identity", []string{"x"}, []string{"y"}))
	m.Input("x", tensor.Float, 1)
	tm.Named(m.Node("F0", []string{"x"}, []string{"y"}), "", "f")
	m.Output("y", tensor.Float, 1)
	seeds["exponential_functions"] = m.Bytes()

	// A function that calls itself from inside an If branch.
	m = tm.New(13)
	m.Opset("f", 1)
	branch := tm.NewGraph("branch")
	tm.Named(branch.Node("R", []string{"x"}, []string{"r"}), "", "f")
	branch.Output("r", tensor.Float, 1)
	m.Function("f", "R", []string{"x", "c"}, []string{"y"},
		tm.NodeProto("If", []string{"c"}, []string{"y"}, tm.GraphAttr("then_branch", branch), tm.GraphAttr("else_branch", branch)))
	m.Input("x", tensor.Float, 1)
	m.Input("c", tensor.Bool)
	tm.Named(m.Node("R", []string{"x", "c"}, []string{"y"}), "", "f")
	m.Output("y", tensor.Float, 1)
	seeds["recursive_function_in_if"] = m.Bytes()

	// A sparse initializer whose dense form exceeds the budget.
	m = tm.New(13)
	m.SparseInitializer = append(m.SparseInitializer, &pb.SparseTensorProto{
		Dims:    []int64{1 << 40},
		Values:  &pb.TensorProto{Name: "sp", DataType: int32(tensor.Float), Dims: []int64{1}, FloatData: []float32{1}},
		Indices: &pb.TensorProto{DataType: int32(tensor.Int64), Dims: []int64{1}, Int64Data: []int64{1 << 39}},
	})
	m.Output("sp", tensor.Float)
	seeds["sparse_over_budget"] = m.Bytes()

	// External data with a hostile offset and no files given.
	m = tm.New(13)
	m.InitProto(&pb.TensorProto{Name: "w", DataType: int32(tensor.Float), Dims: []int64{1}, DataLocation: pb.TensorProto_EXTERNAL,
		ExternalData: []*pb.StringStringEntryProto{{Key: "location", Value: "../../etc/passwd"}, {Key: "offset", Value: "-1"}}})
	m.Output("w", tensor.Float)
	seeds["external_hostile"] = m.Bytes()

	// A wide graph: many independent nodes ready at once behind a chain.
	m = tm.New(13)
	m.Input("x", tensor.Float, 1)
	prev := "x"
	for i := 0; i < 200; i++ {
		out := "c" + strconv.Itoa(i)
		m.Node("Identity", []string{prev}, []string{out})
		m.Node("Identity", []string{"x"}, []string{"w" + strconv.Itoa(i)})
		prev = out
	}
	m.Output(prev, tensor.Float, 1)
	seeds["wide_and_deep"] = m.Bytes()
	return seeds
}

func TestWriteRegressionSeeds(t *testing.T) {
	if os.Getenv("GORT_WRITE_SEEDS") == "" {
		t.Skip("set GORT_WRITE_SEEDS=1 to rewrite testdata/fuzz/FuzzLoad/regress_*")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzLoad")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, b := range regressionSeeds() {
		body := "go test fuzz v1\n[]byte(" + strconv.Quote(string(b)) + ")\n"
		if err := os.WriteFile(filepath.Join(dir, "regress_"+name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
