package tensorops

import (
	"slices"

	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("ScatterElements", []int{11, 13, 16, 18}, buildScatterElements)
	shapes.Register("", "ScatterElements", shapes.SameAsInput0)
	op.Register("Scatter", []int{9, 11}, buildScatterElements)
	shapes.Register("", "Scatter", shapes.SameAsInput0)
	op.Register("ScatterND", []int{11, 13, 16, 18}, buildScatterND)
	shapes.Register("", "ScatterND", shapes.SameAsInput0)
}

// scatterReduction reads the reduction attribute: version 16 introduced
// add and mul, 18 max and min; earlier versions (and Scatter) only replace.
func scatterReduction(n *op.Node) (string, error) {
	red, err := n.String("reduction", "none")
	if err != nil {
		return "", err
	}
	if n.OpType == "Scatter" || n.Version < 16 {
		return "none", nil
	}
	switch red {
	case "none", "add", "mul":
	case "max", "min":
		if n.Version < 18 {
			return "", n.Errorf("reduction %q needs %s-18", red, n.OpType)
		}
	default:
		return "", n.Errorf("unknown reduction %q", red)
	}
	return red, nil
}

// buildScatterElements serves ScatterElements and the deprecated Scatter
// (ScatterElements without reduction).
func buildScatterElements(n *op.Node) (any, error) {
	axis, err := n.Int("axis", 0)
	if err != nil {
		return nil, err
	}
	red, err := scatterReduction(n)
	if err != nil {
		return nil, err
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 3 || in[0] == nil || in[1] == nil || in[2] == nil {
			return nil, op.Errorf("%s needs data, indices and updates", n.OpType)
		}
		x, ind, upd := in[0], in[1], in[2]
		if !slices.Equal(ind.Shape(), upd.Shape()) {
			return nil, op.Errorf("indices %v and updates %v differ in shape", ind.Shape(), upd.Shape())
		}
		if upd.DType() != x.DType() {
			return nil, op.Errorf("updates (%s) and data (%s) differ in type", upd.DType(), x.DType())
		}
		a, err := opsutil.NormAxis(axis, x.Rank())
		if err != nil {
			return nil, err
		}
		idx, err := ints64(ind, "indices")
		if err != nil {
			return nil, err
		}
		offs, err := elementOffsets(x.Shape(), ind.Shape(), a, idx)
		if err != nil {
			return nil, err
		}
		out := ctx.New(x.DType(), x.Shape()...)
		mv := moverFor(x.Data())
		mv.copyRange(out.Data(), 0, x.Data(), 0, x.Len())
		if err := scatterInto(out, upd, offs, 1, red); err != nil {
			return nil, err
		}
		return ctx.One(out), nil
	}), nil
}

func buildScatterND(n *op.Node) (any, error) {
	red, err := scatterReduction(n)
	if err != nil {
		return nil, err
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 3 || in[0] == nil || in[1] == nil || in[2] == nil {
			return nil, op.Errorf("ScatterND needs data, indices and updates")
		}
		x, ind, upd := in[0], in[1], in[2]
		if upd.DType() != x.DType() {
			return nil, op.Errorf("updates (%s) and data (%s) differ in type", upd.DType(), x.DType())
		}
		idx, err := ints64(ind, "indices")
		if err != nil {
			return nil, err
		}
		offs, block, err := ndOffsets(x.Shape(), ind.Shape(), 0, idx)
		if err != nil {
			return nil, err
		}
		q := ind.Rank()
		k := ind.Shape()[q-1]
		want := append(append([]int(nil), ind.Shape()[:q-1]...), x.Shape()[k:]...)
		if !slices.Equal(want, upd.Shape()) {
			return nil, op.Errorf("updates shape %v should be %v", upd.Shape(), want)
		}
		out := ctx.New(x.DType(), x.Shape()...)
		moverFor(x.Data()).copyRange(out.Data(), 0, x.Data(), 0, x.Len())
		if err := scatterInto(out, upd, offs, block, red); err != nil {
			return nil, err
		}
		return ctx.One(out), nil
	}), nil
}

// scatterInto applies updates block by block: block i of upd (block elements)
// goes to out at offs[i], combined by the reduction.
func scatterInto(out, upd *tensor.Tensor, offs []int, block int, red string) error {
	if red == "none" {
		if block == 1 {
			moverFor(out.Data()).put(out.Data(), upd.Data(), offs)
			return nil
		}
		mv := moverFor(out.Data())
		for i, off := range offs {
			mv.copyRange(out.Data(), off, upd.Data(), i*block, block)
		}
		return nil
	}
	switch d := out.Data().(type) {
	case []float32:
		scatterReduce(d, upd.F32(), offs, block, red)
	case []float64:
		scatterReduce(d, upd.F64(), offs, block, red)
	case []int8:
		scatterReduce(d, tensor.Data[int8](upd), offs, block, red)
	case []int16:
		scatterReduce(d, tensor.Data[int16](upd), offs, block, red)
	case []int32:
		scatterReduce(d, tensor.Data[int32](upd), offs, block, red)
	case []int64:
		scatterReduce(d, tensor.Data[int64](upd), offs, block, red)
	case []uint8:
		if out.DType().IsCodeType() {
			return op.Errorf("reduction %q is not supported for %s", red, out.DType())
		}
		scatterReduce(d, tensor.Data[uint8](upd), offs, block, red)
	case []uint16:
		scatterReduce(d, tensor.Data[uint16](upd), offs, block, red)
	case []uint32:
		scatterReduce(d, tensor.Data[uint32](upd), offs, block, red)
	case []uint64:
		scatterReduce(d, tensor.Data[uint64](upd), offs, block, red)
	case []bool:
		b, u := d, upd.Bools()
		for i, off := range offs {
			for j := 0; j < block; j++ {
				switch red {
				case "add", "max":
					b[off+j] = b[off+j] || u[i*block+j]
				case "mul", "min":
					b[off+j] = b[off+j] && u[i*block+j]
				}
			}
		}
	default:
		return op.Errorf("reduction %q is not supported for %s", red, out.DType())
	}
	return nil
}

func scatterReduce[T tensor.Number](d, u []T, offs []int, block int, red string) {
	for i, off := range offs {
		dst, src := d[off:off+block], u[i*block:(i+1)*block]
		switch red {
		case "add":
			for j, v := range src {
				dst[j] += v
			}
		case "mul":
			for j, v := range src {
				dst[j] *= v
			}
		case "max":
			for j, v := range src {
				dst[j] = max(dst[j], v)
			}
		case "min":
			for j, v := range src {
				dst[j] = min(dst[j], v)
			}
		}
	}
}
