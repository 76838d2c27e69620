package kernels

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
)

// TestSgemmPackedBSmallM checks the few-rows path (m ≤ MR, gemv.go) and the
// first sizes past it against the naive reference: ragged n (panels with
// padding columns), odd and even k (the unpaired last depth), k past one
// sgemm block, transposed A with a wide leading dimension, beta 0 with C
// full of NaN, and an epilogue.
func TestSgemmPackedBSmallM(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for _, m := range []int{1, 2, 3, 4, 5} {
		for _, n := range []int{1, 7, 8, 9, 33} {
			for _, k := range []int{1, 2, 5, 300, 531} {
				for _, ta := range []bool{false, true} {
					for _, ab := range [][2]float32{{1, 0}, {-0.5, 1}, {2, 0.25}} {
						for _, withEp := range []bool{false, true} {
							name := fmt.Sprintf("%dx%dx%d/tA=%v/alpha=%v/beta=%v/ep=%v", m, n, k, ta, ab[0], ab[1], withEp)
							t.Run(name, func(t *testing.T) {
								lda, arows := k+3, m
								if ta {
									lda, arows = m+2, k
								}
								ldc := n + 2
								a := randSlice(r, arows*lda)
								b := randSlice(r, n*(k+1))
								c := randSlice(r, m*ldc)
								if ab[1] == 0 {
									for i := range c {
										c[i] = float32(math.NaN())
									}
								}
								want := naiveGemm(ta, true, m, n, k, float64(ab[0]), a, lda, b, k+1, float64(ab[1]), c, ldc)
								var ep *Epilogue
								if withEp {
									ep = &Epilogue{ColBias: randSlice(r, n), Act: ActRelu}
									for i := 0; i < m; i++ {
										for j := 0; j < n; j++ {
											want[i*n+j] = math.Max(0, want[i*n+j]+float64(ep.ColBias[j]))
										}
									}
								}
								pb := PackB(true, k, n, b, k+1)
								SgemmPackedB(ta, m, ab[0], a, lda, pb, ab[1], c, ldc, ep)
								for i := 0; i < m; i++ {
									for j := 0; j < n; j++ {
										got, w := float64(c[i*ldc+j]), want[i*n+j]
										if d := math.Abs(got - w); d > 1e-4*(1+math.Abs(w)) || math.IsNaN(got) {
											t.Fatalf("C[%d,%d] = %v, want %v", i, j, got, w)
										}
									}
									if j := i*ldc + n; j < len(c) && i < m-1 && !math.IsNaN(float64(c[j])) && ab[1] == 0 {
										t.Fatalf("C[%d,%d] past n was written: %v", i, n, c[j])
									}
								}
							})
						}
					}
				}
			}
		}
	}
}

// TestGemvPanel checks the build's gemvPanel (SIMD or scalar) against
// gemvPanelScalar bit for bit: both sum even and odd depths apart, in order.
func TestGemvPanel(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for _, k := range []int{1, 2, 3, 4, 17, 256, 1001} {
		x, b := randSlice(r, k), randSlice(r, NR*k)
		got, want := make([]float32, NR), make([]float32, NR)
		gemvPanel(x, b, got)
		gemvPanelScalar(x, b, want)
		sameF32(t, fmt.Sprintf("k=%d: y", k), got, want)
	}
}

// BenchmarkGemv is AlexNet's first fully connected layer at batch 1.
func BenchmarkGemv(bm *testing.B) {
	n, k := 4096, 9216
	r := rand.New(rand.NewSource(1))
	a, b, c := randSlice(r, k), randSlice(r, k*n), make([]float32, n)
	pb := PackB(true, k, n, b, k)
	bm.ResetTimer()
	for i := 0; i < bm.N; i++ {
		SgemmPackedB(false, 1, 1, a, k, pb, 0, c, n, nil)
	}
	bm.ReportMetric(4*float64(n)*float64(k)*float64(bm.N)/bm.Elapsed().Seconds()/1e9, "GB/s")
}

// TestSgemvB checks the unpacked few-rows product against the naive
// reference: m = 1…5, both layouts of B with a leading
// dimension wider than the matrix, odd and even n and k (the partial vector
// and the unpaired depths and rows of B), n past one column block, transposed
// A, beta 0 with C full of NaN, and an epilogue. Columns past n must not be
// written.
func TestSgemvB(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for _, m := range []int{1, 2, 3, 4, 5} {
		for _, nk := range [][2]int{{1, 1}, {3, 7}, {7, 5}, {8, 4}, {9, 13}, {33, 300}, {1031, 3}, {1030, 9}, {5, 531}} {
			n, k := nk[0], nk[1]
			for _, tb := range []bool{false, true} {
				for _, ta := range []bool{false, true} {
					for _, ab := range [][2]float32{{1, 0}, {-0.5, 1}, {2, 0.25}} {
						for _, withEp := range []bool{false, true} {
							name := fmt.Sprintf("%dx%dx%d/tA=%v/tB=%v/alpha=%v/beta=%v/ep=%v", m, n, k, ta, tb, ab[0], ab[1], withEp)
							t.Run(name, func(t *testing.T) {
								lda, arows := k+3, m
								if ta {
									lda, arows = m+2, k
								}
								ldb, brows := n+1, k
								if tb {
									ldb, brows = k+1, n
								}
								ldc := n + 2
								a, b, c := randSlice(r, arows*lda), randSlice(r, brows*ldb), randSlice(r, m*ldc)
								if ab[1] == 0 {
									for i := range c {
										c[i] = float32(math.NaN())
									}
								}
								want := naiveGemm(ta, tb, m, n, k, float64(ab[0]), a, lda, b, ldb, float64(ab[1]), c, ldc)
								var ep *Epilogue
								if withEp {
									ep = &Epilogue{ColBias: randSlice(r, n), Act: ActRelu}
									for i := 0; i < m; i++ {
										for j := 0; j < n; j++ {
											want[i*n+j] = math.Max(0, want[i*n+j]+float64(ep.ColBias[j]))
										}
									}
								}
								SgemvB(ta, tb, m, n, k, ab[0], a, lda, b, ldb, ab[1], c, ldc, ep)
								for i := 0; i < m; i++ {
									for j := 0; j < n; j++ {
										got, w := float64(c[i*ldc+j]), want[i*n+j]
										if d := math.Abs(got - w); d > 1e-4*(1+math.Abs(w)) || math.IsNaN(got) {
											t.Fatalf("C[%d,%d] = %v, want %v", i, j, got, w)
										}
									}
									if j := i*ldc + n; ab[1] == 0 && !math.IsNaN(float64(c[j])) {
										t.Fatalf("C[%d,%d] past n was written: %v", i, n, c[j])
									}
								}
							})
						}
					}
				}
			}
		}
	}
}

// TestGemvUnpackedKernels checks the build's dot4, axpy8 and axpy1 (SIMD or
// scalar) against their scalar references bit for bit, over lengths with
// and without a partial vector.
func TestGemvUnpackedKernels(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for _, l := range []int{0, 1, 3, 4, 5, 8, 17, 256, 1001} {
		x := randSlice(r, l)
		b := [4][]float32{randSlice(r, l+3), randSlice(r, l+1), randSlice(r, l), randSlice(r, l+2)}
		got, want := dot4(x, b[0], b[1], b[2], b[3]), dot4Scalar(x, b[0], b[1], b[2], b[3])
		sameF32(t, fmt.Sprintf("dot4 len %d: s", l), got[:], want[:])
		y0 := randSlice(r, l)
		gy, wy := append([]float32(nil), y0...), append([]float32(nil), y0...)
		b8 := [8][]float32{b[0], b[1], b[2], b[3], randSlice(r, l), randSlice(r, l+5), randSlice(r, l), randSlice(r, l+1)}
		x8 := [8]float32{0.5, -1.25, 3, 0.75, -2, 0.125, 1.5, -0.625}
		axpy8(gy, &b8, &x8)
		axpy8Scalar(wy, &b8, &x8)
		sameF32(t, fmt.Sprintf("axpy8 len %d: y", l), gy, wy)
		axpy1(gy, b[1], -0.3)
		axpy1Scalar(wy, b[1], -0.3)
		sameF32(t, fmt.Sprintf("axpy1 len %d: y", l), gy, wy)
	}
}

// BenchmarkGemvUnpacked compares, on AlexNet's fc6 (k 9216 → n 4096), the
// packed few-rows GEMM with SgemvB reading B in place, in both layouts, at
// m = 1 and 4.
func BenchmarkGemvUnpacked(bm *testing.B) {
	n, k := 4096, 9216
	r := rand.New(rand.NewSource(1))
	b := randSlice(r, k*n)
	for _, m := range []int{1, 4} {
		a, c := randSlice(r, m*k), make([]float32, m*n)
		pb := PackB(true, k, n, b, k)
		run := func(name string, f func()) {
			bm.Run(fmt.Sprintf("m=%d/%s", m, name), func(bm *testing.B) {
				for i := 0; i < bm.N; i++ {
					f()
				}
				bm.ReportMetric(4*float64(n)*float64(k)*float64(bm.N)/bm.Elapsed().Seconds()/1e9, "GB/s")
			})
		}
		run("packed", func() { SgemmPackedB(false, m, 1, a, k, pb, 0, c, n, nil) })
		run("inplace-transB", func() { SgemvB(false, true, m, n, k, 1, a, k, b, k, 0, c, n, nil) })
		run("inplace-B", func() { SgemvB(false, false, m, n, k, 1, a, k, b, n, 0, c, n, nil) })
	}
}
