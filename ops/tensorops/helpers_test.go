package tensorops

import (
	"errors"
	"strings"
	"testing"

	"github.com/gort-dev/gort/ops/internal/optest"
	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/tensor"
)

// expectErr checks that a run fails with the given code and message fragment.
func expectErr(t *testing.T, c optest.Call, code errs.Code, frag string) {
	t.Helper()
	_, err := optest.Run(c)
	if err == nil {
		t.Fatalf("%s-%d: expected an error", c.Op, c.Opset)
	}
	var e *errs.Error
	if !errors.As(err, &e) || e.Code != code || !strings.Contains(err.Error(), frag) {
		t.Fatalf("%s-%d: got error %v, want %s containing %q", c.Op, c.Opset, err, code, frag)
	}
}

// i64 and f32 build tensors; with no values given they are zeros.
func i64(shape []int, v ...int64) *tensor.Tensor   { return tensor.Of(shape, orZeros(shape, v)) }
func f32(shape []int, v ...float32) *tensor.Tensor { return tensor.Of(shape, orZeros(shape, v)) }

func orZeros[T any](shape []int, v []T) []T {
	if len(v) == 0 {
		return make([]T, tensor.MustSize(shape))
	}
	return v
}
func vec(v ...int64) *tensor.Tensor { return tensor.Of([]int{len(v)}, v) }
func sh(d ...int) []int             { return d }

// iota32 is 0, 1, ..., n-1 as float32 in the given shape.
func iota32(shape ...int) *tensor.Tensor {
	n := tensor.MustSize(shape)
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i)
	}
	return tensor.Of(shape, v)
}
