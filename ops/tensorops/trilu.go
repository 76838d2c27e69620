package tensorops

import (
	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("Trilu", []int{14}, buildTrilu)
	shapes.Register("", "Trilu", shapes.SameAsInput0)
	op.Register("EyeLike", []int{9, 22}, buildEyeLike)
	shapes.Register("", "EyeLike", shapes.SameAsInput0)
}

// buildTrilu keeps the upper (j-i >= k) or lower (j-i <= k) triangle of each
// trailing matrix, zeroing the rest. The kept part of each row is one
// contiguous range, copied whole into a zeroed output.
func buildTrilu(n *op.Node) (any, error) {
	upper, err := n.Int("upper", 1)
	if err != nil {
		return nil, err
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil {
			return nil, op.Errorf("Trilu needs an input")
		}
		x := in[0]
		if x.Rank() < 2 {
			return nil, op.Errorf("Trilu needs rank >= 2, got %v", x.Shape())
		}
		var k int64
		if len(in) > 1 && in[1] != nil {
			if k, err = opsutil.ScalarInt(in[1], "k"); err != nil {
				return nil, err
			}
		}
		sh := x.Shape()
		rows, cols := sh[len(sh)-2], sh[len(sh)-1]
		out := ctx.New(x.DType(), sh...)
		mv := moverFor(x.Data())
		mats := opsutil.Product(sh[:len(sh)-2])
		k = max(min(k, int64(cols)+1), -int64(rows)-1) // keeps i+k in int range
		for m := 0; m < mats; m++ {
			for i := 0; i < rows; i++ {
				lo, hi := 0, cols // kept columns [lo, hi)
				if upper != 0 {
					lo = max(0, min(cols, i+int(k)))
				} else {
					hi = max(0, min(cols, i+int(k)+1))
				}
				if hi > lo {
					base := (m*rows + i) * cols
					mv.copyRange(out.Data(), base+lo, x.Data(), base+lo, hi-lo)
				}
			}
		}
		return ctx.One(out), nil
	}), nil
}

// buildEyeLike: output has the input's shape (2-D) and the dtype attribute's
// type (the input's when absent), with ones on the k-th diagonal.
func buildEyeLike(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	dtAttr := a.Int("dtype", 0)
	k := a.Int("k", 0)
	if a.Err != nil {
		return nil, a.Err
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil {
			return nil, op.Errorf("EyeLike needs an input")
		}
		x := in[0]
		if x.Rank() != 2 {
			return nil, op.Errorf("EyeLike needs a 2-D input, got %v", x.Shape())
		}
		dt := x.DType()
		if n.Has("dtype") {
			dt = tensor.DType(dtAttr)
			if !dt.Valid() {
				return nil, op.Errorf("invalid dtype %d", dtAttr)
			}
		}
		rows, cols := x.Shape()[0], x.Shape()[1]
		out := ctx.New(dt, rows, cols)
		for i := 0; i < rows; i++ {
			j := int64(i) + k
			if j < 0 || j >= int64(cols) {
				continue
			}
			if err := setOne(out, i*cols+int(j)); err != nil {
				return nil, err
			}
		}
		return ctx.One(out), nil
	}), nil
}

// setOne stores the value one (true for bool) at element i.
func setOne(t *tensor.Tensor, i int) error {
	switch d := t.Data().(type) {
	case []float32:
		d[i] = 1
	case []float64:
		d[i] = 1
	case []int8:
		d[i] = 1
	case []int16:
		d[i] = 1
	case []int32:
		d[i] = 1
	case []int64:
		d[i] = 1
	case []uint8:
		if t.DType().IsCodeType() {
			return op.Errorf("%s is not supported", t.DType())
		}
		d[i] = 1
	case []uint16:
		d[i] = 1
	case []uint32:
		d[i] = 1
	case []uint64:
		d[i] = 1
	case []bool:
		d[i] = true
	case []complex64:
		d[i] = 1
	case []complex128:
		d[i] = 1
	default:
		return op.Errorf("%s is not supported", t.DType())
	}
	return nil
}
