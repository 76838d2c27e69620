package kernels

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
)

// TestLRN075 holds LRN075 to the formula in float64 (relative error of a
// few float32 roundings) on odd plane sizes, windows clipped at both ends,
// and even and odd window sizes; and checks the build's row functions
// (SIMD or scalar) bit for bit against the scalar ones.
func TestLRN075(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	for _, tc := range []struct{ C, inner, lo, hi int }{{7, 15, 2, 2}, {4, 18, 0, 1}, {5, 37, 1, 1}, {1, 9, 2, 2}, {6, 3, 1, 2}} {
		t.Run(fmt.Sprint(tc), func(t *testing.T) {
			x := randSlice(r, tc.C*tc.inner)
			for i := range x {
				x[i] *= 10
			}
			y := make([]float32, len(x))
			const bias, k = 1.5, 0.02
			LRN075(y, x, tc.C, tc.inner, tc.lo, tc.hi, bias, k)
			for c := 0; c < tc.C; c++ {
				for s := 0; s < tc.inner; s++ {
					var sq float64
					for cc := max(0, c-tc.lo); cc <= min(tc.C-1, c+tc.hi); cc++ {
						v := float64(x[cc*tc.inner+s])
						sq += v * v
					}
					i := c*tc.inner + s
					want := float64(x[i]) / math.Pow(bias+float64(float32(k))*sq, 0.75)
					if d := math.Abs(float64(y[i]) - want); d > 2e-6*math.Abs(want) {
						t.Fatalf("y[%d] = %v, want %v", i, y[i], want)
					}
				}
			}
			// The build's lrnPlane against the scalar reference, bit for bit.
			planes := [][]float32{x[:tc.inner], x[len(x)-tc.inner:], x[tc.C/2*tc.inner:]}
			got, ref := make([]float32, tc.inner), make([]float32, tc.inner)
			lrnPlane(got, x, planes, bias, k)
			lrnPlaneScalar(ref, x, planes, bias, k)
			sameF32(t, "lrnPlane", got, ref)
		})
	}
}

func sameF32(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for i := range got {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s[%d] = %v, want %v", what, i, got[i], want[i])
		}
	}
}

// BenchmarkLRN075 is AlexNet's first LRN (96 channels of 54×54, size 5).
func BenchmarkLRN075(bm *testing.B) {
	const C, inner = 96, 54 * 54
	r := rand.New(rand.NewSource(1))
	x, y := randSlice(r, C*inner), make([]float32, C*inner)
	for i := 0; i < bm.N; i++ {
		LRN075(y, x, C, inner, 2, 2, 1, 1e-4/5)
	}
}
