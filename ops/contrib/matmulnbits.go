package contrib

import (
	"github.com/gort-dev/gort/ops/kernels"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// MatMulNBits(A, B, scales, zero_points?, g_idx?, bias?): Y = A·W (+ bias)
// with W the K×N weight quantized block-wise along K to bits = 2, 4 or 8
// (kernels.NBits has the layout): A is (..., K), Y (..., N). Zero points
// are packed uint8 or floats of A's type, 2^(bits−1) when absent; g_idx
// (deprecated) gives each k its block.
//
// accuracy_level only allows onnxruntime to quantize A (level 4: to int8
// per block) and lower the precision; gort always computes in float32,
// the most accurate of the levels. When B, scales, zero points and g_idx
// are initializers, the weight is checked and wrapped once, at build time.
func init() {
	op.Default.Register(Domain, "MatMulNBits", []int{1}, buildMatMulNBits)
	shapes.Register(Domain, "MatMulNBits", inferMatMulNBits)
}

type nbitsAttrs struct{ k, n, bits, blockSize int }

func buildMatMulNBits(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	at := nbitsAttrs{int(a.Int("K", -1)), int(a.Int("N", -1)), int(a.Int("bits", 4)), int(a.Int("block_size", -1))}
	a.Int("accuracy_level", 0) // float32 satisfies every level (see above)
	if a.Int("weight_prepacked", 0) != 0 {
		return nil, n.Errorf("MatMulNBits: weight_prepacked layouts (CUDA) are not supported")
	}
	if a.Err != nil {
		return nil, a.Err
	}
	if at.k < 0 || at.n < 0 || at.blockSize < 0 {
		return nil, n.Errorf("MatMulNBits needs the attributes K, N and block_size")
	}
	var pre *kernels.NBits
	if allConst(n, 1, 2, 3, 4) {
		q, err := at.weight(n.ConstInput(1), n.ConstInput(2), in(n.Consts, 3), in(n.Consts, 4))
		if err != nil {
			return nil, n.Errorf("%v", err)
		}
		pre = q
	}
	return op.KernelFunc(func(ctx *op.Context, ins []*tensor.Tensor) ([]*tensor.Tensor, error) {
		x, bias := in(ins, 0), in(ins, 5)
		if x == nil || in(ins, 1) == nil || in(ins, 2) == nil {
			return nil, op.Errorf("MatMulNBits needs A, B and scales")
		}
		if err := checkFloat("MatMulNBits", x, in(ins, 2), bias); err != nil {
			return nil, err
		}
		if x.DType() == tensor.Double {
			return nil, op.Errorf("MatMulNBits: A must be float32, float16 or bfloat16, got double")
		}
		q := pre
		if q == nil {
			var err error
			if q, err = at.weight(ins[1], ins[2], in(ins, 3), in(ins, 4)); err != nil {
				return nil, op.Errorf("MatMulNBits: %v", err)
			}
		}
		xs := x.Shape()
		if x.Rank() == 0 || xs[len(xs)-1] != at.k {
			return nil, op.Errorf("MatMulNBits: A of shape %v, K = %d", xs, at.k)
		}
		if err := checkVector("MatMulNBits", "bias", bias, at.n); err != nil {
			return nil, err
		}
		ys := append(append([]int(nil), xs[:len(xs)-1]...), at.n)
		y := ctx.New(x.DType(), ys...)
		m := x.Len() / max(at.k, 1)
		if at.k == 0 {
			m = y.Len() / max(at.n, 1)
			if b := f32s(bias); b != nil {
				for r := 0; r < m; r++ {
					copy(y.F32()[r*at.n:], b)
				}
			}
			return ctx.One(y), nil
		}
		kernels.MatMulNBits(m, x.F32(), at.k, q, f32s(bias), y.F32(), at.n)
		return ctx.One(y), nil
	}), nil
}

// allConst reports whether each input of is that is given is constant.
func allConst(n *op.Node, is ...int) bool {
	for _, i := range is {
		if n.HasInput(i) && n.ConstInput(i) == nil {
			return false
		}
	}
	return true
}

// weight wraps the quantized weight's tensors, checking their types and
// shapes: B (N, k_blocks, blob_size) or its flattening, scales (N·k_blocks)
// or (N, k_blocks), zero points packed (uint8) or float, g_idx int32.
func (at nbitsAttrs) weight(b, scales, zp, gIdx *tensor.Tensor) (*kernels.NBits, error) {
	if b.DType() != tensor.Uint8 {
		return nil, op.Errorf("B must be uint8, got %s", b.DType())
	}
	if !scales.DType().IsFloat() {
		return nil, op.Errorf("scales must be float, got %s", scales.DType())
	}
	var zpPacked []uint8
	var zpFloat []float32
	if zp != nil {
		switch {
		case zp.DType() == tensor.Uint8:
			zpPacked = tensor.Data[uint8](zp)
		case zp.DType().IsFloat():
			zpFloat = zp.F32()
		default:
			return nil, op.Errorf("zero_points must be uint8 or float, got %s", zp.DType())
		}
	}
	var g []int32
	if gIdx != nil {
		if gIdx.DType() != tensor.Int32 {
			return nil, op.Errorf("g_idx must be int32, got %s", gIdx.DType())
		}
		g = gIdx.I32()
	}
	return kernels.NewNBits(at.k, at.n, at.bits, at.blockSize, tensor.Data[uint8](b), scales.F32(), zpPacked, zpFloat, g)
}

func inferMatMulNBits(c *shapes.Ctx) {
	if x := c.Input(0); x != nil && x.Type.Elem != 0 {
		c.SetElem(0, x.Type.Elem)
	}
	xs := c.Shape(0)
	if xs == nil || len(xs) == 0 {
		c.Set(0, nil, "A's rank is unknown")
		return
	}
	ys := append(append([]graph.Dim(nil), xs[:len(xs)-1]...), shapes.Known(c.AttrInt("N", 0)))
	c.Set(0, ys, "")
}
