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
		for act := range numActs {
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

// TestSgemmFusedEpilogue: the epilogues the micro-kernel applies as it
// stores a tile (row bias, residual, Relu or none) against the GEMM without
// an epilogue followed by epilogueRowScalar, bit for bit: shapes with
// partial tiles in both directions, more rows than an A block and more
// depth than a B block (the epilogue only on the last one), ldc and LdR
// wider than the product, and NaN, ±0 and negative sums for Relu.
func TestSgemmFusedEpilogue(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	for _, sh := range [][3]int{{4, 8, 3}, {7, 13, 5}, {sgemmMC + 6, 21, sgemmKC + 9}, {9, 2*NR + 3, 1}} {
		m, n, k := sh[0], sh[1], sh[2]
		const padC, padR = 3, 5
		ldc, ldr := n+padC, n+padR
		a, b := randSlice(r, m*k), randSlice(r, k*n)
		a[0], b[1] = float32(math.NaN()), 0 // row 0 all NaN; column 1 all ±0
		plain := make([]float32, m*ldc)
		Sgemm(false, false, m, n, k, 1, a, k, b, n, 0, plain, ldc)
		bias, res := randSlice(r, m), randSlice(r, m*ldr)
		bias[1] = float32(math.Copysign(0, -1))
		for _, act := range []Act{ActNone, ActRelu} {
			for mask := 0; mask < 4; mask++ {
				if mask == 0 && act == ActNone {
					continue // no epilogue
				}
				e := &Epilogue{Act: act, LdR: ldr}
				if mask&1 != 0 {
					e.RowBias = bias
				}
				if mask&2 != 0 {
					e.Residual = res
				}
				got := make([]float32, m*ldc)
				SgemmEpi(false, false, m, n, k, 1, a, k, b, n, 0, got, ldc, e)
				want := append([]float32(nil), plain...)
				for i := 0; i < m; i++ {
					var rs []float32
					if e.Residual != nil {
						rs = res[i*ldr : i*ldr+n]
					}
					epilogueRowScalar(want[i*ldc:i*ldc+n], e.RowBias != nil, bias[i], nil, rs, act, 0, 0)
				}
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
						t.Fatalf("%dx%dx%d act=%d mask=%d: C[%d] = %v, want %v", m, n, k, act, mask, i, got[i], want[i])
					}
				}
			}
		}
	}
}
