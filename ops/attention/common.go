package attention

import (
	"math"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// real is the storage element of the float dtypes these ops accept.
type real interface{ ~float32 | ~float64 }

// isFloat reports whether dt is one of the float dtypes (float32, float16,
// bfloat16, float64) that the attention ops accept.
func isFloat(dt tensor.DType) bool { return dt.IsFloat() || dt == tensor.Double }

// values returns t's elements as []E: the storage itself when it already is
// []E (no copy, so callers must not write to it), a converted copy otherwise.
// Mixed inputs (float16 Q with float32 V, say) are rare, so the copy is too.
func values[E real](t *tensor.Tensor) []E {
	switch d := t.Data().(type) {
	case []E:
		return d
	case []float32:
		out := make([]E, len(d))
		for i, v := range d {
			out[i] = E(v)
		}
		return out
	case []float64:
		out := make([]E, len(d))
		for i, v := range d {
			out[i] = E(v)
		}
		return out
	}
	op.Fail("expected a float tensor, got %s", t.DType())
	return nil
}

// store copies src into a float tensor of any float dtype.
func store[E real](dst *tensor.Tensor, src []E) {
	switch d := dst.Data().(type) {
	case []float32:
		for i, v := range src {
			d[i] = float32(v)
		}
	case []float64:
		for i, v := range src {
			d[i] = float64(v)
		}
	}
}

// newLike allocates a float tensor of dtype dt and returns it with a []E
// view to fill: the tensor's own storage when it is []E, otherwise a scratch
// slice that finish copies in.
func newLike[E real](ctx *op.Context, dt tensor.DType, shape ...int) (*tensor.Tensor, []E) {
	t := ctx.New(dt, shape...)
	if d, ok := t.Data().([]E); ok {
		return t, d
	}
	return t, make([]E, t.Len())
}

// finish copies buf into t when newLike handed out a scratch slice (t's
// storage is not []E); otherwise buf already is t's storage.
func finish[E real](t *tensor.Tensor, buf []E) *tensor.Tensor {
	if _, ok := t.Data().([]E); !ok {
		store(t, buf)
	}
	return t
}

// roundPrec rounds x to the precision of a softmax_precision dtype, so that
// a model asking for a float16 softmax gets float16 arithmetic results.
func roundPrec(dt tensor.DType, x float64) float64 {
	switch dt {
	case tensor.Float:
		return float64(float32(x))
	case tensor.Float16:
		return float64(tensor.F16ToF32(tensor.F32ToF16(float32(x))))
	case tensor.BFloat16:
		return float64(tensor.BF16ToF32(tensor.F32ToBF16(float32(x))))
	}
	return x
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// dims checks that t has the given rank and returns its shape.
func dims(t *tensor.Tensor, name string, rank int) ([]int, error) {
	if t.Rank() != rank {
		return nil, op.Errorf("%s must have rank %d, got shape %v", name, rank, t.Shape())
	}
	return t.Shape(), nil
}

func checkFloat(name string, ts ...*tensor.Tensor) error {
	for _, t := range ts {
		if t != nil && !isFloat(t.DType()) {
			return op.Errorf("%s: expected float tensors, got %s", name, t.DType())
		}
	}
	return nil
}
