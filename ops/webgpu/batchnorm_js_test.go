//go:build js && wasm

package webgpu_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/gort-dev/gort/ops/webgpu"
	"github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/graph"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/tensor"
)

// bnStats returns scale, B, mean and a positive var for c channels.
func bnStats(r *rng, c int) []*tensor.Tensor {
	v := r.tensor(c)
	for i, x := range v.F32() {
		v.F32()[i] = x*x + 0.05
	}
	return []*tensor.Tensor{r.tensor(c), r.tensor(c), r.tensor(c), v}
}

// TestFusedBatchNorm: inference BatchNormalization with the epilogue the
// plan fuses into it (DenseNet's BN→Relu) runs on the device for every
// activation, with constant statistics (folded at build) and fed ones
// (folded per run), on rank 3 and rank 4 inputs (N>1, C>1, H≠W), against
// the CPU running BN and the activation as separate nodes. No residual:
// the CPU kernel fuses none, so the plan never hands BatchNormalization
// one (and the device, given its CPU kernel, declines one).
func TestFusedBatchNorm(t *testing.T) {
	r := &rng{s: 31}
	acts := []struct {
		act         op.Activation
		alpha, beta float32
	}{
		{op.Activation("Relu"), 0, 0}, {op.Activation("Clip"), -0.5, 0.6}, {op.Activation("LeakyRelu"), 0.1, 0},
		{op.Activation("Sigmoid"), 0, 0}, {op.Activation("HardSigmoid"), 0.2, 0.5}, {op.Activation("HardSwish"), 0, 0}, {op.Activation("Tanh"), 0, 0},
		{op.Activation("Gelu"), 0, 0}, {op.Activation("Gelu/tanh"), 0, 0},
	}
	for _, shape := range [][]int{{2, 3, 5, 7}, {3, 4, 6}} {
		for _, a := range acts {
			for _, constStats := range []bool{true, false} {
				name := fmt.Sprintf("%v/%s/const=%v", shape, a.act, constStats)
				x, stats := r.tensor(shape...), bnStats(r, shape[1])
				want, err := bnReference(x, stats, a.act, a.alpha, a.beta)
				if err != nil {
					t.Fatalf("%s: CPU reference: %v", name, err)
				}
				got, err := bnOnDevice(x, stats, constStats, &op.Fusion{Activation: a.act, Alpha: a.alpha, Beta: a.beta})
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				if d := closeEnough(got, want, 1e-5, 1e-4); d != "" {
					t.Errorf("%s: %s", name, d)
				}
			}
		}
	}
}

// bnReference runs BatchNormalization and the activation as separate CPU
// nodes.
func bnReference(x *tensor.Tensor, stats []*tensor.Tensor, act op.Activation, alpha, beta float32) (*tensor.Tensor, error) {
	g := newModel(20).feed("x", x).init("s", stats[0]).init("b", stats[1]).init("m", stats[2]).init("v", stats[3]).
		node("BatchNormalization", []string{"x", "s", "b", "m", "v"}, []string{"n"})
	var attrs []*pb.AttributeProto
	in := []string{"n"}
	opType := string(act)
	switch act {
	case op.Activation("Gelu/tanh"):
		opType, attrs = "Gelu", append(attrs, aStr("approximate", "tanh"))
	case op.Activation("Clip"):
		g.init("lo", tensor.Of([]int{}, []float32{alpha})).init("hi", tensor.Of([]int{}, []float32{beta}))
		in = append(in, "lo", "hi")
	case op.Activation("LeakyRelu"):
		attrs = append(attrs, aFloat("alpha", alpha))
	case op.Activation("HardSigmoid"):
		attrs = append(attrs, aFloat("alpha", alpha), aFloat("beta", beta))
	}
	g.node(opType, in, []string{"y"}, attrs...).output("y")
	out, err := runModel(g, false)
	if err != nil {
		return nil, err
	}
	return out.out["y"], nil
}

// bnOnDevice builds the WebGPU kernel for a BatchNormalization node with
// the fusion f, as the plan's rewrite hands it over, and runs it.
func bnOnDevice(x *tensor.Tensor, stats []*tensor.Tensor, constStats bool, f *op.Fusion) (*tensor.Tensor, error) {
	n := &op.Node{Name: "bn", OpType: "BatchNormalization", Version: 15, Opset: 15, Attrs: map[string]*pb.AttributeProto{},
		Inputs: []string{"x", "s", "b", "m", "v"}, Consts: make([]*tensor.Tensor, 6), Fused: f}
	vals := []tensor.Value{x}
	types := []graph.Type{typeOf(x)}
	for i, s := range stats {
		vals, types = append(vals, s), append(types, typeOf(s))
		if constStats {
			n.Consts[i+1] = s
		}
	}
	return runNodeOn(accSimple, n, types, vals)
}

// TestBatchNormReluPlaced: the plan fuses a Relu into a BatchNormalization
// (the DenseNet pattern) and the fused node stays on the device, with the
// result of the CPU.
func TestBatchNormReluPlaced(t *testing.T) {
	r := &rng{s: 37}
	stats := bnStats(r, 3)
	g := newModel(15).feed("x", r.tensor(2, 3, 5, 7)).init("s", stats[0]).init("b", stats[1]).init("m", stats[2]).init("v", stats[3]).
		node("BatchNormalization", []string{"x", "s", "b", "m", "v"}, []string{"n"}).
		node("Relu", []string{"n"}, []string{"y"}).output("y")
	cpu, err := runModel(g, false)
	if err != nil {
		t.Fatal(err)
	}
	s, err := runtime.Load(g.bytes(), &runtime.Options{Accelerator: acc})
	if err != nil {
		t.Fatal(err)
	}
	var steps []*plan.Step
	for _, st := range s.Plan().Steps {
		if st.Transfer == plan.NoTransfer {
			steps = append(steps, st)
		}
	}
	if len(steps) != 1 || steps[0].Node.Fused == nil || steps[0].Device != webgpu.Device {
		for _, st := range steps {
			t.Logf("step %s %s on %s (%s), fused %+v", st.Node.Name, st.Node.OpType, st.Device, st.Reason, st.Node.Fused)
		}
		t.Fatal("want one BatchNormalization step with the Relu fused, on the device")
	}
	out, err := s.Run(context.Background(), map[string]tensor.Value{"x": g.feeds["x"]})
	if err != nil {
		t.Fatal(err)
	}
	if d := closeEnough(out["y"].(*tensor.Tensor), cpu.out["y"], 1e-5, 1e-4); d != "" {
		t.Error(d)
	}
}
