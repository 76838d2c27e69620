package contrib_test

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/gort-dev/gort/ops/contrib"
	"github.com/gort-dev/gort/ops/internal/optest"
	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// dcase is one differential case: a one-node model run by gort and by
// onnxruntime-node.
type dcase struct {
	name       string
	domain, op string
	attrs      optest.A
	in         []*tensor.Tensor // nil: omitted
	outs       []bool           // the output slots requested
	outTypes   []tensor.DType   // per output slot; float32 where absent or 0
	tol        float64          // scales atol and rtol for this case; 1 where 0
}

// moreDiffCases are the generators of the other op files' differential
// cases (each file appends its own in an init), drawn after diffCases' own
// from the same seeded source.
var moreDiffCases []func(r *rand.Rand, add func(dcase))

// ortTypes are the dtypes the harness carries to onnxruntime-node, by the
// name ort_run.mjs gives them.
var ortTypes = map[tensor.DType]string{tensor.Float: "float32", tensor.Double: "float64", tensor.Int32: "int32",
	tensor.Int64: "int64", tensor.Uint8: "uint8", tensor.Int8: "int8"}

func (c dcase) outType(i int) tensor.DType {
	if i < len(c.outTypes) && c.outTypes[i] != 0 {
		return c.outTypes[i]
	}
	return tensor.Float
}

const diffAtol, diffRtol = 1e-5, 1e-4

func (c dcase) model() ([]byte, map[string]tensor.Value, []string) {
	g := &pb.GraphProto{Name: c.name}
	feeds := map[string]tensor.Value{}
	names := make([]string, len(c.in))
	for i, t := range c.in {
		if t == nil {
			continue
		}
		names[i] = fmt.Sprintf("x%d", i)
		dims := make([]*pb.TensorShapeProto_Dimension, t.Rank())
		for j, d := range t.Shape() {
			dims[j] = &pb.TensorShapeProto_Dimension{Value: &pb.TensorShapeProto_Dimension_DimValue{DimValue: int64(d)}}
		}
		g.Input = append(g.Input, &pb.ValueInfoProto{Name: names[i], Type: &pb.TypeProto{Value: &pb.TypeProto_TensorType{
			TensorType: &pb.TypeProto_Tensor{ElemType: int32(t.DType()), Shape: &pb.TensorShapeProto{Dim: dims}}}}})
		feeds[names[i]] = t
	}
	for len(names) > 0 && names[len(names)-1] == "" {
		names = names[:len(names)-1]
	}
	outNames := make([]string, len(c.outs))
	var fetch []string
	for i, want := range c.outs {
		if !want {
			continue
		}
		outNames[i] = fmt.Sprintf("y%d", i)
		fetch = append(fetch, outNames[i])
		g.Output = append(g.Output, &pb.ValueInfoProto{Name: outNames[i], Type: &pb.TypeProto{Value: &pb.TypeProto_TensorType{
			TensorType: &pb.TypeProto_Tensor{ElemType: int32(c.outType(i))}}}})
	}
	attrs := optest.Attrs(c.attrs)
	keys := make([]string, 0, len(attrs))
	for k := range attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	node := &pb.NodeProto{Name: "n", Domain: c.domain, OpType: c.op, Input: names, Output: outNames}
	for _, k := range keys {
		node.Attribute = append(node.Attribute, attrs[k])
	}
	g.Node = []*pb.NodeProto{node}
	opsets := []*pb.OperatorSetIdProto{{Version: 17}, {Domain: contrib.Domain, Version: 1}}
	data, err := proto.Marshal(&pb.ModelProto{IrVersion: 8, OpsetImport: opsets, Graph: g})
	if err != nil {
		panic(err)
	}
	return data, feeds, fetch
}

func (c dcase) runGort() (map[string]*tensor.Tensor, error) {
	data, feeds, fetch := c.model()
	s, err := runtime.Load(data, nil)
	if err != nil {
		return nil, err
	}
	res, err := s.Run(context.Background(), feeds)
	if err != nil {
		return nil, err
	}
	out := map[string]*tensor.Tensor{}
	for _, n := range fetch {
		out[n] = res[n].(*tensor.Tensor)
	}
	return out, nil
}

// diffCases draws the cases from a fixed seed: asymmetric shapes (batch >
// 1, sequence ≠ hidden, odd sizes), every optional input and output, and
// attribute values beside the defaults.
func diffCases() (cs []dcase) {
	r := rand.New(rand.NewPCG(24, 2024))
	pick := func(xs ...int) int { return xs[r.IntN(len(xs))] }
	shape := func(minRank, maxRank int) []int {
		s := make([]int, minRank+r.IntN(maxRank-minRank+1))
		for i := range s {
			s[i] = 1 + r.IntN(9)
		}
		return s
	}
	add := func(c dcase) {
		c.name = fmt.Sprintf("%s_%d", c.op, len(cs))
		cs = append(cs, c)
	}
	defer func() {
		for _, gen := range moreDiffCases {
			gen(r, add)
		}
	}()
	for i := 0; i < 8; i++ {
		add(dcase{domain: contrib.Domain, op: "Gelu", in: []*tensor.Tensor{randT(r, 4, 0, shape(1, 4)...)}, outs: []bool{true}})
	}
	for i := 0; i < 8; i++ {
		s := shape(1, 4)
		add(dcase{domain: contrib.Domain, op: "BiasGelu", in: []*tensor.Tensor{randT(r, 4, 0, s...), randT(r, 1, 0, s[len(s)-1])}, outs: []bool{true}})
	}
	for i := 0; i < 10; i++ {
		s := shape(1, 4)
		in := []*tensor.Tensor{randT(r, 4, 0, s...)}
		if i%2 == 0 {
			in = append(in, randT(r, 1, 0, s[len(s)-1]))
		}
		add(dcase{domain: contrib.Domain, op: "FastGelu", in: in, outs: []bool{true}})
	}
	for i := 0; i < 10; i++ {
		var attrs optest.A
		if i%3 != 0 {
			attrs = optest.A{"alpha": float32(math.Round((r.Float64()*5-2)*1000) / 1000)}
		}
		add(dcase{domain: contrib.Domain, op: "QuickGelu", attrs: attrs, in: []*tensor.Tensor{randT(r, 4, 0, shape(1, 4)...)}, outs: []bool{true}})
	}
	skipNorm := func(op string, rms bool, i int) dcase {
		b, s, h := 1+r.IntN(3), 1+r.IntN(6), pick(1, 3, 5, 8, 17, 32, 63)
		xs := []int{b, s, h}
		if i%4 == 3 {
			xs = []int{b * s, h}
		}
		ss := xs
		if len(xs) == 3 {
			ss = [][]int{xs, {s, h}, {1, s, h}}[r.IntN(3)]
		}
		in := []*tensor.Tensor{randT(r, 3, 0, xs...), randT(r, 3, 0, ss...), randT(r, 1, 1, h)}
		if !rms {
			var beta *tensor.Tensor
			if r.IntN(2) == 0 {
				beta = randT(r, 1, 0, h)
			}
			in = append(in, beta)
		}
		var attrs optest.A
		if e := pick(0, 1, 2); e > 0 {
			attrs = optest.A{"epsilon": []float32{1e-5, 1e-3}[e-1]}
		}
		return dcase{domain: contrib.Domain, op: op, attrs: attrs, in: in, outs: []bool{true, false, false, r.IntN(2) == 0}}
	}
	for i := 0; i < 16; i++ {
		c := skipNorm("SkipLayerNormalization", false, i)
		if r.IntN(2) == 0 {
			c.in = append(c.in, randT(r, 1, 0, c.in[0].Shape()[c.in[0].Rank()-1]))
		}
		add(c)
	}
	for i := 0; i < 16; i++ {
		c := skipNorm("SkipSimplifiedLayerNormalization", true, i)
		if r.IntN(2) == 0 {
			c.in = append(c.in, randT(r, 1, 0, c.in[0].Shape()[c.in[0].Rank()-1]))
		}
		add(c)
	}
	for i := 0; i < 12; i++ {
		// onnxruntime refuses to normalise a single element (docs/contrib.md).
		var s []int
		var axis, ax int
		for s == nil || opsutil.Product(s[ax:]) < 2 {
			s = shape(2, 4)
			axis = r.IntN(2*len(s)) - len(s)
			if ax = axis; ax < 0 {
				ax += len(s)
			}
		}
		attrs := optest.A{"axis": axis}
		if i%3 == 1 {
			attrs["epsilon"] = float32(1e-3)
		}
		// onnxruntime has it in the default domain only.
		add(dcase{domain: "", op: "SimplifiedLayerNormalization", attrs: attrs,
			in: []*tensor.Tensor{randT(r, 3, 0.5, s...), randT(r, 1, 1, s[ax:]...)}, outs: []bool{true, i%2 == 0}})
	}
	return cs
}

// ortPackage is onnxruntime-node's directory: $GORT_ONNXRUNTIME_NODE, else
// tools/difftest's install (tools/difftest/run.sh); "" when neither it nor
// node is there.
func ortPackage() string {
	if _, err := exec.LookPath("node"); err != nil {
		return ""
	}
	for _, p := range []string{os.Getenv("GORT_ONNXRUNTIME_NODE"), "../../tools/difftest/node_modules/onnxruntime-node"} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(p, "package.json")); err == nil {
			abs, _ := filepath.Abs(p)
			return abs
		}
	}
	return ""
}

// TestAgainstOnnxruntime runs every case in gort and in onnxruntime-node and
// compares within atol 1e-5 + rtol 1e-4.
func TestAgainstOnnxruntime(t *testing.T) {
	pkg := ortPackage()
	if pkg == "" {
		if os.Getenv("GORT_REQUIRE_ORT") != "" {
			t.Fatal("GORT_REQUIRE_ORT is set but node or onnxruntime-node is missing (run tools/difftest/run.sh once, or set GORT_ONNXRUNTIME_NODE)")
		}
		t.Skip("no node or onnxruntime-node (tools/difftest/run.sh installs it; GORT_ONNXRUNTIME_NODE names another install)")
	}
	cases := diffCases()
	dir := t.TempDir()
	type jsonT struct {
		Dims []int  `json:"dims"`
		Type string `json:"type"`
		Data string `json:"data"`
	}
	type jsonCase struct {
		Model   string           `json:"model"`
		Feeds   map[string]jsonT `json:"feeds"`
		Outputs []string         `json:"outputs"`
	}
	var jcs []jsonCase
	for i, c := range cases {
		data, feeds, fetch := c.model()
		p := filepath.Join(dir, fmt.Sprintf("case%d.onnx", i))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		jc := jsonCase{Model: p, Feeds: map[string]jsonT{}, Outputs: fetch}
		for n, v := range feeds {
			x := v.(*tensor.Tensor)
			name, ok := ortTypes[x.DType()]
			if !ok {
				t.Fatalf("%s: the harness carries no %s feeds", c.name, x.DType())
			}
			b, err := binary.Append(nil, binary.LittleEndian, x.Data())
			if err != nil {
				t.Fatal(err)
			}
			jc.Feeds[n] = jsonT{x.Shape(), name, base64.StdEncoding.EncodeToString(b)}
		}
		jcs = append(jcs, jc)
	}
	raw, _ := json.Marshal(jcs)
	casesPath, outPath := filepath.Join(dir, "cases.json"), filepath.Join(dir, "out.json")
	if err := os.WriteFile(casesPath, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if msg, err := exec.Command("node", "ort_run.mjs", pkg, casesPath, outPath).CombinedOutput(); err != nil {
		t.Fatalf("onnxruntime-node: %v\n%s", err, msg)
	}
	raw, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	var ortOuts []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &ortOuts); err != nil {
		t.Fatal(err)
	}
	var maxErr float64
	agreed := 0
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if e, ok := ortOuts[i]["error"]; ok {
				t.Fatalf("onnxruntime: %s", e)
			}
			want := map[string]*tensor.Tensor{}
			for n, m := range ortOuts[i] {
				var jt jsonT
				if err := json.Unmarshal(m, &jt); err != nil {
					t.Fatal(err)
				}
				b, _ := base64.StdEncoding.DecodeString(jt.Data)
				var dt tensor.DType
				for d, name := range ortTypes {
					if name == jt.Type {
						dt = d
					}
				}
				if dt == 0 {
					t.Fatalf("%s: onnxruntime output of type %q", n, jt.Type)
				}
				w := tensor.New(dt, jt.Dims...)
				if _, err := binary.Decode(b, binary.LittleEndian, w.Data()); err != nil {
					t.Fatal(err)
				}
				want[n] = w
			}
			got, err := c.runGort()
			if err != nil {
				t.Fatal(err)
			}
			if err := compare(got, want, c.tol, &maxErr); err != nil {
				t.Fatal(err)
			}
			agreed++
		})
	}
	t.Logf("%d cases: %d agree with onnxruntime-node within atol %g + rtol %g (max |error| %.3g)", len(cases), agreed, diffAtol, diffRtol, maxErr)
}

// compare checks every output: floats within atol + rtol (both scaled by
// tol when it is not 0), integers exactly; maxErr (when not nil) gathers the
// largest absolute difference of the floats.
func compare(got, want map[string]*tensor.Tensor, tol float64, maxErr *float64) error {
	if tol == 0 {
		tol = 1
	}
	if len(got) != len(want) {
		return fmt.Errorf("gort gives %d outputs, onnxruntime %d", len(got), len(want))
	}
	for n, w := range want {
		g := got[n]
		if g == nil || !slices.Equal(g.Shape(), w.Shape()) || g.DType() != w.DType() {
			return fmt.Errorf("%s: gort %v, onnxruntime %s%v", n, g, w.DType(), w.Shape())
		}
		if !w.DType().IsFloat() && w.DType() != tensor.Double {
			gb, _ := binary.Append(nil, binary.LittleEndian, g.Data())
			wb, _ := binary.Append(nil, binary.LittleEndian, w.Data())
			if !slices.Equal(gb, wb) {
				return fmt.Errorf("%s: gort %v, onnxruntime %v", n, g, w)
			}
			continue
		}
		gf, wf := asF64(g), asF64(w)
		for j, y := range wf {
			x := gf[j]
			d := math.Abs(x - y)
			if !(d <= tol*(diffAtol+diffRtol*math.Abs(y))) {
				return fmt.Errorf("%s[%d]: gort %g, onnxruntime %g", n, j, x, y)
			}
			if maxErr != nil {
				*maxErr = max(*maxErr, d)
			}
		}
	}
	return nil
}

// asF64 is a float32 or float64 tensor's values as float64.
func asF64(t *tensor.Tensor) []float64 {
	if t.DType() == tensor.Double {
		return t.F64()
	}
	f := make([]float64, t.Len())
	for i, v := range t.F32() {
		f[i] = float64(v)
	}
	return f
}

// TestShapeRules: shape inference reaches the com.microsoft rules (the
// domain has no schema) and gives every requested output its type and shape.
func TestShapeRules(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, c := range []struct {
		c    dcase
		want []string
	}{
		{dcase{domain: contrib.Domain, op: "SkipLayerNormalization", in: []*tensor.Tensor{randT(r, 1, 0, 2, 3, 5), randT(r, 1, 0, 3, 5), randT(r, 1, 0, 5)},
			outs: []bool{true, true, true, true}}, []string{"tensor(float)[2,3,5]", "tensor(float)[2,3,1]", "tensor(float)[2,3,1]", "tensor(float)[2,3,5]"}},
		{dcase{domain: contrib.Domain, op: "SimplifiedLayerNormalization", attrs: optest.A{"axis": 1}, in: []*tensor.Tensor{randT(r, 1, 0, 2, 3, 5), randT(r, 1, 0, 3, 5)},
			outs: []bool{true, true}}, []string{"tensor(float)[2,3,5]", "tensor(float)[2,1,1]"}},
		{dcase{domain: contrib.Domain, op: "FastGelu", in: []*tensor.Tensor{randT(r, 1, 0, 4, 7), randT(r, 1, 0, 7)}, outs: []bool{true}}, []string{"tensor(float)[4,7]"}},
	} {
		data, _, fetch := c.c.model()
		m := &pb.ModelProto{}
		if err := proto.Unmarshal(data, m); err != nil {
			t.Fatal(err)
		}
		res := shapes.Model(m, nil)
		for i, n := range fetch {
			v := res.Values[n]
			if got := shapes.TypeString(v.Type) + shapes.ShapeString(v.Type.Shape); got != c.want[i] {
				t.Errorf("%s output %d: %s (%s), want %s", c.c.op, i, got, v.Why, c.want[i])
			}
		}
	}
}
