package signal

import (
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// scalarFloat reads a one-element numeric input as float64.
func scalarFloat(t *tensor.Tensor, what string) (float64, error) {
	if t == nil {
		return 0, op.Errorf("%s is missing", what)
	}
	v, err := t.Float64s()
	if err != nil || len(v) != 1 {
		return 0, op.Errorf("%s must be a numeric scalar, got %s%v", what, t.DType(), t.Shape())
	}
	return v[0], nil
}

// floats returns a float tensor's elements as float64 (the compute type here).
func floats(t *tensor.Tensor, what string) ([]float64, error) {
	if !t.DType().IsFloat() && t.DType() != tensor.Double {
		return nil, op.Errorf("%s must be a float tensor, got %s", what, t.DType())
	}
	return t.Float64s()
}

// fill stores v into a freshly allocated tensor of any real dtype,
// truncating toward zero (and saturating) for integer types.
func fill(out *tensor.Tensor, v []float64) error {
	if out.DType() == tensor.Bool {
		return op.Errorf("output type %s is not supported", out.DType())
	}
	if err := tensor.StoreFloat64s(out, v); err != nil {
		return op.Errorf("output type %s is not supported", out.DType())
	}
	return nil
}

// outputDType validates an output_datatype attribute (a TensorProto.DataType).
func outputDType(n *op.Node, def int64) (tensor.DType, error) {
	v, err := n.Int("output_datatype", def)
	if err != nil {
		return 0, err
	}
	dt := tensor.DType(v)
	switch {
	case dt.IsFloat(), dt == tensor.Double, dt == tensor.Int8, dt == tensor.Int16, dt == tensor.Int32, dt == tensor.Int64,
		dt == tensor.Uint8, dt == tensor.Uint16, dt == tensor.Uint32, dt == tensor.Uint64:
		return dt, nil
	}
	return 0, n.Errorf("output_datatype %d is not a supported numeric type", v)
}
