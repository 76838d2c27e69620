package elementwise

import (
	"math"
	"reflect"
	"testing"

	"github.com/gort-dev/gort/ops/internal/optest"
	"github.com/gort-dev/gort/runtime/tensor"
)

// runOp resolves opType at the given opset like the loader does and runs it.
func runOp(opType string, opset int, kv map[string]any, in ...*tensor.Tensor) ([]*tensor.Tensor, error) {
	return optest.Run(optest.Call{Op: opType, Opset: opset, Attrs: kv, In: in})
}

func mustRun(t *testing.T, opType string, opset int, kv map[string]any, in ...*tensor.Tensor) *tensor.Tensor {
	t.Helper()
	out, err := runOp(opType, opset, kv, in...)
	if err != nil {
		t.Fatalf("%s-%d: %v", opType, opset, err)
	}
	return out[0]
}

func f32(shape []int, v ...float32) *tensor.Tensor { return tensor.Of(shape, v) }

// sameFloats compares with a relative tolerance; NaN equals NaN.
func sameFloats(got, want []float64, rtol float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		g, w := got[i], want[i]
		if math.IsNaN(w) {
			if !math.IsNaN(g) {
				return false
			}
			continue
		}
		if math.IsInf(w, 0) {
			if g != w {
				return false
			}
			continue
		}
		if math.Abs(g-w) > rtol*math.Abs(w)+1e-7 {
			return false
		}
	}
	return true
}

func checkTensor(t *testing.T, name string, got *tensor.Tensor, dt tensor.DType, shape []int, want any) {
	t.Helper()
	if got.DType() != dt {
		t.Errorf("%s: dtype %s, want %s", name, got.DType(), dt)
		return
	}
	if !reflect.DeepEqual(append([]int{}, got.Shape()...), append([]int{}, shape...)) {
		t.Errorf("%s: shape %v, want %v", name, got.Shape(), shape)
		return
	}
	switch w := want.(type) {
	case []float64:
		g, _ := got.Float64s()
		if !sameFloats(g, w, 1e-5) {
			t.Errorf("%s: got %v, want %v", name, g, w)
		}
	default:
		if !reflect.DeepEqual(got.Data(), want) {
			t.Errorf("%s: got %v, want %v", name, got.Data(), want)
		}
	}
}

// index helpers for naive references
func strides(shape []int) []int {
	s := make([]int, len(shape))
	acc := 1
	for i := len(shape) - 1; i >= 0; i-- {
		s[i] = acc
		acc *= shape[i]
	}
	return s
}

// bcastAt returns the flat offset in an input of shape in for output coordinate idx.
func bcastAt(in []int, idx []int) int {
	off := len(idx) - len(in)
	st := strides(in)
	p := 0
	for i, d := range in {
		if d != 1 {
			p += idx[off+i] * st[i]
		}
	}
	return p
}

func coords(shape []int, flat int) []int {
	idx := make([]int, len(shape))
	for i := len(shape) - 1; i >= 0; i-- {
		idx[i] = flat % shape[i]
		flat /= shape[i]
	}
	return idx
}

func seq(n int, start, step float32) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = start + float32(i)*step
	}
	return v
}
