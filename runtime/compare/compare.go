// Package compare checks values against reference values with the ONNX test
// runner's tolerance rule (used by the conformance suite, the CLI and, later,
// the model checks).
package compare

import (
	"fmt"
	"math"
	"math/cmplx"

	"github.com/gort-dev/gort/runtime/tensor"
)

// Tolerance of the comparison: |got - want| ≤ Atol + Rtol·|want|.
//
// StructureOnly compares kinds, dtypes and shapes but not values: for outputs
// of random ops (Bernoulli, RandomNormal, ...) whose values no spec fixes.
type Tolerance struct {
	Rtol, Atol    float64
	StructureOnly bool
}

// DefaultTolerance is the ONNX backend runner's.
var DefaultTolerance = Tolerance{Rtol: 1e-3, Atol: 1e-7}

// Compare returns "" when got matches want, else a short description of the
// first difference. NaN equals NaN; infinities must match in sign.
func Compare(got, want tensor.Value, tol Tolerance) string {
	switch w := want.(type) {
	case *tensor.Tensor:
		g, ok := got.(*tensor.Tensor)
		if !ok {
			return fmt.Sprintf("got a %T, want a tensor", got)
		}
		return compareTensors(g, w, tol)
	case *tensor.Sequence:
		g, ok := got.(*tensor.Sequence)
		if !ok {
			return fmt.Sprintf("got a %T, want a sequence", got)
		}
		if len(g.Items) != len(w.Items) {
			return fmt.Sprintf("sequence has %d items, want %d", len(g.Items), len(w.Items))
		}
		for i := range w.Items {
			if d := compareTensors(g.Items[i], w.Items[i], tol); d != "" {
				return fmt.Sprintf("item %d: %s", i, d)
			}
		}
		return ""
	case *tensor.Optional:
		g, ok := got.(*tensor.Optional)
		if !ok {
			return fmt.Sprintf("got a %T, want an optional", got)
		}
		if (g.Value == nil) != (w.Value == nil) {
			return fmt.Sprintf("optional presence differs (got %v, want %v)", g.Value != nil, w.Value != nil)
		}
		if w.Value == nil {
			return ""
		}
		return Compare(g.Value, w.Value, tol)
	}
	return fmt.Sprintf("cannot compare %T", want)
}

func compareTensors(g, w *tensor.Tensor, tol Tolerance) string {
	if g.DType() != w.DType() {
		return fmt.Sprintf("dtype %s, want %s", g.DType(), w.DType())
	}
	if fmt.Sprint(g.Shape()) != fmt.Sprint(w.Shape()) {
		return fmt.Sprintf("shape %v, want %v", g.Shape(), w.Shape())
	}
	if tol.StructureOnly {
		return ""
	}
	n := w.Len()
	switch wd := w.Data().(type) {
	case []float32:
		gd := g.F32()
		for i := 0; i < n; i++ {
			if !closeTo(float64(gd[i]), float64(wd[i]), tol) {
				return fmt.Sprintf("element %d is %v, want %v", i, gd[i], wd[i])
			}
		}
	case []float64:
		gd := g.F64()
		for i := 0; i < n; i++ {
			if !closeTo(gd[i], wd[i], tol) {
				return fmt.Sprintf("element %d is %v, want %v", i, gd[i], wd[i])
			}
		}
	case []complex64:
		gd := tensor.Data[complex64](g)
		for i := 0; i < n; i++ {
			if !closeTo(float64(real(gd[i])), float64(real(wd[i])), tol) || !closeTo(float64(imag(gd[i])), float64(imag(wd[i])), tol) {
				return fmt.Sprintf("element %d is %v, want %v", i, gd[i], wd[i])
			}
		}
	case []complex128:
		gd := tensor.Data[complex128](g)
		for i := 0; i < n; i++ {
			if cmplx.Abs(gd[i]-wd[i]) > tol.Atol+tol.Rtol*cmplx.Abs(wd[i]) {
				return fmt.Sprintf("element %d is %v, want %v", i, gd[i], wd[i])
			}
		}
	default:
		gs, ws := fmt.Sprint(g.Data()), fmt.Sprint(w.Data())
		if gs != ws {
			for i := 0; i < n; i++ {
				a, b := elem(g, i), elem(w, i)
				if a != b {
					return fmt.Sprintf("element %d is %v, want %v", i, a, b)
				}
			}
			return "values differ"
		}
	}
	return ""
}

func elem(t *tensor.Tensor, i int) any {
	one := tensor.New(t.DType(), 1)
	tensor.SetFrom(one, 0, t, i)
	return fmt.Sprint(one.Data())
}

func closeTo(got, want float64, tol Tolerance) bool {
	switch {
	case math.IsNaN(want):
		return math.IsNaN(got)
	case math.IsInf(want, 0):
		return got == want
	}
	return math.Abs(got-want) <= tol.Atol+tol.Rtol*math.Abs(want)
}
