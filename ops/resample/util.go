package resample

import (
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// gatherAxes fills out (shape = len of each map) with out[o] = x[src] where
// src takes, on every axis d, the index maps[d][o_d]; an index of -1 on any
// axis makes the element fill's first element (or the zero value when fill
// is nil or empty). It moves data of every dtype without arithmetic, which
// is all Pad, CenterCropPad and nearest Resize need.
func gatherAxes(out, x *tensor.Tensor, maps [][]int, fill *tensor.Tensor) {
	switch d := out.Data().(type) {
	case []float32:
		gatherT(d, tensor.Data[float32](x), x.Shape(), maps, first[float32](fill))
	case []float64:
		gatherT(d, tensor.Data[float64](x), x.Shape(), maps, first[float64](fill))
	case []int8:
		gatherT(d, tensor.Data[int8](x), x.Shape(), maps, first[int8](fill))
	case []int16:
		gatherT(d, tensor.Data[int16](x), x.Shape(), maps, first[int16](fill))
	case []int32:
		gatherT(d, tensor.Data[int32](x), x.Shape(), maps, first[int32](fill))
	case []int64:
		gatherT(d, tensor.Data[int64](x), x.Shape(), maps, first[int64](fill))
	case []uint8:
		gatherT(d, tensor.Data[uint8](x), x.Shape(), maps, first[uint8](fill))
	case []uint16:
		gatherT(d, tensor.Data[uint16](x), x.Shape(), maps, first[uint16](fill))
	case []uint32:
		gatherT(d, tensor.Data[uint32](x), x.Shape(), maps, first[uint32](fill))
	case []uint64:
		gatherT(d, tensor.Data[uint64](x), x.Shape(), maps, first[uint64](fill))
	case []bool:
		gatherT(d, tensor.Data[bool](x), x.Shape(), maps, first[bool](fill))
	case []string:
		gatherT(d, tensor.Data[string](x), x.Shape(), maps, first[string](fill))
	case []complex64:
		gatherT(d, tensor.Data[complex64](x), x.Shape(), maps, first[complex64](fill))
	case []complex128:
		gatherT(d, tensor.Data[complex128](x), x.Shape(), maps, first[complex128](fill))
	default:
		op.Fail("unsupported storage %T", d)
	}
}

func first[T any](t *tensor.Tensor) T {
	var z T
	if t == nil || t.Len() == 0 {
		return z
	}
	if s, ok := t.Data().([]T); ok {
		return s[0]
	}
	op.Fail("fill value of type %s does not match the data", t.DType())
	return z
}

func gatherT[T any](dst, src []T, inShape []int, maps [][]int, fill T) {
	r := len(maps)
	if len(dst) == 0 {
		return
	}
	if r == 0 {
		dst[0] = src[0]
		return
	}
	strides := make([]int, r)
	s := 1
	for d := r - 1; d >= 0; d-- {
		strides[d] = s
		s *= inShape[d]
	}
	// off[d] is the source offset contributed by axes < d (or -1).
	idx := make([]int, r)
	base := make([]int, r+1)
	var fillRows func(d int)
	last := maps[r-1]
	o := 0
	fillRows = func(d int) {
		if d == r-1 {
			b := base[d]
			if b < 0 {
				for range last {
					dst[o] = fill
					o++
				}
				return
			}
			for _, j := range last {
				if j < 0 {
					dst[o] = fill
				} else {
					dst[o] = src[b+j]
				}
				o++
			}
			return
		}
		for i, j := range maps[d] {
			idx[d] = i
			if base[d] < 0 || j < 0 {
				base[d+1] = -1
			} else {
				base[d+1] = base[d] + j*strides[d]
			}
			fillRows(d + 1)
		}
	}
	fillRows(0)
}

// permute writes into out the transpose of x viewed with shape (same size)
// by perm: out[i_perm[0], ..., i_perm[r-1]] = x[i_0, ..., i_{r-1}].
func permute(out, x *tensor.Tensor, shape, perm []int) {
	r := len(shape)
	inStrides := make([]int, r)
	s := 1
	for d := r - 1; d >= 0; d-- {
		inStrides[d] = s
		s *= shape[d]
	}
	outShape := make([]int, r)
	srcStride := make([]int, r) // stride in x of each output dim
	for i, p := range perm {
		outShape[i] = shape[p]
		srcStride[i] = inStrides[p]
	}
	n := x.Len()
	idx := make([]int, r)
	src := 0
	for o := 0; o < n; o++ {
		tensor.SetFrom(out, o, x, src)
		for d := r - 1; d >= 0; d-- {
			idx[d]++
			src += srcStride[d]
			if idx[d] < outShape[d] {
				break
			}
			src -= srcStride[d] * outShape[d]
			idx[d] = 0
		}
	}
}

// toF64 returns the values of a real numeric tensor as float64.
func toF64(x *tensor.Tensor) ([]float64, error) {
	if x.DType().IsCodeType() {
		return nil, op.Errorf("%s is not supported here", x.DType())
	}
	return x.Float64s()
}

// storeF64 writes v into out, converting to out's dtype: integers are
// truncated toward zero and saturated (a float-to-int cast); NaN becomes 0.
func storeF64(out *tensor.Tensor, v []float64) {
	if out.DType() == tensor.Bool {
		op.Fail("cannot store numbers into %s", out.DType())
	}
	if err := tensor.StoreFloat64s(out, v); err != nil {
		op.Fail("%v", err)
	}
}
