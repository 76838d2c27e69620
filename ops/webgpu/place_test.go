package webgpu

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/gort-dev/gort/ops/kernels"
	"github.com/gort-dev/gort/ops/window"
	"github.com/gort-dev/gort/runtime/graph"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/tensor"
)

func ft(dims ...int64) graph.Type {
	t := graph.Type{Kind: graph.KindTensor, Elem: tensor.Float, Shape: []graph.Dim{}}
	for _, d := range dims {
		t.Shape = append(t.Shape, graph.Dim{Value: d})
	}
	return t
}

func node(opType string, inputs, outputs []string, attrs ...*pb.AttributeProto) *op.Node {
	n := &op.Node{Name: "n", OpType: opType, Version: 13, Opset: 19, Inputs: inputs, Outputs: outputs, Attrs: map[string]*pb.AttributeProto{}}
	for _, a := range attrs {
		n.Attrs[a.Name] = a
	}
	return n
}

// decideCPU is decide with the node's CPU kernel, built from the
// registry as the plan builds it before offering the node (nil when the
// builder refuses the node, as for an op gort does not have at the
// node's opset).
func decideCPU(n *op.Node, in []graph.Type, limit, minElems int64) (*spec, string) {
	return decide(n, cpuKernel(n), in, limit, minElems)
}

// cpuKernel builds n's CPU kernel from the registry (nil when there is
// none at the node's opset or its builder refuses the node).
func cpuKernel(n *op.Node) any {
	r := op.Default.Resolve(n.Domain, n.OpType, n.Opset)
	if r.Builder == nil {
		return nil
	}
	node := *n
	node.Version = r.Version
	k, _ := plan.BuildKernel(r.Builder, &node)
	return k
}

// TestDecline: every CPU placement comes with a reason naming the cause.
func TestDecline(t *testing.T) {
	intT := ft(1, 2, 3, 3)
	intT.Elem = tensor.Int64
	unranked := graph.Type{Kind: graph.KindTensor, Elem: tensor.Float}
	maxPool := node("MaxPool", []string{"x"}, []string{"y", "idx"}, &pb.AttributeProto{Name: "kernel_shape", Type: pb.AttributeProto_INTS, Ints: []int64{2, 2}})
	clip := node("Clip", []string{"x", "lo"}, []string{"y"})
	fusedAdd := node("Add", []string{"a", "b"}, []string{"y"})
	fusedAdd.Fused = &op.Fusion{Activation: op.Activation("Relu")}
	badAct := node("Conv", []string{"x", "w"}, []string{"y"})
	badAct.Fused = &op.Fusion{Activation: "Softplus"}
	for _, c := range []struct {
		n    *op.Node
		in   []graph.Type
		want string
	}{
		{node("Relu", []string{"x"}, []string{"y"}), []graph.Type{intT}, "is int64; WebGPU kernels are float32"},
		{node("Relu", []string{"x"}, []string{"y"}), []graph.Type{{}}, "type unknown at load"},
		{node("Relu", []string{"x"}, []string{"y"}), []graph.Type{unranked}, "rank unknown at load"},
		{node("Relu", []string{"x"}, []string{"y"}), []graph.Type{ft(1<<20, 1<<10)}, "above maxStorageBufferBindingSize"},
		{maxPool, []graph.Type{ft(1, 2, 4, 4)}, "output 1 (idx) is not computed on WebGPU"},
		{clip, []graph.Type{ft(2, 2), ft()}, "Clip has parameters known only at run time"},
		{fusedAdd, []graph.Type{ft(2), ft(2)}, "fused epilogue on Add"},
		{badAct, []graph.Type{ft(1, 1, 3, 3), ft(1, 1, 1, 1)}, `activation "Softplus" has no WGSL form`},
		{node("Conv", []string{"x", "w"}, []string{"y"}), []graph.Type{ft(1, 1, 2, 2, 2, 2), ft(1, 1, 1, 1, 1, 1)}, "rank 6"},
		{node("Add", []string{"a", "b"}, []string{"y"}), []graph.Type{ft(1, 1, 1, 1, 1, 1, 2), ft(2)}, "rank 7 above"},
		{node("Einsum", []string{"x"}, []string{"y"}), []graph.Type{ft(2)}, "no WebGPU kernel for Einsum"},
		// The CPU builder refuses mode "area" (a plan fails to load before
		// offering such a node): without a CPU kernel, the node stays.
		{node("Resize", []string{"x"}, []string{"y"}, &pb.AttributeProto{Name: "mode", Type: pb.AttributeProto_STRING, S: []byte("area")}), []graph.Type{ft(1, 1, 2, 2)}, "does not expose its parsed attributes"},
	} {
		s, reason := decideCPU(c.n, c.in, 1<<30, 0)
		if s != nil || !strings.Contains(reason, c.want) {
			t.Errorf("%s %v: placed=%v reason %q, want one containing %q", c.n.OpType, c.in, s != nil, reason, c.want)
		}
	}
}

// floatLiteral matches a WGSL float literal; only exact small constants
// may appear in shader text (attribute values travel as uniform bits).
var floatLiteral = regexp.MustCompile(`\b\d+\.\d*(e[+-]?\d+)?f?\b|\b\d+e[+-]?\d+f?\b`)

// actLine matches the act function a shader pastes from ops/kernels'
// table: the constants of an activation's formula (Gelu's erf polynomial)
// are the formula's, not values that should have travelled as uniforms.
var actLine = regexp.MustCompile(`(?m)^fn act\(v: f32\) -> f32 \{.*\}$`)

func TestShadersHaveNoLossyLiterals(t *testing.T) {
	allowed := map[string]bool{"0.0": true, "1.0": true, "0.5": true, "6.0": true}
	srcs := []string{concatWGSL, resampleWGSL, poolWGSL(true), poolWGSL(false), binaryWGSL("+", 4), softmaxWGSL}
	acts := []op.Activation{op.ActNone}
	for _, a := range kernels.Activations() {
		acts = append(acts, op.Activation(a.String()))
	}
	for _, a := range acts {
		c, err := convWGSL(a, true)
		if err != nil {
			t.Fatal(err)
		}
		cb, _ := convBlockWGSL(a, true)
		ct, _ := convTransposeWGSL(a, false)
		ctb, _ := convTransposeWGSL(a, true)
		u, _ := unaryWGSL(a)
		mm, _ := matmulWGSL(2, a, true, true)
		mt, _ := matmulTiledWGSL(2, a, true, true)
		cti, _ := convTiledWGSL(a, true)
		af, _ := affineWGSL(a, true)
		srcs = append(srcs, c, cb, ct, ctb, u, mm, mt, cti, af)
	}
	for _, s := range srcs {
		for _, lit := range floatLiteral.FindAllString(actLine.ReplaceAllString(s, ""), -1) {
			if !allowed[lit] {
				t.Errorf("float literal %q in shader text", lit)
			}
		}
	}
}

// TestPlaced: supported nodes get a spec, with one pipeline key per op,
// code path and rank.
func TestPlaced(t *testing.T) {
	conv := node("Conv", []string{"x", "w", "b"}, []string{"y"})
	conv.Fused = &op.Fusion{Activation: op.Activation("LeakyRelu"), Alpha: 0.1}
	for _, c := range []struct {
		n   *op.Node
		in  []graph.Type
		key string
	}{
		{conv, []graph.Type{ft(1, 2, 5, 4), ft(3, 2, 3, 3), ft(3)}, "Conv/LeakyRelu/res=false"},
		{node("Add", []string{"a", "b"}, []string{"y"}), []graph.Type{ft(2, 3, 1), ft(3, 4)}, "Add/r3"},
		{node("GlobalAveragePool", []string{"x"}, []string{"y"}), []graph.Type{ft(2, 3, 4)}, "pool/max=false"},
		{node("Concat", []string{"a", "b"}, []string{"y"}, &pb.AttributeProto{Name: "axis", Type: pb.AttributeProto_INT, I: -1}), []graph.Type{ft(2, 3), ft(2, 4)}, "concat"},
		{node("Resize", []string{"x", "", "s"}, []string{"y"}), []graph.Type{ft(1, 1, 2, 2)}, "resample"},
	} {
		s, reason := decideCPU(c.n, c.in, 1<<30, 0)
		if s == nil || s.key != c.key {
			t.Errorf("%s: spec %+v (%s), want key %q", c.n.OpType, s, reason, c.key)
		}
	}
}

// TestGeometry checks that the window resolved by ops/window lands in the
// kernels' three spatial dims (leading unit dims, pads after auto_pad).
func TestGeometry(t *testing.T) {
	w := &window.Attrs{AutoPad: "SAME_UPPER", Strides: []int{2, 1}}
	wg, err := w.Forward([]int{5, 4}, []int{3, 2})
	if err != nil {
		t.Fatal(err)
	}
	g, err := toGeom(wg)
	if err != nil {
		t.Fatal(err)
	}
	// H: out 3, total pad (3-1)·2+3-5 = 2 → 1,1; W: out 4, total 1 → 0,1.
	if g.out != [3]int{1, 3, 4} || g.pb != [3]int{0, 1, 0} || g.pe != [3]int{0, 1, 1} || g.k != [3]int{1, 3, 2} || g.s != [3]int{1, 2, 1} {
		t.Errorf("SAME_UPPER: out %v pb %v pe %v k %v s %v", g.out, g.pb, g.pe, g.k, g.s)
	}
	w = &window.Attrs{AutoPad: "NOTSET", Strides: []int{3}, OutputPadding: []int{1}, Pads: []int{1, 0}}
	// ConvTranspose: 3·(4-1) + 1 + 2 = 12, minus pads 1 → 11.
	if wg, err = w.Transpose([]int{4}, []int{2}); err != nil {
		t.Fatal(err)
	}
	if g, err = toGeom(wg); err != nil || g.out[2] != 11 || g.pb[2] != 1 || g.in[2] != 4 {
		t.Errorf("transpose: %+v, err %v; want out 11, pb 1", g, err)
	}
	if _, err = toGeom(&window.Geometry{In: []int{2, 2, 2, 2}}); err == nil {
		t.Error("4 spatial dims accepted")
	}
}

// TestCostRule: with a threshold, a node whose inputs are all small and
// known stays on the CPU; one with an unknown dim or a large input does
// not.
func TestCostRule(t *testing.T) {
	relu := node("Relu", []string{"x"}, []string{"y"})
	if s, reason := decideCPU(relu, []graph.Type{ft(2, 3)}, 1<<30, 1024); s != nil || !strings.Contains(reason, "tiny: inputs of at most 6 elements, below the WebGPU cost threshold of 1024") {
		t.Errorf("small Relu placed=%v reason %q", s != nil, reason)
	}
	dyn := ft(2, 3)
	dyn.Shape[0] = graph.Dim{Param: "N"}
	for _, ty := range []graph.Type{ft(1, 32, 32), dyn} {
		if s, reason := decideCPU(relu, []graph.Type{ty}, 1<<30, 1024); s == nil {
			t.Errorf("Relu %v declined: %s", ty, reason)
		}
	}
	add := node("Add", []string{"a", "b"}, []string{"y"})
	if s, reason := decideCPU(add, []graph.Type{ft(4096), ft(1)}, 1<<30, 1024); s == nil {
		t.Errorf("Add with one large input declined: %s", reason)
	}
}

func TestReshape(t *testing.T) {
	for _, c := range []struct {
		x      []int
		target []int64
		zero   bool
		want   string
	}{
		{[]int{2, 3, 4}, []int64{0, -1}, false, "[2 12]"},
		{[]int{2, 3, 4}, []int64{4, 0, 2}, false, "[4 3 2]"},
		{[]int{2, 0, 4}, []int64{0, 4, 0}, true, "[0 4 0]"},
		{[]int{2, 3, 4}, []int64{-1, -1}, false, "error"},
		{[]int{2, 3, 4}, []int64{5, -1}, false, "error"},
		{[]int{2, 3, 4}, []int64{7}, false, "error"},
	} {
		got, err := reshape(c.x, c.target, c.zero)
		s := fmt.Sprint(got)
		if err != nil {
			s = "error"
		}
		if s != c.want {
			t.Errorf("reshape(%v, %v, %v) = %s (%v), want %s", c.x, c.target, c.zero, s, err, c.want)
		}
	}
}

// TestDry: the device-less accelerator takes what WebGPU would (Conv on
// a large enough input) and declines the rest with the same reasons.
func TestDry(t *testing.T) {
	d := Dry{Options{MinElements: DefaultMinElements}}
	conv := node("Conv", []string{"x", "w"}, []string{"y"})
	if k, why := d.Kernel(conv, cpuKernel(conv), []graph.Type{ft(2, 3, 40, 30), ft(4, 3, 3, 3)}); k == nil {
		t.Errorf("Conv declined: %s", why)
	} else if _, err := k.(op.ValueKernel).RunValues(nil, nil); err == nil {
		t.Error("a Dry kernel ran")
	}
	if k, why := d.Kernel(conv, cpuKernel(conv), []graph.Type{ft(1, 3, 4, 3), ft(4, 3, 3, 3)}); k != nil || !strings.Contains(why, "tiny") {
		t.Errorf("tiny Conv: %v, %q", k, why)
	}
	if k, why := d.Kernel(node("ReduceMean", []string{"x"}, []string{"y"}), nil, []graph.Type{ft(2, 3, 40, 30)}); k != nil || why == "" {
		t.Errorf("ReduceMean: %v, %q", k, why)
	}
}
