// Command difftest compares gort's resampling operators with onnxruntime-node
// on thousands of random one-node models: Resize/Upsample, Pad, ArgMax/ArgMin
// and NonMaxSuppression. It generates the models (with the protobuf types of
// runtime/onnxpb), runs them all in one Node process (ort.js), runs them in
// gort, and compares. Where onnxruntime departs from the ONNX spec, gort
// follows the spec; such cases are counted as "explained" only when a named
// rule in explain.go recognises them (and, where it can, reproduces
// onnxruntime's value by the deviation it names). Anything else is a failure.
//
// Usage (from the repository root): bash tools/difftest/run.sh
package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	_ "github.com/gort-dev/gort/ops" // the operator set
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/gort-dev/gort/options"
	"github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/compare"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Case is one generated model with its feeds.
type Case struct {
	Name  string
	Op    string // family: resize, pad, arg, nms
	Desc  string // the configuration, for reports
	Model *pb.ModelProto
	Feeds map[string]*tensor.Tensor
	Cfg   any // the generator's config, for the explainers
}

type feedJSON struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Dims []int  `json:"dims"`
	Data []any  `json:"data"`
}

type caseJSON struct {
	Name  string     `json:"name"`
	Model string     `json:"model"`
	Feeds []feedJSON `json:"feeds"`
}

type outJSON struct {
	Type string            `json:"type"`
	Dims []int             `json:"dims"`
	Data []json.RawMessage `json:"data"`
}

type resultJSON struct {
	Outputs []outJSON `json:"outputs"`
	Error   string    `json:"error"`
}

// tol is looser than the node suite's relative 1e-3 nowhere; it is tighter:
// onnxruntime computes in float32, gort in float64 and rounds once.
var tol = compare.Tolerance{Rtol: 1e-4, Atol: 1e-5}

func main() {
	dir := flag.String("dir", "", "work directory (default: a temporary one)")
	node := flag.String("node", "node", "node executable")
	script := flag.String("ort", "tools/difftest/ort.js", "the onnxruntime-node runner")
	verbose := flag.Bool("v", false, "print every explained case")
	list := flag.Bool("list", false, "list the generated cases and exit")
	opt := flag.String("opt", "all", "gort's graphOptimizationLevel (disabled, basic, extended, all)")
	flag.Parse()
	level, err := options.ParseLevel(*opt)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	optimization = level
	start := time.Now()

	cases := generateAll()
	if *list {
		for _, c := range cases {
			fmt.Println(c.Name, c.Desc)
		}
		return
	}
	work := *dir
	if work == "" {
		var err error
		if work, err = os.MkdirTemp("", "gort-difftest"); err != nil {
			fatal(err)
		}
		defer os.RemoveAll(work)
	}
	in, out := filepath.Join(work, "cases.json"), filepath.Join(work, "results.json")
	if err := writeBatch(in, cases); err != nil {
		fatal(err)
	}
	cmd := exec.Command(*node, *script, in, out)
	var logs bytes.Buffer // onnxruntime logs every refused model; shown only on failure
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Run(); err != nil {
		os.Stderr.Write(tail(logs.Bytes(), 4000))
		fatal(fmt.Errorf("onnxruntime-node run failed: %v", err))
	}
	var res struct {
		Version map[string]string     `json:"version"`
		Results map[string]resultJSON `json:"results"`
	}
	data, err := os.ReadFile(out)
	if err != nil {
		fatal(err)
	}
	if err := json.Unmarshal(data, &res); err != nil {
		fatal(err)
	}

	type tally struct{ tried, matched, explained, ortRefused, failed int }
	fams := map[string]*tally{}
	reasons := map[string]int{}
	var failures []string
	for _, c := range cases {
		t := fams[c.Op]
		if t == nil {
			t = &tally{}
			fams[c.Op] = t
		}
		t.tried++
		r, ok := res.Results[c.Name]
		if !ok {
			t.failed++
			failures = append(failures, c.Name+": no result from onnxruntime")
			continue
		}
		got, gerr := runGort(c)
		if r.Error != "" {
			if gerr != nil {
				// both refuse: an invalid configuration for both runtimes
				t.ortRefused++
				continue
			}
			if why := explainRefusal(c, r.Error); why != "" {
				t.explained++
				reasons[why]++
				if *verbose {
					fmt.Printf("explained %s [%s]: %s; onnxruntime: %s\n", c.Name, why, c.Desc, r.Error)
				}
				continue
			}
			t.ortRefused++
			continue
		}
		want, err := decodeOutputs(r.Outputs)
		if err != nil {
			fatal(fmt.Errorf("%s: %v", c.Name, err))
		}
		diff := ""
		if gerr != nil {
			diff = "gort error: " + gerr.Error()
		} else {
			diff = compareAll(got, want)
		}
		if diff == "" {
			t.matched++
			continue
		}
		if why := explain(c, got, want); why != "" {
			t.explained++
			reasons[why]++
			if *verbose {
				fmt.Printf("explained %s [%s]: %s: %s\n", c.Name, why, c.Desc, diff)
			}
			continue
		}
		t.failed++
		failures = append(failures, fmt.Sprintf("%s: %s: %s", c.Name, c.Desc, diff))
	}

	fmt.Printf("difftest vs onnxruntime-node %s (%d models, %.1fs)\n", res.Version["node"], len(cases), time.Since(start).Seconds())
	names := make([]string, 0, len(fams))
	for k := range fams {
		names = append(names, k)
	}
	sort.Strings(names)
	total := tally{}
	for _, k := range names {
		t := fams[k]
		fmt.Printf("  %-7s tried %5d  matched %5d  explained %4d  refused-by-both/ort %3d  unexplained %d\n", k, t.tried, t.matched, t.explained, t.ortRefused, t.failed)
		total.tried += t.tried
		total.matched += t.matched
		total.explained += t.explained
		total.ortRefused += t.ortRefused
		total.failed += t.failed
	}
	fmt.Printf("  %-7s tried %5d  matched %5d  explained %4d  refused-by-both/ort %3d  unexplained %d\n", "total", total.tried, total.matched, total.explained, total.ortRefused, total.failed)
	rk := make([]string, 0, len(reasons))
	for k := range reasons {
		rk = append(rk, k)
	}
	sort.Strings(rk)
	for _, k := range rk {
		fmt.Printf("  explained %-28s %4d  %s\n", k, reasons[k], deviations[k])
	}
	for i, f := range failures {
		if i == 40 && !*verbose {
			fmt.Printf("  ... and %d more\n", len(failures)-40)
			break
		}
		fmt.Println("  UNEXPLAINED", f)
	}
	if total.failed > 0 {
		os.Exit(1)
	}
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "difftest:", err)
	os.Exit(2)
}

func writeBatch(path string, cases []*Case) error {
	var b struct {
		Cases []caseJSON `json:"cases"`
	}
	for _, c := range cases {
		m, err := proto.Marshal(c.Model)
		if err != nil {
			return err
		}
		cj := caseJSON{Name: c.Name, Model: base64.StdEncoding.EncodeToString(m)}
		for _, in := range c.Model.Graph.Input {
			t := c.Feeds[in.Name]
			cj.Feeds = append(cj.Feeds, feedJSON{Name: in.Name, Type: t.DType().String(), Dims: t.Shape(), Data: jsonData(t)})
		}
		b.Cases = append(b.Cases, cj)
	}
	data, err := json.Marshal(b)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// jsonData lists a tensor's elements for JSON (NaN as null; int64 exact).
func jsonData(t *tensor.Tensor) []any {
	var out []any
	switch d := t.Data().(type) {
	case []float32:
		for _, v := range d {
			if v != v {
				out = append(out, nil)
			} else {
				out = append(out, v)
			}
		}
	case []float64:
		for _, v := range d {
			if v != v {
				out = append(out, nil)
			} else {
				out = append(out, v)
			}
		}
	default:
		ints, err := t.Int64s()
		if err != nil {
			panic(err)
		}
		for _, v := range ints {
			out = append(out, v)
		}
	}
	if out == nil {
		out = []any{}
	}
	return out
}

func decodeOutputs(outs []outJSON) ([]*tensor.Tensor, error) {
	var ts []*tensor.Tensor
	for _, o := range outs {
		dt, ok := tensor.ParseDType(o.Type)
		if !ok {
			return nil, fmt.Errorf("unknown output type %q", o.Type)
		}
		t := tensor.New(dt, o.Dims...)
		if t.Len() != len(o.Data) {
			return nil, fmt.Errorf("output of shape %v has %d values", o.Dims, len(o.Data))
		}
		for i, raw := range o.Data {
			s := strings.Trim(string(raw), `"`)
			switch d := t.Data().(type) {
			case []float32:
				v, err := strconv.ParseFloat(s, 64)
				if s == "NaN" {
					v, err = math.NaN(), nil
				}
				if err != nil {
					return nil, err
				}
				d[i] = float32(v)
			case []float64:
				v, err := strconv.ParseFloat(s, 64)
				if s == "NaN" {
					v, err = math.NaN(), nil
				}
				if err != nil {
					return nil, err
				}
				d[i] = v
			default:
				v, err := strconv.ParseInt(s, 10, 64)
				if err != nil {
					return nil, err
				}
				setInt(t, i, v)
			}
		}
		ts = append(ts, t)
	}
	return ts, nil
}

func setInt(t *tensor.Tensor, i int, v int64) {
	switch d := t.Data().(type) {
	case []int64:
		d[i] = v
	case []int32:
		d[i] = int32(v)
	case []int16:
		d[i] = int16(v)
	case []int8:
		d[i] = int8(v)
	case []uint8:
		d[i] = uint8(v)
	case []uint16:
		d[i] = uint16(v)
	case []uint32:
		d[i] = uint32(v)
	case []uint64:
		d[i] = uint64(v)
	case []bool:
		d[i] = v != 0
	}
}

// runGort runs a case's model in gort.
func runGort(c *Case) ([]*tensor.Tensor, error) {
	data, err := proto.Marshal(c.Model)
	if err != nil {
		return nil, err
	}
	return runModel(data, c)
}

// optimization is the level gort's sessions use (-opt).
var optimization plan.Level

func runModel(data []byte, c *Case) ([]*tensor.Tensor, error) {
	s, err := runtime.Load(data, &runtime.Options{Optimization: optimization})
	if err != nil {
		return nil, err
	}
	feeds := map[string]tensor.Value{}
	for k, v := range c.Feeds {
		feeds[k] = v
	}
	res, err := s.Run(context.Background(), feeds)
	if err != nil {
		return nil, err
	}
	var outs []*tensor.Tensor
	for _, o := range c.Model.Graph.Output {
		outs = append(outs, res[o.Name].(*tensor.Tensor))
	}
	return outs, nil
}

func compareAll(got, want []*tensor.Tensor) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d outputs, want %d", len(got), len(want))
	}
	for i := range got {
		if d := compare.Compare(got[i], want[i], tol); d != "" {
			return d
		}
	}
	return ""
}

// ---- model building ----

type modelBuilder struct {
	m     *pb.ModelProto
	node  *pb.NodeProto
	feeds map[string]*tensor.Tensor
}

func newModel(opset int, opType string) *modelBuilder {
	n := &pb.NodeProto{OpType: opType, Name: "n"}
	g := &pb.GraphProto{Name: "difftest", Node: []*pb.NodeProto{n}}
	ir := int64(8)
	if opset >= 21 {
		ir = 10
	}
	return &modelBuilder{
		m:     &pb.ModelProto{IrVersion: ir, OpsetImport: []*pb.OperatorSetIdProto{{Version: int64(opset)}}, Graph: g, ProducerName: "gort-difftest"},
		node:  n,
		feeds: map[string]*tensor.Tensor{},
	}
}

func tensorType(dt tensor.DType, dims []int) *pb.TypeProto {
	shape := &pb.TensorShapeProto{}
	for _, d := range dims {
		shape.Dim = append(shape.Dim, &pb.TensorShapeProto_Dimension{Value: &pb.TensorShapeProto_Dimension_DimValue{DimValue: int64(d)}})
	}
	return &pb.TypeProto{Value: &pb.TypeProto_TensorType{TensorType: &pb.TypeProto_Tensor{ElemType: int32(dt), Shape: shape}}}
}

// feed adds a graph input fed at run time.
func (b *modelBuilder) feed(name string, t *tensor.Tensor) {
	b.node.Input = append(b.node.Input, name)
	b.m.Graph.Input = append(b.m.Graph.Input, &pb.ValueInfoProto{Name: name, Type: tensorType(t.DType(), t.Shape())})
	b.feeds[name] = t
}

// init adds an initializer input (a constant, as exporters write them).
func (b *modelBuilder) init(name string, t *tensor.Tensor) {
	b.node.Input = append(b.node.Input, name)
	b.m.Graph.Initializer = append(b.m.Graph.Initializer, protoconv.Proto(name, t))
}

// skip adds an omitted optional input (empty name).
func (b *modelBuilder) skip() { b.node.Input = append(b.node.Input, "") }

func (b *modelBuilder) output(name string, dt tensor.DType) {
	b.node.Output = append(b.node.Output, name)
	b.m.Graph.Output = append(b.m.Graph.Output, &pb.ValueInfoProto{Name: name, Type: &pb.TypeProto{Value: &pb.TypeProto_TensorType{TensorType: &pb.TypeProto_Tensor{ElemType: int32(dt)}}}})
}

func (b *modelBuilder) attrInt(name string, v int64) {
	b.node.Attribute = append(b.node.Attribute, &pb.AttributeProto{Name: name, Type: pb.AttributeProto_INT, I: v})
}

func (b *modelBuilder) attrFloat(name string, v float32) {
	b.node.Attribute = append(b.node.Attribute, &pb.AttributeProto{Name: name, Type: pb.AttributeProto_FLOAT, F: v})
}

func (b *modelBuilder) attrString(name, v string) {
	b.node.Attribute = append(b.node.Attribute, &pb.AttributeProto{Name: name, Type: pb.AttributeProto_STRING, S: []byte(v)})
}

func (b *modelBuilder) attrInts(name string, v []int64) {
	b.node.Attribute = append(b.node.Attribute, &pb.AttributeProto{Name: name, Type: pb.AttributeProto_INTS, Ints: v})
}

func (b *modelBuilder) attrFloats(name string, v []float32) {
	b.node.Attribute = append(b.node.Attribute, &pb.AttributeProto{Name: name, Type: pb.AttributeProto_FLOATS, Floats: v})
}

func (b *modelBuilder) build(name, op, desc string, cfg any) *Case {
	return &Case{Name: name, Op: op, Desc: desc, Model: b.m, Feeds: b.feeds, Cfg: cfg}
}
