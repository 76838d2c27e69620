package webgpu

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gort-dev/gort/runtime/graph"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
)

// TestContractDeclines: a node with an input, attribute or fused field its
// kernel does not implement stays on the CPU, with the reason.
func TestContractDeclines(t *testing.T) {
	ctRes := node("ConvTranspose", []string{"x", "w", "", "r"}, []string{"y"})
	ctRes.Fused = &op.Fusion{Residual: true}
	legacyAdd := node("Add", []string{"a", "b"}, []string{"y"}, &pb.AttributeProto{Name: "broadcast", Type: pb.AttributeProto_INT, I: 1})
	legacyAdd.Version = 6
	for _, c := range []struct {
		n    *op.Node
		in   []graph.Type
		want string
	}{
		{node("Softmax", []string{"x", "extra"}, []string{"y"}), []graph.Type{ft(2), ft(2)}, "input 1 (extra) of Softmax is not implemented"},
		{legacyAdd, []graph.Type{ft(2, 3), ft(3)}, "attribute broadcast of Add is not implemented"},
		{node("Conv", []string{"x", "w"}, []string{"y"}, &pb.AttributeProto{Name: "future", Type: pb.AttributeProto_INT, I: 1}), []graph.Type{ft(1, 1, 3, 3), ft(1, 1, 1, 1)}, "attribute future of Conv"},
		{ctRes, []graph.Type{ft(1, 1, 2, 2), ft(1, 1, 1, 1), {}, ft(1, 1, 2, 2)}, "fused residual on ConvTranspose"},
		{node("MatMul", []string{"a", "b", "bias"}, []string{"y"}), []graph.Type{ft(1, 3, 4), ft(4, 5), ft(3, 5)}, "MatMul bias that is not one value per output column"},
	} {
		s, reason := decideCPU(c.n, c.in, 1<<30, 0)
		if s != nil || !strings.Contains(reason, c.want) {
			t.Errorf("%s %v: placed=%v reason %q, want one containing %q", c.n.OpType, c.in, s != nil, reason, c.want)
		}
	}
}

// TestMatMulBiasAccepted: the bias the plan fuses into an N-D MatMul
// (runtime/plan/matmulbias.go) is run as Gemm's C with β = 1.
func TestMatMulBiasAccepted(t *testing.T) {
	for _, bias := range []graph.Type{ft(5), ft(1, 5), ft(1, 1, 5)} {
		s, reason := decideCPU(node("MatMul", []string{"a", "b", "bias"}, []string{"y"}), []graph.Type{ft(2, 3, 4), ft(4, 5), bias}, 1<<30, 0)
		if s == nil {
			t.Fatalf("bias %v declined: %s", bias.Shape, reason)
		}
		if !s.hasC || s.gBeta != 1 || s.gAlpha != 1 || !strings.Contains(s.src, "cc[") {
			t.Errorf("bias %v: hasC %v, α %v, β %v; the kernel must add the bias", bias.Shape, s.hasC, s.gAlpha, s.gBeta)
		}
	}
	s, _ := decideCPU(node("MatMul", []string{"a", "b"}, []string{"y"}), []graph.Type{ft(2, 3, 4), ft(4, 5)}, 1<<30, 0)
	if s == nil || s.hasC || strings.Contains(s.src, "cc[") {
		t.Errorf("a MatMul without a bias must not bind one")
	}
}

// TestFusionFieldsKnown fails when op.Fusion gains a field: the WebGPU
// kernels read Activation, Alpha, Beta and Residual (and Fused names the
// merged nodes for reports); a new field must be implemented or declined
// in checkContract before this list grows.
func TestFusionFieldsKnown(t *testing.T) {
	var fields []string
	ty := reflect.TypeOf(op.Fusion{})
	for i := range ty.NumField() {
		fields = append(fields, ty.Field(i).Name)
	}
	if want := []string{"Activation", "Alpha", "Beta", "Residual", "Fused"}; !slices.Equal(fields, want) {
		t.Errorf("op.Fusion has fields %v; the WebGPU kernels know %v", fields, want)
	}
}

// TestContractsMatchDecide: every op with a contract or a declared
// activation with a WGSL form is placed in a plain form, and an op with
// neither is declined; Ops, the contract table and decide cannot drift
// apart.
func TestContractsMatchDecide(t *testing.T) {
	x := ft(1, 2, 4, 4)
	plain := map[string]struct {
		n  *op.Node
		in []graph.Type
	}{
		"Conv":          {node("Conv", []string{"x", "w"}, []string{"y"}), []graph.Type{x, ft(2, 2, 1, 1)}},
		"ConvTranspose": {node("ConvTranspose", []string{"x", "w"}, []string{"y"}), []graph.Type{x, ft(2, 2, 1, 1)}},
		"MaxPool":       {node("MaxPool", []string{"x"}, []string{"y"}, &pb.AttributeProto{Name: "kernel_shape", Type: pb.AttributeProto_INTS, Ints: []int64{2, 2}}), []graph.Type{x}},
		"AveragePool":   {node("AveragePool", []string{"x"}, []string{"y"}, &pb.AttributeProto{Name: "kernel_shape", Type: pb.AttributeProto_INTS, Ints: []int64{2, 2}}), []graph.Type{x}},
		"Concat":        {node("Concat", []string{"x", "x"}, []string{"y"}, &pb.AttributeProto{Name: "axis", Type: pb.AttributeProto_INT, I: 1}), []graph.Type{x, x}},
		"Resize":        {node("Resize", []string{"x"}, []string{"y"}), []graph.Type{x}},
		"Upsample":      {node("Upsample", []string{"x", "s"}, []string{"y"}), []graph.Type{x, ft(4)}},
		"Reshape":       {node("Reshape", []string{"x", "s"}, []string{"y"}), []graph.Type{x, ft(2)}},
		"BatchNormalization": {node("BatchNormalization", []string{"x", "s", "b", "m", "v"}, []string{"y"}),
			[]graph.Type{x, ft(2), ft(2), ft(2), ft(2)}},
		"MatMul": {node("MatMul", []string{"a", "b"}, []string{"y"}), []graph.Type{ft(2, 3), ft(3, 2)}},
		"Gemm":   {node("Gemm", []string{"a", "b"}, []string{"y"}), []graph.Type{ft(2, 3), ft(3, 2)}},
	}
	for _, name := range Ops() {
		c, ok := plain[name]
		if !ok {
			n := node(name, []string{"x"}, []string{"y"})
			in := []graph.Type{x}
			if _, binary := binaryOps[name]; binary || name == "Sum" {
				n.Inputs, in = []string{"a", "b"}, []graph.Type{x, x}
			}
			c.n, c.in = n, in
		}
		switch name {
		case "Upsample":
			c.n.Version = 9
		case "Gelu":
			c.n.Version, c.n.Opset = 20, 20
		}
		if s, reason := decideCPU(c.n, c.in, 1<<30, 0); s == nil {
			t.Errorf("%s has a contract but is declined in a plain form: %s", name, reason)
		}
	}
	if s, _ := decideCPU(node("Softplus", []string{"x"}, []string{"y"}), []graph.Type{x}, 1<<30, 0); s != nil {
		t.Error("an op without a contract or a declared activation was placed")
	}
}
