package kernels

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
)

// naiveGemm is the reference: a plain triple loop over the logical
// (un-transposed) indices, written independently of the packed kernel.
func naiveGemm(transA, transB bool, m, n, k int, alpha float64, a []float32, lda int, b []float32, ldb int, beta float64, c []float32, ldc int) []float64 {
	out := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for p := 0; p < k; p++ {
				var av, bv float32
				if transA {
					av = a[p*lda+i]
				} else {
					av = a[i*lda+p]
				}
				if transB {
					bv = b[j*ldb+p]
				} else {
					bv = b[p*ldb+j]
				}
				s += float64(av) * float64(bv)
			}
			v := alpha * s
			if beta != 0 {
				v += beta * float64(c[i*ldc+j])
			}
			out[i*n+j] = v
		}
	}
	return out
}

func randSlice(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = r.Float32()*2 - 1
	}
	return s
}

func TestSgemm(t *testing.T) {
	sizes := [][3]int{{1, 1, 1}, {7, 13, 5}, {65, 33, 129}, {4, 8, 3}, {5, 9, 300}, {130, 2050, 17}, {3, 1, 40}, {1, 17, 9}, {0, 3, 4}, {3, 4, 0}}
	r := rand.New(rand.NewSource(1))
	for _, sz := range sizes {
		m, n, k := sz[0], sz[1], sz[2]
		for _, ta := range []bool{false, true} {
			for _, tb := range []bool{false, true} {
				for _, ab := range [][2]float32{{1, 0}, {0.5, 1}, {-2, 0.25}} {
					name := fmt.Sprintf("%dx%dx%d/tA=%v/tB=%v/alpha=%v/beta=%v", m, n, k, ta, tb, ab[0], ab[1])
					t.Run(name, func(t *testing.T) {
						// Leading dimensions larger than the logical width
						// check that strides are honoured.
						lda := k + 3
						arows := m
						if ta {
							lda, arows = m+2, k
						}
						ldb := n + 1
						brows := k
						if tb {
							ldb, brows = k+5, n
						}
						ldc := n + 4
						a := randSlice(r, arows*lda+1)
						b := randSlice(r, brows*ldb+1)
						c := randSlice(r, m*ldc+1)
						if ab[1] == 0 {
							for i := range c {
								c[i] = float32(math.NaN()) // beta=0 must not read C
							}
						}
						want := naiveGemm(ta, tb, m, n, k, float64(ab[0]), a, lda, b, ldb, float64(ab[1]), c, ldc)
						Sgemm(ta, tb, m, n, k, ab[0], a, lda, b, ldb, ab[1], c, ldc)
						for i := 0; i < m; i++ {
							for j := 0; j < n; j++ {
								got := float64(c[i*ldc+j])
								if d := math.Abs(got - want[i*n+j]); d > 1e-4*(1+math.Abs(want[i*n+j])) || math.IsNaN(got) {
									t.Fatalf("C[%d,%d] = %v, want %v", i, j, got, want[i*n+j])
								}
							}
						}
					})
				}
			}
		}
	}
}

func TestDgemm(t *testing.T) {
	m, n, k := 7, 13, 5
	a := make([]float64, m*k)
	b := make([]float64, k*n)
	for i := range a {
		a[i] = float64(i%7) - 3
	}
	for i := range b {
		b[i] = float64(i%5) * 0.5
	}
	c := make([]float64, m*n)
	Dgemm(false, false, m, n, k, 1, a, k, b, n, 0, c, n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for p := 0; p < k; p++ {
				s += a[i*k+p] * b[p*n+j]
			}
			if c[i*n+j] != s {
				t.Fatalf("C[%d,%d] = %v, want %v", i, j, c[i*n+j], s)
			}
		}
	}
}

func benchSgemm(bm *testing.B, m, n, k int) {
	r := rand.New(rand.NewSource(1))
	a, b, c := randSlice(r, m*k), randSlice(r, k*n), make([]float32, m*n)
	bm.ResetTimer()
	for i := 0; i < bm.N; i++ {
		Sgemm(false, false, m, n, k, 1, a, k, b, n, 0, c, n)
	}
	bm.ReportMetric(2*float64(m)*float64(n)*float64(k)*float64(bm.N)/bm.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func BenchmarkSgemm(b *testing.B) { benchSgemm(b, 256, 256, 256) }

// BenchmarkSgemmConvShape is a ResNet-50 3×3 layer as im2col sees it
// (M=output channels, N=output pixels, K=C·kH·kW).
func BenchmarkSgemmConvShape(b *testing.B) { benchSgemm(b, 128, 784, 1152) }

// BenchmarkSgemmPackedB is the MatMul/Gemm case with constant weights: B
// packed once, A packed per call.
func BenchmarkSgemmPackedB(bm *testing.B) {
	m, n, k := 256, 256, 256
	r := rand.New(rand.NewSource(1))
	a, b, c := randSlice(r, m*k), randSlice(r, k*n), make([]float32, m*n)
	pb := PackB(false, k, n, b, n)
	bm.ResetTimer()
	for i := 0; i < bm.N; i++ {
		SgemmPackedB(false, m, 1, a, k, pb, 0, c, n, nil)
	}
	bm.ReportMetric(2*float64(m)*float64(n)*float64(k)*float64(bm.N)/bm.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// TestPackAPanel checks packAPanel (the SIMD build's packA4 for whole
// panels) against its definition, dst[p·MR + r] = alpha·op(A)[i0+r][p0+p]
// and zero past the rows, for both layouts, odd and even depths.
func TestPackAPanel(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	const m, k = 11, 23
	a := randSlice(r, m*k)
	for _, trans := range []bool{false, true} {
		lda := k
		if trans {
			lda = m
		}
		for _, rows := range []int{1, 3, MR} {
			for _, kb := range []int{0, 1, 2, 5, 16} {
				for _, alpha := range []float32{1, -0.75} {
					i0, p0 := 5, 4
					if trans {
						i0 = 2
					}
					dst := make([]float32, (kb+1)*MR)
					for i := range dst {
						dst[i] = 9
					}
					packAPanel(trans, a, lda, i0, rows, p0, kb, alpha, dst)
					for p := 0; p < kb; p++ {
						for c := 0; c < MR; c++ {
							var want float32
							if c < rows {
								if trans {
									want = alpha * a[(p0+p)*lda+i0+c]
								} else {
									want = alpha * a[(i0+c)*lda+p0+p]
								}
							}
							if got := dst[p*MR+c]; got != want {
								t.Fatalf("trans %v rows %d kb %d alpha %v: [%d][%d] = %v, want %v", trans, rows, kb, alpha, p, c, got, want)
							}
						}
					}
					for i := kb * MR; i < len(dst); i++ {
						if dst[i] != 9 {
							t.Fatalf("trans %v rows %d kb %d: wrote past the panel", trans, rows, kb)
						}
					}
				}
			}
		}
	}
}
