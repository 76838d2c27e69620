package resample

import (
	"reflect"

	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// gatherAxes fills out (shape = len of each map) with out[o] = x[src] where
// src takes, on every axis d, the index maps[d][o_d]; an index of -1 on any
// axis makes the element fill's first element (or the zero value when fill
// is nil or empty). It moves data of every dtype without arithmetic, which
// is all Pad, CenterCropPad and nearest Resize need.
func gatherAxes(out, x *tensor.Tensor, maps [][]int, fill *tensor.Tensor) {
	if fill != nil && fill.Len() > 0 && reflect.TypeOf(fill.Data()) != reflect.TypeOf(out.Data()) {
		op.Fail("fill value of type %s does not match the data", fill.DType())
	}
	// By element width: gathering moves bits (see opsutil.As).
	switch d := out.Data().(type) {
	case []float32:
		gatherW[float32](out, x, maps, fill)
	case []float64, []int64, []uint64:
		gatherW[uint64](out, x, maps, fill)
	case []int32, []uint32:
		gatherW[uint32](out, x, maps, fill)
	case []int16, []uint16:
		gatherW[uint16](out, x, maps, fill)
	case []int8, []uint8, []bool:
		gatherW[uint8](out, x, maps, fill)
	case []string:
		gatherW[string](out, x, maps, fill)
	case []complex64:
		gatherW[complex64](out, x, maps, fill)
	case []complex128:
		gatherW[complex128](out, x, maps, fill)
	default:
		op.Fail("unsupported storage %T", d)
	}
}

// gatherW is gatherAxes for storages of element T (or of T's width); fill's
// storage, when given, is out's.
func gatherW[T any](out, x *tensor.Tensor, maps [][]int, fill *tensor.Tensor) {
	var f T
	if fill != nil && fill.Len() > 0 {
		f = opsutil.As[T](fill.Data())[0]
	}
	d, s := opsutil.As2[T](out.Data(), x.Data())
	gatherT(d, s, x.Shape(), maps, f)
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
