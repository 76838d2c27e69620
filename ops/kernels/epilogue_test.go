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

// TestAddRow: the bias/residual-only epilogue row (vectorised in the SIMD
// build) against epilogueRowScalar, bit for bit, for every combination of
// terms and lengths around the 4-lane width, through Epilogue.apply on a
// block of C that is not at its origin (row and column offsets, ldc and LdR
// wider than the block).
func TestAddRow(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for n := 0; n <= 13; n++ {
		for _, terms := range [][2]bool{{true, false}, {false, true}, {true, true}} {
			const rows, ldc, ldr, i0, j0 = 3, 17, 19, 1, 2
			c := randSlice(r, (i0+rows)*ldc)
			c[ldc+j0] = float32(math.NaN())
			want := append([]float32(nil), c...)
			e := &Epilogue{LdR: ldr}
			if terms[0] {
				e.ColBias = randSlice(r, j0+n)
			}
			if terms[1] {
				e.Residual = randSlice(r, (i0+rows)*ldr)
			}
			if n > 0 {
				e.apply(c, ldc, i0, rows, j0, n)
			}
			for i := i0; i < i0+rows; i++ {
				var cb, res []float32
				if e.ColBias != nil {
					cb = e.ColBias[j0 : j0+n]
				}
				if e.Residual != nil {
					res = e.Residual[i*ldr+j0 : i*ldr+j0+n]
				}
				epilogueRowScalar(want[i*ldc+j0:i*ldc+j0+n], false, 0, cb, res, ActNone, 0, 0)
			}
			for i := range c {
				if math.Float32bits(c[i]) != math.Float32bits(want[i]) {
					t.Fatalf("n=%d terms=%v: element %d = %v, want %v", n, terms, i, c[i], want[i])
				}
			}
		}
	}
}
