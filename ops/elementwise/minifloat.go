package elementwise

import (
	"github.com/gort-dev/gort/ops/opsutil/minifloat"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// The float8/float4/e8m0 codecs live in ops/opsutil/minifloat, shared with
// QuantizeLinear/DequantizeLinear so both round and saturate identically.

// decodeCodes widens a code-typed tensor (8-bit or 4-bit floats) to float64.
func decodeCodes(x *tensor.Tensor) ([]float64, error) {
	out, ok := minifloat.Decode(x.DType(), tensor.Data[uint8](x))
	if !ok {
		return nil, op.Errorf("cannot decode %s", x.DType())
	}
	return out, nil
}
