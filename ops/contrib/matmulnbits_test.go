package contrib_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gort-dev/gort/ops/contrib"
	"github.com/gort-dev/gort/ops/internal/optest"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// runConst builds the node with the inputs listed in consts known as
// constants (the builder's pre-packing path) and runs it.
func runConst(t *testing.T, c optest.Call, consts ...int) []*tensor.Tensor {
	t.Helper()
	res := op.Default.Resolve(c.Domain, c.Op, c.Opset)
	n := &op.Node{Name: c.Op, OpType: c.Op, Domain: c.Domain, Version: res.Version, Opset: c.Opset, Attrs: optest.Attrs(c.Attrs),
		Outputs: []string{"y"}, Consts: make([]*tensor.Tensor, len(c.In))}
	for i, x := range c.In {
		name := ""
		if x != nil {
			name = fmt.Sprint("in", i)
		}
		n.Inputs = append(n.Inputs, name)
	}
	for _, i := range consts {
		n.Consts[i] = c.In[i]
	}
	k, err := res.Builder(n)
	if err != nil {
		t.Fatal(err)
	}
	out, err := k.(op.Kernel).Run(&op.Context{}, c.In)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// refNBits dequantizes element (k, n) of a MatMulNBits weight the way the
// documentation states it, from the tensors themselves.
func refNBits(b, scales, zp *tensor.Tensor, bits, bs, k, n int) float64 {
	kb := b.Shape()[1]
	blob := bs * bits / 8
	blk, e := k/bs, k%bs
	bytes := tensor.Data[uint8](b)
	code := int(bytes[(n*kb+blk)*blob+e*bits/8]>>(e*bits%8)) & (1<<bits - 1)
	z := float64(int(1) << (bits - 1))
	if zp != nil {
		if zp.DType() == tensor.Uint8 {
			row := (kb*bits + 7) / 8
			z = float64(int(tensor.Data[uint8](zp)[n*row+blk*bits/8]>>(blk*bits%8)) & (1<<bits - 1))
		} else {
			z = float64(zp.F32()[n*kb+blk])
		}
	}
	return (float64(code) - z) * float64(scales.F32()[n*kb+blk])
}

// TestMatMulNBitsOp: the op against the documented formula in float64, for
// 2 bits (which onnxruntime's CPU kernel refuses) as well as 4 and 8, every
// kind of zero point, bias, batch dims, and both the constant-weight and
// the per-run paths.
func TestMatMulNBitsOp(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for i, c := range []struct {
		bits, bs, k, n, zk int
		xs                 []int
	}{
		{2, 16, 37, 5, 0, []int{1, 37}}, {2, 32, 64, 7, 1, []int{2, 3, 64}}, {2, 128, 150, 3, 2, []int{4, 150}},
		{4, 16, 20, 9, 1, []int{20}}, {4, 64, 100, 6, 2, []int{3, 1, 100}}, {8, 32, 33, 4, 0, []int{5, 33}},
		{8, 16, 48, 10, 2, []int{1, 48}}, {4, 32, 96, 17, 0, []int{2, 2, 2, 96}},
	} {
		kb := (c.k + c.bs - 1) / c.bs
		x := randT(r, 1, 0, c.xs...)
		b := randBytes(r, c.n, kb, c.bs*c.bits/8)
		sc := randT(r, 0.05, 0.1, c.n, kb)
		var zp *tensor.Tensor
		switch c.zk {
		case 1:
			zp = randBytes(r, c.n, (kb*c.bits+7)/8)
		case 2:
			zp = randT(r, 2, 1, c.n, kb)
		}
		var bias *tensor.Tensor
		if i%2 == 0 {
			bias = randT(r, 1, 0, c.n)
		}
		m := x.Len() / c.k
		want := make([]float64, m*c.n)
		xv := f64(x)
		for row := range m {
			for j := range c.n {
				var s float64
				for p := range c.k {
					s += xv[row*c.k+p] * refNBits(b, sc, zp, c.bits, c.bs, p, j)
				}
				if bias != nil {
					s += float64(bias.F32()[j])
				}
				want[row*c.n+j] = s
			}
		}
		ys := append(append([]int(nil), c.xs[:len(c.xs)-1]...), c.n)
		call := optest.Call{Domain: contrib.Domain, Op: "MatMulNBits", Opset: 1,
			Attrs: optest.A{"K": c.k, "N": c.n, "bits": c.bits, "block_size": c.bs}, In: []*tensor.Tensor{x, b, sc, zp, nil, bias}}
		for _, consts := range [][]int{nil, {1, 2, 3}} {
			got := runConst(t, call, consts...)[0]
			if fmt.Sprint(got.Shape()) != fmt.Sprint(ys) {
				t.Fatalf("case %d: shape %v, want %v", i, got.Shape(), ys)
			}
			for j, w := range want {
				if g := float64(got.F32()[j]); math.Abs(g-w) > 1e-4*(1+math.Abs(w)) {
					t.Fatalf("case %d consts %v: Y[%d] = %g, want %g", i, consts, j, g, w)
				}
			}
		}
	}
}
