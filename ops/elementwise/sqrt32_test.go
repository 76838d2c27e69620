package elementwise

import (
	"math"
	"testing"

	"github.com/chewxy/math32"
)

// TestSqrt32MatchesMath32: the float64 route gives math32.Sqrt's correctly
// rounded values (NaN for NaN) over a sweep of float32 bit patterns, both
// signs, subnormals, infinities and NaNs.
func TestSqrt32MatchesMath32(t *testing.T) {
	for i := uint32(0); i < 1<<32-1<<20; i += 4093 {
		x := math.Float32frombits(i)
		a, b := sqrt32(x), math32.Sqrt(x)
		if a != b && !(a != a && b != b) {
			t.Fatalf("%g: %g vs %g", x, a, b)
		}
	}
}
