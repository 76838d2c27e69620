package kernels

import (
	"math/rand"
	"testing"
)

// The transformer block's GEMM shapes (seq 128, d 256, 4 heads of 64): the
// projections multiply by a constant (packed) B, the attention products
// Q·Kᵀ and P·V by a B computed at run time and packed on every call, either
// as is or transposed (K as a transB operand instead of a transposed copy;
// QKPack: B packed beforehand, so QK − QKPack is the per-call packing of B).
// Measured (wasm SIMD, Node): QK ≈ 31 GFLOP/s against ≈ 35 for a projection;
// QKT ≈ 27, since the transposed panel is packed one float at a time.
func benchGemmShape(bm *testing.B, m, n, k int, transB, packed bool) {
	r := rand.New(rand.NewSource(1))
	a, b, c := randSlice(r, m*k), randSlice(r, k*n), make([]float32, m*n)
	ldb := n
	if transB {
		ldb = k
	}
	pb := PackB(transB, k, n, b, ldb)
	bm.ResetTimer()
	for i := 0; i < bm.N; i++ {
		if packed {
			SgemmPackedB(false, m, 1, a, k, pb, 0, c, n, nil)
		} else {
			Sgemm(false, transB, m, n, k, 1, a, k, b, ldb, 0, c, n)
		}
	}
	bm.ReportMetric(2*float64(m)*float64(n)*float64(k)*float64(bm.N)/bm.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func BenchmarkSgemmAttnProj(b *testing.B)   { benchGemmShape(b, 128, 256, 256, false, true) }
func BenchmarkSgemmAttnQK(b *testing.B)     { benchGemmShape(b, 128, 128, 64, false, false) }
func BenchmarkSgemmAttnQKT(b *testing.B)    { benchGemmShape(b, 128, 128, 64, true, false) }
func BenchmarkSgemmAttnQKPack(b *testing.B) { benchGemmShape(b, 128, 128, 64, false, true) }
func BenchmarkSgemmAttnPV(b *testing.B)     { benchGemmShape(b, 128, 64, 128, false, false) }

// BenchmarkPackAProj is the per-call packing of a projection's activations
// (128×256, the whole left operand), to set against BenchmarkSgemmAttnProj.
func BenchmarkPackAProj(bm *testing.B) {
	r := rand.New(rand.NewSource(1))
	m, k := 128, 256
	a, dst := randSlice(r, m*k), make([]float32, m*k)
	for i := 0; i < bm.N; i++ {
		for i0 := 0; i0 < m; i0 += MR {
			packAPanel(false, a, k, i0, MR, 0, k, 1, dst[i0*k:(i0+MR)*k])
		}
	}
}
