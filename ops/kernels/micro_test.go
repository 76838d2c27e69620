package kernels

import (
	"fmt"
	"math/rand"
	"testing"
)

func BenchmarkKernel4x8(bm *testing.B) {
	const kc = 256
	np := 32
	a := make([]float32, np*MR*kc)
	b := make([]float32, NR*kc)
	c := make([]float32, np*MR*NR)
	for i := range a {
		a[i] = float32(i%7) * 0.1
	}
	for i := range b {
		b[i] = float32(i%5) * 0.1
	}
	bm.ResetTimer()
	for it := 0; it < bm.N; it++ {
		for p := 0; p < np; p++ {
			kernel4x8(a[p*MR*kc:(p+1)*MR*kc], b, kc, c[p*MR*NR:(p+1)*MR*NR], NR, true)
		}
	}
	bm.ReportMetric(2*float64(np*MR*NR*kc)*float64(bm.N)/bm.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// TestKernel4x8Stride: the micro-kernels (4×8, 1×8 and 4×n) reading B rows ldb apart (a plain
// B, as the GEMM passes in the SIMD build) gives the bits it gives on the
// same rows packed NR apart, storing and accumulating, odd and even depths.
func TestKernel4x8Stride(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for _, k := range []int{1, 2, 5, 16} {
		const ldb, ldc = NR + 5, NR + 3
		a, b := randSlice(r, MR*k), randSlice(r, (k-1)*ldb+NR)
		packed := make([]float32, NR*k)
		for p := 0; p < k; p++ {
			copy(packed[p*NR:(p+1)*NR], b[p*ldb:p*ldb+NR])
		}
		for _, acc := range []bool{false, true} {
			c0 := randSlice(r, (MR-1)*ldc+NR)
			got, want := append([]float32(nil), c0...), append([]float32(nil), c0...)
			kernel4x8s(a, b, k, ldb, got, ldc, acc, nil, 0, 0)
			kernel4x8(a, packed, k, want, ldc, acc)
			sameF32(t, fmt.Sprint("kernel4x8/", k, "/", acc), got, want)
		}
		got, want := make([]float32, NR), make([]float32, NR)
		kernel1x8(a, b, k, ldb, got)
		kernel1x8(a, packed, k, NR, want)
		sameF32(t, fmt.Sprint("kernel1x8/", k), got, want)
		// The first n columns alone, against the full tile's.
		full := make([]float32, MR*NR)
		kernel4x8(a, packed, k, full, NR, false)
		for n := 1; n < NR; n++ {
			cols := make([]float32, MR*NR)
			kernel4xn(a, b, k, ldb, n, cols)
			for i := 0; i < MR; i++ {
				sameF32(t, fmt.Sprint("kernel4xn/", k, "/", n, "/row", i), cols[i*NR:i*NR+n], full[i*NR:i*NR+n])
			}
		}
	}
}
