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

// TestGPUReadsTheCPUParse: the attributes the WebGPU kernels run with
// are those the node's CPU kernel parsed (op.AttrsKernel), defaults and
// version rules included; offered without a CPU kernel, a node stays on
// the CPU rather than being read a second time.
func TestGPUReadsTheCPUParse(t *testing.T) {
	gemm := node("Gemm", []string{"a", "b"}, []string{"y"},
		&pb.AttributeProto{Name: "transB", Type: pb.AttributeProto_INT, I: 1},
		&pb.AttributeProto{Name: "alpha", Type: pb.AttributeProto_FLOAT, F: 0.5})
	mats := []graph.Type{ft(2, 3), ft(4, 3)}
	if s, reason := decide(gemm, nil, mats, 1<<30, 0); s != nil || !strings.Contains(reason, "does not expose its parsed attributes") {
		t.Errorf("Gemm without its CPU kernel: placed=%v, reason %q", s != nil, reason)
	}
	if s, reason := decideCPU(gemm, mats, 1<<30, 0); s == nil || !s.transB || s.transA || s.gAlpha != 0.5 || s.gBeta != 1 {
		t.Errorf("Gemm: placed=%v (%s), want transB, α 0.5, β 1", s != nil, reason)
	}
	legacy := node("Softmax", []string{"x"}, []string{"y"})
	legacy.Version, legacy.Opset = 11, 11
	if s, reason := decideCPU(legacy, []graph.Type{ft(2, 3, 4)}, 1<<30, 0); s == nil || s.axis != 1 || !s.legacy {
		t.Errorf("Softmax-11: placed=%v (%s), want axis 1 (its default), coerced to 2-D", s != nil, reason)
	}
	if s, reason := decideCPU(node("Softmax", []string{"x"}, []string{"y"}), []graph.Type{ft(2, 3, 4)}, 1<<30, 0); s == nil || s.axis != 2 || s.legacy {
		t.Errorf("Softmax-13: placed=%v (%s), want axis 2 (-1, its default)", s != nil, reason)
	}
	// allowzero exists from Reshape-14; the CPU ignores it before.
	reshape := node("Reshape", []string{"x", "s"}, []string{"y"}, &pb.AttributeProto{Name: "allowzero", Type: pb.AttributeProto_INT, I: 1})
	for _, v := range []int{13, 14} {
		reshape.Version, reshape.Opset = v, v
		if s, reason := decideCPU(reshape, []graph.Type{ft(2, 3), ft(2)}, 1<<30, 0); s == nil || s.allowZero != (v >= 14) {
			t.Errorf("Reshape-%d with allowzero=1: placed=%v (%s), want allowZero %v", v, s != nil, reason, v >= 14)
		}
	}
}
