package protoconv

import (
	"github.com/gort-dev/gort/runtime/errs"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Sparse decodes a SparseTensorProto into a dense tensor. Indices are either
// [NNZ] linear indices or [NNZ, rank] coordinates, as the IR spec allows.
func Sparse(sp *pb.SparseTensorProto, maxBytes int64) (*tensor.Tensor, error) {
	name := sp.GetValues().GetName()
	vals, err := Tensor(sp.GetValues(), maxBytes)
	if err != nil {
		return nil, err
	}
	idx, err := Tensor(sp.GetIndices(), maxBytes)
	if err != nil {
		return nil, err
	}
	shape, n, err := Dims(sp.GetDims(), vals.DType(), maxBytes)
	if err != nil {
		return nil, err.(*errs.Error).WithTensor(name)
	}
	if vals.Rank() != 1 {
		return nil, errs.New(errs.BadModel, "sparse values must be 1-D, got shape %v", vals.Shape()).WithTensor(name)
	}
	nnz := vals.Len()
	ind, err := idx.Int64s()
	if err != nil {
		return nil, errs.New(errs.BadModel, "sparse indices: %v", err).WithTensor(name)
	}
	linear := make([]int, nnz)
	switch {
	case idx.Rank() == 1 && idx.Len() == nnz:
		for i, v := range ind {
			linear[i] = int(v)
		}
	case idx.Rank() == 2 && idx.Shape()[0] == nnz && idx.Shape()[1] == len(shape):
		r := len(shape)
		for i := 0; i < nnz; i++ {
			off := 0
			for d := 0; d < r; d++ {
				c := ind[i*r+d]
				if c < 0 || c >= int64(shape[d]) {
					return nil, errs.New(errs.BadModel, "sparse index %d out of range for dim %d (%d)", c, d, shape[d]).WithTensor(name)
				}
				off = off*shape[d] + int(c)
			}
			linear[i] = off
		}
	default:
		return nil, errs.New(errs.BadModel, "sparse indices have shape %v; expected [%d] or [%d, %d]", idx.Shape(), nnz, nnz, len(shape)).WithTensor(name)
	}
	out := tensor.New(vals.DType(), shape...)
	for i, off := range linear {
		if off < 0 || off >= n {
			return nil, errs.New(errs.BadModel, "sparse index %d out of range (size %d)", off, n).WithTensor(name)
		}
		tensor.SetFrom(out, off, vals, i)
	}
	return out, nil
}
