package kernels

import (
	"math"
	"math/rand"
	"testing"
)

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
