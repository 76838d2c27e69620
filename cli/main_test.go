package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/gort-dev/gort/runtime/npy"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

func vi(name string, dims ...int64) *pb.ValueInfoProto {
	shape := &pb.TensorShapeProto{}
	for _, d := range dims {
		shape.Dim = append(shape.Dim, &pb.TensorShapeProto_Dimension{Value: &pb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
	}
	return &pb.ValueInfoProto{Name: name, Type: &pb.TypeProto{Value: &pb.TypeProto_TensorType{TensorType: &pb.TypeProto_Tensor{ElemType: int32(tensor.Float), Shape: shape}}}}
}

// model writes y = Relu(x + w) · w with x float32[2,3] (nodes "add", "relu", "scale").
func model(t *testing.T, dir string, edit func(g *pb.GraphProto)) string {
	g := &pb.GraphProto{
		Name:        "g",
		Input:       []*pb.ValueInfoProto{vi("x", 2, 3)},
		Output:      []*pb.ValueInfoProto{vi("y", 2, 3)},
		Initializer: []*pb.TensorProto{{Name: "w", DataType: int32(tensor.Float), Dims: []int64{3}, FloatData: []float32{1, -1, 2}}},
		Node: []*pb.NodeProto{
			{Name: "add", OpType: "Add", Input: []string{"x", "w"}, Output: []string{"s"}},
			{Name: "relu", OpType: "Relu", Input: []string{"s"}, Output: []string{"r"}},
			{Name: "scale", OpType: "Mul", Input: []string{"r", "w"}, Output: []string{"y"}},
		},
	}
	if edit != nil {
		edit(g)
	}
	m := &pb.ModelProto{IrVersion: 8, OpsetImport: []*pb.OperatorSetIdProto{{Version: 17}}, Graph: g}
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "model.onnx")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func gort(args ...string) (string, string, int) {
	var out, errb bytes.Buffer
	e := &env{out: &out, err: &errb}
	code := e.main(args)
	return out.String(), errb.String(), code
}

func writeNpy(t *testing.T, path string, x *tensor.Tensor) {
	b, err := npy.Write(x)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestUsage(t *testing.T) {
	if _, _, code := gort(); code != exitUsage {
		t.Errorf("no args: %d", code)
	}
	if out, _, code := gort("--help"); code != 0 || !strings.Contains(out, "diverge") {
		t.Errorf("--help: %d %s", code, out)
	}
	if _, _, code := gort("frobnicate", "m.onnx"); code != exitUsage {
		t.Errorf("unknown verb: %d", code)
	}
	for _, v := range []string{"check", "inspect", "print", "run", "compare", "diverge", "bench"} {
		out, _, code := gort(v, "--help")
		if code != 0 || !strings.Contains(out, "usage: gort "+v) || !strings.Contains(out, "-json") {
			t.Errorf("%s --help: %d\n%s", v, code, out)
		}
		if _, _, code := gort(v); code != exitUsage {
			t.Errorf("%s without a model: %d", v, code)
		}
		if _, _, code := gort(v, "--no-such-flag", "m.onnx"); code != exitUsage {
			t.Errorf("%s with a bad flag: %d", v, code)
		}
		if _, _, code := gort(v, filepath.Join(t.TempDir(), "missing.onnx")); code != exitUsage {
			t.Errorf("%s of a missing file: %d", v, code)
		}
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	good := model(t, dir, nil)
	if out, _, code := gort("check", good); code != 0 || !strings.Contains(out, "0 error(s), 0 warning(s)") {
		t.Errorf("clean model: %d %s", code, out)
	}
	bad := model(t, t.TempDir(), func(g *pb.GraphProto) {
		g.Node[1].OpType = "Frobnicate"
		g.Node[2].Input = []string{"r", "nowhere"}
	})
	out, _, code := gort("check", bad)
	if code != exitFailed || !strings.Contains(out, "OP_UNKNOWN") || !strings.Contains(out, "UNDEFINED_INPUT") || !strings.Contains(out, "relu (#1)") {
		t.Errorf("broken model: %d\n%s", code, out)
	}
	// --json after the path; the report parses.
	out, _, code = gort("check", bad, "--json")
	var rep struct {
		OK       bool
		Errors   int
		Findings []struct{ Code, Node string }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitFailed || rep.OK || rep.Errors != 2 || len(rep.Findings) < 2 {
		t.Errorf("json: %v %d %s", err, code, out)
	}
	garbage := filepath.Join(dir, "garbage.onnx")
	os.WriteFile(garbage, []byte("not a model at all"), 0o644)
	if out, _, code := gort("check", garbage); code != exitUsage || !strings.Contains(out, "MODEL_DECODE") {
		t.Errorf("garbage: %d %s", code, out)
	}
	if out, _, code := gort("check", "--json", garbage); code != exitUsage || !strings.Contains(out, `"code": "MODEL_DECODE"`) {
		t.Errorf("garbage --json: %d %s", code, out)
	}
	// An empty file is unreadable input (as check.Bytes says), not a model with findings.
	empty := filepath.Join(dir, "empty.onnx")
	os.WriteFile(empty, nil, 0o644)
	if _, errOut, code := gort("check", empty); code != exitUsage || !strings.Contains(errOut, "the model is empty (0 bytes)") {
		t.Errorf("empty: %d %s", code, errOut)
	}
}

func TestInspectAndPrint(t *testing.T) {
	p := model(t, t.TempDir(), func(g *pb.GraphProto) { g.Node[1].OpType = "Frobnicate" })
	out, _, code := gort("inspect", p)
	if code != 0 || !strings.Contains(out, "gort cannot run 1 of 3 nodes (Frobnicate 1):") || !strings.Contains(out, "input   x") {
		t.Errorf("inspect: %d\n%s", code, out)
	}
	out, _, code = gort("inspect", "--json", p)
	var in inspection
	if err := json.Unmarshal([]byte(out), &in); err != nil || code != 0 || in.Nodes != 3 || in.Capabilities.ByOp["Frobnicate"] != 1 {
		t.Errorf("inspect json: %v %s", err, out)
	}
	p = model(t, t.TempDir(), nil)
	out, _, code = gort("print", p)
	if code != 0 || !strings.Contains(out, "%r: float32[2,3] = Relu(%s)") || !strings.Contains(out, "return %y: float32[2,3]") {
		t.Errorf("print: %d\n%s", code, out)
	}
	out, _, _ = gort("print", "--json", p)
	if !strings.Contains(out, `"op": "Mul"`) {
		t.Errorf("print json:\n%s", out)
	}
	// --webgpu: each node says where a WebGPU session would run it (this
	// model's tensors are under the cost threshold: the CPU, with why).
	out, _, code = gort("print", "--webgpu", p)
	if code != 0 || !strings.Contains(out, "= Relu(%s)  # on cpu: tiny: inputs of at most 6 elements") {
		t.Errorf("print --webgpu: %d\n%s", code, out)
	}
}

func TestRunCompareDiverge(t *testing.T) {
	dir := t.TempDir()
	p := model(t, dir, nil)
	xs := filepath.Join(dir, "x.npy")
	writeNpy(t, xs, tensor.Of([]int{2, 3}, []float32{1, 2, 3, -4, 5, -6}))
	// By hand: s = x + w = [2,1,5,-3,4,-4]; r = [2,1,5,0,4,0]; y = r·w = [2,-1,10,0,-4,0].
	want := tensor.Of([]int{2, 3}, []float32{2, -1, 10, 0, -4, 0})
	exp := filepath.Join(dir, "expected.npz")
	b, _ := npy.WriteNPZ(map[string]*tensor.Tensor{"y": want}, nil)
	os.WriteFile(exp, b, 0o644)
	out, errOut, code := gort("compare", p, "--inputs", xs, "--expected", exp)
	if code != 0 || !strings.Contains(out, "PASS: 1 of 1 outputs match") {
		t.Errorf("compare: %d\n%s%s", code, out, errOut)
	}
	// A wrong expectation fails, names the worst element, and the JSON says so.
	wrong := filepath.Join(dir, "wrong.json")
	os.WriteFile(wrong, []byte(`{"y": [[2, -1, 10], [0, -4.5, 0]]}`), 0o644)
	out, _, code = gort("compare", p, "--inputs", "x="+xs, "--expected", wrong)
	if code != exitFailed || !strings.Contains(out, "FAIL") || !strings.Contains(out, "[1 1] -4 / -4.5") {
		t.Errorf("compare wrong: %d\n%s", code, out)
	}
	out, _, code = gort("compare", p, "--inputs", xs, "--expected", wrong, "--json", "--atol", "0.6")
	if code != 0 || !strings.Contains(out, `"pass": true`) {
		t.Errorf("compare with atol 0.6: %d\n%s", code, out)
	}
	if _, _, code := gort("compare", p, "--inputs", xs); code != exitUsage {
		t.Errorf("compare without expectations: %d", code)
	}
	// run --save writes the outputs; --save-values every value.
	saved := filepath.Join(dir, "out.npz")
	refs := filepath.Join(dir, "refs")
	out, _, code = gort("run", p, "--inputs", xs, "--save", saved, "--save-values", refs)
	if code != 0 || !strings.Contains(out, "y  float32[2 3]  checksum 7") {
		t.Errorf("run: %d\n%s", code, out)
	}
	if got, _, err := readNPZ(saved); err != nil || got["y"].String() != want.String() {
		t.Errorf("saved outputs: %v %v", got, err)
	}
	if out, _, code := gort("diverge", p, "--inputs", xs, "--reference", refs); code != 0 || !strings.Contains(out, "no divergence: 3 values compared") {
		t.Errorf("diverge clean: %d\n%s", code, out)
	}
	// Plant an error in the reference of r (the Relu's output): diverge names relu.
	writeNpy(t, filepath.Join(refs, "r.npy"), tensor.Of([]int{2, 3}, []float32{2, 1, 5, 0, 4, 0.5}))
	out, _, code = gort("diverge", p, "--inputs", xs, "--reference", refs)
	if code != exitFailed || !strings.Contains(out, "first divergence at node relu (Relu, #1") || !strings.Contains(out, "inputs agreed") {
		t.Errorf("diverge: %d\n%s", code, out)
	}
	if out, _, code := gort("diverge", p, "--unoptimized"); code != 0 {
		t.Errorf("diverge --unoptimized: %d\n%s", code, out)
	}
	if _, _, code := gort("diverge", p); code != exitUsage {
		t.Errorf("diverge without a reference: %d", code)
	}
}

func readNPZ(p string) (map[string]*tensor.Tensor, []string, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, nil, err
	}
	return npy.ReadNPZ(b, 0)
}

func TestJSONInputs(t *testing.T) {
	v, err := readJSON([]byte(`{"a": {"type": "int64", "dims": [2, 1], "data": [3, -4]}, "b": [[true], [false]], "c": [1.5, "NaN"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if s := v["a"].(*tensor.Tensor).String(); s != "int64[2 1] [3 -4]" {
		t.Errorf("a: %s", s)
	}
	if s := v["b"].(*tensor.Tensor).String(); s != "bool[2 1] [true false]" {
		t.Errorf("b: %s", s)
	}
	if s := v["c"].(*tensor.Tensor).String(); s != "float32[2] [1.5 NaN]" {
		t.Errorf("c: %s", s)
	}
	for _, bad := range []string{`{"a": [[1], [2, 3]]}`, `{"a": {"dims": [3], "data": [1]}}`, `{"a": {"type": "float99", "data": []}}`} {
		if _, err := readJSON([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestCheckExternalData: weights in a file beside the model are read and
// checked; a missing or short file is an error.
func TestCheckExternalData(t *testing.T) {
	dir := t.TempDir()
	p := model(t, dir, func(g *pb.GraphProto) {
		w := g.Initializer[0]
		w.FloatData = nil
		w.DataLocation = pb.TensorProto_EXTERNAL
		w.ExternalData = []*pb.StringStringEntryProto{{Key: "location", Value: "weights.bin"}, {Key: "length", Value: "12"}}
	})
	if out, _, code := gort("check", p); code != exitFailed || !strings.Contains(out, "EXTERNAL_DATA") {
		t.Errorf("missing file: %d\n%s", code, out)
	}
	os.WriteFile(filepath.Join(dir, "weights.bin"), make([]byte, 12), 0o644)
	if out, _, code := gort("check", p); code != 0 {
		t.Errorf("with the file: %d\n%s", code, out)
	}
	os.WriteFile(filepath.Join(dir, "weights.bin"), make([]byte, 8), 0o644)
	if out, _, code := gort("check", p); code != exitFailed || !strings.Contains(out, "outside it") {
		t.Errorf("short file: %d\n%s", code, out)
	}
	if out, _, code := gort("check", "--no-external", p); code != 0 || !strings.Contains(out, "EXTERNAL_DATA_NOT_CHECKED") {
		t.Errorf("--no-external: %d\n%s", code, out)
	}
}

// TestRunDims: --dim sets a symbolic dim of the random inputs (default 1);
// a malformed one is a usage error naming it.
func TestRunDims(t *testing.T) {
	dir := t.TempDir()
	p := model(t, dir, func(g *pb.GraphProto) {
		for _, v := range []*pb.ValueInfoProto{g.Input[0], g.Output[0]} {
			v.GetType().GetTensorType().GetShape().Dim[0] = &pb.TensorShapeProto_Dimension{Value: &pb.TensorShapeProto_Dimension_DimParam{DimParam: "N"}}
		}
	})
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "float32[1 3]"},
		{[]string{"--dim", "N=4"}, "float32[4 3]"},
		{[]string{"--dim", "M=4"}, "float32[1 3]"},
	} {
		out, errs, code := gort(append([]string{"run", p}, c.args...)...)
		if code != 0 || !strings.Contains(out+errs, "input x: random "+c.want) {
			t.Errorf("run %v: exit %d, want the random input %s:\n%s%s", c.args, code, c.want, out, errs)
		}
	}
	if _, errs, code := gort("run", p, "--dim", "N=four"); code == 0 || !strings.Contains(errs, "--dim N=four") {
		t.Errorf("--dim N=four: exit %d, %q", code, errs)
	}
}

// TestRunGuesses: random feeds that gort sized or filled itself and the
// model refuses are tried again with other guesses. A Conv with a 5-wide
// kernel and no padding fails on the length 1 a symbolic dim gets first
// and runs at 16; a Gather over an axis of 2 fails on indices up to 3 and
// runs on [0, 1]. Dims and ranges the caller set are never changed: with
// them the failure is reported.
func TestRunGuesses(t *testing.T) {
	dir := t.TempDir()
	conv := model(t, filepath.Join(dir), func(g *pb.GraphProto) {
		x := vi("x", 1, 1, 0)
		x.GetType().GetTensorType().GetShape().Dim[2] = &pb.TensorShapeProto_Dimension{Value: &pb.TensorShapeProto_Dimension_DimParam{DimParam: "T"}}
		g.Input = []*pb.ValueInfoProto{x}
		g.Output = []*pb.ValueInfoProto{{Name: "y"}}
		g.Initializer = []*pb.TensorProto{{Name: "w", DataType: int32(tensor.Float), Dims: []int64{1, 1, 5}, FloatData: []float32{1, 2, 3, 4, 5}}}
		g.Node = []*pb.NodeProto{{Name: "conv", OpType: "Conv", Input: []string{"x", "w"}, Output: []string{"y"}}}
	})
	for _, verb := range []string{"run", "bench"} {
		out, errs, code := gort(verb, conv)
		if code != 0 || !strings.Contains(out, "unset dims of 16") || !strings.Contains(out, "random float32[1 1 16]") {
			t.Errorf("%s: exit %d, want a rerun with T = 16:\n%s%s", verb, code, out, errs)
		}
	}
	if out, errs, code := gort("run", conv, "--dim", "T=3"); code == 0 || !strings.Contains(errs, "kernel extent 5") {
		t.Errorf("run --dim T=3: exit %d, want the Conv's failure:\n%s%s", code, out, errs)
	}

	gdir := filepath.Join(dir, "gather")
	if err := os.Mkdir(gdir, 0o755); err != nil {
		t.Fatal(err)
	}
	gather := model(t, gdir, func(g *pb.GraphProto) {
		idx := vi("i", 6)
		idx.GetType().GetTensorType().ElemType = int32(tensor.Int64)
		g.Input = []*pb.ValueInfoProto{idx}
		g.Output = []*pb.ValueInfoProto{{Name: "y"}}
		g.Initializer = []*pb.TensorProto{{Name: "w", DataType: int32(tensor.Float), Dims: []int64{2}, FloatData: []float32{1, 2}}}
		g.Node = []*pb.NodeProto{{Name: "gather", OpType: "Gather", Input: []string{"w", "i"}, Output: []string{"y"}}}
	})
	if out, errs, code := gort("run", gather); code != 0 || !strings.Contains(out, "integers in [0, 1]") {
		t.Errorf("run gather: exit %d, want a rerun with indices in [0, 1]:\n%s%s", code, out, errs)
	}
	if out, errs, code := gort("run", gather, "--int-range", "0:1"); code != 0 || strings.Contains(out, "failed") {
		t.Errorf("run gather --int-range 0:1: exit %d, want a first run that works:\n%s%s", code, out, errs)
	}
	if out, errs, code := gort("run", gather, "--int-range", "2:5"); code == 0 || !strings.Contains(errs, "out of range") {
		t.Errorf("run gather --int-range 2:5: exit %d, want the Gather's failure:\n%s%s", code, out, errs)
	}
	if _, errs, code := gort("run", gather, "--int-range", "5:2"); code == 0 || !strings.Contains(errs, "--int-range 5:2") {
		t.Errorf("--int-range 5:2: exit %d, %q", code, errs)
	}
}
