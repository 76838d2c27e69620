package compare

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gort-dev/gort/runtime/tensor"
)

func TestTensorStats(t *testing.T) {
	want := tensor.Of([]int{2, 3}, []float32{1, 2, 3, 4, 5, 6})
	got := tensor.Of([]int{2, 3}, []float32{1, 2, 3.01, 4, 5.5, 6})
	s := TensorStats(got, want, DefaultTolerance)
	// By hand: |3.01-3| = 0.01 (rel 0.00333), |5.5-5| = 0.5 (rel 0.1); both exceed 1e-7 + 1e-3·|want|.
	if s.Pass || s.Mismatches != 2 || !slices.Equal(s.WorstIndex, []int{1, 1}) || s.WorstGot != 5.5 || s.WorstWant != 5 {
		t.Errorf("stats %+v", s)
	}
	if math.Abs(float64(s.MaxAbs)-0.5) > 1e-6 || math.Abs(float64(s.MaxRel)-0.1) > 1e-6 {
		t.Errorf("max abs %v rel %v", s.MaxAbs, s.MaxRel)
	}
	// cos = (91 + 0.03 + 2.5) / (sqrt(91) * sqrt(1+4+9.0601+16+30.25+36))
	wantCos := 93.53 / (math.Sqrt(91) * math.Sqrt(96.3101))
	if math.Abs(float64(s.Cosine)-wantCos) > 1e-6 {
		t.Errorf("cosine %v, want %v", s.Cosine, wantCos)
	}
	loose := TensorStats(got, want, Tolerance{Rtol: 0.2, Atol: 0})
	if !loose.Pass || loose.Mismatches != 0 || loose.WorstIndex != nil {
		t.Errorf("loose %+v", loose)
	}
	if s := TensorStats(tensor.Of([]int{3}, []float32{1, 2, 3}), want, DefaultTolerance); s.ShapeMatch || s.Pass {
		t.Errorf("shape mismatch passed: %+v", s)
	}
	if s := TensorStats(tensor.Of([]int{2}, []int64{1, 2}), tensor.Of([]int{2}, []int32{1, 2}), DefaultTolerance); s.DTypeMatch || s.Pass {
		t.Errorf("dtype mismatch passed: %+v", s)
	}
	nan := TensorStats(tensor.Of([]int{2}, []float32{float32(math.NaN()), 1}), tensor.Of([]int{2}, []float32{1, 1}), DefaultTolerance)
	if nan.Pass || !math.IsInf(float64(nan.MaxAbs), 1) || nan.WorstIndex[0] != 0 {
		t.Errorf("NaN %+v", nan)
	}
	js, err := json.Marshal(nan)
	if err != nil || !strings.Contains(string(js), `"maxAbs":"+Inf"`) {
		t.Errorf("json %s %v", js, err)
	}
	b := TensorStats(tensor.Of([]int{2}, []bool{true, true}), tensor.Of([]int{2}, []bool{true, false}), DefaultTolerance)
	if b.Pass || b.Mismatches != 1 || b.WorstIndex[0] != 1 {
		t.Errorf("bool %+v", b)
	}
}
