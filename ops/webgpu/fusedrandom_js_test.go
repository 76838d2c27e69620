//go:build js && wasm

package webgpu_test

import (
	"fmt"
	"testing"

	"github.com/gort-dev/gort/ops/webgpu"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/tensor"
)

// fusedConfigs is the number of random models per op in
// TestRandomFusedForms (a fifth of configs(): 200 in make test).
func fusedConfigs() int { return max(1, configs()/5) }

// activationTail appends a random activation (or none) reading x and
// returns the output name and its description. Every activation the plan
// can fuse is drawn, with random parameters.
func activationTail(r *rng, g *graphModel, x string) (string, string) {
	switch r.intn(11) {
	case 0:
		g.node("Relu", []string{x}, []string{"act"})
	case 1:
		g.node("Sigmoid", []string{x}, []string{"act"})
	case 2:
		g.node("Tanh", []string{x}, []string{"act"})
	case 3:
		a := float32(r.intn(50)) / 100
		g.node("LeakyRelu", []string{x}, []string{"act"}, aFloat("alpha", a))
		return "act", fmt.Sprintf("LeakyRelu(%g)", a)
	case 4:
		a, b := float32(1+r.intn(40))/100, float32(r.intn(100))/100
		g.node("HardSigmoid", []string{x}, []string{"act"}, aFloat("alpha", a), aFloat("beta", b))
		return "act", fmt.Sprintf("HardSigmoid(%g, %g)", a, b)
	case 5:
		g.node("HardSwish", []string{x}, []string{"act"})
	case 6:
		lo, hi := -float32(r.intn(100))/100, float32(r.intn(100))/100
		g.init("lo", tensor.Scalar(lo)).init("hi", tensor.Scalar(hi))
		g.node("Clip", []string{x, "lo", "hi"}, []string{"act"})
		return "act", fmt.Sprintf("Clip(%g, %g)", lo, hi)
	case 7:
		g.node("Gelu", []string{x}, []string{"act"})
	case 8:
		g.node("Gelu", []string{x}, []string{"act"}, aStr("approximate", "tanh"))
		return "act", "Gelu(tanh)"
	default:
		return x, "no activation"
	}
	return "act", g.nodes[len(g.nodes)-1].OpType
}

// residualTail appends, half of the time, a residual Add of a feed of
// shape ys to x.
func residualTail(r *rng, g *graphModel, x string, ys []int) (string, string) {
	if r.intn(2) == 0 {
		return x, "no residual"
	}
	g.feed("res", r.tensor(ys...))
	in := []string{x, "res"}
	if r.intn(2) == 0 {
		in = []string{"res", x}
	}
	g.node("Add", in, []string{"resout"})
	return "resout", "residual"
}

// randomMatMul draws an N-D MatMul with, at random, a constant B, a bias
// Add of each shape the plan folds ([N], [1, N], [1, 1, N]) or one it does
// not, a residual Add and an activation.
func randomMatMul(r *rng) (*graphModel, string) {
	g := newModel(20)
	rank := 2 + r.intn(3)
	m, k, n := 1+r.intn(20), 1+r.intn(17), 1+r.intn(20)
	as := []int{m, k}
	for len(as) < rank {
		as = append([]int{1 + r.intn(3)}, as...)
	}
	g.feed("a", r.tensor(as...))
	desc := fmt.Sprintf("A %v", as)
	if r.intn(4) == 0 { // B a feed with its own batch dims (no bias fusion then)
		bs := append(append([]int{}, as[:rank-2]...), k, n)
		if rank > 2 && r.intn(2) == 0 {
			bs[0] = 1 // broadcast
		}
		g.feed("b", r.tensor(bs...))
		desc += fmt.Sprintf(" × fed B %v", bs)
	} else {
		g.init("b", r.tensor(k, n))
		desc += fmt.Sprintf(" × constant B [%d %d]", k, n)
	}
	g.node("MatMul", []string{"a", "b"}, []string{"mm"})
	out := "mm"
	ys := append(append([]int{}, as[:rank-2]...), m, n)
	var bias []int
	switch r.intn(5) {
	case 0:
		bias = []int{n}
	case 1:
		bias = []int{1, n}
	case 2:
		bias = make([]int, rank)
		for i := range bias {
			bias[i] = 1
		}
		bias[rank-1] = n
	case 3:
		bias = []int{m, n} // per element: not folded into the MatMul
	}
	if bias != nil {
		g.init("bias", r.tensor(bias...))
		in := []string{out, "bias"}
		if r.intn(2) == 0 {
			in = []string{"bias", out}
		}
		g.node("Add", in, []string{"biased"})
		out = "biased"
		desc += fmt.Sprintf(" + bias %v", bias)
	}
	out, rd := residualTail(r, g, out, ys)
	out, ad := activationTail(r, g, out)
	g.output(out)
	return g, desc + ", " + rd + ", " + ad
}

// randomGemm draws a Gemm with random transposes, α, β and C of each
// broadcastable shape (or none), then a residual and an activation.
func randomGemm(r *rng) (*graphModel, string) {
	g := newModel(20)
	m, k, n := 1+r.intn(20), 1+r.intn(17), 1+r.intn(20)
	ta, tb := r.intn(2), r.intn(2)
	as, bs := []int{m, k}, []int{k, n}
	if ta == 1 {
		as = []int{k, m}
	}
	if tb == 1 {
		bs = []int{n, k}
	}
	g.feed("a", r.tensor(as...))
	if r.intn(2) == 0 {
		g.init("b", r.tensor(bs...))
	} else {
		g.feed("b", r.tensor(bs...))
	}
	alpha, beta := float32(1+r.intn(20))/10, float32(r.intn(20))/10
	in := []string{"a", "b"}
	cs := [][]int{nil, {}, {n}, {1, n}, {m, 1}, {m, n}}[r.intn(6)]
	if cs != nil {
		g.init("c", r.tensor(cs...))
		in = append(in, "c")
	}
	g.node("Gemm", in, []string{"gemm"}, aInt("transA", int64(ta)), aInt("transB", int64(tb)), aFloat("alpha", alpha), aFloat("beta", beta))
	out, rd := residualTail(r, g, "gemm", []int{m, n})
	out, ad := activationTail(r, g, out)
	g.output(out)
	return g, fmt.Sprintf("A %v (transA %d) × B %v (transB %d), α %g, β %g, C %v, %s, %s", as, ta, bs, tb, alpha, beta, cs, rd, ad)
}

// randomConvChain draws a 2-D Conv (groups, strides, pads, dilations,
// bias or not) followed, at random, by an inference BatchNormalization
// (folded into the weights), a residual Add and an activation.
func randomConvChain(r *rng) (*graphModel, string) {
	g := newModel(20)
	group := 1 + r.intn(3)
	cg, mg := 1+r.intn(3), 1+r.intn(3)
	c, mOut := cg*group, mg*group
	kh, kw := 1+r.intn(3), 1+r.intn(3)
	sh, sw := 1+r.intn(2), 1+r.intn(2)
	dh, dw := 1+r.intn(2), 1+r.intn(2)
	p := []int64{int64(r.intn(2)), int64(r.intn(3)), int64(r.intn(2)), int64(r.intn(3))}
	h, w := (kh-1)*dh+1+r.intn(6), (kw-1)*dw+1+r.intn(6)
	nb := 1 + r.intn(2)
	g.feed("x", r.tensor(nb, c, h, w)).init("w", r.tensor(mOut, cg, kh, kw))
	in := []string{"x", "w"}
	if r.intn(2) == 0 {
		g.init("cb", r.tensor(mOut))
		in = append(in, "cb")
	}
	g.node("Conv", in, []string{"conv"}, aInt("group", int64(group)), aInts("strides", int64(sh), int64(sw)),
		aInts("dilations", int64(dh), int64(dw)), aInts("pads", p...))
	oh := (h+int(p[0]+p[2])-(kh-1)*dh-1)/sh + 1
	ow := (w+int(p[1]+p[3])-(kw-1)*dw-1)/sw + 1
	out, bn := "conv", "no BatchNormalization"
	if r.intn(2) == 0 {
		g.init("s", r.tensor(mOut)).init("bb", r.tensor(mOut)).init("mean", r.tensor(mOut)).init("var", r.positive(mOut))
		g.node("BatchNormalization", []string{out, "s", "bb", "mean", "var"}, []string{"bn"})
		out, bn = "bn", "BatchNormalization"
	}
	out, rd := residualTail(r, g, out, []int{nb, mOut, oh, ow})
	out, ad := activationTail(r, g, out)
	g.output(out)
	return g, fmt.Sprintf("x [%d %d %d %d], W [%d %d %d %d], group %d, strides %d×%d, dilations %d×%d, pads %v, bias %v, %s, %s, %s",
		nb, c, h, w, mOut, cg, kh, kw, group, sh, sw, dh, dw, p, len(in) == 3, bn, rd, ad)
}

// TestRandomFusedForms draws MatMul, Gemm and Conv models with and without
// each input and epilogue the plan can fuse into them, and runs each with
// every rewrite on and the device taking what it accepts, against the CPU
// with the rewrites off: within atol 1e-4 + rtol 1e-3. The op itself must
// be on the device in every form.
func TestRandomFusedForms(t *testing.T) {
	for _, c := range []struct {
		op   string
		draw func(*rng) (*graphModel, string)
	}{
		{"MatMul", randomMatMul},
		{"Gemm", randomGemm},
		{"Conv", randomConvChain},
	} {
		t.Run(c.op, func(t *testing.T) {
			r := &rng{s: 0x5eed + uint64(len(c.op))}
			fused := map[string]int{}
			for i := range fusedConfigs() {
				seed := r.s
				g, desc := c.draw(r)
				want, err := runModelAt(g, nil, plan.Disabled)
				if err != nil {
					t.Fatalf("config %d (seed %#x) %s: CPU: %v", i, seed, desc, err)
				}
				// The tiled and the per-element matrix products alternate
				// (a software adapter would pick only the second).
				dev := []*webgpu.Accelerator{accTiled, accSimple}[i%2]
				got, err := runModelAt(g, dev, plan.All)
				if err != nil {
					t.Fatalf("config %d (seed %#x) %s: WebGPU: %v", i, seed, desc, err)
				}
				for _, st := range got.steps {
					if st.Node.OpType != c.op {
						continue
					}
					if st.Device != webgpu.Device {
						t.Errorf("config %d %s: %s on %s (%s)", i, desc, c.op, st.Device, st.Reason)
					}
					if f := st.Node.Fused; f != nil {
						fused[fmt.Sprintf("act %q residual %v", f.Activation, f.Residual)]++
					}
					if len(st.Node.Inputs) > 2 && st.Node.Inputs[2] != "" && c.op == "MatMul" {
						fused["bias"]++
					}
				}
				for name, w := range want.out {
					if d := closeEnough(got.out[name], w, 1e-4, 1e-3); d != "" {
						t.Errorf("config %d (seed %#x) %s: %s", i, seed, desc, d)
					}
				}
			}
			t.Logf("%d configs; fused forms: %v", fusedConfigs(), fused)
		})
	}
}
