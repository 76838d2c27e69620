package nn

import (
	"math"
	"math/rand"
	"testing"

	"github.com/gort-dev/gort/ops/kernels"
)

// TestScaleShiftRelu: the fused BatchNormalization+Relu row equals
// kernels.ScaleShift followed by kernels.Activate(ActRelu) bit for bit, at
// every length around the vector width, with NaN, ±Inf and −0 results.
func TestScaleShiftRelu(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for n := 0; n <= 23; n++ {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(r.NormFloat64() * 4)
		}
		if n > 5 {
			x[1], x[3], x[5] = float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))
		}
		for _, p := range [][3]float32{{0.3, 1.7, -0.2}, {0, -2, 0.5}, {0, 0, float32(math.Copysign(0, -1))}} {
			got, want := make([]float32, n), make([]float32, n)
			scaleShiftRelu(got, x, p[0], p[1], p[2])
			kernels.ScaleShift(want, x, p[0], p[1], p[2])
			kernels.Activate(want, kernels.ActRelu, 0, 0)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("n=%d %v: y[%d] = %g, want %g", n, p, i, got[i], want[i])
				}
			}
		}
	}
}
