//go:build js && wasm

package webgpu_test

import (
	"fmt"
	"testing"

	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

// randShape returns a shape of rank r with dims in [1, hi].
func (r *rng) shape(rank, hi int) []int {
	s := make([]int, rank)
	for i := range s {
		s[i] = 1 + r.intn(hi)
	}
	return s
}

// broadcastable returns a shape that broadcasts against s: a suffix of
// s's dims with some set to 1.
func (r *rng) broadcastable(s []int) []int {
	out := append([]int(nil), s[r.intn(len(s)+1):]...)
	for i := range out {
		if r.intn(3) == 0 {
			out[i] = 1
		}
	}
	return out
}

// neighbour builds one random model of the ops around Conv and Resize.
func neighbour(r *rng, family int) (*graphModel, string) {
	g := newModel(19)
	switch family {
	case 0: // pools
		nd := 1 + r.intn(2)
		x := r.shape(2+nd, 7)
		k, s, d, pads := make([]int64, nd), make([]int64, nd), make([]int64, nd), make([]int64, 2*nd)
		for i := 0; i < nd; i++ {
			k[i] = int64(1 + r.intn(min(3, x[2+i])))
			s[i] = int64(1 + r.intn(2))
			d[i] = 1
			pads[i], pads[nd+i] = int64(r.intn(int(k[i]))), int64(r.intn(int(k[i])))
		}
		opType := []string{"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"}[r.intn(4)]
		attrs := []*pb.AttributeProto{aInts("kernel_shape", k...), aInts("strides", s...), aInts("pads", pads...), aInt("ceil_mode", int64(r.intn(2)))}
		switch opType {
		case "MaxPool":
			if r.intn(2) == 0 {
				for i := range d {
					d[i] = int64(1 + r.intn(2))
				}
				attrs = append(attrs, aInts("dilations", d...))
			}
		case "AveragePool":
			attrs = append(attrs, aInt("count_include_pad", int64(r.intn(2))))
		default:
			attrs = nil
		}
		g.feed("x", r.tensor(x...)).node(opType, []string{"x"}, []string{"y"}, attrs...)
		return g.output("y"), fmt.Sprintf("%s x=%v%s", opType, x, attrText(attrs))
	case 1: // broadcasting arithmetic
		a := r.shape(1+r.intn(5), 5)
		b := r.broadcastable(a)
		if r.intn(2) == 0 {
			a, b = b, a
		}
		opType := []string{"Add", "Sub", "Mul", "Div", "Sum"}[r.intn(5)]
		bt := r.tensor(b...)
		if opType == "Div" {
			for i, v := range bt.F32() {
				if v > -0.1 && v < 0.1 {
					bt.F32()[i] = 0.5
				}
			}
		}
		g.feed("a", r.tensor(a...))
		if r.intn(2) == 0 {
			g.init("b", bt)
		} else {
			g.feed("b", bt)
		}
		in := []string{"a", "b"}
		if opType == "Sum" && r.intn(2) == 0 {
			c := r.broadcastable(a)
			if r.intn(2) == 0 { // a third input of higher rank than the first two
				c = append([]int{2}, a...)
			}
			g.feed("c", r.tensor(c...))
			in = append(in, "c")
		}
		g.node(opType, in, []string{"y"})
		return g.output("y"), fmt.Sprintf("%s %v %v (%d inputs)", opType, a, b, len(in))
	case 2: // activations
		x := r.shape(1+r.intn(4), 6)
		opType := []string{"Relu", "Sigmoid", "Tanh", "LeakyRelu", "HardSigmoid", "HardSwish", "Clip"}[r.intn(7)]
		in := []string{"x"}
		var attrs []*pb.AttributeProto
		switch opType {
		case "LeakyRelu":
			attrs = append(attrs, aFloat("alpha", 0.07))
		case "HardSigmoid":
			attrs = append(attrs, aFloat("alpha", 0.33), aFloat("beta", 0.6))
		case "Clip":
			g.init("lo", tensor.Of([]int{}, []float32{-0.2}))
			in = append(in, "lo")
			if r.intn(2) == 0 {
				g.init("hi", tensor.Of([]int{}, []float32{0.7}))
				in = append(in, "hi")
			}
		}
		xt := r.tensor(x...)
		for i := range xt.F32() {
			xt.F32()[i] *= 8
		}
		g.feed("x", xt).node(opType, in, []string{"y"}, attrs...)
		return g.output("y"), fmt.Sprintf("%s %v", opType, x)
	case 3: // Concat of 1 to 3 inputs
		rank := 1 + r.intn(4)
		x := r.shape(rank, 5)
		axis := r.intn(rank)
		var in []string
		for j := 0; j < 1+r.intn(3); j++ {
			s := append([]int(nil), x...)
			s[axis] = r.intn(4)
			name := fmt.Sprintf("x%d", j)
			g.feed(name, r.tensor(s...))
			in = append(in, name)
		}
		if r.intn(2) == 0 {
			axis -= rank
		}
		g.node("Concat", in, []string{"y"}, aInt("axis", int64(axis)))
		return g.output("y"), fmt.Sprintf("Concat %v axis %d of %d inputs", x, axis, len(in))
	case 4: // BatchNormalization
		x := r.shape(2+r.intn(3), 6)
		c := x[1]
		v := r.tensor(c)
		for i := range v.F32() {
			v.F32()[i] = v.F32()[i]*v.F32()[i] + 0.1
		}
		g.feed("x", r.tensor(x...))
		if r.intn(2) == 0 { // constant statistics, or fed ones (folded per run)
			g.init("s", r.tensor(c)).init("b", r.tensor(c)).init("m", r.tensor(c)).init("v", v)
		} else {
			g.feed("s", r.tensor(c)).feed("b", r.tensor(c)).feed("m", r.tensor(c)).feed("v", v)
		}
		g.node("BatchNormalization", []string{"x", "s", "b", "m", "v"}, []string{"y"}, aFloat("epsilon", 1e-3))
		return g.output("y"), fmt.Sprintf("BatchNormalization %v", x)
	case 5: // Softmax, current and legacy
		x := r.shape(1+r.intn(4), 7)
		axis := r.intn(len(x))
		if r.intn(3) == 0 {
			g = newModel(11)
		}
		xt := r.tensor(x...)
		for i := range xt.F32() {
			xt.F32()[i] *= 10
		}
		g.feed("x", xt).node("Softmax", []string{"x"}, []string{"y"}, aInt("axis", int64(axis)))
		return g.output("y"), fmt.Sprintf("Softmax-%d %v axis %d", g.opset, x, axis)
	case 6: // MatMul with batch broadcasting
		m, k, n := r.dims3()
		batch := r.shape(r.intn(3), 3)
		a := append(append([]int(nil), batch...), m, k)
		b := append(r.broadcastable(batch), k, n)
		if r.intn(2) == 0 {
			a = append(r.broadcastable(batch), m, k)
			b = append(append([]int(nil), batch...), k, n)
		}
		g.feed("a", r.tensor(a...))
		if r.intn(2) == 0 {
			g.init("b", r.tensor(b...))
		} else {
			g.feed("b", r.tensor(b...))
		}
		g.node("MatMul", []string{"a", "b"}, []string{"y"})
		return g.output("y"), fmt.Sprintf("MatMul %v %v", a, b)
	case 8: // the relabelling ops, between two device ops
		x := r.shape(2+r.intn(3), 5)
		g.feed("x", r.tensor(x...)).node("Relu", []string{"x"}, []string{"r"})
		var desc string
		switch r.intn(4) {
		case 0:
			g.node("Identity", []string{"r"}, []string{"c"})
			desc = "Identity"
		case 1:
			g.node("Dropout", []string{"r"}, []string{"c", "mask"})
			desc = "Dropout with its mask"
		case 2:
			axis := r.intn(len(x) + 1)
			g.node("Flatten", []string{"r"}, []string{"c"}, aInt("axis", int64(axis)))
			desc = fmt.Sprintf("Flatten axis %d", axis)
		default:
			target := []int64{int64(x[0]), -1}
			if r.intn(2) == 0 {
				target = []int64{0, 1, -1}
			}
			g.init("shape", tensor.Of([]int{len(target)}, target))
			g.node("Reshape", []string{"r", "shape"}, []string{"c"})
			desc = fmt.Sprintf("Reshape to %v", target)
		}
		g.node("Sigmoid", []string{"c"}, []string{"y"})
		return g.output("y"), fmt.Sprintf("%s of %v", desc, x)
	case 7: // Gemm
		m, k, n := r.dims3()
		ta, tb := r.intn(2), r.intn(2)
		a, b := []int{m, k}, []int{k, n}
		if ta == 1 {
			a = []int{k, m}
		}
		if tb == 1 {
			b = []int{n, k}
		}
		attrs := []*pb.AttributeProto{aInt("transA", int64(ta)), aInt("transB", int64(tb)), aFloat("alpha", 0.7), aFloat("beta", 1.3)}
		g.feed("a", r.tensor(a...)).init("b", r.tensor(b...))
		in := []string{"a", "b"}
		c := [][]int{{n}, {1, n}, {m, 1}, {m, n}, {}}[r.intn(5)]
		if r.intn(4) > 0 {
			g.init("c", r.tensor(c...))
			in = append(in, "c")
		}
		g.node("Gemm", in, []string{"y"}, attrs...)
		return g.output("y"), fmt.Sprintf("Gemm %v %v c=%v%s", a, b, c, attrText(attrs))
	}
	panic("unknown family")
}

// TestRandomNeighbours: the pools, arithmetic, activations, Concat,
// BatchNormalization, Softmax, MatMul, Gemm and the relabelling ops
// (Identity, Dropout, Flatten, Reshape) on random shapes, placed on the
// device and matching the CPU.
func TestRandomNeighbours(t *testing.T) {
	r := &rng{s: 0x853c49e6748fea9b}
	per := max(configs()/10, 20)
	for family := 0; family < 9; family++ {
		failed, done := 0, 0
		for i := 0; done < per && failed < 3; i++ {
			g, desc := neighbour(r, family)
			cpu, err := runModel(g, false)
			if err != nil {
				if i > 10*per {
					t.Fatalf("%s: CPU: %v", desc, err)
				}
				continue // a configuration the op rejects
			}
			done++
			dev := accSimple
			if i%2 == 1 { // the tiled matrix product too (MatMul, Gemm)
				dev = accTiled
			}
			gpu, err := runModelOn(g, dev)
			if err != nil {
				t.Errorf("%s: %v", desc, err)
				failed++
				continue
			}
			if off := gpu.offGPU(); off != "" {
				t.Errorf("%s: not on the device: %s", desc, off)
				failed++
				continue
			}
			if d := closeEnough(gpu.out["y"], cpu.out["y"], 1e-5, 1e-4); d != "" {
				t.Errorf("%s: %s", desc, d)
				failed++
			}
		}
	}
}

// dims3 draws matrix dims: small (the per-element kernel) or up to 40
// (the tiled one, from 8×8 outputs, with partial tiles).
func (r *rng) dims3() (int, int, int) {
	hi := 9
	if r.intn(2) == 0 {
		hi = 40
	}
	return 1 + r.intn(hi), 1 + r.intn(hi), 1 + r.intn(hi)
}
