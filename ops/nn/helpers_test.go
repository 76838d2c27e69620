package nn

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/gort-dev/gort/ops/internal/optest"
	"github.com/gort-dev/gort/runtime/tensor"
)

// attrs maps attribute names to int, []int, float32 or string values.
type attrs map[string]any

// runOp builds opType at the given opset through the default registry (so
// the registration itself is exercised) and runs it once.
func runOp(t *testing.T, opType string, opset int, at attrs, nOut int, in ...*tensor.Tensor) []*tensor.Tensor {
	t.Helper()
	return optest.MustRun(t, optest.Call{Op: opType, Opset: opset, Attrs: optest.A(at), NOut: nOut, In: in})
}

func randT(r *rand.Rand, shape ...int) *tensor.Tensor {
	n := tensor.MustSize(shape)
	d := make([]float32, n)
	for i := range d {
		d[i] = float32(r.Intn(17)-8) / 4 // small dyadic values keep sums exact-ish
	}
	return tensor.Of(shape, d)
}

func assertClose(t *testing.T, got *tensor.Tensor, wantShape []int, want []float32, tol float64) {
	t.Helper()
	if fmt.Sprint(got.Shape()) != fmt.Sprint(wantShape) {
		t.Fatalf("shape %v, want %v", got.Shape(), wantShape)
	}
	g := got.F32()
	for i := range want {
		if d := math.Abs(float64(g[i] - want[i])); d > tol*(1+math.Abs(float64(want[i]))) || math.IsNaN(float64(g[i])) {
			t.Fatalf("element %d = %v, want %v", i, g[i], want[i])
		}
	}
}
