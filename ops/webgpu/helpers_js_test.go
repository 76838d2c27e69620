//go:build js && wasm

package webgpu_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	_ "github.com/gort-dev/gort/ops" // the CPU operator set, the reference
	"github.com/gort-dev/gort/ops/webgpu"
	"github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/graph"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/tensor"
)

// acc is the device shared by the tests (pipelines are cached on it);
// accTiled is the same device forced onto the tiled matrix product, which
// the software adapters of CI would not pick by themselves, and accSimple
// forced onto the per-element kernels, which a hardware adapter would not
// pick (acc is one of the two, by the adapter): tests that alternate
// between them check both kernels on every adapter.
var acc, accTiled, accSimple *webgpu.Accelerator

func TestMain(m *testing.M) {
	var err error
	acc, err = webgpu.New()
	if err != nil {
		// make test-webgpu sets GORT_WEBGPU_REQUIRED so that a host without
		// an adapter fails instead of passing silently.
		if os.Getenv("GORT_WEBGPU_REQUIRED") != "" {
			fmt.Println("no WebGPU device:", err)
			os.Exit(1)
		}
		fmt.Println("skipping the WebGPU tests: no device:", err)
		os.Exit(0)
	}
	accTiled = acc.With(webgpu.Options{Tiled: webgpu.TiledOn})
	accSimple = acc.With(webgpu.Options{Tiled: webgpu.TiledOff})
	fmt.Println("WebGPU adapter:", acc.Info())
	os.Exit(m.Run())
}

func aInt(name string, v int64) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_INT, I: v}
}
func aFloat(name string, v float32) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_FLOAT, F: v}
}
func aStr(name, v string) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_STRING, S: []byte(v)}
}
func aInts(name string, v ...int64) *pb.AttributeProto {
	return &pb.AttributeProto{Name: name, Type: pb.AttributeProto_INTS, Ints: v}
}

// graphModel builds a model: feeds become graph inputs with their full
// shapes, inits initializers.
type graphModel struct {
	opset int64
	nodes []*pb.NodeProto
	feeds map[string]*tensor.Tensor
	order []string // feed names in order
	inits map[string]*tensor.Tensor
	outs  []string
}

func newModel(opset int64) *graphModel {
	return &graphModel{opset: opset, feeds: map[string]*tensor.Tensor{}, inits: map[string]*tensor.Tensor{}}
}

func (g *graphModel) feed(name string, t *tensor.Tensor) *graphModel {
	g.feeds[name] = t
	g.order = append(g.order, name)
	return g
}

func (g *graphModel) init(name string, t *tensor.Tensor) *graphModel {
	g.inits[name] = t
	return g
}

func (g *graphModel) node(opType string, in, out []string, attrs ...*pb.AttributeProto) *graphModel {
	g.nodes = append(g.nodes, &pb.NodeProto{OpType: opType, Name: fmt.Sprintf("%s_%d", opType, len(g.nodes)), Input: in, Output: out, Attribute: attrs})
	return g
}

func (g *graphModel) output(names ...string) *graphModel {
	g.outs = append(g.outs, names...)
	return g
}

func tensorType(t *tensor.Tensor) *pb.TypeProto {
	sh := &pb.TensorShapeProto{}
	for _, d := range t.Shape() {
		sh.Dim = append(sh.Dim, &pb.TensorShapeProto_Dimension{Value: &pb.TensorShapeProto_Dimension_DimValue{DimValue: int64(d)}})
	}
	return &pb.TypeProto{Value: &pb.TypeProto_TensorType{TensorType: &pb.TypeProto_Tensor{ElemType: int32(t.DType()), Shape: sh}}}
}

func (g *graphModel) bytes() []byte {
	gp := &pb.GraphProto{Name: "t", Node: g.nodes}
	for _, n := range g.order {
		gp.Input = append(gp.Input, &pb.ValueInfoProto{Name: n, Type: tensorType(g.feeds[n])})
	}
	for n, t := range g.inits {
		gp.Initializer = append(gp.Initializer, protoconv.Proto(n, t))
	}
	for _, o := range g.outs {
		gp.Output = append(gp.Output, &pb.ValueInfoProto{Name: o, Type: &pb.TypeProto{Value: &pb.TypeProto_TensorType{TensorType: &pb.TypeProto_Tensor{ElemType: int32(tensor.Float)}}}})
	}
	data, err := proto.Marshal(&pb.ModelProto{IrVersion: 9, OpsetImport: []*pb.OperatorSetIdProto{{Version: g.opset}}, Graph: gp})
	if err != nil {
		panic(err)
	}
	return data
}

// result is one run of a model.
type result struct {
	out        map[string]*tensor.Tensor
	placements map[string]string // node name → device (and the reason when on the CPU)
	steps      []*plan.Step
	report     plan.Report
}

func runModel(g *graphModel, gpu bool) (*result, error) {
	a := acc
	if !gpu {
		a = nil
	}
	return runModelOn(g, a)
}

// runModelOn runs g with accelerator a (nil: the CPU), the plan's
// rewrites off.
func runModelOn(g *graphModel, a *webgpu.Accelerator) (*result, error) {
	return runModelAt(g, a, plan.Disabled)
}

// runModelAt runs g with accelerator a (nil: the CPU) at an optimisation
// level.
func runModelAt(g *graphModel, a *webgpu.Accelerator, level plan.Level) (*result, error) {
	opts := &runtime.Options{Optimization: level}
	if a != nil {
		opts.Accelerator = a
	}
	s, err := runtime.Load(g.bytes(), opts)
	if err != nil {
		return nil, err
	}
	r := &result{out: map[string]*tensor.Tensor{}, placements: map[string]string{}, report: s.Plan().Report}
	for _, st := range s.Plan().Steps {
		if st.Transfer != plan.NoTransfer {
			continue // the plan's copies, not the model's nodes
		}
		r.steps = append(r.steps, st)
		r.placements[st.Node.Name] = string(st.Device)
		if st.Reason != "" {
			r.placements[st.Node.Name] += ": " + st.Reason
		}
	}
	feeds := map[string]tensor.Value{}
	for n, t := range g.feeds {
		feeds[n] = t
	}
	out, err := s.Run(context.Background(), feeds)
	if err != nil {
		return nil, err
	}
	for k, v := range out {
		t, ok := v.(*tensor.Tensor)
		if !ok {
			return nil, fmt.Errorf("output %s is a %T", k, v)
		}
		r.out[k] = t
	}
	return r, nil
}

// onGPU returns "" when every node is placed on the device, else the
// placements that are not.
func (r *result) offGPU() string {
	var bad []string
	for n, p := range r.placements {
		if p != string(webgpu.Device) {
			bad = append(bad, n+" → "+p)
		}
	}
	return strings.Join(bad, "; ")
}

// closeEnough compares within atol + rtol·|want| (exact when both are 0),
// NaN matching NaN; it returns "" or the first difference.
func closeEnough(got, want *tensor.Tensor, atol, rtol float64) string {
	if fmt.Sprint(got.Shape()) != fmt.Sprint(want.Shape()) {
		return fmt.Sprintf("shape %v, want %v", got.Shape(), want.Shape())
	}
	g, w := got.F32(), want.F32()
	for i := range w {
		a, b := float64(g[i]), float64(w[i])
		if math.IsNaN(a) && math.IsNaN(b) || a == b {
			continue
		}
		if math.Abs(a-b) > atol+rtol*math.Abs(b) {
			return fmt.Sprintf("element %d: %v, want %v (|diff| %.3g)", i, a, b, math.Abs(a-b))
		}
	}
	return ""
}

// bitExact compares bit patterns (nearest resampling moves elements).
func bitExact(got, want *tensor.Tensor) string {
	if fmt.Sprint(got.Shape()) != fmt.Sprint(want.Shape()) {
		return fmt.Sprintf("shape %v, want %v", got.Shape(), want.Shape())
	}
	g, w := got.F32(), want.F32()
	for i := range w {
		if math.Float32bits(g[i]) != math.Float32bits(w[i]) {
			return fmt.Sprintf("element %d: %v (%#x), want %v (%#x)", i, g[i], math.Float32bits(g[i]), w[i], math.Float32bits(w[i]))
		}
	}
	return ""
}

// rng is a small deterministic generator (xorshift), so that a failing
// configuration can be replayed from its seed.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s ^= r.s << 13
	r.s ^= r.s >> 7
	r.s ^= r.s << 17
	return r.s
}

func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

func (r *rng) tensor(shape ...int) *tensor.Tensor {
	t := tensor.New(tensor.Float, shape...)
	for i := range t.F32() {
		t.F32()[i] = float32(int64(r.next()%2001)-1000) / 1000
	}
	return t
}

// runNodeOn builds the device's kernel for one node (handing it the
// node's CPU kernel, as the plan does) and runs it on vals, returning its
// first output downloaded (an error if the device declines).
func runNodeOn(dev *webgpu.Accelerator, n *op.Node, types []graph.Type, vals []tensor.Value) (*tensor.Tensor, error) {
	var cpu any
	if r := op.Default.Resolve(n.Domain, n.OpType, n.Opset); r.Builder != nil {
		node := *n
		node.Version = r.Version
		cpu, _ = plan.BuildKernel(r.Builder, &node)
	}
	k, reason := dev.Kernel(n, cpu, types)
	if k == nil {
		return nil, fmt.Errorf("declined: %s", reason)
	}
	outs, err := k.(op.ValueKernel).RunValues(&op.Context{}, vals)
	if err != nil {
		return nil, err
	}
	rv := outs[0].(tensor.Remote)
	defer rv.Release()
	return rv.Download()
}
