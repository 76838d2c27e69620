package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSigmoid32Accuracy holds Sigmoid32 to the exact Sigmoid (float64)
// within 3 ulp wherever the result is a normal float32, and to 0 where the
// exact value is below the smallest normal (the flushed tail); ±Inf, ±0
// and NaN map as the function's definition says.
func TestSigmoid32Accuracy(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	xs := []float32{0, float32(math.Copysign(0, -1)), 1e-30, -1e-30, 0.5, -0.5, 87.33, -87.33, 87.34, -87.34, 88.8, -88.8, 100, -100, 1e30, -1e30}
	for i := 0; i < 200000; i++ {
		xs = append(xs, float32((r.Float64()*2-1)*r.Float64()*100))
	}
	worst := 0.0
	for _, x := range xs {
		got := Sigmoid32(x)
		exact := 1 / (1 + math.Exp(-float64(x)))
		if exact < 0x1p-126 {
			if got != 0 && math.Abs(float64(got)-exact) > 0x1p-126 {
				t.Fatalf("Sigmoid32(%g) = %g, want 0 or %g", x, got, exact)
			}
			continue
		}
		ulp := float64(math.Nextafter32(float32(exact), float32(math.Inf(1)))) - float64(float32(exact))
		if e := math.Abs(float64(got)-exact) / ulp; e > worst {
			worst = e
		}
	}
	if worst > 3 {
		t.Errorf("worst error %.2f ulp, want at most 3", worst)
	}
	t.Logf("worst error %.2f ulp over %d values", worst, len(xs))
	for x, want := range map[float32]float32{float32(math.Inf(1)): 1, float32(math.Inf(-1)): 0} {
		if got := Sigmoid32(x); got != want {
			t.Errorf("Sigmoid32(%g) = %g, want %g", x, got, want)
		}
	}
	if got := Sigmoid32(float32(math.NaN())); got == got {
		t.Errorf("Sigmoid32(NaN) = %g", got)
	}
}
