package tensorops

import (
	"math/rand/v2"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("Dropout", []int{1, 6, 7, 10, 12, 13, 22}, buildDropout)
	shapes.Register("", "Dropout", inferDropout)
	shapes.NoFold("", "Dropout", nil) // a random mask in training mode
}

// buildDropout: before version 12 Dropout has no way for gort to be told it
// is training (is_test of versions 1 and 6 is ignored, as the ONNX reference
// and onnxruntime do), so it is the identity and the mask is all ones. From
// 12 the training_mode input selects a random dropout scaled by 1/(1-ratio),
// drawn from a generator seeded by the seed attribute when given. The
// generator is MT19937 drawing 53-bit doubles, the one numpy's legacy
// np.random uses, so a seeded training Dropout reproduces the ONNX
// reference's masks (which come from np.random.seed(seed); np.random.uniform).
func buildDropout(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	ratioAttr := a.Float("ratio", 0.5)
	seed := a.Int("seed", 0)
	if a.Err != nil {
		return nil, a.Err
	}
	hasSeed := n.Has("seed")
	boolMask := n.Version >= 10
	return op.Random(op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil {
			return nil, op.Errorf("Dropout needs its data input")
		}
		x := in[0]
		training := false
		ratio := float64(ratioAttr)
		if n.Version >= 12 {
			ratio = 0.5
			if len(in) > 1 && in[1] != nil {
				r, err := in[1].Float64s()
				if err != nil || len(r) != 1 {
					return nil, op.Errorf("ratio must be a floating-point scalar")
				}
				ratio = r[0]
			}
			if len(in) > 2 && in[2] != nil {
				if in[2].DType() != tensor.Bool || in[2].Len() != 1 {
					return nil, op.Errorf("training_mode must be a bool scalar")
				}
				training = in[2].Bools()[0]
			}
		}
		wantMask := n.HasOutput(1)
		if !training || ratio == 0 {
			outs := []*tensor.Tensor{x}
			if wantMask {
				outs = append(outs, onesMask(ctx, x, boolMask))
			}
			return outs, nil
		}
		if ratio < 0 || ratio >= 1 {
			return nil, op.Errorf("ratio %g is outside [0, 1)", ratio)
		}
		s32 := uint32(seed)
		if !hasSeed {
			s32 = rand.Uint32()
		}
		rng := newMT19937(s32)
		out := ctx.New(x.DType(), x.Shape()...)
		mask := ctx.New(tensor.Bool, x.Shape()...)
		m := mask.Bools()
		for i := range m {
			m[i] = rng.float64() >= ratio
		}
		scale := 1 / (1 - ratio)
		switch d := out.Data().(type) {
		case []float32:
			s, sc := x.F32(), float32(scale)
			for i, keep := range m {
				if keep {
					d[i] = s[i] * sc
				}
			}
		case []float64:
			s := x.F64()
			for i, keep := range m {
				if keep {
					d[i] = s[i] * scale
				}
			}
		default:
			return nil, op.Errorf("training Dropout does not support %s", x.DType())
		}
		return []*tensor.Tensor{out, mask}, nil
	})), nil
}

// onesMask is the mask of an inference Dropout: all true (bool, version 10+)
// or all ones in the data's type (earlier versions).
func onesMask(ctx *op.Context, x *tensor.Tensor, boolMask bool) *tensor.Tensor {
	if boolMask {
		m := ctx.New(tensor.Bool, x.Shape()...)
		for i := range m.Bools() {
			m.Bools()[i] = true
		}
		return m
	}
	m := ctx.New(x.DType(), x.Shape()...)
	switch d := m.Data().(type) {
	case []float32:
		for i := range d {
			d[i] = 1
		}
	case []float64:
		for i := range d {
			d[i] = 1
		}
	default:
		op.Fail("Dropout mask of type %s is not supported", x.DType())
	}
	return m
}

// mt19937 is the Mersenne Twister (Matsumoto & Nishimura, 1998) with the
// standard 32-bit seeding, written from the published algorithm.
type mt19937 struct {
	mt  [624]uint32
	idx int
}

func newMT19937(seed uint32) *mt19937 {
	m := &mt19937{idx: 624}
	m.mt[0] = seed
	for i := 1; i < 624; i++ {
		m.mt[i] = 1812433253*(m.mt[i-1]^(m.mt[i-1]>>30)) + uint32(i)
	}
	return m
}

func (m *mt19937) next() uint32 {
	if m.idx >= 624 {
		for i := 0; i < 624; i++ {
			y := m.mt[i]&0x80000000 | m.mt[(i+1)%624]&0x7fffffff
			v := m.mt[(i+397)%624] ^ y>>1
			if y&1 != 0 {
				v ^= 0x9908b0df
			}
			m.mt[i] = v
		}
		m.idx = 0
	}
	y := m.mt[m.idx]
	m.idx++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	y ^= y >> 18
	return y
}

// float64 returns a uniform double in [0, 1) from 53 random bits.
func (m *mt19937) float64() float64 {
	a, b := m.next()>>5, m.next()>>6
	return (float64(a)*67108864 + float64(b)) / 9007199254740992
}

// inferDropout: the output and the mask have the input's shape.
func inferDropout(c *shapes.Ctx) {
	shapes.SameAsInput0(c)
	if c.NumOut() > 1 {
		c.Set(1, c.Shape(0), "")
	}
}
