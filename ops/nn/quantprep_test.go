package nn

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// buildQuant builds opType-10 with inputs named in0..; consts marks the
// inputs given to the builder as Node.Consts (the prepared path).
func buildQuant(tb testing.TB, opType string, at attrs, in []*tensor.Tensor, consts []bool) op.Kernel {
	tb.Helper()
	res := op.Default.Resolve("", opType, 10)
	if res.Builder == nil {
		tb.Fatalf("resolve %s: %s", opType, res.Problem)
	}
	n := &op.Node{Name: opType, OpType: opType, Version: res.Version, Opset: 10, Attrs: map[string]*pb.AttributeProto{}, Outputs: []string{"y"}}
	for i, x := range in {
		n.Inputs = append(n.Inputs, fmt.Sprint("in", i))
		var c *tensor.Tensor
		if i < len(consts) && consts[i] {
			c = x
		}
		n.Consts = append(n.Consts, c)
	}
	for k, v := range at {
		a := &pb.AttributeProto{Name: k}
		switch v := v.(type) {
		case int:
			a.Type, a.I = pb.AttributeProto_INT, int64(v)
		case []int64:
			a.Type, a.Ints = pb.AttributeProto_INTS, v
		}
		n.Attrs[k] = a
	}
	k, err := res.Builder(n)
	if err != nil {
		tb.Fatalf("build %s: %v", opType, err)
	}
	return k.(op.Kernel)
}

// qconvInputs draws QLinearConv's inputs (x, sx, zx, w, sw, zw, sy, zy, b).
func qconvInputs(r *rand.Rand, signed, perChannel, bias bool, n, c, h, w, m, kh, kw, group int) []*tensor.Tensor {
	xs, wsh := []int{n, c, h, w}, []int{m, c / group, kh, kw}
	nz := 1
	if perChannel {
		nz = m
	}
	scales := make([]float32, nz)
	for i := range scales {
		scales[i] = 0.001 + 0.01*r.Float32()
	}
	in := make([]*tensor.Tensor, 9)
	if signed {
		in[0], in[2] = tensor.Of(xs, quantData[int8](r, tensor.MustSize(xs))), tensor.Scalar(int8(-3))
		in[3], in[5] = tensor.Of(wsh, quantData[int8](r, tensor.MustSize(wsh))), tensor.Of([]int{nz}, quantData[int8](r, nz))
		in[7] = tensor.Scalar(int8(4))
	} else {
		in[0], in[2] = tensor.Of(xs, quantData[uint8](r, tensor.MustSize(xs))), tensor.Scalar(uint8(128))
		in[3], in[5] = tensor.Of(wsh, quantData[uint8](r, tensor.MustSize(wsh))), tensor.Of([]int{nz}, quantData[uint8](r, nz))
		in[7] = tensor.Scalar(uint8(120))
	}
	in[1], in[4], in[6] = tensor.Scalar(float32(0.02)), tensor.Of([]int{nz}, scales), tensor.Scalar(float32(0.05))
	if bias {
		b := make([]int32, m)
		for i := range b {
			b[i] = int32(r.Intn(20001) - 10000)
		}
		in[8] = tensor.Of([]int{m}, b)
	} else {
		in = in[:8]
	}
	return in
}

func sameTensor(t *testing.T, what string, got, want *tensor.Tensor) {
	t.Helper()
	if got.DType() != want.DType() || fmt.Sprint(got.Shape()) != fmt.Sprint(want.Shape()) {
		t.Fatalf("%s: %s%v, want %s%v", what, got.DType(), got.Shape(), want.DType(), want.Shape())
	}
	g, w := fmt.Sprint(got.Data()), fmt.Sprint(want.Data())
	if g != w {
		t.Fatalf("%s: prepared and per-run outputs differ:\n%v\n%v", what, g, w)
	}
}

// TestQLinearConstPrepared: QLinearConv and QLinearMatMul with constant
// weights, zero points and scales (prepared when the kernel is built) give
// the bits of the same node fed everything at run time, over asymmetric
// shapes, groups, per-channel and per-tensor scales, uint8 and int8.
func TestQLinearConstPrepared(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for i, c := range []struct{ n, c, h, w, m, kh, kw, group, sh, sw, ph, pw int }{
		{1, 1, 5, 5, 1, 3, 3, 1, 1, 1, 0, 0},
		{2, 4, 7, 5, 6, 3, 2, 2, 1, 2, 1, 0},
		{2, 3, 6, 9, 3, 1, 1, 3, 1, 1, 0, 0},
		{3, 8, 11, 6, 4, 3, 3, 1, 2, 1, 1, 1},
		{2, 6, 9, 13, 12, 3, 3, 3, 1, 1, 1, 1},
	} {
		for _, signed := range []bool{false, true} {
			for _, perChannel := range []bool{false, true} {
				for _, bias := range []bool{false, true} {
					name := fmt.Sprintf("conv %d signed=%v perChannel=%v bias=%v", i, signed, perChannel, bias)
					in := qconvInputs(r, signed, perChannel, bias, c.n, c.c, c.h, c.w, c.m, c.kh, c.kw, c.group)
					at := attrs{"group": c.group, "strides": []int64{int64(c.sh), int64(c.sw)}, "pads": []int64{int64(c.ph), int64(c.pw), int64(c.ph), int64(c.pw)}}
					ctx := &op.Context{Ctx: context.Background()}
					want, err := buildQuant(t, "QLinearConv", at, in, nil).Run(ctx, in)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					consts := []bool{false, true, true, true, true, true, true, true, true}
					k := buildQuant(t, "QLinearConv", at, in, consts)
					for run := range 2 {
						got, err := k.Run(ctx, in)
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						sameTensor(t, fmt.Sprint(name, " run ", run), got[0], want[0])
					}
					// Released weights (nil input 3) run from the prepared form.
					rel, ok := k.(op.ConstReleaser)
					if !ok || !rel.CanRelease(3) {
						t.Fatalf("%s: constant weights were not prepared", name)
					}
					{
						rel.Release(3)
						in2 := append([]*tensor.Tensor(nil), in...)
						in2[3] = nil
						got, err := k.Run(ctx, in2)
						if err != nil {
							t.Fatalf("%s released: %v", name, err)
						}
						sameTensor(t, name+" released", got[0], want[0])
					}
				}
			}
		}
	}
	for i, c := range []struct{ batch, m, k, n int }{{1, 1, 1, 1}, {1, 3, 5, 7}, {2, 9, 17, 11}, {3, 4, 33, 2}} {
		for _, signed := range []bool{false, true} {
			for _, perChannel := range []bool{false, true} {
				name := fmt.Sprintf("matmul %d signed=%v perChannel=%v", i, signed, perChannel)
				as, bs := []int{c.batch, c.m, c.k}, []int{c.k, c.n}
				nz := 1
				if perChannel {
					nz = c.n
				}
				sc := make([]float32, nz)
				for j := range sc {
					sc[j] = 0.001 + 0.01*r.Float32()
				}
				in := make([]*tensor.Tensor, 8)
				if signed {
					in[0], in[2] = tensor.Of(as, quantData[int8](r, tensor.MustSize(as))), tensor.Scalar(int8(7))
					in[3], in[5] = tensor.Of(bs, quantData[int8](r, tensor.MustSize(bs))), tensor.Of([]int{nz}, quantData[int8](r, nz))
					in[7] = tensor.Scalar(int8(-2))
				} else {
					in[0], in[2] = tensor.Of(as, quantData[uint8](r, tensor.MustSize(as))), tensor.Scalar(uint8(100))
					in[3], in[5] = tensor.Of(bs, quantData[uint8](r, tensor.MustSize(bs))), tensor.Of([]int{nz}, quantData[uint8](r, nz))
					in[7] = tensor.Scalar(uint8(130))
				}
				in[1], in[4], in[6] = tensor.Scalar(float32(0.03)), tensor.Of([]int{nz}, sc), tensor.Scalar(float32(0.07))
				ctx := &op.Context{Ctx: context.Background()}
				want, err := buildQuant(t, "QLinearMatMul", nil, in, nil).Run(ctx, in)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				k := buildQuant(t, "QLinearMatMul", nil, in, []bool{false, true, true, true, true, true, true, true})
				for run := range 2 {
					got, err := k.Run(ctx, in)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					sameTensor(t, fmt.Sprint(name, " run ", run), got[0], want[0])
				}
			}
		}
	}
}

// BenchmarkQLinearConv: a 64-channel 56×56 3×3 QLinearConv (uint8 x,
// int8 per-channel weights, bias), weights constant (prepared) or fed.
func BenchmarkQLinearConv(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	in := qconvInputs(r, false, true, true, 1, 64, 56, 56, 64, 3, 3, 1)
	// int8 weights with an uint8 activation, as onnxruntime's quantizer writes them.
	wsh := []int{64, 64, 3, 3}
	in[3], in[5] = tensor.Of(wsh, quantData[int8](r, tensor.MustSize(wsh))), tensor.Of([]int{64}, make([]int8, 64))
	at := attrs{"pads": []int64{1, 1, 1, 1}}
	for _, prepared := range []bool{false, true} {
		b.Run(fmt.Sprint("const=", prepared), func(b *testing.B) {
			var consts []bool
			if prepared {
				consts = []bool{false, true, true, true, true, true, true, true, true}
			}
			k := buildQuant(b, "QLinearConv", at, in, consts)
			ctx := &op.Context{Ctx: context.Background()}
			for b.Loop() {
				if _, err := k.Run(ctx, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
