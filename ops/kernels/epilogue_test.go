package kernels

import (
	"math"
	"math/rand"
	"testing"
)

// TestEpilogueRow: every combination of bias, column bias, residual and
// activation, over lengths with and without a vector tail, gives exactly the
// scalar reference's bits (NaN, ±0 and ±Inf inputs included).
func TestEpilogueRow(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	special := []float32{float32(math.NaN()), float32(math.Copysign(0, -1)), 0, float32(math.Inf(1)), float32(math.Inf(-1))}
	for _, n := range []int{0, 3, 4, 7, 16, 37} {
		x0 := randSlice(r, n)
		for i := range x0 {
			x0[i] = 4*x0[i] - 2
			if r.Intn(5) == 0 {
				x0[i] = special[r.Intn(len(special))]
			}
		}
		cb, res := randSlice(r, n), randSlice(r, n)
		for act := ActNone; act <= ActTanh; act++ {
			for mask := 0; mask < 8; mask++ {
				hasBias := mask&1 != 0
				var c, rs []float32
				if mask&2 != 0 {
					c = cb
				}
				if mask&4 != 0 {
					rs = res
				}
				got, want := append([]float32(nil), x0...), append([]float32(nil), x0...)
				epilogueRow(got, hasBias, -0.3183099, c, rs, act, 0.2, 0.7)
				epilogueRowScalar(want, hasBias, -0.3183099, c, rs, act, 0.2, 0.7)
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
						t.Fatalf("n=%d act=%d bias=%v colBias=%v res=%v: x[%d] = %v, want %v", n, act, hasBias, c != nil, rs != nil, i, got[i], want[i])
					}
				}
			}
		}
	}
}
