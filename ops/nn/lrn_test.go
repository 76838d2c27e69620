package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// naiveLRN is the spec's formula element by element in float64.
func naiveLRN(x []float32, N, C, inner, size int, alpha, beta, bias float64) []float64 {
	lo, hi := (size-1)/2, (size-1)-(size-1)/2
	y := make([]float64, len(x))
	for n := 0; n < N; n++ {
		for c := 0; c < C; c++ {
			for s := 0; s < inner; s++ {
				var sq float64
				for cc := max(0, c-lo); cc <= min(C-1, c+hi); cc++ {
					v := float64(x[(n*C+cc)*inner+s])
					sq += v * v
				}
				i := (n*C+c)*inner + s
				y[i] = float64(x[i]) / math.Pow(bias+alpha/float64(size)*sq, beta)
			}
		}
	}
	return y
}

// TestLRNFloat32 holds the float32 path (and its beta = 0.75 shortcut) to
// the formula on asymmetric shapes, N > 1, even and odd window sizes.
func TestLRNFloat32(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	cases := []struct {
		N, C, H, W, size  int
		alpha, beta, bias float64
	}{
		{2, 7, 5, 3, 5, 1e-4, 0.75, 1},
		{1, 4, 2, 9, 2, 0.3, 0.75, 2},
		{3, 5, 4, 1, 3, 0.05, 0.5, 1.5},
		{1, 1, 3, 3, 1, 1e-4, 0.75, 1},
		{2, 6, 1, 7, 4, 2, 1.3, 0.5},
	}
	for _, tc := range cases {
		inner := tc.H * tc.W
		x := make([]float32, tc.N*tc.C*inner)
		for i := range x {
			x[i] = float32(r.Float64()*20 - 10)
		}
		y := make([]float32, len(x))
		lo, hi := (tc.size-1)/2, (tc.size-1)-(tc.size-1)/2
		lrnF32(y, x, tc.N, tc.C, inner, lo, hi, tc.bias, tc.alpha/float64(tc.size), tc.beta)
		want := naiveLRN(x, tc.N, tc.C, inner, tc.size, tc.alpha, tc.beta, tc.bias)
		for i := range y {
			if d := math.Abs(float64(y[i]) - want[i]); d > 1e-6*(1+math.Abs(want[i])) {
				t.Fatalf("%+v: y[%d] = %v, want %v", tc, i, y[i], want[i])
			}
		}
	}
}
