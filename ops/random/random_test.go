package random

import (
	"math"
	"reflect"
	"testing"

	"github.com/gort-dev/gort/ops/internal/optest"
	"github.com/gort-dev/gort/runtime/tensor"
)

// TestSeededReproducible: two nodes with the same seed give the same values;
// values follow the requested range, dtype and shape.
func TestSeededReproducible(t *testing.T) {
	c := optest.Call{Op: "RandomUniform", Opset: 22, Attrs: optest.A{"shape": []int64{3, 500}, "low": float32(-2), "high": float32(4), "seed": float32(7), "dtype": int(tensor.Double)}}
	a, b := optest.MustRun(t, c)[0], optest.MustRun(t, c)[0]
	if a.DType() != tensor.Double || !reflect.DeepEqual(a.Shape(), []int{3, 500}) || !reflect.DeepEqual(a.Data(), b.Data()) {
		t.Fatalf("seeded RandomUniform not reproducible or wrong type: %v", a)
	}
	sum := 0.0
	for _, v := range a.F64() {
		if v < -2 || v >= 4 {
			t.Fatalf("value %v outside [-2, 4)", v)
		}
		sum += v
	}
	if m := sum / 1500; math.Abs(m-1) > 0.2 {
		t.Errorf("mean %v, want about 1", m)
	}
	like := optest.MustRun(t, optest.Call{Op: "RandomNormalLike", Opset: 1, Attrs: optest.A{"mean": float32(10)}, In: []*tensor.Tensor{tensor.New(tensor.Float, 2, 1000)}})[0]
	sum = 0
	for _, v := range like.F32() {
		sum += float64(v)
	}
	if like.DType() != tensor.Float || math.Abs(sum/2000-10) > 0.2 {
		t.Errorf("RandomNormalLike %s mean %v, want float32 near 10", like.DType(), sum/2000)
	}
}

func TestBernoulliAndMultinomial(t *testing.T) {
	p := tensor.Of([]int{2, 3}, []float32{0, 1, 0, 1, 1, 0})
	got := optest.MustRun(t, optest.Call{Op: "Bernoulli", Opset: 22, Attrs: optest.A{"dtype": int(tensor.Bool)}, In: []*tensor.Tensor{p}})
	optest.Expect(t, "certain outcomes", got[0], tensor.Of([]int{2, 3}, []bool{false, true, false, true, true, false}))
	// Row 0 can only pick class 2, row 1 only class 0 (others have -inf log-probability).
	inf := float32(math.Inf(-1))
	lp := tensor.Of([]int{2, 3}, []float32{inf, inf, 0, 3, inf, inf})
	got = optest.MustRun(t, optest.Call{Op: "Multinomial", Opset: 7, Attrs: optest.A{"sample_size": 4, "dtype": int(tensor.Int64)}, In: []*tensor.Tensor{lp}})
	optest.Expect(t, "degenerate rows", got[0], tensor.Of([]int{2, 4}, []int64{2, 2, 2, 2, 0, 0, 0, 0}))
}
