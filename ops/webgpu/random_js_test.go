//go:build js && wasm

package webgpu_test

import (
	"fmt"
	"github.com/gort-dev/gort/ops/kernels"
	"os"
	"strconv"
	"testing"

	"github.com/gort-dev/gort/ops/webgpu"
	"github.com/gort-dev/gort/runtime/graph"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// configs is the number of random configurations per test
// (GORT_WEBGPU_CONFIGS overrides the 1000 of make test).
func configs() int {
	if v, err := strconv.Atoi(os.Getenv("GORT_WEBGPU_CONFIGS")); err == nil && v > 0 {
		return v
	}
	return 1000
}

func typeOf(t *tensor.Tensor) graph.Type {
	ty := graph.Type{Kind: graph.KindTensor, Elem: t.DType(), Shape: []graph.Dim{}}
	for _, d := range t.Shape() {
		ty.Shape = append(ty.Shape, graph.Dim{Value: int64(d)})
	}
	return ty
}

// convCase is one random Conv (or ConvTranspose) configuration.
type convCase struct {
	transpose bool
	x, w, b   *tensor.Tensor
	res       *tensor.Tensor // fused residual, or nil
	constW    bool
	attrs     []*pb.AttributeProto
	act       op.Activation
	alpha     float32
	beta      float32
	desc      string
}

// convActs is every activation of ops/kernels' table, and none.
var convActs = func() []op.Activation {
	acts := []op.Activation{op.ActNone}
	for _, a := range kernels.Activations() {
		acts = append(acts, op.Activation(a.String()))
	}
	return acts
}()

// randomConv draws a configuration; pointwise forces a 1×1, stride-1,
// unpadded Conv without groups (the tiled matrix-product path).
func randomConv(r *rng, transpose, pointwise bool) *convCase {
	for {
		nd := 1 + r.intn(2)
		if r.intn(10) == 0 {
			nd = 3
		}
		group := 1 + r.intn(3)
		cg, mg := 1+r.intn(4), 1+r.intn(4)
		if !transpose && r.intn(4) == 0 { // depthwise
			cg, mg = 1, 1+r.intn(2)
			group = 1 + r.intn(6)
		}
		if pointwise {
			group, cg, mg = 1, 1+r.intn(24), 1+r.intn(24)
		}
		n := 1 + r.intn(3)
		maxIn := 9
		if nd == 3 {
			maxIn = 5
		}
		in, k, s, d, pads := make([]int, nd), make([]int, nd), make([]int64, nd), make([]int64, nd), make([]int64, 2*nd)
		ok := true
		autoPad := ""
		if r.intn(5) == 0 && !pointwise {
			autoPad = []string{"SAME_UPPER", "SAME_LOWER", "VALID"}[r.intn(3)]
		}
		for i := 0; i < nd; i++ {
			in[i] = 1 + r.intn(maxIn)
			k[i] = 1 + r.intn(4)
			s[i] = int64(1 + r.intn(3))
			d[i] = int64(1 + r.intn(2))
			pads[i], pads[nd+i] = int64(r.intn(3)), int64(r.intn(3))
			if pointwise {
				k[i], s[i], pads[i], pads[nd+i] = 1, 1, 0, 0
				in[i] = 1 + r.intn(24)
			}
			ext := (k[i]-1)*int(d[i]) + 1
			if autoPad != "" {
				pads[i], pads[nd+i] = 0, 0
			}
			if autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER" {
				continue
			}
			if transpose {
				if int(pads[i]+pads[nd+i]) >= int(s[i])*(in[i]-1)+ext {
					ok = false
				}
			} else if in[i]+int(pads[i]+pads[nd+i]) < ext {
				ok = false
			}
		}
		if !ok {
			continue
		}
		c := &convCase{transpose: transpose, constW: r.intn(2) == 0}
		xs := append([]int{n, cg * group}, in...)
		c.x = r.tensor(xs...)
		m := mg * group
		if transpose {
			c.w = r.tensor(append([]int{cg * group, mg}, k...)...)
		} else {
			c.w = r.tensor(append([]int{m, cg}, k...)...)
		}
		if r.intn(3) > 0 {
			c.b = r.tensor(m)
		}
		c.attrs = []*pb.AttributeProto{aInt("group", int64(group)), aInts("strides", s...), aInts("dilations", d...)}
		if autoPad != "" {
			c.attrs = append(c.attrs, aStr("auto_pad", autoPad))
		} else {
			c.attrs = append(c.attrs, aInts("pads", pads...))
		}
		if r.intn(3) == 0 {
			c.attrs = append(c.attrs, aInts("kernel_shape", int64s(k)...))
		}
		if transpose && r.intn(3) == 0 {
			op := make([]int64, nd)
			for i := range op {
				op[i] = int64(r.intn(int(min(s[i], d[i]))))
			}
			c.attrs = append(c.attrs, aInts("output_padding", op...))
		}
		c.act = convActs[r.intn(len(convActs))]
		switch c.act {
		case op.Activation("Clip"):
			c.alpha, c.beta = -0.3, 0.45
		case op.Activation("LeakyRelu"):
			c.alpha = 0.137
		case op.Activation("HardSigmoid"):
			c.alpha, c.beta = 0.3, 0.41
		}
		c.desc = fmt.Sprintf("transpose=%v x=%v w=%v bias=%v constW=%v act=%s attrs=%v", transpose, c.x.Shape(), c.w.Shape(), c.b != nil, c.constW, c.act, attrText(c.attrs))
		return c
	}
}

func int64s(v []int) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}

func attrText(a []*pb.AttributeProto) string {
	s := ""
	for _, p := range a {
		switch p.Type {
		case pb.AttributeProto_INT:
			s += fmt.Sprintf(" %s=%d", p.Name, p.I)
		case pb.AttributeProto_INTS:
			s += fmt.Sprintf(" %s=%v", p.Name, p.Ints)
		case pb.AttributeProto_STRING:
			s += fmt.Sprintf(" %s=%s", p.Name, p.S)
		case pb.AttributeProto_FLOAT:
			s += fmt.Sprintf(" %s=%v", p.Name, p.F)
		}
	}
	return s
}

// reference runs the configuration on the CPU as separate nodes: Conv,
// Add of the residual, then the activation op.
func (c *convCase) reference() (*tensor.Tensor, error) {
	g := newModel(20)
	g.feed("x", c.x).init("w", c.w)
	in := []string{"x", "w"}
	if c.b != nil {
		g.init("b", c.b)
		in = append(in, "b")
	}
	opType := "Conv"
	if c.transpose {
		opType = "ConvTranspose"
	}
	g.node(opType, in, []string{"c"}, c.attrs...)
	cur := "c"
	if c.res != nil {
		g.feed("res", c.res)
		g.node("Add", []string{"c", "res"}, []string{"cr"})
		cur = "cr"
	}
	switch c.act {
	case op.ActNone:
	case op.Activation("Clip"):
		g.init("lo", tensor.Of([]int{}, []float32{c.alpha})).init("hi", tensor.Of([]int{}, []float32{c.beta}))
		g.node("Clip", []string{cur, "lo", "hi"}, []string{"a"})
		cur = "a"
	case op.Activation("LeakyRelu"):
		g.node("LeakyRelu", []string{cur}, []string{"a"}, aFloat("alpha", c.alpha))
		cur = "a"
	case op.Activation("HardSigmoid"):
		g.node("HardSigmoid", []string{cur}, []string{"a"}, aFloat("alpha", c.alpha), aFloat("beta", c.beta))
		cur = "a"
	case op.Activation("Gelu/tanh"):
		g.node("Gelu", []string{cur}, []string{"a"}, aStr("approximate", "tanh"))
		cur = "a"
	default:
		g.node(string(c.act), []string{cur}, []string{"a"})
		cur = "a"
	}
	g.output(cur)
	res, err := runModel(g, false)
	if err != nil {
		return nil, err
	}
	return res.out[cur], nil
}

// onDevice builds the WebGPU kernel for the node with the activation (and
// residual) fused, as the plan's rewrite would hand it, and runs it.
func (c *convCase) onDevice(dev *webgpu.Accelerator) (*tensor.Tensor, error) {
	n := &op.Node{Name: "conv", OpType: "Conv", Version: 11, Opset: 19, Attrs: map[string]*pb.AttributeProto{}}
	if c.transpose {
		n.OpType = "ConvTranspose"
	}
	for _, a := range c.attrs {
		n.Attrs[a.Name] = a
	}
	n.Inputs = []string{"x", "w", ""}
	vals := []tensor.Value{c.x, c.w, nil}
	types := []graph.Type{typeOf(c.x), typeOf(c.w), {}}
	n.Consts = make([]*tensor.Tensor, 4)
	if c.constW {
		n.Consts[1] = c.w
	}
	if c.b != nil {
		n.Inputs[2], vals[2], types[2] = "b", c.b, typeOf(c.b)
		n.Consts[2] = c.b
	}
	if c.act != op.ActNone || c.res != nil {
		n.Fused = &op.Fusion{Activation: c.act, Alpha: c.alpha, Beta: c.beta, Residual: c.res != nil}
	}
	if c.res != nil {
		n.Inputs = append(n.Inputs, "res")
		vals = append(vals, c.res)
		types = append(types, typeOf(c.res))
	}
	return runNodeOn(dev, n, types, vals)
}

func TestRandomConv(t *testing.T) { testRandomConv(t, false, configs()) }

func TestRandomConvTranspose(t *testing.T) { testRandomConv(t, true, configs()/4) }

func testRandomConv(t *testing.T, transpose bool, count int) {
	r := &rng{s: 0x9e3779b97f4a7c15}
	if transpose {
		r.s++
	}
	failed := 0
	for i := 0; i < count && failed < 5; i++ {
		c := randomConv(r, transpose, !transpose && i%8 == 0)
		want, err := c.reference()
		if err != nil {
			t.Fatalf("config %d (%s): CPU reference: %v", i, c.desc, err)
		}
		if !transpose && r.intn(4) == 0 {
			c.res = r.tensor(want.Shape()...)
			c.desc += " residual"
			if want, err = c.reference(); err != nil {
				t.Fatalf("config %d (%s): CPU reference: %v", i, c.desc, err)
			}
		}
		dev := accSimple
		if i%2 == 1 || i%16 == 0 { // half on the tiled kernels (implicit GEMM; 1×1 as a product)
			dev = accTiled
		}
		got, err := c.onDevice(dev)
		if err != nil {
			t.Errorf("config %d (%s): %v", i, c.desc, err)
			failed++
			continue
		}
		if d := closeEnough(got, want, 1e-5, 1e-4); d != "" {
			t.Errorf("config %d (%s): %s", i, c.desc, d)
			failed++
		}
	}
}
